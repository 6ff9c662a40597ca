"""Comparisons written in words, checked against the analysis (README failure 15).

A hand-typed card says how arms compare without always writing the numbers: "GRPO collapses
below the base model", "falls below the SFT baseline", "stays above the base model", "DAPO is
better than GRPO", "GSPO outperforms Dr. GRPO", "within about 1 point of GRPO". Each such claim
names two arms (the subject, written before the comparison word or scoped by the sentence's
paragraph or heading, and the arm right after it) and, where the words name one, a metric (else
the one named earlier in the paragraph if the analysis has it for both arms, else the primary
metric: "trained for 30 steps. It collapses below the base model" is about the primary metric; a
sentence about another quantity, "GRPO's training reward is higher than SFT's", is not). The analysis decides it by the
sign of the difference subject − other: the contrast's ``diff_mean`` in either order (a contrast
written "SFT − GRPO" is the negated ``grpo-sft``), else the two arms' means. "better"/"worse"
follow the metric's declared direction ("lower ZVF is better").

A claim the analysis contradicts is an error; one it cannot decide (no such metric or value) is
listed as undecided in check 10's notes; a comparison with a number rather than a second arm is no
claim between arms. Where numbers are written on both
sides of the comparison word and no arm follows it ("0.221, lower than 0.416"), the two numbers
must agree with the word (the tracer checks each number against its source).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from audit.words import folded, matches_at

# The comparison word, the direction it claims for subject − other (+1 above, -1 below), and
# whether it is about "better"/"worse" (then the metric's declared direction decides the sign).
_WORDS = (
    (r"(?:higher|greater|larger|more)\s+than|above", 1, False),
    (r"(?:lower|smaller|less)\s+than|below", -1, False),
    (r"better\s+than|beats?|outperform(?:s|ed)?|surpass(?:es|ed)?|exceed(?:s|ed)?|improves?\s+(?:on|over|upon)|"
     r"(?:is|are|stays?|was|were)\s+ahead\s+of", 1, True),
    (r"worse\s+than|underperform(?:s|ed)?|trails?|lags?\s+behind|falls?\s+behind|(?:is|are|stays?|was|were)\s+behind",
     -1, True),
)
_COMPARE = re.compile(r"\b(" + "|".join(f"(?:{w})" for w, _, _ in _WORDS) + r")\b", re.I)
# A word every comparison of _WORDS contains. An ASCII sentence with none of them has no comparison
# (most sentences): the pattern, tried at every offset, cost ~50 us a sentence (README failure 10).
_COMPARE_HINTS = ("than", "above", "below", "beat", "outperform", "underperform", "surpass", "exceed", "improve", "ahead",
                  "trail", "lag", "behind")


def _may_compare(sent: str) -> bool:
    """False only where :data:`_COMPARE` cannot match: an ASCII sentence holding no hint word (a
    non-ASCII one is always searched: case folding of e.g. "ſ" is the pattern's, not ``str.lower``'s)."""
    if not sent.isascii():
        return True
    low = sent.lower()
    return any(h in low for h in _COMPARE_HINTS)
# "over"/"under" are left out: "gain over GRPO", "under the same budget" say nothing about the sign.
_NEGATED = re.compile(r"\b(?:not|never|no\s+longer|neither|nor|cannot)\b|n't\b", re.I)
# A quantity that is no declared metric: a comparison about it is not one of the primary metric's
# ("GRPO's training reward is higher than SFT's"), so without a named metric it is left undecided.
_OTHER_QUANTITY = re.compile(r"\b(?:reward|loss|entropy|length|tokens?|KL|time|cost|latency|memory|throughput|"
                             r"variance|speed|perplexity|temperature|learning\s+rate|gradient|norm|budget|compute|"
                             r"hours?|GPUs?|samples?|rollouts?|parameters?|data|wall[- ]?clock)s?\b", re.I)
# Numbers written on both sides of one of these words must agree with it ("more than" is left out:
# "10.7 points more than SFT (48.8%)" compares a difference with a mean).
_NUM_COMPARE = re.compile(r"\b(higher|lower|greater|smaller|larger|below|above)\s+(?:than\s+)?", re.I)
_NUM_COMPARE_WORDS = ("higher", "lower", "greater", "smaller", "larger", "below", "above")   # what each match opens with
_NUMBER = re.compile(r"(?<![\w.])[-−+]?\d+(?:\.\d+)?(?![\w.]*\d)")
# a seed named before a number, or a list of seeds up to it ("seeds 2 and 8", "s10, s13")
_SEED_NAMED = re.compile(r"\bseeds?\s*[#:=]?\s*(?:\d+\s*(?:,|and|&|or)\s*)*$", re.I)
_LEVEL_AFTER = re.compile(r"\s*%\s*(?:CI|confidence|credible|interval|bootstrap)", re.I)
_DIGIT = re.compile(r"\d")
WITHIN = re.compile(r"\bwithin\s+(?:about\s+|roughly\s+|around\s+|~\s*)?(\d+(?:\.\d+)?|one|two|three|half\s+a)\s*"
                     r"(pp|percentage\s+points?|points?)\b", re.I)
_WORD_NUMBERS = {"one": 1.0, "two": 2.0, "three": 3.0}


@dataclass(frozen=True)
class Said:
    """One comparison a sentence makes: where (offset in the sentence), the words, and what is wrong."""

    at: int
    words: str
    expected: str
    message: str


def _direction(word: str) -> tuple[int, bool]:
    for rx, sign, quality in _WORDS:
        if re.fullmatch(rx, word, re.I):
            return sign, quality
    return 0, False


def difference(facts, x: str, y: str, metric: str) -> tuple[float, str] | None:
    """``x − y`` on ``metric`` as the analysis gives it, with the value ids it comes from.

    Args:
        facts: :class:`audit.claims.Facts` (values, primary metric).
        x: the subject arm. y: the other arm. metric: the metric.
    Returns:
        (difference, the ids it was read from), or None when the analysis has neither the
        contrast (either order) nor both arms' means.
    Example:
        >>> from types import SimpleNamespace as NS
        >>> difference(NS(values={"contrasts.grpo-sft.diff_mean": 0.1}, primary="acc"), "sft", "grpo", "acc")
        (-0.1, 'contrasts.grpo-sft.diff_mean = 0.1, negated')
    """
    leaf = "diff_mean" if metric == facts.primary else f"{metric}.diff_mean"
    for a, b, sign in ((x, y, 1), (y, x, -1)):
        key = f"contrasts.{a}-{b}.{leaf}"
        v = facts.values.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return sign * v, f"{key} = {v:.4g}" + ("" if sign == 1 else ", negated")
    for leaf in (f"{metric}.mean", metric):   # a training metric's arm value has no ".mean"
        mx, my = (facts.values.get(f"arms.{a}.{leaf}") for a in (x, y))
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (mx, my)):
            return mx - my, f"arms.{x}.{leaf} = {mx:.4g}, arms.{y}.{leaf} = {my:.4g}"
    return None


def metric_at(metrics: list[tuple[int, str]], at: int, end: int, carried: str | None, primary: str) -> str:
    """The metric a claim at ``at``..``end`` of a sentence is about: the last one named before it,
    else one named right after it ("within 1 point on accuracy"), else the paragraph's, else the
    primary metric (a metric named later in another clause is not this claim's)."""
    before = [m for pos, m in metrics if pos < at]
    after = [m for pos, m in metrics if end <= pos <= end + 40]
    return before[-1] if before else after[0] if after else carried or primary


def arm_comparisons(sent: str, arms: list[tuple[int, str]], metrics: list[tuple[int, str]], subject: str | None,
                    carried_metric: str | None, facts) -> tuple[list[Said], set[int], list[tuple[int, str]]]:
    """Every comparison between two arms in ``sent`` the analysis contradicts.

    Args:
        sent: the sentence. arms: (offset, arm) named in it. metrics: (offset, metric) named in it.
        subject: the arm the paragraph or heading is about (for "It falls below the base model").
        carried_metric: the metric named earlier in the paragraph. facts: :class:`audit.claims.Facts`.
    Returns:
        (contradicted claims, offsets of the comparison words the analysis decided, (offset, words)
        of the comparisons between two arms it cannot decide).
    """
    out: list[Said] = []
    decided: set[int] = set()
    undecided: list[tuple[int, str]] = []
    if not _may_compare(sent):
        return out, decided, undecided
    ratios = [(r.start(), r.end()) for r in _ratios(sent)]   # "2x higher than": the ratio claim's
    for m in _COMPARE.finditer(sent):
        if any(a <= m.start() <= b for a, b in ratios):
            decided.add(m.start())
            continue
        if _ONE_SEED_BEFORE.search(sent, max(0, m.start() - 60), m.start()) or _ON_SEEDS_AFTER.match(sent, m.end()):
            continue   # "the only seed on which GRPO beats DAPO": a claim about seeds (audit.seed_claims), not the means
        sign, quality = _direction(m.group(1))
        y = _arm_right_after(sent, m.end(), arms)
        before_pos = [pos for pos, _ in arms if pos < m.start()]
        before = [a for pos, a in arms if pos < m.start()]
        x = before[-1] if before else subject
        if not sign or y is None or x is None or x == y:
            continue
        named = metric_at(metrics, m.start(), m.end(), None, "")
        d = None
        other = None if named else _OTHER_QUANTITY.search(sent)
        for metric in [named] if named else [] if other else dict.fromkeys(k for k in (carried_metric, facts.primary)
                                                                             if k):
            d = difference(facts, x, y, metric)
            if d is not None:
                break
        if d is None:
            undecided.append((m.start(), f"{x} {' '.join(m.group(1).split())} {y}"))
            continue
        if quality and not facts.higher.get(metric, True):
            sign = -sign
        lead = sent[max(0, m.start() - 25):m.start()]
        negated = bool(_NEGATED.search(lead))
        if negated and re.search(r"significant", lead, re.I):
            continue   # "not significantly higher": a claim about significance (checked as such), not the sign
        decided.add(m.start())
        diff, ids = d
        wrong = (diff * sign > 0) if negated else (diff * sign <= 0)   # "not below": difference >= 0
        if not wrong or (negated and quality and _not_significant(facts, x, y, metric)):
            continue   # "Neither variant beats GRPO" where no contrast is significant: a claim of the evidence, true
        truth = _truth(m.group(1), diff, quality, facts.higher.get(metric, True))
        said = ("not " if negated else "") + " ".join(m.group(1).split())
        at = before_pos[-1] if before else m.start()   # the claim starts at its subject
        out.append(Said(at, said, f"{x} {truth} {y} on {metric} ({ids})",
                        f"'{said}' contradicts the analysis: {x} is {truth} {y} on {metric} "
                        f"(difference {x} − {y} = {diff:+.4g}; {ids})"))
    return out, decided, undecided


def _not_significant(facts, x: str, y: str, metric: str) -> bool:
    """Whether the analysis' test of x against y (either order) on ``metric`` does not reject: its
    ``reject`` (the registered, adjusted decision) on the primary metric, else its p at the plan's alpha."""
    for c in (f"{x}-{y}", f"{y}-{x}"):
        pre = f"contrasts.{c}" if metric == facts.primary else f"contrasts.{c}.{metric}"
        rej, p = facts.values.get(f"{pre}.reject"), facts.values.get(f"{pre}.p")
        if isinstance(rej, bool):
            return not rej
        if isinstance(p, (int, float)) and not isinstance(p, bool):
            return p >= getattr(facts, "alpha", 0.05)
    return False


def _truth(word: str, diff: float, quality: bool, higher_is_better: bool) -> str:
    """What the analysis says, in the words of the claim's own family: "below"/"above",
    "lower than"/"higher than", or "worse than"/"better than"."""
    if diff == 0:
        return "equal to"
    up = diff > 0
    if quality:
        return "better than" if up == higher_is_better else "worse than"
    if re.fullmatch(r"above|below", word, re.I):
        return "above" if up else "below"
    return "higher than" if up else "lower than"


_CLAUSE_BREAK = re.compile(r"[,;]|\bwhat\b")
_ON_SEEDS_AFTER = re.compile(r"[^,;.\d]{0,30}?\b(?:on|in|for)\s+seeds?\s*\d", re.I)   # "above GRPO on seeds 11 and 16"
_ONE_SEED_BEFORE = re.compile(r"\bseeds?\s+(?:on\s+which|where|in\s+which|for\s+which)\b[^,;.]{0,40}$", re.I)


def _arm_right_after(sent: str, end: int, arms: list[tuple[int, str]]) -> str | None:
    """The arm the comparison word compares with: the next one named, with no number and no clause
    break in between ("below the base model", not "below 0.30 on the base model's problems", nor "below
    what this study can resolve, and AERO's deficit")."""
    for pos, a in arms:
        if pos >= end:
            return a if pos - end <= 40 and not _DIGIT.search(sent[end:pos]) and not _CLAUSE_BREAK.search(sent[end:pos]) \
                else None
    return None



def number_comparisons(sent: str, skip: set[int]) -> list[Said]:
    """"0.221 ... lower than GRPO's 0.416": the numbers written on either side must agree (a word the
    analysis already decided, at an offset in ``skip``, is not checked twice)."""
    out = []
    for m in matches_at(_NUM_COMPARE, sent, folded(sent), _NUM_COMPARE_WORDS) if _DIGIT.search(sent) else ():
        if m.start() in skip:
            continue
        before = list(_NUMBER.finditer(sent[:m.start()]))
        after = _NUMBER.search(sent, m.end())
        if not before or after is None or _CLAUSE_BREAK.search(sent, m.end(), after.start()):
            continue   # "below what four seeds resolve, and AERO's −1.05": no number is compared with
        if any(_SEED_NAMED.search(sent, max(0, n.start() - 30), n.start()) for n in (before[-1], after)):
            continue   # "Seed 5 is the only seed where the gap is below 2 points", "lower on seeds 4 and 6": seeds
        if _LEVEL_AFTER.match(sent, before[-1].end()):
            continue   # "the whole 95% CI is below −1pp": the interval's level is not what is compared
        a = float(before[-1].group(0).replace("−", "-"))
        b = float(after.group(0).replace("−", "-"))
        word = m.group(1).lower()
        says_lower = word in ("lower", "smaller", "below")
        if a != b and (a < b) != says_lower:
            rel = "lower" if a < b else "higher"
            out.append(Said(m.start(), f"'{word} than'", f"{a:g} is {rel} than {b:g}",
                            f"claim '{word} than' contradicts the numbers written: {a:g} is {rel} than {b:g}"))
    return out


def within_claims(sent: str, cid: str, metrics: list[tuple[int, str]], carried: str | None,
                  facts) -> tuple[list[Said], list[tuple[int, str]]]:
    """"within about 1 point": the contrast's difference on the claim's metric, in points of its
    unit (a fraction's point is 0.01, a percent's is 1); a count or unbounded metric cannot decide it.
    Returns (contradicted claims, (offset, words) of the claims it cannot decide)."""
    out, undecided = [], []
    for m in WITHIN.finditer(sent):
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        leaf = "diff_mean" if metric == facts.primary else f"{metric}.diff_mean"
        d = facts.values.get(f"contrasts.{cid}.{leaf}")
        unit = facts.units.get(metric, "fraction" if metric == facts.primary else None)
        scale = {"fraction": 100.0, "percent": 1.0}.get(unit or "")
        if not isinstance(d, (int, float)) or isinstance(d, bool) or scale is None:
            undecided.append((m.start(), m.group(0)))
            continue
        raw = m.group(1).lower()
        bound = 0.5 if raw.startswith("half") else _WORD_NUMBERS.get(raw) or float(raw)
        points = abs(d) * scale
        if points > bound:
            out.append(Said(m.start(), m.group(0), f"|difference| = {points:.2f} points (contrasts.{cid}.{leaf} = "
                            f"{d:.4g}, a {unit})", f"'{m.group(0)}' contradicts the analysis: the difference is "
                            f"{points:.2f} points"))
    return out, undecided


# "GSPO wins on all four seeds", "DAPO won over GRPO on every seed", "comes out ahead in each of the 8 seeds":
# the subject is better than the other arm on each seed (group "other": an arm named after "over"/"against").
# "GSPO beats GRPO on every seed", "is ahead of GRPO on all five seeds" (README failure 15)
_SEED_WINS = re.compile(r"\b(?:wins?|won|beats?|outperforms?|outperformed|(?:is|was|are|were|comes?\s+out|came\s+out)\s+ahead)\b"
                        r"(?P<other>\s+(?:(?:over|against|of)\s+)?[^,;:.\d]{1,30}?)?"
                        r"\s+(?:on|across|in|for)\s+(?:all|every|each)\b(?:\s+one)?(?:\s+of)?(?:\s+the)?(?:\s+(?:\w+|\d+))?\s+seeds?\b",
                        re.I)
# "... on every seed except seed 4", "on all seeds but seeds 2 and 5": the seeds the every-seed claim leaves out
_EXCEPT_SEEDS = re.compile(r"\s*,?\s*(?:except|but|apart\s+from|other\s+than|save)\s+(?:for\s+)?(?:on\s+)?seeds?\s+"
                           r"(?P<seeds>\d+(?:\s*(?:,\s*(?:and\s+)?|\band\s+|&\s*)\d+)*)\b(?![.,]\d)", re.I)
# Two arms as the subject of one claim: "GSPO and DAPO are ahead of GRPO on every seed" (a plural verb)
_JOINED = re.compile(r"[^,;:()\d]{1,30}?(?:\s+and\s+|\s*&\s*|,\s+and\s+)")
_PLURAL = re.compile(r"\s*(?:both\s+|each\s+|all\s+)?(?:are|were|win|beat|outperform|come)\b", re.I)


# "GSPO wins on 3 of 4 seeds", "DAPO was ahead in two of the three seeds": how many seeds an arm wins
_SEED_K_OF_N = re.compile(r"\b(?:wins?|won|(?:is|was|comes?\s+out|came\s+out)\s+ahead)\b(?P<other>\s+(?:over|against)\s+[^,;:.\d]{1,30}?)?"
                          r"\s+(?:on|in)\s+(?P<k>\d+|one|two|three|four|five|six)\s+(?:of|out\s+of)\s+(?:the\s+)?"
                          r"(?P<n>\d+|two|three|four|five|six)\s+seeds?\b", re.I)
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# "That sounds like a win for Dr. GRPO, and on four of the five seeds it was": a count of seeds with the
# sentence's one direction word away from it (wins, or with a loss word only, losses)
_K_OF_N_SEEDS = re.compile(r"(?P<other>(?!x)x)?\b(?:on|in)\s+(?P<k>\d+|one|two|three|four|five|six)\s+(?:of|out\s+of)\s+(?:the\s+)?"
                           r"(?P<n>\d+|two|three|four|five|six)\s+seeds?\b", re.I)
_WIN_WORD = re.compile(r"\b(?:wins?|won|beats?|beat|outperform(?:s|ed)?|ahead|better)\b", re.I)
_LOSS_WORD = re.compile(r"\b(?:loses?|lost|behind|worse|trails?|trailed|lags?|lagged|underperform(?:s|ed)?)\b", re.I)


def _wins_of(x: str, y: str, metric: str, facts) -> tuple[int, str] | None:
    """(on how many locked seeds ``x`` beats ``y`` on ``metric``, the first run id), or None where the
    analysis lacks a run of either arm on some seed."""
    sign = 1 if facts.higher.get(metric, True) else -1
    per_seed = [tuple(facts.values.get(f"runs.{a}.s{s}.{metric}") for a in (x, y)) for s in facts.seeds]
    if not per_seed or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for p in per_seed for v in p):
        return None
    return sum(sign * (p[0] - p[1]) > 0 for p in per_seed), f"runs.{x}.s{facts.seeds[0]}.{metric}"


