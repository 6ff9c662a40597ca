"""The locked analysis as typed values: what ``stats.analyze`` returns and readers ask first.

analysis.json stays the record (byte-stable, every number keyed by its value id, which the
report's pins and the audit name); :class:`AnalysisResult` reads it once into frozen views of
the parts code looks up by name: the study and lock it belongs to, the analysed runs, the
contrasts with their verdicts, the hypotheses and the deviations. Renderers that pin numbers
still read value records by id (:meth:`AnalysisResult.record`): the id *is* the pin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prereg.study import AnalysisPlan


@dataclass(frozen=True)
class ContrastResult:
    """One planned contrast (``arm-baseline``) as analysis.json states it."""

    name: str
    estimate: float | None      # mean paired difference (or the plan's estimator)
    p: float | None             # the planned test's p-value
    p_adjusted: float | None    # after the planned multiplicity correction
    reject: bool | None         # rejected at the family's alpha after correction
    verdict: str | None         # the verdict rules' outcome (e.g. SURVIVES, DISAPPEARS)


@dataclass(frozen=True)
class Verdict:
    """One verdict of the plan's rules (``verdicts.contrasts.<c>`` or ``verdicts.secondary.<c>.<metric>``).

    ``checks`` names the conditions of the rule that decided it (empty: the fallback rule);
    ``confirmatory`` is False for an exploratory study or a secondary metric; ``deviation`` is set
    for a contrast across evaluation sessions (README failure 16)."""

    verdict: str | None
    confirmatory: bool | None = None
    deviation: Any = None
    checks: tuple[str, ...] = ()
    contrast: str | None = None     # secondary and hypothesis verdicts: the contrast and metric they belong to
    metric: str | None = None
    scope: str | None = None        # a hypothesis on a secondary metric: what its verdict does (not) claim

    @classmethod
    def of(cls, rec: Mapping[str, Any]) -> Verdict:
        """One verdict record of analysis.json (``verdicts.<kind>.<key>`` or ``verdicts.study``)."""
        trail = rec.get("trail") or []
        last = trail[-1] if trail else None
        checks = tuple(x["check"] for x in last["checks"]) if last and last["checks"] else ()
        return cls(rec.get("verdict"), rec.get("confirmatory"), rec.get("deviation"), checks,
                   rec.get("contrast"), rec.get("metric"), rec.get("scope"))


NO_VERDICT = Verdict(None)


def verdicts_of(doc: Mapping[str, Any], kind: str) -> dict[str, Verdict]:
    """The analysis document's ``verdicts.<kind>`` (``contrasts``, ``secondary`` or ``hypotheses``) as
    :class:`Verdict`, in order."""
    return {k: Verdict.of(v) for k, v in ((doc.get("verdicts") or {}).get(kind) or {}).items()}


@dataclass(frozen=True)
class AnalysedRun:
    """One run the analysis read (``inputs.runs``): which unit, where, and the seal it read."""

    arm: str
    seed: int | None            # None: a reference evaluated once
    path: str | None            # relative to the runs folder the analysis read
    seal: str | None


@dataclass(frozen=True)
class ContrastDesign:
    """How one contrast was analysed (``contrast_designs.<c>``): paired over seeds, against a reference
    evaluated once, or across single evaluations, in which unit; said in words by ``method`` (README failure 16)."""

    arm: str
    baseline: str
    design: str                  # seed_paired | reference_once | single_evaluations
    unit: str                    # seed, item or seed_item
    method: str
    note: str | None = None
    confirmatory: bool | None = None   # False: the plan declared the contrast exploratory

    @classmethod
    def of(cls, rec: Mapping[str, Any]) -> ContrastDesign:
        return cls(rec.get("arm"), rec.get("baseline"), rec.get("design"), rec.get("unit"), rec.get("method"),
                   rec.get("note"), rec.get("confirmatory"))


@dataclass(frozen=True)
class ExcludedRun:
    """A run folder the analysis left out (``inputs.excluded``) and why."""

    path: str | None
    reason: str


@dataclass(frozen=True)
class Deviation:
    """A departure from the plan the analysis records (README failure 16: stated in the verdicts)."""

    kind: str
    detail: str


@dataclass(frozen=True)
class AnalysisResult:
    """A locked analysis: the analysis.json document with typed views of its main results.

    Example:
        >>> doc = {"study_id": "demo", "lock": {"hash": "ab", "version": 1, "path": "l.json"},
        ...        "arms": ["grpo", "gspo"], "baseline": "grpo", "contrasts": ["gspo-grpo"],
        ...        "inputs": {"runs": [{"arm": "gspo", "seed": 1, "path": "demo/gspo/s1", "seal": "cd"}]},
        ...        "values": {"contrasts.gspo-grpo.p": {"value": 0.04, "unit": "probability"}},
        ...        "verdicts": {"contrasts": {"gspo-grpo": {"verdict": "HIGHER"}}, "study": {"verdict": "AS_PLANNED"}}}
        >>> r = AnalysisResult.from_document(doc)
        >>> r.contrasts["gspo-grpo"].p, r.contrasts["gspo-grpo"].verdict, r.runs[0].seed, r.lock_version
        (0.04, 'HIGHER', 1, 1)
    """

    study_id: str
    lock_hash: str
    arms: tuple[str, ...]
    contrasts: Mapping[str, ContrastResult]
    hypotheses: Mapping[str, str]   # hypothesis id -> verdict
    study_verdict: str | None       # AS_PLANNED or the deviation verdict
    warnings: tuple[str, ...]
    document: Mapping[str, Any]     # the whole analysis.json, as written by ``write``
    lock_version: int | None = None
    lock_path: str | None = None    # where the analysis read the lock (as given to ``analyze``)
    baseline: str | None = None
    runs: tuple[AnalysedRun, ...] = ()
    deviations: tuple[Deviation, ...] = ()
    study: Verdict = NO_VERDICT     # ``verdicts.study``: the verdict and whether the study is confirmatory
    # verdicts.contrasts (by contrast id) and verdicts.secondary (by ``<contrast>.<metric>``), in analysis order
    contrast_verdicts: Mapping[str, Verdict] = field(default_factory=lambda: MappingProxyType({}))
    secondary_verdicts: Mapping[str, Verdict] = field(default_factory=lambda: MappingProxyType({}))
    hypothesis_verdicts: Mapping[str, Verdict] = field(default_factory=lambda: MappingProxyType({}))  # id -> record
    source: str | None = None       # ``runs`` (run folders) or the imported table's format
    runs_root: str | None = None    # ``inputs.root``: the runs folder the analysis read (None: an imported table)
    excluded: tuple[ExcludedRun, ...] = ()
    evidence_class: str | None = None
    sessions: tuple[str, ...] = ()  # evaluation sessions the data names, in order of first appearance
    contrast_designs: Mapping[str, ContrastDesign] = field(default_factory=lambda: MappingProxyType({}))
    metric_units: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def exploratory(self) -> bool:
        """An exploratory study: every number and verdict in it is exploratory."""
        return self.evidence_class == "exploratory"

    def exploratory_contrast(self, contrast: str) -> bool:
        """A contrast the plan declared exploratory, or any contrast of an exploratory study."""
        d = self.contrast_designs.get(contrast)
        return self.exploratory or (d is not None and d.confirmatory is False)

    @property
    def plan(self) -> AnalysisPlan:
        """The analysis plan that was executed (analysis.json ``plan``, the lock's block) as typed values."""
        from prereg.study import analysis_plan

        return analysis_plan(self.document["plan"])

    def record(self, value_id: str) -> Mapping[str, Any] | None:
        """The value record (``value``, ``unit``, method, inputs, ...) analysis.json keeps under ``value_id``."""
        rec = (self.document.get("values") or {}).get(value_id)
        return rec if isinstance(rec, dict) else None

    def value(self, value_id: str) -> Any:
        """The number analysis.json records under ``value_id`` (e.g. ``contrasts.gspo-grpo.p``)."""
        rec = self.record(value_id)
        return rec.get("value") if rec is not None else None

    def value_ids(self, prefix: str) -> list[str]:
        """Every value id that starts with ``prefix`` (e.g. ``runs.gspo.s1.``), sorted."""
        return sorted(k for k in (self.document.get("values") or {}) if k.startswith(prefix))

    def write(self, out: str | Path, *, overwrite: bool = False) -> Path:
        """Write the byte-stable analysis.json (refuses to replace a file unless ``overwrite``)."""
        from stats.analyze import write

        return write(dict(self.document), out, overwrite=overwrite)

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> AnalysisResult:
        """Typed views over an analysis document (from ``analyze`` or a read analysis.json)."""
        verdicts = doc.get("verdicts") or {}
        lock = doc.get("lock") or {}
        inputs = doc.get("inputs") or {}
        runs = tuple(AnalysedRun(r.get("arm"), r.get("seed"), r.get("path"), r.get("seal"))
                     for r in inputs.get("runs") or ())
        deviations = tuple(Deviation(d.get("kind"), d.get("detail")) for d in doc.get("deviations") or ())
        hyps = {h: (v or {}).get("verdict") for h, v in (verdicts.get("hypotheses") or {}).items()}
        excluded = tuple(ExcludedRun(x.get("path"), x.get("reason")) for x in inputs.get("excluded") or ())
        return cls(study_id=doc.get("study_id"), lock_hash=lock.get("hash"),
                   arms=tuple(doc.get("arms") or ()), contrasts=_contrasts(doc), hypotheses=hyps,
                   study_verdict=(verdicts.get("study") or {}).get("verdict"),
                   warnings=tuple(doc.get("warnings") or ()), document=doc, lock_version=lock.get("version"),
                   lock_path=lock.get("path"),
                   baseline=doc.get("baseline"), runs=runs, deviations=deviations,
                   study=Verdict.of(verdicts.get("study") or {}),
                   contrast_verdicts=MappingProxyType(verdicts_of(doc, "contrasts")),
                   secondary_verdicts=MappingProxyType(verdicts_of(doc, "secondary")),
                   hypothesis_verdicts=MappingProxyType(verdicts_of(doc, "hypotheses")),
                   source=doc.get("source"), runs_root=inputs.get("root"), excluded=excluded,
                   evidence_class=doc.get("evidence_class"), sessions=tuple(doc.get("sessions") or ()),
                   contrast_designs=MappingProxyType({c: ContrastDesign.of(x)
                                                      for c, x in (doc.get("contrast_designs") or {}).items()}),
                   metric_units=MappingProxyType(dict(doc.get("metric_units") or {})))


def _contrasts(doc: Mapping[str, Any]) -> dict[str, ContrastResult]:
    values = doc.get("values") or {}
    verdicts = (doc.get("verdicts") or {}).get("contrasts") or {}

    def num(vid):
        rec = values.get(vid)
        return rec.get("value") if isinstance(rec, dict) else None

    return {c: ContrastResult(c, num(f"contrasts.{c}.diff_mean"), num(f"contrasts.{c}.p"),
                              num(f"contrasts.{c}.p_adjusted"), num(f"contrasts.{c}.reject"),
                              (verdicts.get(c) or {}).get("verdict"))
            for c in doc.get("contrasts") or []}
