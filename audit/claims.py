"""Claims a report makes in words and labels, checked against the lock and the analysis (README failure 15).

Numbers are not the only thing a hand-typed card can get wrong. This module checks what the
words say where the analysis can decide it:

- seeds: a heading or header cell naming a run ("`gspo`, seed 37", "| seed 3 |") and a seed
  list ("seeds 11, 23, 37 and 53", "8 seeds (11, 23, ...)") name only registered seeds;
- label facts: "n=500", "(of 1,319)", "the same 500 held-out problems" equal the locked n;
- verdict words written without a pin (SURVIVES, DISAPPEARS, ...) equal the analysis' verdict
  of the contrast the sentence (or its paragraph) is about;
- "significant" / "not significant" / "no difference" agree with the planned test (adjusted
  when the sentence says so);
- "X ... lower/higher than ... Y" agrees with the two numbers written;
- "within about N points" holds for the contrast's difference.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from audit.numbers import ParsedFile
from audit.prose import paragraphs, tex_paragraphs, tex_text
from audit.words import Vocabulary, sentences

_SEED_ONE = re.compile(r"(?<![A-Za-z_])(?<!RNG )(?<!rng )(?<!random )(?<!bootstrap )seed\s*[=:#]?\s*(\d+)\b"
                       r"(?!\s*(?:,|and)\s*\d)", re.I)
_SEED_LIST = re.compile(r"\bseeds?\b[^.;:\d]{0,40}?[(\[]?\s*((?:\d+(?:,\s+|\s+and\s+|\s*&\s*|,\s*and\s+))+\d+"
                        r"(?:\s*,?\s*(?:\.\.\.|…))?)", re.I)
_N_FACT = re.compile(r"\bn\s*=\s*(\d[\d,]*)\b(?!\s*(?:seeds?|runs?|arms?|pairs?|adapters?)\b)|\(\s*of\s+(\d[\d,]*)\s*\)|(?<![\d.,])(\d[\d,]*)\s+(?:(?:held[- ]out|test|[A-Z][A-Za-z0-9]*)"
                     r"\s+){0,3}(?:problems|items|questions|puzzles|examples|boards)\b", re.I)
_HELDOUT_WORDS = re.compile(r"held[- ]?out|\btest\b|split|items|problems|questions|puzzles|accuracy|GSM8K|"
                            r"\beval", re.I)
_SIGNIF = re.compile(r"\b(not\s+(?:statistically\s+)?significant|non-?significant|insignificant|"
                     r"(?:statistically\s+)?significant|no\s+(?:significant\s+)?difference)\b", re.I)
_ADJUSTED = re.compile(r"adjust|correct|\bBH\b|Holm|Bonferroni|multiplicity|family", re.I)
_COMPARE = re.compile(r"\b(higher|lower|greater|smaller|larger|below|above)\s+(?:than\s+)?", re.I)
_NUMBER = re.compile(r"(?<![\w.])[-−+]?\d+(?:\.\d+)?(?![\w.]*\d)")
_WITHIN = re.compile(r"\bwithin\s+(?:about\s+|roughly\s+|around\s+|~\s*)?(\d+(?:\.\d+)?)\s*(?:pp|percentage points?|"
                     r"points?)\b", re.I)


@dataclass(frozen=True)
class Claim:
    """One finding about words: where, what the records say, what was written, and why it is wrong."""

    location: str
    expected: str
    found: str
    message: str


@dataclass(frozen=True)
class Facts:
    """What the lock and the analysis decide: seeds, n, verdicts, significance per contrast."""

    seeds: tuple[int, ...]
    heldout_n: float | None
    verdict_names: frozenset
    verdicts: dict        # contrast id -> verdict
    values: dict          # value id -> number
    alpha: float
    n_arms: int = 0
    run_seeds: frozenset = frozenset()
    secondary: dict = dataclasses.field(default_factory=dict)   # "<contrast>.<metric>" -> verdict


def facts_of(prereg: dict, analysis: dict, run_seeds=()) -> Facts:
    plan = prereg.get("analysis") or {}
    names = {r.get("verdict") for r in plan.get("verdicts") or [] if isinstance(r, dict)}
    verdicts = {k: v.get("verdict") for k, v in ((analysis.get("verdicts") or {}).get("contrasts") or {}).items()
                if isinstance(v, dict)}
    secondary = {k: v.get("verdict") for k, v in ((analysis.get("verdicts") or {}).get("secondary") or {}).items()
                 if isinstance(v, dict)}
    names |= set(verdicts.values()) | set(secondary.values())
    values = {k: v.get("value") for k, v in (analysis.get("values") or {}).items() if isinstance(v, dict)}
    alpha = (plan.get("multiplicity") or {}).get("alpha", 0.05)
    return Facts(tuple(s for s in prereg.get("seeds") or [] if isinstance(s, int)),
                 (prereg.get("dataset") or {}).get("heldout_n"), frozenset(n for n in names if n), verdicts,
                 values, float(alpha), len(prereg.get("arms") or {}), frozenset(run_seeds),
                 secondary)


def _line_of(offs: list[int], nums: list[int], pos: int) -> int:
    i = max(k for k, o in enumerate(offs) if o <= pos)
    return nums[i]


def check_file(f: ParsedFile, vocab: Vocabulary, facts: Facts) -> list[Claim]:
    """Every contradicted claim of one report file."""
    out: list[Claim] = []
    _seed_labels(f, facts, out)
    paras = tex_paragraphs(f.lines) if f.path.endswith(".tex") else paragraphs(f.lines)
    for para in paras:
        _paragraph_claims(f, para, vocab, facts, out)
    _n_labels_in_tables(f, facts, out)
    _table_verdicts(f, vocab, facts, out)
    return out


def _table_verdicts(f: ParsedFile, vocab: Vocabulary, facts: Facts, out: list[Claim]) -> None:
    """A verdict word in a table row: the verdict of the contrast its row names (an arm: against the baseline)."""
    header: list[str] = []
    for i, line in enumerate(f.lines, 1):
        if not line.lstrip().startswith("|") or re.fullmatch(r"[\s|:-]+", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if _is_header(f.lines, i):
            header = cells
            continue
        row_arms = list(dict.fromkeys(a for _, a in vocab.arms_in(cells[0] if cells else "")))
        for ci, cell in enumerate(cells[1:], 1):
            arms = row_arms or list(dict.fromkeys(a for _, a in vocab.arms_in(header[ci] if ci < len(header) else "")))
            cid = _contrast_id(_sentence_pair(arms, None, vocab), facts)
            want = facts.verdicts.get(cid) if cid else None
            if not want:
                continue
            for m in re.finditer(r"\b[A-Z][A-Z_]{3,}\b", cell):
                word = m.group(0)
                if word in facts.verdict_names and word != want and "<!--" not in cell[m.end():m.end() + 6]:
                    out.append(Claim(f"{f.path}:{i}", f"{want} (verdicts.contrasts.{cid})", word,
                                     f"verdict word {word} contradicts the analysis: {cid} is {want}"))


def _registered(facts: Facts, seed: int) -> bool:
    """A locked seed, or the seed of a run the records hold (an exploratory run is check 11's to label)."""
    return not facts.seeds or seed in facts.seeds or seed in facts.run_seeds


def _seed_labels(f: ParsedFile, facts: Facts, out: list[Claim]) -> None:
    """Headings and table header cells that name one seed ("seed 37", "| seed 3 |")."""
    fenced = False
    for i, line in enumerate(f.lines, 1):
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
        if fenced or not (re.match(r"\s{0,3}#", line) or _is_header(f.lines, i)
                          or re.search(r"\\(?:title|(?:sub)*section)\*?\{", line)):
            continue
        for m in _SEED_ONE.finditer(line):
            seed = int(m.group(1))
            if not _registered(facts, seed):
                out.append(Claim(f"{f.path}:{i}", f"one of the registered seeds {list(facts.seeds)} (lock.seeds)",
                                 m.group(0), f"seed {seed} is not a registered seed (lock.seeds = "
                                 f"{list(facts.seeds)})"))
    for m in f.mentions:   # a bare number under a "Seed" column ("| 3 | 0.431 |")
        if m.kind == "table" and m.label_fact and m.label_fact[0] == "seed" and not _is_header(f.lines, m.line) \
                and not _registered(facts, int(m.label_fact[1])):
            out.append(Claim(f"{f.path}:{m.line}", f"one of the registered seeds {list(facts.seeds)} (lock.seeds)",
                             f"seed {m.text}", f"seed {m.text} is not a registered seed (lock.seeds = "
                             f"{list(facts.seeds)})"))


def _is_header(lines: list[str], i: int) -> bool:
    return (lines[i - 1].lstrip().startswith("|") and i < len(lines)
            and re.fullmatch(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*", lines[i]) is not None)


def _n_labels_in_tables(f: ParsedFile, facts: Facts, out: list[Claim]) -> None:
    """"(n=500)", "(of 1,319)" in table rows and headers, and in LaTeX captions."""
    for i, line in enumerate(f.lines, 1):
        if line.lstrip().startswith("|"):
            _n_facts(line, facts, f"{f.path}:{i}", out)
        elif f.path.endswith(".tex") and "\\caption" in line:
            _n_facts(tex_text(line), facts, f"{f.path}:{i}", out)


def n_facts(text: str) -> list[re.Match]:
    """The statements of the held-out n in ``text`` ("n=500", "(of 1,319)", "162 held-out puzzles")."""
    out = []
    for m in _N_FACT.finditer(text):
        near = text[max(0, m.start() - 60):m.end() + 60]
        if m.group(1) and (not _HELDOUT_WORDS.search(near) or re.search(r"\bseeds?\b", text[m.end():m.end() + 24], re.I)):
            continue   # "n=3 seeds", "at n=3 (bounded data)": not the held-out n
        out.append(m)
    return out


def _n_facts(text: str, facts: Facts, where, out: list[Claim]) -> None:
    """Each held-out n stated in ``text`` against the lock; ``where``: a location, or a function of
    the statement's offset in ``text`` giving one."""
    if not facts.heldout_n:
        return
    for m in n_facts(text):
        at = where(m.start()) if callable(where) else where
        raw = m.group(1) or m.group(2) or m.group(3)
        n = float(raw.replace(",", ""))
        if n != float(facts.heldout_n):
            out.append(Claim(at, f"{facts.heldout_n:g} (lock.dataset.heldout_n)", m.group(0).strip(),
                             f"n written as {raw}, the lock says {facts.heldout_n:g} (lock.dataset.heldout_n)"
                             + ("; the number differs in its last digits from the locked n"
                                if abs(n - float(facts.heldout_n)) <= 2 else "")))


def _paragraph_claims(f, para, vocab: Vocabulary, facts: Facts, out: list[Claim]) -> None:
    nums, text, offs = para
    pair = None
    for s_start, s_end in sentences(text):
        sent = text[s_start:s_end]
        where = f"{f.path}:{_line_of(offs, nums, s_start)}"
        arms = list(dict.fromkeys(a for _, a in vocab.arms_in(sent)))
        pair = _sentence_pair(arms, pair, vocab)
        for m in _SEED_LIST.finditer(sent):
            _seed_list(m, facts, f"{f.path}:{_line_of(offs, nums, s_start + m.start(1))}", out)
        for m in _SEED_ONE.finditer(sent):
            seed = int(m.group(1))
            if not _registered(facts, seed):
                out.append(Claim(f"{f.path}:{_line_of(offs, nums, s_start + m.start())}",
                                 f"one of the registered seeds {list(facts.seeds)}", m.group(0),
                                 f"seed {seed} is not a registered seed (lock.seeds = {list(facts.seeds)})"))
        for m in _COUNTS.finditer(sent):
            _count_fact(m, facts, f"{f.path}:{_line_of(offs, nums, s_start + m.start())}", out)
        _n_facts(sent, facts, lambda pos, s0=s_start: f"{f.path}:{_line_of(offs, nums, s0 + pos)}", out)
        cid = _contrast_id(pair, facts)
        if cid is None:
            continue
        _verdict_words(sent, s_start, cid, facts, f, para, out, vocab)
        _significance(sent, s_start, cid, facts, f, para, out)
        _within(sent, cid, facts, where, out)
        _comparisons(sent, s_start, f, para, out)


_COUNTS = re.compile(r"(?<![\d.,×x*])(\d+)\s+(?:(?:registered|confirmatory|trained|locked)\s+)?"
                     r"(adapters|runs|checkpoints|arms|seeds)\b", re.I)


def _count_fact(m: re.Match, facts: Facts, where: str, out: list[Claim]) -> None:
    """"40 adapters", "5 arms", "8 seeds": the number of runs, arms and seeds the records hold."""
    n, what = int(m.group(1)), m.group(2).lower()
    key = {"adapters": "study.n_runs", "runs": "study.n_runs", "checkpoints": "study.n_runs",
           "arms": "lock.arms", "seeds": "lock.seeds"}[what]
    if key == "study.n_runs":
        want = facts.values.get("study.n_runs")
    elif key == "lock.seeds":
        want = len(facts.seeds) if facts.seeds else None
    else:
        want = facts.n_arms
    if isinstance(want, (int, float)) and n != want and not (key == "study.n_runs" and n < want
                                                            and what != "adapters"):
        out.append(Claim(where, f"{want:g} ({key})", m.group(0), f"{n} {what} written, the records hold "
                         f"{want:g} ({key}{'' if key == 'study.n_runs' else ' count'})"))


def _sentence_pair(arms: list[str], prev, vocab: Vocabulary):
    if len(arms) >= 2:
        return (arms[0], arms[1])
    if len(arms) == 1 and arms[0] != vocab.baseline:
        return (arms[0], vocab.baseline)
    return prev


def _contrast_id(pair, facts: Facts) -> str | None:
    if not pair:
        return None
    for c in (f"{pair[0]}-{pair[1]}", f"{pair[1]}-{pair[0]}"):
        if c in facts.verdicts or f"contrasts.{c}.diff_mean" in facts.values:
            return c
    return None


def _seed_list(m: re.Match, facts: Facts, where: str, out: list[Claim]) -> None:
    seeds = [int(x) for x in re.findall(r"\d+", m.group(1))]
    bad = [s for s in seeds if not _registered(facts, s)]
    if bad:
        out.append(Claim(where, f"seeds from lock.seeds = {list(facts.seeds)}", m.group(1).strip(),
                         f"seed list names {', '.join(map(str, bad))}, not registered (lock.seeds = "
                         f"{list(facts.seeds)})"))


def _verdict_words(sent, s_start, cid, facts: Facts, f, para, out, vocab: Vocabulary) -> None:
    want = facts.verdicts.get(cid)
    if not want:
        return
    nums, text, offs = para
    metrics = [x for _, x in vocab.metrics_in(sent) if x != vocab.primary]
    if metrics:   # a secondary metric's verdict: verdicts.secondary.<contrast>.<metric>
        want = facts.secondary.get(f"{cid}.{metrics[0]}")
        if not want:
            return
    for m in re.finditer(r"\b[A-Z][A-Z_]{3,}\b", sent):
        word = m.group(0)
        line = _line_of(offs, nums, s_start + m.start())
        if word not in facts.verdict_names or re.search(rf"{word}\W{{0,4}}<!--\s*verdict\s*:", f.lines[line - 1]):
            continue
        if word != want:
            out.append(Claim(f"{f.path}:{line}", f"{want} (verdicts.{'secondary' if metrics else 'contrasts'}."
                             f"{cid}{'.' + metrics[0] if metrics else ''})", word,
                             f"verdict word {word} contradicts the analysis: {cid} is {want}"))


def _is_significant(cid: str, facts: Facts, adjusted: bool) -> bool | None:
    rej = facts.values.get(f"contrasts.{cid}.reject")
    p = facts.values.get(f"contrasts.{cid}.p_adjusted" if adjusted else f"contrasts.{cid}.p")
    if adjusted and isinstance(rej, bool):
        return rej
    if isinstance(p, (int, float)):
        return p < facts.alpha
    return rej if isinstance(rej, bool) else None


def _significance(sent, s_start, cid, facts: Facts, f, para, out) -> None:
    nums, text, offs = para
    for m in _SIGNIF.finditer(sent):
        where = f"{f.path}:{_line_of(offs, nums, s_start + m.start())}"
        claim = m.group(1).lower()
        negative = claim.startswith(("not", "non", "insig", "no "))
        adjusted = bool(_ADJUSTED.search(sent))
        truth = _is_significant(cid, facts, adjusted)
        if truth is None or truth != negative:
            continue
        p = facts.values.get(f"contrasts.{cid}.p_adjusted" if adjusted else f"contrasts.{cid}.p")
        said = "significant" if truth else "not significant"
        out.append(Claim(where, f"{said} ({'adjusted ' if adjusted else ''}p = {p:.3g}, alpha {facts.alpha:g})",
                         m.group(1), f"'{m.group(1)}' contradicts the analysis: {cid} is {said} "
                         f"({'contrasts.' + cid + ('.p_adjusted' if adjusted else '.p')} = {p:.3g})"))


def _within(sent, cid, facts: Facts, where, out) -> None:
    d = facts.values.get(f"contrasts.{cid}.diff_mean")
    for m in _WITHIN.finditer(sent):
        if isinstance(d, (int, float)) and abs(d) * 100 > float(m.group(1)):
            out.append(Claim(where, f"|difference| = {abs(d) * 100:.2f} points (contrasts.{cid}.diff_mean = {d:.4g})",
                             m.group(0), f"'{m.group(0)}' contradicts the analysis: the difference is "
                             f"{abs(d) * 100:.2f} points"))


def _comparisons(sent, s_start, f, para, out) -> None:
    """"0.221 ... lower than GRPO's 0.416": the two numbers written on either side must agree."""
    nums, text, offs = para
    for m in _COMPARE.finditer(sent):
        before = [x for x in _NUMBER.finditer(sent[:m.start()])]
        after = _NUMBER.search(sent, m.end())
        if not before or after is None:
            continue
        a = float(before[-1].group(0).replace("−", "-"))
        b = float(after.group(0).replace("−", "-"))
        word = m.group(1).lower()
        says_lower = word in ("lower", "smaller", "below")
        if (a < b) != says_lower and a != b:
            out.append(Claim(f"{f.path}:{_line_of(offs, nums, s_start + m.start())}",
                             f"{a:g} is {'lower' if a < b else 'higher'} than {b:g}", f"'{word} than'",
                             f"claim '{word} than' contradicts the numbers written: {a:g} is "
                             f"{'lower' if a < b else 'higher'} than {b:g}"))