# An arm right after one of these words is the object of a claim, not its subject: in "It tied GRPO on
# seed 1, won on seeds 2 and 3" the winner is the paragraph's arm and GRPO the one it beat
OBJECT_BEFORE = re.compile(r"\b(?:tied?|ties|beats?|beat|lost\s+to|with|against|over|than|to|behind|vs\.?|versus|"
                           r"above|below|ahead\s+of)\s+(?:the\s+)?$", re.I)


def _claim_arms(m, arms: list[tuple[int, str]], subject: str | None, pair: tuple[str, str] | None,
                baseline: str) -> tuple[str | None, str | None]:
    """The two arms of a per-seed claim: the arm named last before it (else the paragraph's subject), and
    the arm named after "over"/"against" (else the other arm of the paragraph's pair, else the baseline).
    An arm named before it as an object ("Alpha lost to Gamma, on two of the three seeds") is the other arm."""
    before = [a for pos, a in arms if pos < m.start()]
    x = before[-1] if before else subject
    named = [a for pos, a in arms if m.start("other") <= pos < m.end("other")] if m.group("other") else []
    objects = [(pos, a) for pos, a in arms if pos < m.start() and m.string and
               OBJECT_BEFORE.search(m.string, max(0, pos - 24), pos)]
    if before and objects and objects[-1][1] == x and not named:
        subjects = [a for pos, a in arms if pos < m.start() and (pos, a) not in objects]
        x, named = (subjects[-1] if subjects else subject), [objects[-1][1]]
    y = named[0] if named else (pair[1] if pair and x == pair[0] else pair[0] if pair and x == pair[1]
                                else baseline if x != baseline else None)
    return x, y


