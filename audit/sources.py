"""Every number a report may legitimately quote: analysis values, manifest summaries, lock fields.

Each source has a stable id, a unit (which says whether a percentage of it is meaningful),
the entity it belongs to (an arm, a contrast, a run, or none), the tokens of the rest of
its id (what table context is matched against), and whether it is exploratory.
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from audit import sessions
from audit.names import longest_names, name_prefixes
from audit.numbers import numbers_in
from prereg.records import HELDOUT_TRACE, task_record
from stats.sessions import split_id

PERCENTABLE = {"fraction", "probability", "difference"}
COUNT_UNITS = {"count", "items", "seeds"}
_PREFIXES = {"arms", "arm", "contrasts", "contrast", "runs", "run", "manifest", "lock", "values", "summaries",
             "preregistration", "training", "changes"}
_SYNONYMS = {"acc": "accuracy", "accuracies": "accuracy", "lo": "low", "lower": "low", "hi": "high", "upper": "high",
             "std": "sd", "stdev": "sd", "adj": "adjusted", "pval": "p", "pvalue": "p", "padj": "adjusted",
             "diff": "difference", "delta": "difference", "δ": "difference", "Δ": "difference",
             "ci95": "ci", "ci90": "ci", "rate": "rate", "lr": "learning", "rollout": "rollouts",
             "zero": "zero", "items": "n", "iqm": "iqm", "med": "median", "avg": "mean", "average": "mean",
             "estimate": "estimate", "effect": "difference"}
STOP = {"the", "of", "a", "an", "in", "on", "for", "and", "or", "per", "with", "by", "to", "at", "is", "vs",
        "value", "values", "percent", "pct", "pp", "fraction", "arm", "metric", "over", "across", "from",
        "mean_", "s", "x", "e"}


def squash(s: str) -> str:
    """Fold a name to lower-case letters and digits (how arm names and labels are compared).

    Args:
        s: a name as written.

    Returns:
        ``s`` lower-cased with everything but a-z and 0-9 dropped.

    Example:
        >>> squash("Dr. GRPO"), squash("dr_grpo")
        ('drgrpo', 'drgrpo')
    """
    return re.sub(r"[^a-z0-9]", "", s.lower())


# Compiled once (not looked up in the re module's cache on every label: README failure 10)
_P_VALUE = re.compile(r"p[\s_-]?values?")
_TOKEN = re.compile(r"[a-zδ]+|\d+")
_ZERO_VAR = re.compile(r"zero[\s_-]*var(?:iance)?(?:[\s_-]*frac(?:tion)?)?(?![a-z])")
_CASE_OR_DIGIT_TURN = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")


def tokens_of(text: str) -> list[str]:
    """The metric and statistic words of a label, synonyms folded and stop words dropped.

    Used on what is left once arms and seeds are taken out (:func:`entity_from_text`), and on the
    parts of a value id, so that "Held-out acc. (std)" and ``heldout_accuracy.sd`` share tokens.

    Args:
        text: a label, header or value id part.

    Returns:
        Its words and numbers, lower case, ``_SYNONYMS`` applied ("acc" -> accuracy, "std" -> sd,
        "p-value" -> p), ``STOP`` words removed.

    Example:
        >>> tokens_of("Held-out acc. of the arm (std)")
        ['heldout', 'accuracy', 'sd']
    """
    t = text.lower().replace("held-out", "heldout").replace("held out", "heldout")
    t = _P_VALUE.sub("p", t)
    if "zero" in t:   # "train/zero_var_frac", "zero-variance fraction": the ZVF (zvf_mean)
        t = _ZERO_VAR.sub(" zvf ", t)
    out = []
    for tok in _TOKEN.findall(t):
        tok = _SYNONYMS.get(tok, tok)
        if tok not in STOP:
            out.append(tok)
    return out


@dataclass
class Source:
    """One number a report may quote: an analysis value, a run's summary, a lock field.

    ``entity`` is what it belongs to (``("arm", a)``, ``("run", a, seed)``, ``("contrast", a, b)``,
    ``("seed", s)`` or None), ``tokens`` the words of the rest of its id (matched against a number's
    row, column or macro name), ``unit`` its scale (fraction, probability, difference, percent,
    count, ...) and ``max`` what a count is out of (or the count a fraction is of).

    Example:
        >>> idx = SourceIndex(["gspo"])
        >>> idx.add("arms.gspo.heldout_accuracy.mean", 0.6134, "fraction")
        >>> s = idx.by_id["arms.gspo.heldout_accuracy.mean"]
        >>> s.entity, sorted(s.tokens), s.percentable
        (('arm', 'gspo'), ['accuracy', 'heldout', 'mean'], True)
    """

    id: str
    value: float
    unit: str
    entity: tuple | None
    tokens: frozenset
    exploratory: bool = False
    origin: str = "analysis"
    # The scale a count is out of (heldout_correct of heldout_n, groups_correct of 4), or for a
    # fraction the count it is a fraction of: what lets the audit name a count/fraction mix-up.
    max: float | None = None

    @property
    def percentable(self) -> bool:
        return self.unit in PERCENTABLE

    @property
    def is_count(self) -> bool:
        return self.unit in COUNT_UNITS

    def as_fraction(self) -> float | None:
        """A count as the fraction of its maximum (None when no maximum is known)."""
        return self.value / self.max if self.is_count and self.max else None

    def as_count(self) -> float | None:
        """A fraction as the count it stands for (None when it is not a fraction of a known count)."""
        return self.value * self.max if self.unit == "fraction" and self.max else None


def arm_names(arms: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """Folded name -> arm for a list of arm names, or a mapping of display names (labels) to arms.

    Args:
        arms: arm names (``["grpo", "dr_grpo"]``), or display name -> arm (``{"Dr. GRPO": "dr_grpo"}``).

    Returns:
        ``squash(name)`` -> arm; an arm's own name wins over another arm's label folded the same.

    Example:
        >>> arm_names({"Dr. GRPO": "dr_grpo", "grpo": "grpo"})
        {'drgrpo': 'dr_grpo', 'grpo': 'grpo'}
    """
    pairs = arms.items() if isinstance(arms, Mapping) else ((a, a) for a in arms)
    out: dict[str, str] = {}
    for name, arm in pairs:
        key = squash(name)
        if key and (key not in out or squash(arm) == key):
            out[key] = arm
    return out


def find_arms(tokens: list[str], arms: Iterable[str] | Mapping[str, str]) -> list[tuple[int, int, str]]:
    """Arms named by consecutive tokens, the longest declared name or label first, any number of tokens.

    Args:
        tokens: the lower-case words of a label (before any synonym is applied).
        arms: arm names, or display name -> arm (see :func:`arm_names`).

    Returns:
        ``(first token, end token, arm)`` per arm named, left to right (:func:`audit.names.longest_names`).

    Example:
        >>> find_arms(["grpo", "lr", "100", "x", "vs", "dr", "grpo"], ["grpo", "grpo_lr100x", "dr_grpo"])
        [(0, 4, 'grpo_lr100x'), (5, 7, 'dr_grpo')]
    """
    return longest_names(tokens, arm_names(arms))


# "s37", "seed 37", "seed=37", and "s = 0" (a seed column headed by the seed's symbol, as in a paper's
# appendix: "| | *s = 0* | *s = 1* |"; never "s = 0.5")
# Every match opens with its "s", matched first so that the scan skips to the next "s" (the lookbehinds
# are checked after it; README failure 10): opening with the lookbehinds tried all three branches at
# every character (~0.4 us a character, check 11 asks it of every line).
_SEED_TEXT = re.compile(r"[sS\u017f](?:(?<![A-Za-z0-9'’]s)(\d+)\b|(?<=\bs)eed\s*[=:#]?\s*(\d+)\b(?![.,]\d)"
                        r"|(?<![A-Za-z0-9'’$\\]s)\s*=\s*(\d+)\b(?![.,]\d))", re.I)


def entity_from_text(text: str, arms: Iterable[str] | Mapping[str, str]) -> tuple[tuple | None, list[str]]:
    """What a row label, column header, heading or macro name names, and the words left over.

    Arms are found first, on the raw words (the longest declared name or label wins: ``grpo_lr100x``
    is never ``grpo`` plus a learning rate); synonyms are applied to the remaining words only.

    Args:
        text: the label as written ("Dr. GRPO seed 2 accuracy", ``gspoS37HeldoutAcc``).
        arms: arm names, or display name -> arm (see :func:`arm_names`).

    Returns:
        ``(entity, tokens)``: entity is ``("arm", a)``, ``("run", a, seed)``, ``("contrast", a, b)``,
        ``("seed", s)`` or None; tokens are the other words, synonyms applied, stop words dropped.

    Example:
        >>> entity_from_text("grpo_lr100x seed 2 accuracy", ["grpo", "grpo_lr100x"])
        (('run', 'grpo_lr100x', 2), ['accuracy'])

    Memoised: every number under one heading, in one row or one column asks about the same text
    (README failure 10: a 5 MB report holds 300,000 numbers).
    """
    ent, rest = _entity_from_text(text, _arms_key(arms))
    return ent, list(rest)


def entity_of_text(text: str, arms: Iterable[str] | Mapping[str, str]) -> tuple | None:
    """The entity :func:`entity_from_text` reads in ``text``, without reading its other words into
    tokens: check 11 asks it of every line of the report, and only the arm, run or seed counts there.

    Args:
        text: a line, row label or header. arms: as for :func:`entity_from_text`.
    Returns:
        ``entity_from_text(text, arms)[0]``.
    Example:
        >>> entity_of_text("GRPO seed 2 reached 0.61", ["grpo"])
        ('run', 'grpo', 2)
    """
    return _entity_and_words(text, _arms_key(arms))[0]


def names_a_seed(text: str) -> bool:
    """Whether ``text`` names a seed as :func:`entity_from_text` reads one ("s37", "seed 37", "seed=37"):
    without one, the entity it reads is an arm, a pair of arms or None.

    Example:
        >>> names_a_seed("GRPO seed 2"), names_a_seed("GRPO's 0.41")
        (True, False)
    """
    return _SEED_TEXT.search(text) is not None


def _arms_key(arms) -> tuple:
    return tuple(arms.items()) if type(arms) is dict or isinstance(arms, Mapping) else tuple(arms)


@functools.lru_cache(maxsize=64)
def _arm_table(key: tuple) -> tuple[dict[str, str], frozenset[str]]:
    """:func:`arm_names` of the arms (or labels) ``key`` holds, and every prefix of those names."""
    names = arm_names(dict(key) if key and isinstance(key[0], tuple) else list(key))
    return names, name_prefixes(names)


@functools.lru_cache(maxsize=16384)
def _entity_from_text(text: str, key: tuple) -> tuple[tuple | None, tuple[str, ...]]:
    ent, rest = _entity_and_words(text, key)
    return ent, tuple(tokens_of(" ".join(rest)))


def _entity_and_words(text: str, key: tuple) -> tuple[tuple | None, list[str]]:
    """The entity ``text`` names (arms first, then a seed) and its words that name no arm."""
    seed = None
    sm = _SEED_TEXT.search(text)
    if sm:   # "s37", "seed 37", "seed=37" (never the "s" of "GRPO's 0.41")
        seed = int(next(g for g in sm.groups() if g))
        text = text[:sm.start()] + " " + text[sm.end():]
    text = _CASE_OR_DIGIT_TURN.sub(" ", text)
    raw = _TOKEN.findall(text.lower())
    names, prefixes = _arm_table(key)
    hits = longest_names(raw, names, prefixes)   # find_arms, with the folded names and their prefixes made once
    used = set()
    for a, b, _ in hits:
        used.update(range(a, b))
    rest = [t for i, t in enumerate(raw) if i not in used]
    names = list(dict.fromkeys(h[2] for h in hits))   # "grpo-s1: GRPO, seed 1" names one arm twice
    if len(names) >= 2:
        return ("contrast", names[0], names[1]), rest
    if len(names) == 1 and seed is not None:
        return ("run", names[0], seed), rest
    if len(names) == 1:
        return ("arm", names[0]), rest
    if seed is not None:
        return ("seed", seed), rest
    return None, rest


def _id_entity(vid: str, arms: list[str]) -> tuple[tuple | None, frozenset]:
    parts = vid.split(".")
    arm_parts, contrast, seed, rest = [], None, None, []
    for p in parts:
        if p in arms:
            arm_parts.append(p)
        elif "-" in p and all(x in arms for x in p.split("-", 1)) and len(p.split("-", 1)) == 2:
            contrast = tuple(p.split("-", 1))
        elif re.fullmatch(r"s\d+", p):
            seed = int(p[1:])
        elif p not in _PREFIXES and not p.isdigit():
            rest.append(p)
    toks = frozenset(tokens_of(" ".join(x.replace("_", " ") for x in rest)))
    if contrast:
        return ("contrast", *contrast), toks
    if arm_parts and seed is not None:
        return ("run", arm_parts[0], seed), toks
    if arm_parts:
        return ("arm", arm_parts[0]), toks
    if seed is not None:
        return ("seed", seed), toks
    return None, toks


def _num(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


_SUMMARY_UNITS = {"heldout_accuracy": "fraction", "zvf_mean": "fraction", "gu_mean": "fraction",
                  "heldout_n": "items", "heldout_correct": "count", "steps": "count", "rollouts": "count"}


class SourceIndex:
    """Every :class:`Source` of one audit, by id, by entity and sorted by value.

    Args:
        arms: the study's arm names (value ids are split on them).
        labels: display label -> arm, from the preregistration (``arms.X.labels``).

    Example:
        >>> idx = SourceIndex(["grpo", "dr_grpo"], {"Dr. GRPO": "dr_grpo"})
        >>> idx.add("arms.dr_grpo.heldout_accuracy.mean", 0.5912, "fraction")
        >>> [s.id for s in idx.matching(0.5905, 0.5915)], idx.names["drgrpo"]
        (['arms.dr_grpo.heldout_accuracy.mean'], 'dr_grpo')
    """

    def __init__(self, arms: list[str], labels: Mapping[str, str] | None = None):
        self.arms = arms
        # folded arm name or declared label -> arm: what report text is matched against
        self.names = arm_names({**dict(labels or {}), **{a: a for a in arms}})
        self.sources: list[Source] = []
        self.by_id: dict[str, Source] = {}
        self.by_entity: dict = {}
        self._sorted: dict[int, tuple[list[float], list[Source]]] = {}
        self._scaled: list[Source] | None = None
        self._by_token: dict = {}   # entity -> token -> positions in by_entity[entity] (:meth:`sharing`)
        # "analysis.warnings.<i>" -> that warning's text, whitespace folded: a report line that
        # quotes the text says which warning its numbers come from (audit.trace.quoted_context).
        self.quotes: dict[str, str] = {}
        self.sessions = None   # the study's evaluation sessions (audit.sessions.SessionInfo), when it has several
        # an interval's id prefix ("contrasts.gspo-base.ci95_t") -> the method its analysis records ("t",
        # "paired_bootstrap"): what "the t-based interval [a, b]" is checked against (audit.trace)
        self.interval_methods: dict[str, str] = {}
        self.primary = "heldout_accuracy"   # the lock's primary metric: what "accuracy", "solved" stand for

    def add(self, vid: str, value, unit: str, *, exploratory=False, origin="analysis", max=None) -> None:
        """Index value ``vid`` (a finite number; anything else, or an id already indexed, is skipped).

        Args:
            vid: the value id (``arms.gspo.heldout_accuracy.mean``, ``lock.dataset.heldout_n``, ...).
            value: the number.
            unit: its scale (see :class:`Source`).
            exploratory: it comes only from exploratory runs or analyses.
            origin: analysis | manifest | lock | trace | derived.
            max: what a count is out of.
        """
        v = _num(value)
        if v is None or vid in self.by_id:
            return
        ent, toks = _id_entity(vid, self.arms)
        s = Source(vid, v, unit, ent, toks, exploratory, origin, _num(max) or None)
        self.sources.append(s)
        self.by_id[vid] = s
        self.by_entity.setdefault(ent, []).append(s)
        self._sorted.clear()
        self._by_token.clear()
        self.__dict__.pop("_p_leaves", None)   # audit.trace's list of test p-values is stale
        self._scaled = None

    def scaled(self) -> list[Source]:
        """Sources whose scale is known (a count and its maximum, a fraction and its count)."""
        if self._scaled is None:
            self._scaled = [s for s in self.sources if s.max]
        return self._scaled

    def _table(self, scale: int):
        if scale not in self._sorted:
            pairs = sorted(((s.value * scale, i) for i, s in enumerate(self.sources)
                            if scale == 1 or s.percentable), key=lambda t: t[0])
            self._sorted[scale] = ([p[0] for p in pairs], [self.sources[p[1]] for p in pairs])
        return self._sorted[scale]

    def sharing(self, ent, toks) -> list[Source]:
        """The sources of entity ``ent`` (``by_entity[ent]``, in its order) whose tokens include one of
        ``toks``: the only ones a context of those words can name, found through a token index built once
        per entity (README failure 10: scanning every lock value for each number of a 5 MB report).

        Example:
            >>> idx = SourceIndex(["gspo"])
            >>> idx.add("arms.gspo.heldout_accuracy.mean", 0.61, "fraction")
            >>> idx.add("arms.gspo.zvf_mean", 0.4, "fraction")
            >>> [s.id for s in idx.sharing(("arm", "gspo"), {"zvf"})]
            ['arms.gspo.zvf_mean']
        """
        inv = self._by_token.get(ent)
        pool = self.by_entity.get(ent, [])
        if inv is None:
            inv = self._by_token[ent] = {}
            for i, s in enumerate(pool):
                for t in s.tokens:
                    inv.setdefault(t, []).append(i)
        hit: set[int] = set()
        for t in toks:
            hit.update(inv.get(t, ()))
        return [pool[i] for i in sorted(hit)]

    def matching(self, lo: float, hi: float, scale: int = 1) -> list[Source]:
        """The sources whose value times ``scale`` lies in ``[lo, hi]`` (bisection on a sorted table).

        Args:
            lo: the low end of a number's rounding interval.
            hi: its high end.
            scale: 100 to match percentable sources as percents, else 1.

        Returns:
            The matching sources, by value.
        """
        keys, srcs = self._table(scale)
        a, b = bisect.bisect_left(keys, lo), bisect.bisect_right(keys, hi)
        return srcs[a:b]


def _value_unit(rec: dict) -> str:
    """The scale of an analysis value: a difference of a declared percent metric is in percent
    (points), of a count or real metric on no 0-1 scale (prereg.declarations; README failure 16)."""
    unit = rec.get("unit", "other")
    mu = (rec.get("params") or {}).get("metric_unit") if isinstance(rec.get("params"), dict) else None
    if unit == "difference" and mu == "percent":
        return "percent"
    if unit == "difference" and mu in ("count", "real"):
        return "other"
    return unit


def build_index(ctx) -> SourceIndex:
    """Every number the report of one audit may quote.

    Analysis values (with their units and whether they are exploratory), each run's manifest
    summaries, numbers quoted in the analysis' warnings, every numeric lock field and a few counts
    (seeds, arms, hypotheses, runs), per-item group counts, across-seed SDs, and the scale each
    count or fraction is on.

    Args:
        ctx: the audit context (:class:`audit.context.AuditContext`).

    Returns:
        A :class:`SourceIndex` whose ``names`` include the arms' declared labels.

    Example:
        >>> from audit.context import load_context  # doctest: +SKIP
        >>> build_index(load_context("report")).by_id["lock.dataset.heldout_n"].value  # doctest: +SKIP
        500.0
    """
    arms = list(ctx.arms)
    run_arms = sorted({r.manifest.get("arm") for r in ctx.runs if isinstance(r.manifest.get("arm"), str)})
    view = ctx.lock_view
    idx = SourceIndex(arms + [a for a in run_arms if a not in arms], view.labels)
    exploratory_seals = {r.manifest.get("seal") for r in ctx.runs if not _registered_confirmatory(ctx, r)}
    aside = []   # a later evaluation session's values: found by pin or in that session's view (audit.sessions)
    for vid, rec in sorted((ctx.analysis.get("values") or {}).items()):
        if not isinstance(rec, dict):
            continue
        ins = [s for s in rec.get("inputs") or [] if isinstance(s, str)]
        expl = ("exploratory" in vid or (isinstance(rec.get("params"), dict)
                and rec["params"].get("evidence_class") == "exploratory")
                or (bool(ins) and bool(exploratory_seals) and all(s in exploratory_seals for s in ins)))
        tag, base = split_id(vid)
        if tag is not None:
            v = _num(rec.get("value"))
            if v is not None:
                ent, toks = _id_entity(base, idx.arms)
                aside.append((vid, Source(vid, v, _value_unit(rec), ent, toks, expl)))
            continue
        idx.add(vid, rec.get("value"), _value_unit(rec), exploratory=expl)
        method = rec["params"].get("method") if isinstance(rec.get("params"), dict) else None
        if vid.endswith(".low") and isinstance(method, str):
            idx.interval_methods[vid[:-4]] = method
    for r in ctx.runs:
        m = r.manifest
        expl = not _registered_confirmatory(ctx, r)
        for k, v in (m.get("summaries") or {}).items():
            idx.add(f"manifest.{m.get('arm')}.{_unit_tag(m)}.{k}", v, _SUMMARY_UNITS.get(k, "reward"),
                    exploratory=expl, origin="manifest")
    # Numbers quoted inside the analysis' own warnings and deviations (e.g. a coverage figure)
    for key in ("warnings", "deviations"):
        for i, item in enumerate(ctx.analysis.get(key) or []):
            text = item if isinstance(item, str) else " ".join(str(v) for v in (item or {}).values())
            idx.quotes[f"analysis.{key}.{i}"] = " ".join(text.split())
            for j, (_m, value, _d, _e, _p) in enumerate(numbers_in(text)):
                idx.add(f"analysis.{key}.{i}.{j}", value, "other", origin="analysis")
    _add_lock(idx, dict(view.raw), "lock")
    idx.add("lock.seeds.count", len(view.seeds), "seeds", origin="lock")
    idx.add("lock.arms.count", len(view.arms), "count", origin="lock")
    idx.add("lock.hypotheses.count", view.hypotheses, "count", origin="lock")
    idx.add("lock.version", (ctx.lock.data if ctx.lock else {}).get("version"), "count", origin="lock")
    conf = [r for r in ctx.runs if _registered_confirmatory(ctx, r)]
    idx.add("records.runs.count", len(ctx.runs), "count", origin="manifest")
    idx.add("records.confirmatory.runs.count", len(conf), "count", origin="manifest")
    _add_groups_correct(idx, ctx)
    _add_seed_spread(idx, ctx.arms)
    idx.primary = view.primary_metric or idx.primary
    attach_scales(idx, _num(view.heldout_n))
    _attach_declared_max(idx, view.metric_decls)
    sessions.attach(idx, ctx.analysis, view.seeds, aside, view.raw)
    return idx


_COUNT_STAT = re.compile(r"^(?:runs\.[^.]+\.[^.]+|arms\.[^.]+)\.(?P<metric>[A-Za-z0-9_]+)"
                         r"(?:\.mean(?:\.(?:item\.)?ci\d+\.(?:low|high))?|\.sd)?$")


def _attach_declared_max(idx: SourceIndex, decls) -> None:
    """A declared count metric (``metrics.groups_correct: {unit: count, max: 4}``): its per-run and
    per-arm values are out of ``max``, so "(% of groups)" and "(0-4)" rows can each be read."""
    counts = {n: d.max for n, d in decls.items() if d.unit == "count" and d.max}
    if not counts:
        return
    for s in idx.sources:
        m = _COUNT_STAT.match(s.id)
        if m and m.group("metric") in counts and s.max is None and s.unit == "count":
            s.max = counts[m.group("metric")]
    idx._scaled = None


def _add_seed_spread(idx: SourceIndex, arms) -> None:
    """The across-seed SD of each per-run metric the analysis gives only a mean of (a "mean ± sd"
    cell of a seed-columns table quotes it): ``arms.<arm>.<metric>.sd`` from ``runs.<arm>.s*.<metric>``."""
    per: dict[tuple[str, str], list[float]] = {}
    units: dict[str, str] = {}
    for s in idx.sources:
        parts = s.id.split(".")
        if len(parts) == 4 and parts[0] == "runs" and re.fullmatch(r"s\d+", parts[2]):
            per.setdefault((parts[1], parts[3]), []).append(s.value)
            units[parts[3]] = s.unit
    for (arm, metric), vals in sorted(per.items()):
        if len(vals) >= 2 and arm in arms and f"arms.{arm}.{metric}.sd" not in idx.by_id:
            mean = math.fsum(vals) / len(vals)
            sd = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
            idx.add(f"arms.{arm}.{metric}.sd", sd, units[metric], origin="derived")
            s = idx.by_id.get(f"arms.{arm}.{metric}.sd")
            if s is not None and s.origin == "derived":   # loses ties against the analysis' own SDs
                s.tokens = s.tokens | {"derived", "across", "seeds"}


_OUT_OF = {"heldout_correct": ("heldout_n", "count"), "heldout_accuracy": ("heldout_n", "fraction")}


_ACCURACY = re.compile(r"^(?:runs\.[^.]+\.s\d+\.heldout_accuracy|arms\.[^.]+\.heldout_accuracy\.(?:mean|sd)"
                       r"(?:\.ci\d+\.(?:low|high))?)$")


def primary_value(vid: str, primary: str) -> bool:
    """Whether ``vid`` is a run's or an arm's value of the primary metric (its mean, SD or interval
    end): a fraction of the held-out items as ``heldout_accuracy`` is ("| GRPO | 216 |" under "solved
    (of 360)" is a solve rate of 0.6 counted: audit.trace reads such a table's counts).

    Example:
        >>> primary_value("runs.grpo.s17.solve_rate", "solve_rate"), primary_value("arms.grpo.pass16.mean", "solve_rate")
        (True, False)
    """
    parts = vid.split(".")
    if len(parts) == 4 and parts[0] == "runs":
        return parts[3] == primary
    return len(parts) >= 4 and parts[0] == "arms" and parts[2] == primary and parts[3] in ("mean", "sd") \
        and "item" not in parts


def attach_scales(idx: SourceIndex, heldout_n: float | None = None) -> None:
    """Give each per-run held-out count (and accuracy) the n it is out of, from its sibling value,
    or for an analysed accuracy (per run, per arm) the locked held-out n: what lets a count row
    ("Problems solved (of 1,319)") be read on its own scale.

    Args:
        idx: the index (its sources gain ``max`` in place).
        heldout_n: the locked held-out n, if any.

    Returns:
        None.

    Example:
        >>> idx = SourceIndex(["gspo"])
        >>> idx.add("runs.gspo.s1.heldout_accuracy", 0.61, "fraction")
        >>> attach_scales(idx, 500)
        >>> idx.by_id["runs.gspo.s1.heldout_accuracy"].as_count()
        305.0
    """
    for s in idx.sources:
        if s.max is not None:
            continue
        if heldout_n and s.unit == "fraction" and _ACCURACY.match(s.id):
            s.max = heldout_n
            continue
        head, _, leaf = s.id.rpartition(".")
        rule = _OUT_OF.get(leaf)
        if rule is None or s.unit != rule[1]:
            continue
        n = idx.by_id.get(f"{head}.{rule[0]}")
        if n is not None and n.value > 0:
            s.max = n.value
    idx._scaled = None


def _first_row(path: Path) -> dict | None:
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    return row if isinstance(row, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return None


def _add_groups_correct(idx: SourceIndex, ctx) -> None:
    """Per-item counts (the Connections task's ``groups_correct``), where the held-out trace has
    them: each run's mean over items and each arm's mean over its confirmatory runs, out of the
    maximum the task recorded in the manifest (``task.item_metrics``; 4 groups per board).
    Only the first line of a trace is read unless it carries the field."""
    per_arm: dict[str, list[float]] = {}
    found, top = False, None
    for r in ctx.runs:
        path = r.path / HELDOUT_TRACE
        first = _first_row(path)
        if not first or "groups_correct" not in first:
            continue
        rows, _err = ctx.heldout(r)
        vals = [_num(row.get("groups_correct")) for row in rows or [] if isinstance(row, dict)]
        if not vals or any(v is None for v in vals):
            continue
        m, found = r.manifest, True
        rec = task_record(m)
        top = (rec.item_max("groups_correct") if rec else None) or top
        mean = math.fsum(vals) / len(vals)
        idx.add(f"manifest.{m.get('arm')}.{_unit_tag(m)}.groups_correct.mean", mean, "count",
                exploratory=not _registered_confirmatory(ctx, r), origin="trace", max=top)
        if _registered_confirmatory(ctx, r):
            per_arm.setdefault(m["arm"], []).append(mean)
    if found and top is not None:
        idx.add("task.groups_per_board", top, "count", origin="trace")   # the "4" of "of 4"
    n_conf = {}
    for r in ctx.runs:
        if _registered_confirmatory(ctx, r):
            n_conf[r.manifest["arm"]] = n_conf.get(r.manifest["arm"], 0) + 1
    for arm, means in sorted(per_arm.items()):
        if len(means) != n_conf.get(arm):
            continue   # an arm mean only when every confirmatory run of the arm has the field
        idx.add(f"arms.{arm}.groups_correct.mean", math.fsum(means) / len(means), "count", origin="trace",
                max=top)


def _registered_confirmatory(ctx, r) -> bool:
    from audit.checks.completeness import is_registered

    m = r.manifest
    return m.get("evidence_class") == "confirmatory" and is_registered(ctx, m)


def _unit_tag(m: dict) -> str:
    """``s<seed>``, or ``once`` for a reference evaluated once (seed null)."""
    return "once" if m.get("seed") is None else f"s{m.get('seed')}"


def _add_lock(idx: SourceIndex, obj, prefix: str) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _add_lock(idx, v, f"{prefix}.{k}")
    elif isinstance(obj, list):
        if obj and all(_num(x) is not None for x in obj):
            name = prefix.rsplit(".", 1)[-1]
            singular = name[:-1] if name.endswith("s") else name
            for i, x in enumerate(obj):
                idx.add(f"{prefix}.{i}.{singular}", x, "other", origin="lock")
        else:
            for i, x in enumerate(obj):
                _add_lock(idx, x, f"{prefix}.{i}")
    else:
        v = _num(obj)
        if v is not None:
            idx.add(prefix, v, "fraction" if 0 < v <= 1 and isinstance(obj, float) else "other", origin="lock")
