"""Claims about the seeds in words, decided against the runs' own values (README failure 15).

A report says how two arms compare seed by seed without writing the per-seed numbers: "2 up, 3 down,
2 exact ties (s10, s13)", "tied on seeds 2 and 8", "within 0.3pp on every seed", "AERO trails GRPO on
all four seeds", "(seed 3 is the exception)", "the only seed on which GRPO beats DAPO", "the lowest seed,
Dr. GRPO seed 5", "Dr. GRPO ties itself on seeds 8 and 9". Each is one reading here: the subject arm
(named last before the words, else the paragraph's) against the other arm (named after the comparison
word, else the other of the paragraph's pair, else the baseline), on the metric the sentence names (else
the paragraph's, else the primary one), decided by ``runs.<arm>.s<seed>.<metric>`` of every locked seed.
Where the analysis lacks any of those values the claim is listed as undecided, never guessed from the
means.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from audit.comparisons import OBJECT_BEFORE, Said, metric_at

_WORD_NUM = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_K = r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten)"
_SEEDS = r"(?P<seeds>s?\d+(?:\s*(?:,\s*(?:and\s+)?|\band\s+|&\s*)s?\d+)*)"
# "2 exact ties (s10, s13)", "tied on seeds 2 and 8", "Dr. GRPO ties itself on seeds 8 and 9"
TIES = re.compile(r"(?:\b(?P<k>" + _K + r")\s+)?(?:exact\s+)?\b(?:ties|tied|tie)\b(?P<self>\s+itself)?"
                   r"(?P<other>\s+(?:with\s+)?[^,;:\d()]{1,30}?)??(?:\s+(?:on|at|in|for))?\s*\(?\s*(?:seeds?\s*)?"
                   + _SEEDS + r"(?!\d|\.\d)", re.I)
# "Dr. GRPO is ahead on seed 100 only", "lower on seeds 4 and 6", "above GRPO on seeds 11 and 16": the subject
# against the other arm on each seed named (and on no other, with "only")
_ON_SEEDS = re.compile(r"\b(?P<w>(?:is\s+|was\s+)?(?:ahead(?:\s+of)?|behind|above|below|higher(?:\s+than)?|"
                       r"lower(?:\s+than)?|better(?:\s+than)?|worse(?:\s+than)?|beats?|(?:wins?|won)(?:\s+over)?|"
                       r"trails?|(?:loses?|lost)(?:\s+to)?))(?P<other>\s+[^,;:\d()]{1,30}?)??\s+(?:on|in|for)\s+"
                       r"(?:seeds?\s*)" + _SEEDS + r"(?!\d|\.\d)(?P<only>\s+only\b)?", re.I)
_UP_WORDS = ("ahead", "above", "higher", "better", "beat", "win", "won")

# "2 up, 3 down": on how many seeds the subject is above / below the other arm
UP_DOWN = re.compile(r"\b(?P<up>" + _K + r")\s+up\s*(?:,|and|/)\s*(?P<down>" + _K + r")\s+down\b", re.I)
# "within 0.3pp on every seed": the largest per-seed difference, in points of the metric's unit
_WITHIN = re.compile(r"\bwithin\s+(?:about\s+|roughly\s+|~\s*)?(?P<b>\d+(?:\.\d+)?)\s*(?:pp|percentage\s+points?|points?)"
                     r"\s+(?:on|across|in|for)\s+(?:every|each|all)\b(?:\s+(?:of\s+)?(?:the\s+)?\w+)?\s+seeds?\b", re.I)
# "AERO trails GRPO on all four seeds": the subject worse than the other arm on every seed
_LOSES_ALL = re.compile(r"\b(?:trails?|trailed|lags?(?:\s+behind)?|lagged(?:\s+behind)?|underperform(?:s|ed)?|"
                        r"(?:is|was|are|were|falls?|fell|stays?)\s+(?:behind|below))\b(?P<other>\s+[^,;:.\d]{1,30}?)?"
                        r"\s+(?:on|across|in|for)\s+(?:all|every|each)\b(?:\s+(?:of\s+)?(?:the\s+)?\w+)?\s+seeds?\b", re.I)
# "(seed 3 is the exception)" after a claim on all but one seed
_EXCEPTION = re.compile(r"\bseed\s+(?P<s>\d+)\s+(?:is|was)\s+the\s+(?:one\s+|only\s+|single\s+)?exception\b", re.I)
_WIN_WORDS = re.compile(r"\b(?:beats?|beat|wins?|won|outperforms?|outperformed|ahead|above|higher|better|"
                        r"(?:does|did)\s+so)\b", re.I)
# "the only seed on which GRPO beats DAPO"
_ONLY_SEED = re.compile(r"\bthe\s+only\s+seed\s+(?:on\s+which|where|in\s+which|for\s+which)\s+(?P<x>[^,;:\d]{1,30}?)\s+"
                        r"(?:beats?|outperforms?|wins\s+(?:over|against)|is\s+ahead\s+of|is\s+better\s+than)\s+"
                        r"(?P<y>[^,;:\d]{1,30}?)(?=[\s,;:.)]|$)", re.I)
# "the lowest seed, Dr. GRPO seed 5": that run is the arm's lowest (highest, best, worst) on the metric
_EXTREME = re.compile(r"\bthe\s+(?P<w>lowest|highest|best|worst|weakest|strongest)\s+(?:single\s+)?(?:seed|run)\b"
                      r"\s*[,:(]?\s*(?:is\s+|was\s+)?(?P<arm>[^,;:\d]{1,30}?)\s+(?:seed|s)\s*(?P<s>\d+)\b", re.I)
_VERSUS = re.compile(r"\b(?:against|vs\.?|versus|compared\s+(?:with|to)|relative\s+to)\s+\W*[^\s,;:.]*\W*$", re.I)
_HINTS = ("tie", " up", "within", "seed")


@dataclass(frozen=True)
class _Scope:
    """What every claim of one sentence is decided with."""

    sent: str
    arms: list          # (offset, arm) named in the sentence
    metrics: list       # (offset, metric) named in the sentence
    subject: str | None
    pair: tuple | None
    carried: str | None
    baseline: str
    facts: object


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _WORD_NUM[word.lower()]


def _seeds_in(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text)]


def _per_seed(facts, arm: str, metric: str) -> dict[int, float] | None:
    """{seed: value} of ``arm`` on every locked seed, or None where the analysis lacks one."""
    out = {}
    for s in facts.seeds:
        v = facts.values.get(f"runs.{arm}.s{s}.{metric}")
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return None
        out[s] = float(v)
    return out or None


def _diffs(facts, x: str, y: str, metric: str) -> dict[int, float] | None:
    """{seed: x − y} on every locked seed (0.0 for a tie to the last bit a per-item mean can differ by)."""
    vx, vy = _per_seed(facts, x, metric), _per_seed(facts, y, metric)
    if vx is None or vy is None:
        return None
    return {s: 0.0 if math.isclose(vx[s], vy[s], rel_tol=1e-9, abs_tol=1e-12) else vx[s] - vy[s] for s in vx}


def _arms(sc: _Scope, start: int, other: tuple[int, int] | None = None) -> tuple[str | None, str | None]:
    """The subject (named last before ``start``, else the paragraph's; in an aside opened after it, the
    sentence's first arm: "GSPO never beats GRPO (tied on seeds 2 and 8, lower on seeds 4 and 6)") and the
    other arm (named inside the ``other`` span, else the other of the pair, else the baseline)."""
    before = [(pos, a) for pos, a in sc.arms if pos < start]
    x = before[-1][1] if before else sc.subject
    obj = None
    if before:
        gap = sc.sent[before[-1][0]:start]
        k = gap.rfind("(")
        if k >= 0 and ")" not in gap[k:]:
            x = before[0][1]
        elif len(before) > 1 and _VERSUS.search(sc.sent, before[-2][0], before[-1][0]):
            x = before[-2][1]   # "Dr. GRPO against GRPO on each seed: 2 up, 3 down"
        elif OBJECT_BEFORE.search(sc.sent, max(0, before[-1][0] - 24), before[-1][0]):
            obj = before[-1][1]   # "It tied GRPO on seed 1, won on seeds 2 and 3": GRPO is what it won against
            x = before[-2][1] if len(before) > 1 and not OBJECT_BEFORE.search(
                sc.sent, max(0, before[-2][0] - 24), before[-2][0]) else sc.subject
    named = [a for pos, a in sc.arms if other and other[0] <= pos < other[1]] or ([obj] if obj and obj != x else [])
    pair = sc.pair
    y = named[0] if named else (pair[1] if pair and x == pair[0] else pair[0] if pair and x == pair[1]
                                else sc.baseline if x != sc.baseline else None)
    return x, (y if y != x else None)


def _where(x: str, y: str, metric: str) -> str:
    return f"runs.{x}.s<seed>.{metric} against runs.{y}.s<seed>.{metric}"


def _pair_diffs(sc: _Scope, m: re.Match, undecided: list, other: tuple[int, int] | None = None) -> tuple | None:
    """(x, y, metric, per-seed differences x − y) a claim at ``m`` is about; None, with the claim
    recorded as undecided, where its arms or their runs cannot be told."""
    x, y = _arms(sc, m.start(), other)
    metric = metric_at(sc.metrics, m.start(), m.end(), sc.carried, sc.facts.primary)
    d = _diffs(sc.facts, x, y, metric) if x and y else None
    if d is None:
        undecided.append((m.start(), m.group(0)))
        return None
    return x, y, metric, d


def _ties(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    decided = 0
    for m in TIES.finditer(sent):
        seeds = _seeds_in(m.group("seeds"))
        if not seeds or any(s not in sc.facts.seeds for s in seeds):
            continue   # "tied at 0.55" is a value, "ties on seeds 2 and 9" naming an unknown seed is a seed fact
        x, y = _arms(sc, m.start(), (m.start("other"), m.end("other")) if m.group("other") else None)
        metric = metric_at(sc.metrics, m.start(), m.end(), sc.carried, sc.facts.primary)
        if m.group("self"):   # "Dr. GRPO ties itself on seeds 8 and 9": the arm's own runs are equal
            vals = _per_seed(sc.facts, x, metric) if x else None
            if vals is None:
                undecided.append((m.start(), m.group(0)))
                continue
            decided += 1
            if any(not math.isclose(vals[s], vals[seeds[0]], rel_tol=1e-9, abs_tol=1e-12) for s in seeds):
                got = ", ".join(f"seed {s}: {vals[s]:.4g}" for s in seeds)
                out.append(Said(m.start(), m.group(0), f"equal runs of {x} on seeds {seeds} (runs.{x}.s<seed>.{metric})",
                                f"'{' '.join(m.group(0).split())}' contradicts the runs: {x} has {got} on {metric}"))
            continue
        d = _diffs(sc.facts, x, y, metric) if x and y else None
        if d is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        tied = [s for s, v in d.items() if v == 0.0]
        k = _count(m.group("k")) if m.group("k") else None
        if any(s not in tied for s in seeds) or (k is not None and k != len(tied)):
            out.append(Said(m.start(), m.group(0), f"ties on seeds {tied} ({_where(x, y, metric)})",
                            f"'{' '.join(m.group(0).split())}' contradicts the runs: {x} and {y} tie on "
                            f"{'seeds ' + ', '.join(map(str, tied)) if tied else 'no seed'} on {metric} ({_where(x, y, metric)})"))
    return decided


def _up_down(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    decided = 0
    for m in UP_DOWN.finditer(sent):
        got = _pair_diffs(sc, m, undecided)
        if got is None:
            continue
        x, y, metric, d = got
        decided += 1
        up, down = sum(v > 0 for v in d.values()), sum(v < 0 for v in d.values())
        if (_count(m.group("up")), _count(m.group("down"))) != (up, down):
            out.append(Said(m.start(), m.group(0), f"{up} up, {down} down ({_where(x, y, metric)})",
                            f"'{m.group(0)}' contradicts the runs: {x} is above {y} on {up} seeds and below on "
                            f"{down} on {metric} ({_where(x, y, metric)})"))
    return decided


def _within(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    decided = 0
    for m in _WITHIN.finditer(sent):
        x, y = _arms(sc, m.start())
        metric = metric_at(sc.metrics, m.start(), m.end(), sc.carried, sc.facts.primary)
        scale = {"fraction": 100.0, "percent": 1.0}.get(
            sc.facts.units.get(metric, "fraction" if metric == sc.facts.primary else "") or "")
        d = _diffs(sc.facts, x, y, metric) if x and y and scale else None
        if d is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        seed, worst = max(d.items(), key=lambda kv: abs(kv[1]))
        if abs(worst) * scale > float(m.group("b")) + 1e-9:
            out.append(Said(m.start(), m.group(0), f"|{x} − {y}| = {abs(worst) * scale:.2f} points on seed {seed} "
                            f"(runs.{x}.s{seed}.{metric})", f"'{m.group(0)}' contradicts the runs: on seed {seed} "
                            f"{x} and {y} differ by {abs(worst) * scale:.2f} points on {metric}"))
    return decided


def _loses_all(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    decided = 0
    for m in _LOSES_ALL.finditer(sent):
        got = _pair_diffs(sc, m, undecided, (m.start("other"), m.end("other")) if m.group("other") else None)
        if got is None:
            continue
        x, y, metric, d = got
        decided += 1
        sign = 1 if sc.facts.higher.get(metric, True) else -1
        held = [s for s, v in d.items() if sign * v >= 0]
        if held:
            out.append(Said(m.start(), m.group(0), f"{x} worse than {y} on every seed (runs.{x}.s{held[0]}.{metric})",
                            f"'{x} {' '.join(m.group(0).split())}' contradicts the runs: on seed {held[0]} {x} is "
                            f"not behind {y} on {metric} ({_where(x, y, metric)})"))
    return decided


def _on_seeds(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    """"above GRPO on seeds 21 and 105, below it on seeds 63 and 84": each seed named; a second claim with no
    arm named since the first keeps the first's two arms."""
    decided, prev = 0, None
    for m in _ON_SEEDS.finditer(sent):
        seeds = _seeds_in(m.group("seeds"))
        if any(s not in sc.facts.seeds for s in seeds):
            continue   # a seed the plan does not have is a seed fact (audit.claims), not a comparison
        if prev is not None and not any(prev[2] <= pos < m.end() for pos, _ in sc.arms):
            x, y = prev[:2]
        else:
            x, y = _arms(sc, m.start(), (m.start("other"), m.end("other")) if m.group("other") else None)
        prev = (x, y, m.end())
        metric = metric_at(sc.metrics, m.start(), m.end(), sc.carried, sc.facts.primary)
        d = _diffs(sc.facts, x, y, metric) if x and y else None
        if d is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        word = m.group("w").lower()
        up = any(w in word for w in _UP_WORDS)
        sign = (1 if up else -1) * (1 if sc.facts.higher.get(metric, True) or not _quality(word) else -1)
        held = [s for s, v in d.items() if sign * v > 0]
        if any(s not in held for s in seeds) or (m.group("only") and sorted(held) != sorted(seeds)):
            out.append(Said(m.start(), m.group(0), f"{x} {'above' if sign > 0 else 'below'} {y} on seeds {held} "
                            f"({_where(x, y, metric)})", f"'{x} {' '.join(m.group(0).split())}' contradicts the runs: "
                            f"{x} is {'above' if sign > 0 else 'below'} {y} on {'seeds ' + ', '.join(map(str, held)) if held else 'no seed'} "
                            f"on {metric} ({_where(x, y, metric)})"))
    return decided


def _quality(word: str) -> bool:
    """Whether the word says better/worse (then the metric's direction decides the sign), not above/below."""
    return not any(w in word for w in ("above", "below", "higher", "lower"))


def _exception(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    """"Dr. GRPO does so on three of the four (seed 3 is the exception)": the subject beats the other arm on
    every seed but the one named."""
    decided = 0
    for m in _EXCEPTION.finditer(sent) if _WIN_WORDS.search(sent) else ():
        got = _pair_diffs(sc, m, undecided)
        if got is None:
            continue
        x, y, metric, d = got
        decided += 1
        sign = 1 if sc.facts.higher.get(metric, True) else -1
        lost = [s for s, v in d.items() if sign * v <= 0]
        if lost != [int(m.group("s"))]:
            out.append(Said(m.start(), m.group(0), f"{x} not ahead of {y} on seeds {lost} ({_where(x, y, metric)})",
                            f"'{m.group(0)}' contradicts the runs: {x} is not ahead of {y} on "
                            f"{'seeds ' + ', '.join(map(str, lost)) if lost else 'no seed'} on {metric}"))
    return decided


def _only_seed(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    decided = 0
    for m in _ONLY_SEED.finditer(sent):
        xs = [a for pos, a in sc.arms if m.start("x") <= pos < m.end("x")]
        ys = [a for pos, a in sc.arms if m.start("y") <= pos < m.end("y")]
        metric = metric_at(sc.metrics, m.start(), m.end(), sc.carried, sc.facts.primary)
        d = _diffs(sc.facts, xs[0], ys[0], metric) if len(xs) == 1 and len(ys) == 1 and xs != ys else None
        if d is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        sign = 1 if sc.facts.higher.get(metric, True) else -1
        won = [s for s, v in d.items() if sign * v > 0]
        if len(won) != 1:
            out.append(Said(m.start(), m.group(0), f"{xs[0]} ahead of {ys[0]} on seeds {won} ({_where(xs[0], ys[0], metric)})",
                            f"'{' '.join(m.group(0).split())}' contradicts the runs: {xs[0]} beats {ys[0]} on "
                            f"{len(won)} seeds on {metric} ({_where(xs[0], ys[0], metric)})"))
    return decided


def _extreme(sent: str, sc: _Scope, out: list, undecided: list) -> int:
    decided = 0
    for m in _EXTREME.finditer(sent):
        named = [a for pos, a in sc.arms if m.start("arm") <= pos < m.end("arm")]
        metric = metric_at(sc.metrics, m.start(), m.end(), sc.carried, sc.facts.primary)
        vals = _per_seed(sc.facts, named[0], metric) if len(named) == 1 else None
        seed = int(m.group("s"))
        if vals is None or seed not in vals:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        word = m.group("w").lower()
        up = word in ("highest", "strongest") or (word in ("best", "worst") and
                                                  (word == "best") == sc.facts.higher.get(metric, True))
        want = (max if up else min)(vals, key=vals.get)
        if not math.isclose(vals[seed], vals[want], rel_tol=1e-9, abs_tol=1e-12):
            out.append(Said(m.start("s"), m.group(0), f"seed {want} ({'highest' if up else 'lowest'}: runs."
                            f"{named[0]}.s{want}.{metric} = {vals[want]:.4g})",
                            f"'{' '.join(m.group(0).split())}' contradicts the runs: {named[0]}'s {word} seed on "
                            f"{metric} is seed {want} ({vals[want]:.4g}; runs.{named[0]}.s{seed}.{metric} = {vals[seed]:.4g})"))
    return decided


# Each reader with the words one of which its every match holds (tried first: most sentences name a seed and
# hold none of them; README failure 10, a pattern per sentence must not cost the prose shape its speed).
_READERS = ((_ties, ("tie",)), (_up_down, (" up",)), (_within, ("within",)),
            (_loses_all, ("trail", "lag", "underperform", "behind", "below")),
            (_on_seeds, ("ahead", "behind", "above", "below", "higher", "lower", "better", "worse", "beat", "win",
                         "won", "trail", "lose", "lost")),
            (_exception, ("exception",)), (_only_seed, ("only seed",)),
            (_extreme, ("lowest", "highest", "best", "worst", "weakest", "strongest")))


def per_seed_claims(sent: str, arms: list[tuple[int, str]], metrics: list[tuple[int, str]], subject: str | None,
                    pair: tuple[str, str] | None, carried: str | None, baseline: str,
                    facts) -> tuple[list[Said], int, list[tuple[int, str]]]:
    """Every claim about the seeds in ``sent`` (ties, "n up, m down", "within B pp on every seed", "trails
    ... on all seeds", "seed N is the exception", "the only seed on which", "the lowest seed, X seed N")
    that the runs contradict.

    Args:
        sent: the sentence. arms / metrics: (offset, name) named in it. subject: the paragraph's arm.
        pair: the paragraph's (arm, baseline). carried: the paragraph's metric. baseline: the plan's.
        facts: :class:`audit.claims.Facts` (values, seeds, units, directions).
    Returns:
        (contradicted claims, how many were decided, (offset, words) of those the runs cannot decide).
    Example:
        >>> from types import SimpleNamespace as NS
        >>> f = NS(seeds=[1, 2], primary="acc", units={}, higher={}, values={
        ...     "runs.a.s1.acc": 0.5, "runs.a.s2.acc": 0.6, "runs.b.s1.acc": 0.5, "runs.b.s2.acc": 0.7})
        >>> said, n, _ = per_seed_claims("tied on seed 2", [], [], "a", ("a", "b"), None, "b", f)
        >>> n, said[0].expected
        (1, 'ties on seeds [1] (runs.a.s<seed>.acc against runs.b.s<seed>.acc)')
    """
    out: list[Said] = []
    undecided: list[tuple[int, str]] = []
    low = sent.lower()
    if not facts.seeds or not any(h in low for h in _HINTS):
        return out, 0, undecided
    sc = _Scope(sent, arms, metrics, subject, pair, carried, baseline, facts)
    decided = sum(read(sent, sc, out, undecided) for read, words in _READERS if any(w in low for w in words))
    return out, decided, undecided