def _k_of_n_claims(sent, arms, metrics, subject, pair, carried, baseline, facts, out, undecided) -> int:
    """"GSPO wins on 3 of 4 seeds": the number of locked seeds on which the arm beats the other (as for
    :func:`seed_win_claims`) and the number of seeds must be those written; returns how many were decided."""
    decided = 0
    tight = list(_SEED_K_OF_N.finditer(sent))
    for m in tight + _loose_k_of_n(sent, tight):
        x, y = _claim_arms(m, arms, subject, pair, baseline)
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        wins = _wins_of(x, y, metric, facts) if x is not None and y is not None and x != y else None
        if wins is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        k, n = (int(g) if g.isdigit() else _COUNTS[g.lower()] for g in (m.group("k"), m.group("n")))
        lost = m.re is _K_OF_N_SEEDS and not _WIN_WORD.search(sent)
        got = _losses_of(x, y, metric, facts) if lost else wins[0]
        if (k, n) != (got, len(facts.seeds)):
            verb = "is behind" if lost else "beats"
            out.append(Said(m.start("k"), m.group(0), f"{got} of {len(facts.seeds)} seeds ({wins[1]}, ...)",
                            f"'{x} {' '.join(m.group(0).split())}' contradicts the runs: {x} {verb} {y} on {got} of "
                            f"the {len(facts.seeds)} seeds on {metric} (runs.{x}.s<seed>.{metric} against runs.{y}.s<seed>.{metric})"))
    return decided


