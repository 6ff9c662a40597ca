"""The locked analysis as typed values: what ``stats.analyze`` returns and every reader reads.

analysis.json stays the record (byte-stable, every number keyed by its value id, which the
report's pins and the audit name); :class:`AnalysisResult` reads it once into frozen views of
the parts code looks up by name: the study and lock it belongs to, the executed plan, the
analysed runs, the contrasts with their verdicts, the hypotheses and the deviations. Renderers
that pin numbers read value records by id (:attr:`AnalysisResult.values`, typed :class:`Value`):
the id *is* the pin.

A file is read in one place, :func:`read_analysis`: the analysis schema (``schemas/analysis.schema.json``,
which requires what ``stats render`` reads) and the preregistration schema's ``analysis`` block
(for ``plan``) decide whether it is well formed, so a renamed or missing field is one line naming
the file and the field, never a KeyError deep inside a renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prereg.study import AnalysisPlan, IntervalSpec


@dataclass(frozen=True)
class Value:
    """One value record of analysis.json (``values.<id>``): the number and how to read it.

    ``value`` is None when the analysis could not compute it (``note`` says why: never a silent
    NaN); ``unit`` decides how every renderer formats it (:func:`stats.render.format_value`)."""

    value: float | int | bool | None
    unit: str
    method: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    note: str | None = None

    @classmethod
    def of(cls, rec: Mapping[str, Any]) -> Value:
        """A value record as analysis.json writes it (``value``, ``unit``, ``method`` required by the schema)."""
        return cls(rec["value"], rec["unit"], rec["method"], MappingProxyType(rec.get("params") or {}),
                   rec.get("note"))


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
    """The analysis document's ``verdicts.<kind>`` as :class:`Verdict`, in order.

    Args:
        doc: the analysis document (or a partial one: a missing block reads as empty).
        kind: ``contrasts``, ``secondary`` or ``hypotheses``.

    Returns:
        Key (contrast id, ``<contrast>.<metric>`` or hypothesis id) -> :class:`Verdict`.

    Example:
        >>> verdicts_of({"verdicts": {"contrasts": {"gspo-grpo": {"verdict": "HIGHER"}}}}, "contrasts")["gspo-grpo"].verdict
        'HIGHER'
    """
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
        """One ``contrast_designs.<c>`` record of analysis.json."""
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

    Built by :func:`stats.analyze` (in memory) or :func:`read_analysis` (a file), both through
    :meth:`from_document`, which refuses a document the analysis schema does not accept.

    Example:
        >>> import shutil, tempfile
        >>> from stats import analyze
        >>> from stats.synthetic import demo_campaign
        >>> c = demo_campaign(tempfile.mkdtemp())
        >>> r = analyze(c.lock_path, c.runs_dir)
        >>> r.contrasts["high_lr-grpo"].verdict, r.runs[0].arm, r.lock_version, r.plan.primary_metric
        ('LOWER', 'bnpo', 1, 'heldout_accuracy')
        >>> shutil.rmtree(c.lock_path.parents[1])
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
    # session -> arm -> the prefix of that evaluation's value ids ("" or "sessions.<tag>.": stats.sessions)
    session_arms: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: MappingProxyType({}))
    # declared session -> the display labels the plan gives it (preregistration sessions)
    session_labels: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    contrast_designs: Mapping[str, ContrastDesign] = field(default_factory=lambda: MappingProxyType({}))
    metric_units: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    digest: str | None = None       # sha256 of the analysis.json bytes it was read from (None: built in memory)

    @property
    def exploratory(self) -> bool:
        """An exploratory study: every number and verdict in it is exploratory."""
        return self.evidence_class == "exploratory"

    def exploratory_contrast(self, contrast: str) -> bool:
        """A contrast the plan declared exploratory, or any contrast of an exploratory study."""
        d = self.contrast_designs.get(contrast)
        return self.exploratory or (d is not None and d.confirmatory is False)

    @cached_property
    def plan(self) -> AnalysisPlan:
        """The analysis plan that was executed (analysis.json ``plan``, the lock's block) as typed
        values with the schema's defaults applied once (:func:`prereg.study.analysis_plan`)."""
        from prereg.study import analysis_plan

        return analysis_plan(self.document["plan"])

    @cached_property
    def interval_tags(self) -> tuple[tuple[str, IntervalSpec], ...]:
        """(value-id tag, spec) of each planned contrast interval (``ci95``, ``ci95_bca``, ``ci90``, ...):
        the naming rule of :func:`stats.analyze.interval_tags`, read by every table and figure."""
        from stats.analyze import interval_tags

        return tuple(zip(interval_tags(self.plan.intervals), self.plan.intervals, strict=True))

    @cached_property
    def arm_interval_tag(self) -> str:
        """The value-id tag of the planned arm intervals (``ci95`` at level 0.95)."""
        from stats.intervals import level_tag

        return "ci" + level_tag(self.plan.arm_summary.level)

    @cached_property
    def values(self) -> Mapping[str, Value]:
        """Every value record by its id, typed (built on first use: a 1,000-run analysis holds ~9,000)."""
        return MappingProxyType({k: Value.of(rec) for k, rec in (self.document.get("values") or {}).items()})

    def record(self, value_id: str) -> Value | None:
        """The value record analysis.json keeps under ``value_id`` (None: the analysis has no such value)."""
        return self.values.get(value_id)

    def value(self, value_id: str) -> Any:
        """The number analysis.json records under ``value_id`` (e.g. ``contrasts.gspo-grpo.p``)."""
        rec = self.values.get(value_id)
        return rec.value if rec is not None else None

    def unit(self, value_id: str, default: str = "") -> str:
        """The unit of the value ``value_id``, or ``default`` when the analysis has no such value."""
        rec = self.values.get(value_id)
        return rec.unit if rec is not None else default

    def value_ids(self, prefix: str) -> list[str]:
        """Every value id that starts with ``prefix`` (e.g. ``runs.gspo.s1.``), sorted."""
        return sorted(k for k in self.values if k.startswith(prefix))

    def write(self, out: str | Path, *, overwrite: bool = False) -> Path:
        """Write the byte-stable analysis.json (refuses to replace a file unless ``overwrite``)."""
        from stats.analyze import write

        return write(dict(self.document), out, overwrite=overwrite)

    @classmethod
    def from_document(cls, doc: Mapping[str, Any], digest: str | None = None, *,
                      source: str = "analysis document") -> AnalysisResult:
        """Typed views over an analysis document, checked first: the one way an :class:`AnalysisResult` is made.

        Why strict: every reader after it (render, the model cards, the hub folders, the boundary
        plot) reads typed fields only, so a field the analysis schema requires
        (``schemas/analysis.schema.json``: what those readers read) that is missing, renamed or of
        the wrong type is one line naming ``source`` and the field here, never a None deep inside
        a renderer; the ``plan`` is checked against the preregistration schema's ``analysis`` block.

        Args:
            doc: the analysis document (``stats.analyze.build``'s, or a file's JSON).
            digest: sha256 of the file's bytes it was read from (None: built in memory).
            source: what names the document in an error (:func:`read_analysis` gives the file).

        Returns:
            The typed result.

        Raises:
            UserError: ``<source>: <field>: <what is wrong>``, one line.

        Example:
            >>> try:
            ...     AnalysisResult.from_document({"study_id": "demo", "arms": ["grpo"]}, source="hand-built")
            ... except Exception as exc:
            ...     print(exc)
            hand-built: $: 'analysis_format' is a required property (+10 more)
        """
        from prereg.schema import require_valid

        require_valid(doc, "analysis", source)
        _require_valid_plan(doc["plan"], source)
        return cls._of_valid(doc, digest)

    @classmethod
    def _of_valid(cls, doc: Mapping[str, Any], digest: str | None) -> AnalysisResult:
        """The typed views of a document the schemas accepted (required fields read directly)."""
        verdicts, lock, inputs = doc["verdicts"], doc["lock"], doc["inputs"]
        runs = tuple(AnalysedRun(r["arm"], r["seed"], r.get("path"), r.get("seal")) for r in inputs["runs"])
        deviations = tuple(Deviation(d["kind"], d["detail"]) for d in doc["deviations"])
        hyps = {h: v.get("verdict") for h, v in (verdicts.get("hypotheses") or {}).items()}
        excluded = tuple(ExcludedRun(x.get("path"), x["reason"]) for x in inputs["excluded"])
        return cls(study_id=doc["study_id"], lock_hash=lock["hash"],
                   arms=tuple(doc["arms"]), contrasts=_contrasts(doc), hypotheses=hyps,
                   study_verdict=verdicts["study"]["verdict"],
                   warnings=tuple(doc["warnings"]), document=doc, lock_version=lock["version"],
                   lock_path=lock["path"],
                   baseline=doc["baseline"], runs=runs, deviations=deviations,
                   study=Verdict.of(verdicts["study"]),
                   contrast_verdicts=MappingProxyType(verdicts_of(doc, "contrasts")),
                   secondary_verdicts=MappingProxyType(verdicts_of(doc, "secondary")),
                   hypothesis_verdicts=MappingProxyType(verdicts_of(doc, "hypotheses")),
                   source=doc["source"], runs_root=inputs.get("root"), excluded=excluded,
                   evidence_class=doc.get("evidence_class"), sessions=tuple(doc.get("sessions") or ()),
                   session_arms=MappingProxyType({s: MappingProxyType(dict(a))
                                                  for s, a in (doc.get("session_arms") or {}).items()}),
                   session_labels=MappingProxyType({s: tuple(v) for s, v in (doc.get("session_labels") or {}).items()}),
                   contrast_designs=MappingProxyType({c: ContrastDesign.of(x)
                                                      for c, x in (doc.get("contrast_designs") or {}).items()}),
                   metric_units=MappingProxyType(dict(doc.get("metric_units") or {})), digest=digest)


def _contrasts(doc: Mapping[str, Any]) -> dict[str, ContrastResult]:
    values = doc.get("values") or {}
    verdicts = (doc.get("verdicts") or {}).get("contrasts") or {}

    def num(vid):  # the number under a value id (None: no such value)
        rec = values.get(vid)
        return rec.get("value") if isinstance(rec, dict) else None

    return {c: ContrastResult(c, num(f"contrasts.{c}.diff_mean"), num(f"contrasts.{c}.p"),
                              num(f"contrasts.{c}.p_adjusted"), num(f"contrasts.{c}.reject"),
                              (verdicts.get(c) or {}).get("verdict"))
            for c in doc.get("contrasts") or []}


def read_analysis(path: str | Path) -> AnalysisResult:
    """Read an analysis.json into an :class:`AnalysisResult`: the one place a file is parsed and checked.

    Why one place: render, the model cards, the hub folders and the boundary plot all read the
    analysis; checked here against the analysis schema (which requires every field they read)
    and the preregistration schema's ``analysis`` block (its ``plan``), a renamed, missing or
    mistyped field is a one-line error naming the file and the field (``stats render`` exits 2),
    and the readers after it read typed fields only.

    Args:
        path: the analysis.json written by ``stats analyze`` (:meth:`AnalysisResult.write`).

    Returns:
        The typed result; its ``digest`` is the sha256 of the file's bytes (pinned in report.md line 1).

    Raises:
        UserError: the file is missing, unreadable or not JSON, or a field is missing or of the wrong type.

    Example:
        >>> import json, tempfile
        >>> from pathlib import Path
        >>> p = Path(tempfile.mkdtemp()) / "analysis.json"
        >>> _ = p.write_text(json.dumps({"analysis_format": 1}))
        >>> try:
        ...     read_analysis(p)
        ... except Exception as exc:
        ...     print(str(exc).replace(str(p), "analysis.json"))
        analysis.json: $: 'arms' is a required property (+11 more)
    """
    from prereg.canonical import sha256_bytes
    from prereg.jsonio import read_json

    p = Path(path)
    doc = read_json(p, "analysis")  # names the file for every way it cannot be read
    return AnalysisResult.from_document(doc, sha256_bytes(p.read_bytes()), source=str(p))


@cache
def _plan_validator():
    """The preregistration schema's ``analysis`` block as a validator of analysis.json's ``plan``
    (the lock's block copied verbatim, so the schema that accepted the lock decides)."""
    from prereg.schema import StrictValidator, load_schema

    return StrictValidator({"$ref": "#/$defs/analysis", "$defs": load_schema("preregistration")["$defs"]})


def _require_valid_plan(plan: Any, source: str) -> None:
    from prereg.errors import UserError
    from prereg.schema import json_path

    errs = sorted(_plan_validator().iter_errors(plan), key=lambda e: json_path(e.absolute_path))
    if errs:
        more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
        raise UserError(f"{source}: {json_path(['plan', *errs[0].absolute_path])}: {errs[0].message}{more}")