def _loose_k_of_n(sent: str, tight: list) -> list:
    """"on K of the N seeds" apart from a win or loss word of its sentence (one family only: a sentence with
    both says nothing decidable), not already read as "wins on K of N seeds"."""
    if "seed" not in sent.lower() or bool(_WIN_WORD.search(sent)) == bool(_LOSS_WORD.search(sent)):
        return []
    return [m for m in _K_OF_N_SEEDS.finditer(sent) if not any(t.start() <= m.start() < t.end() for t in tight)]


def _losses_of(x: str, y: str, metric: str, facts) -> int:
    """On how many locked seeds ``x`` is behind ``y`` on ``metric`` (the runs hold both: :func:`_wins_of`)."""
    sign = 1 if facts.higher.get(metric, True) else -1
    return sum(sign * (vx - vy) < 0 for _, vx, vy in _per_seed_pairs(x, y, metric, facts))


def _per_seed_pairs(x: str, y: str, metric: str, facts) -> list[tuple[int, float, float]]:
    """[(seed, x's value, y's value)] on every locked seed, or [] where the analysis lacks one."""
    out = []
    for s in facts.seeds:
        vx, vy = (facts.values.get(f"runs.{a}.s{s}.{metric}") for a in (x, y))
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (vx, vy)):
            return []
        out.append((s, vx, vy))
    return out


def _joined_subjects(sent: str, arms: list[tuple[int, str]], m, x: str) -> list[str]:
    """The arms a claim at ``m`` is about: ``x``, and the arms joined to it by "and" before a plural verb
    ("GSPO and DAPO are ahead of GRPO on every seed": both are)."""
    before = [(pos, a) for pos, a in arms if pos < m.start()]
    if not before or before[-1][1] != x or not _PLURAL.match(sent, m.start()):
        return [x]
    out = [x]
    for (p0, a0), (p1, _) in zip(reversed(before[:-1]), reversed(before), strict=False):
        if not _JOINED.fullmatch(sent, p0, p1):
            break
        out.insert(0, a0)
    return list(dict.fromkeys(out))


def _every_seed_but(sent: str, m, x: str, y: str, metric: str, sign: int, per_seed, out: list) -> None:
    """"X beats Y on every seed" (``m``), with the seeds an "except seed 4" right after it leaves out: X is
    better on each other seed and not better on those; a finding names the first seed that differs."""
    exc = _EXCEPT_SEEDS.match(sent, m.end())
    left_out = {int(v) for v in re.findall(r"\d+", exc.group("seeds"))} if exc else set()
    words = sent[m.start():exc.end() if exc else m.end()]
    for s, vx, vy in per_seed:
        if (sign * (vx - vy) > 0) == (s in left_out):
            said = "not better than" if s in left_out else "better than"
            out.append(Said(exc.start("seeds") if exc else m.start(), words, f"{x} {said} {y} on seed {s} (runs.{x}.s{s}.{metric})",
                            f"'{x} {' '.join(words.split())}' contradicts the runs: on seed {s} {x} has "
                            f"{vx:.4g} and {y} {vy:.4g} on {metric} (runs.{x}.s{s}.{metric}, runs.{y}.s{s}.{metric})"))
            return


def seed_win_claims(sent: str, arms: list[tuple[int, str]], metrics: list[tuple[int, str]], subject: str | None,
                    pair: tuple[str, str] | None, carried: str | None, baseline: str,
                    facts) -> tuple[list[Said], int, list[tuple[int, str]]]:
    """"X wins on all four seeds": X is better than the other arm (named after "over"/"against", else
    the other arm of the paragraph's pair, else the baseline) on every locked seed, by the runs' values
    where the analysis holds them for both arms on every seed, else at least on the mean (an arm behind
    on average cannot win on every seed). A claim the values cannot decide is returned as undecided.

    Returns:
        (contradicted claims, how many were decided, (offset, words) of those it cannot decide).
    """
    out, decided, undecided = [], 0, []
    low = sent.lower()
    if "win" not in low and "won" not in low and "ahead" not in low and "beat" not in low and "outperform" not in low \
            and not ("seed" in low and ("lost" in low or "behind" in low or "lose" in low)):
        return out, decided, undecided
    decided += _k_of_n_claims(sent, arms, metrics, subject, pair, carried, baseline, facts, out, undecided)
    for m in _SEED_WINS.finditer(sent):
        x, y = _claim_arms(m, arms, subject, pair, baseline)
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        if x is None or y is None or x == y:
            undecided.append((m.start(), m.group(0)))
            continue
        sign = 1 if facts.higher.get(metric, True) else -1
        if all(_per_seed_pairs(a, y, metric, facts) for a in _joined_subjects(sent, arms, m, x)):
            decided += 1
            for a in _joined_subjects(sent, arms, m, x):
                _every_seed_but(sent, m, a, y, metric, sign, _per_seed_pairs(a, y, metric, facts), out)
            continue
        d = difference(facts, x, y, metric)
        if d is None or sign * d[0] > 0:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        out.append(Said(m.start(), m.group(0), f"{x} better than {y} on {metric} ({d[1]})",
                        f"'{x} {' '.join(m.group(0).split())}' contradicts the analysis: {x} is not better than {y} "
                        f"on {metric} on average ({d[1]})"))
    return out, decided, undecided


RATIO = re.compile(r"\b(?:(roughly|about|nearly|almost|around|approximately|some|~)\s*)?(\d+(?:\.\d+)?)\s*(?:x|×|times|-?fold)"
                   r"\s+(fewer|less|lower|smaller|more|higher|larger|greater)\b", re.I)


_RATIO_HINT = re.compile(r"\d\s*(?:x|×|times|-?fold)\b", re.I)


def _ratios(sent: str):
    """The ratio claims of a sentence (the full pattern runs only where a hint of one is)."""
    low = folded(sent)   # each hint holds one of these (a pre-test: the hint's pattern is tried at every digit)
    if low is not None and not any(w in low for w in ("x", "×", "times", "fold")):
        return ()
    return RATIO.finditer(sent) if _RATIO_HINT.search(sent) else ()


def _arm_value(facts, arm: str, metric: str) -> tuple[float, str] | None:
    for leaf in (f"{metric}.mean", metric):
        v = facts.values.get(f"arms.{arm}.{leaf}")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v, f"arms.{arm}.{leaf}"
    return None


def ratio_claims(sent: str, arms: list[tuple[int, str]], metrics: list[tuple[int, str]], subject: str | None,
                 carried: str | None, baseline: str, facts) -> tuple[list[Said], int, list[tuple[int, str]]]:
    """"roughly 2x fewer dead groups": the ratio of two arms' values on the metric, the subject
    (named before the words, else the paragraph's) against the arm named right after them, else the
    baseline. "roughly"/"about" allow 25%; a bare "2x" must round to it.

    Returns:
        (contradicted claims, how many were decided, (offset, words) of those it cannot decide).
    """
    out, decided, undecided = [], 0, []
    for m in _ratios(sent):
        before = [a for pos, a in arms if pos < m.start()]
        x = before[-1] if before else subject
        y = _arm_right_after(sent, m.end(), arms) or baseline
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        vx, vy = (_arm_value(facts, a, metric) if a else None for a in (x, y))
        if x is None or x == y or vx is None or vy is None or min(vx[0], vy[0]) <= 0:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        fewer = m.group(3).lower() in ("fewer", "less", "lower", "smaller")
        (num, nid), (den, did) = (vy, vx) if fewer else (vx, vy)
        ratio, n = num / den, float(m.group(2))
        slack = 0.25 * n if m.group(1) else 0.5 * 10 ** -len(m.group(2).partition(".")[2])
        if abs(ratio - n) > slack:
            out.append(Said(m.start(), m.group(0), f"{ratio:.2f}x ({nid} / {did})",
                            f"'{m.group(0)}' contradicts the analysis: {nid} / {did} = {num:.4g} / {den:.4g} = "
                            f"{ratio:.2f}"))
    return out, decided, undecided


_POINT_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                           "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
# "Dr. GRPO came in three points higher", "about two points below GRPO": a difference in words (one in digits
# is a number the tracer reads); "about", "roughly" allow a point either way, else half a point
_POINTS_IN_WORDS = re.compile(r"\b(?P<about>(?:about|roughly|around|nearly|almost|some|approximately)\s+)?"
                              r"(?P<k>" + "|".join(_POINT_WORDS) + r"|half\s+a)\s+(?:percentage\s+)?(?:points?|pp)\s+"
                              r"(?P<w>higher|lower|above|below|better|worse|ahead|behind)\b", re.I)
_THAN = re.compile(r"\s+(?:than|over)\b", re.I)   # "higher than GRPO": the arm after it (not "higher and AERO ...")
_AGAINST_ARM = re.compile(r"\b(?:than|against|vs\.?|versus|compared\s+(?:to|with)|relative\s+to|over)\s+(?:the\s+)?$", re.I)


def points_claims(sent: str, arms: list[tuple[int, str]], metrics: list[tuple[int, str]], subject: str | None,
                  pair: tuple[str, str] | None, carried: str | None, baseline: str,
                  facts) -> tuple[list[Said], int, list[tuple[int, str]]]:
    """"three points higher", "about two points below GRPO": the subject (named last before the words, else
    the paragraph's) minus the other arm (named after "than", else one the sentence compares with, else the
    baseline) on the claim's metric, in points of its unit, must round to the number written.

    Returns:
        (contradicted claims, how many were decided, (offset, words) of those it cannot decide).
    Example:
        >>> from types import SimpleNamespace as NS
        >>> f = NS(primary="acc", units={}, higher={}, values={"arms.a.acc.mean": 0.6, "arms.b.acc.mean": 0.55})
        >>> said, n, _ = points_claims("A is two points higher", [(0, "a")], [], None, None, None, "b", f)
        >>> n, said[0].expected
        (1, 'a − b = +5.00 points on acc')
    """
    out, decided, undecided = [], 0, []
    low = sent.lower()
    if "point" not in low and " pp" not in low:
        return out, decided, undecided
    for m in _POINTS_IN_WORDS.finditer(sent):
        before = [a for pos, a in arms if pos < m.start()]
        x = before[-1] if before else subject
        named = _THAN.match(sent, m.end()) or m.group("w").lower() in ("above", "below", "ahead", "behind")
        y = (_arm_right_after(sent, m.end(), arms) if named else None) or next(
            (a for pos, a in arms if a != x and _AGAINST_ARM.search(sent, max(0, pos - 20), pos)), None) or baseline
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        scale = {"fraction": 100.0, "percent": 1.0}.get(
            facts.units.get(metric, "fraction" if metric == facts.primary else "") or "")
        d = difference(facts, x, y, metric) if x and y and x != y and scale else None
        if d is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        k = 0.5 if m.group("k").lower().startswith("half") else float(_POINT_WORDS[m.group("k").lower()])
        up = m.group("w").lower() in ("higher", "above", "better", "ahead")
        sign = 1 if up else -1
        if m.group("w").lower() in ("better", "worse", "ahead", "behind") and not facts.higher.get(metric, True):
            sign = -sign
        pts = d[0] * scale
        if sign * pts <= 0 or abs(abs(pts) - k) > (1.0 if m.group("about") else 0.5) + 1e-9:
            out.append(Said(m.start(), m.group(0), f"{x} − {y} = {pts:+.2f} points on {metric}",
                            f"'{x} {' '.join(m.group(0).split())}' contradicts the analysis: {x} − {y} = {pts:+.2f} "
                            f"points on {metric} ({d[1]})"))
    return out, decided, undecided
