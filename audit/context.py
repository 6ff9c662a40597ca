"""Everything a check looks at, loaded once: analysis, lock chain, run folders, traces.

Loading is tolerant where a broken record is itself evidence (a manifest that no longer
parses is a finding of the runs check) and strict where the user pointed at something
that is not there (a missing report folder or analysis file is bad usage, exit 2).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from audit.lockview import LockView, lock_view
from prereg.errors import UserError
from prereg.jsonio import read_json, read_jsonl
from prereg.records import HELDOUT_TRACE, TELEMETRY, TRAIN_TRACE, Run
from prereg.rules import lock_files, manifest_paths
from prereg.runfiles import RunFiles
from prereg.schema import schema_errors
from prereg.study import Study, study_of

ANALYSIS = "analysis.json"




def _first_existing(cands: list[Path]) -> Path | None:
    for c in cands:
        if c.exists():
            return c
    return None


def _candidates(p: str, bases: list[Path]) -> list[Path]:
    path = Path(p)
    if path.is_absolute():
        return [path]
    out = [path]
    for b in bases:
        out.append(b / path)
    return out


def find_analysis(report_dir: Path) -> Path:
    direct = report_dir / ANALYSIS
    if direct.exists():
        return direct
    found = sorted(report_dir.rglob(ANALYSIS))
    if not found:
        raise UserError(f"{report_dir}: no {ANALYSIS} in the report folder (run `stats analyze` first)")
    return found[0]


@dataclass
class LockRecord:
    path: Path
    data: dict

    @property
    def hash(self) -> str | None:
        return self.data.get("lock_hash")

    @property
    def version(self):
        return self.data.get("version")


def trace_key(rows: list[dict]) -> str | None:
    """One digest of a trace's completion hashes, in order (None for an empty trace): equal keys,
    identical completions. Check 8 groups runs by it."""
    return hashes_key([r.get("completion_sha256") for r in rows])


def hashes_key(hashes: list) -> str | None:
    """:func:`trace_key` from the trace's ``completion_sha256`` column (check 7 has it at hand)."""
    if not hashes:
        return None
    text = "\n".join(hashes) if set(map(type, hashes)) == {str} else "\n".join(map(str, hashes))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class TracedReport:
    """The report folder parsed and every number traced, once per audit (checks 10 and 11 read it).

    ``results`` holds one :class:`audit.trace.Traced` per number, ``index`` the sources they were
    traced to (:class:`audit.sources.SourceIndex`), ``files`` the parsed report files, ``vocab``
    the study's declared names for reading prose (:class:`audit.words.Vocabulary`; None when the
    lock has no readable preregistration). ``claims``: the claims in words of every file with their
    tally (:func:`audit.claims.report_claims`), when the workers of a large report read them with
    its numbers (:mod:`audit.report_pool`); None: check 10 reads them itself."""
    results: list
    index: object
    files: list
    vocab: object | None
    claims: tuple | None = None


@dataclass(frozen=True)
class NumberTable:
    """Check 10's verdict on every report number, carried into :class:`audit.findings.AuditResult`."""
    rows: list                        # one :func:`audit.statuses.number_row` per number
    counts: dict                      # status -> how many
    untraced: list                    # {location, text, line} of each untraced number
    traced_count: int


@dataclass
class AuditContext:
    report_dir: Path
    analysis_path: Path
    analysis: dict
    lock_path: Path | None
    lock: LockRecord | None
    chain: dict[str, LockRecord]            # every lock of the study in the lock folder, by hash
    runs_path: Path | None
    runs: list[Run]
    unreadable_runs: list[tuple[Path, str]]
    schema_bad: dict[str, list[str]] = field(default_factory=dict)
    strict: bool = False
    trusted_keys: list[str] | None = None
    trusted_run_keys: list[str] | None = None  # --trusted-run-key: every confirmatory run signed by one
    # the report parsed and traced once (:func:`audit.trace.traced_report`, checks 10 and 11)
    report: TracedReport | None = None
    # each number's status, set by check 10 for the audit's result (--json/--html tables)
    numbers: NumberTable | None = None
    # check 8 groups runs by these digests, taken when check 7 reads each trace: (run folder, trace) -> key
    trace_keys: dict[tuple[str, str], str | None] = field(default_factory=dict)
    cwd: Path = field(default_factory=lambda: Path.cwd().resolve())  # what ``rel`` paths are relative to
    # manifests parsed, validated and sealed once and files hashed once, for every check and for
    # check 9's stats recomputation (one audit's lifetime)
    files: RunFiles = field(default_factory=RunFiles)
    jobs: int = 1  # worker processes for the per-run checks (:mod:`audit.pool`)
    _rels: dict = field(default_factory=dict)  # path -> what ``rel`` made of it
    _real: dict = field(default_factory=dict)  # path -> its resolved path (``_resolved``)

    # ---- views -------------------------------------------------------------------------
    @property
    def imported(self) -> bool:
        return self.analysis.get("source") == "imported"

    @property
    def prereg(self) -> dict | None:
        if self.lock is None:
            return None
        p = self.lock.data.get("preregistration")
        return p if isinstance(p, dict) else None

    @cached_property
    def study(self) -> Study | None:
        """The lock's preregistration as typed values (:mod:`prereg.study`), parsed once; None
        without a lock or when it fails its schema (check 1 reports that lock)."""
        p = self.prereg
        if p is None or schema_errors(p, "preregistration"):
            return None
        return study_of(p)

    @cached_property
    def exploratory_units(self) -> frozenset:
        """(arm, seed) of every run whose manifest says ``evidence_class: exploratory`` (check 11)."""
        return frozenset((r.manifest.get("arm"), r.manifest.get("seed")) for r in self.runs
                         if r.manifest.get("evidence_class") == "exploratory")

    @cached_property
    def lock_view(self) -> LockView:
        """The lock's preregistration read once, tolerantly (:mod:`audit.lockview`): what the
        report readers take from a lock that may fail its schema."""
        return lock_view(self.prereg)

    @property
    def arms(self) -> list[str]:
        return list(self.lock_view.arms)

    @property
    def seeds(self) -> list[int]:
        return list(self.lock_view.seeds)

    @property
    def baseline(self) -> str | None:
        return self.lock_view.baseline_arm

    def rel(self, p: Path) -> str:
        """``p`` relative to the working folder when under it, as findings name files; each path
        resolved once per audit (seven checks name each of 1,000 run folders)."""
        hit = self._rels.get(p)
        if hit is None:
            try:
                hit = str(self._resolved(Path(p)).relative_to(self.cwd))
            except ValueError:
                hit = str(p)
            self._rels[p] = hit
        return hit

    def _resolved(self, p: Path) -> Path:
        """``p.resolve()`` with one ``lstat`` for a path not seen before: a folder's resolution is
        kept, so the runs folder above 1,000 run folders is resolved once, not 2,000 times."""
        hit = self._real.get(p)
        if hit is None:
            parent = p.parent
            if parent == p or p.name in ("", ".", "..") or os.path.islink(p):
                hit = p.resolve()
            else:
                hit = self._resolved(parent) / p.name
            self._real[p] = hit
        return hit

    # ---- trace readers -----------------------------------------------------------------------
    # Not cached: a 1,000-run campaign holds ~1M trace rows, and keeping them all alive makes
    # every later allocation pay for garbage-collector scans (audit time grows quadratically).
    def _rows(self, run: Run, rel: str, what: str):
        try:
            return read_jsonl(run.path / rel, what), None
        except UserError as exc:
            return None, str(exc)

    def trace_key(self, run: Run, rel: str) -> str | None:
        """:func:`trace_key` of one of the run's traces (None when unreadable or empty), read at most once."""
        keys = self.trace_keys
        if (str(run.path), rel) not in keys:
            rows, _err = self._rows(run, rel, "trace")
            keys[(str(run.path), rel)] = None if rows is None else trace_key(rows)
        return keys[(str(run.path), rel)]

    def telemetry(self, run: Run):
        return self._rows(run, TELEMETRY, "telemetry")

    def heldout(self, run: Run):
        return self._rows(run, HELDOUT_TRACE, "held-out trace")

    def train(self, run: Run):
        return self._rows(run, TRAIN_TRACE, "training trace")


def _load_chain(lock_path: Path, study_id) -> dict[str, LockRecord]:
    chain = {}
    if not isinstance(study_id, str):
        return chain
    for cand, data in lock_files(lock_path.parent, study_id):
        chain.setdefault(data["lock_hash"], LockRecord(cand, data))
    return chain


_RUN_KEYS = ("arm", "seed", "evidence_class", "status", "lock")


def _load_runs(root: Path, study_id, files: RunFiles) -> tuple[list[Run], list[tuple[Path, str]], dict[str, list[str]]]:
    """Read every manifest; a schema violation is kept as evidence, not a reason to skip the run."""
    runs, bad, schema_bad = [], [], {}
    for m in manifest_paths(root):
        try:
            doc = files.manifest(m)
        except UserError as exc:
            bad.append((m, str(exc)))
            continue
        if not isinstance(doc, dict) or any(k not in doc for k in _RUN_KEYS) or not isinstance(doc.get("lock"), dict):
            bad.append((m, f"{m}: manifest lacks arm/seed/evidence_class/status/lock"))
            continue
        errs = files.schema_errors(m)
        if errs:
            schema_bad[str(m.parent)] = errs
        if study_id is None or doc.get("study_id") == study_id:
            runs.append(Run(path=m.parent, manifest=doc))
    return runs, bad, schema_bad


def _runs_root_from_analysis(analysis: dict, bases: list[Path]) -> Path | None:
    inputs = analysis.get("inputs") or {}
    for key in ("runs_dir", "runs_path", "root"):
        if isinstance(inputs.get(key), str):
            hit = _first_existing(_candidates(inputs[key], bases))
            if hit:
                return hit
    for item in inputs.get("runs") or []:
        p = item.get("path") if isinstance(item, dict) else None
        if isinstance(p, str):
            hit = _first_existing(_candidates(p, bases))
            if hit is not None and len(hit.parents) >= 2:
                # runs/<study>/<arm>/s<seed> -> runs/<study>
                return hit.parents[1]
    return None


def load_context(report_dir: str | Path, *, lock: str | Path | None = None, runs: str | Path | None = None,
                 strict: bool = False, trusted_keys: list[str] | None = None,
                 trusted_run_keys: list[str] | None = None, jobs: int = 1) -> AuditContext:
    report_dir = Path(report_dir)
    if not report_dir.exists():
        raise UserError(f"{report_dir}: report folder not found")
    if not report_dir.is_dir():
        raise UserError(f"{report_dir}: not a folder (give the report folder that holds {ANALYSIS})")
    analysis_path = find_analysis(report_dir)
    analysis = read_json(analysis_path, "analysis")
    if not isinstance(analysis, dict):
        raise UserError(f"{analysis_path}: malformed analysis: not a JSON object")
    errs = schema_errors(analysis, "analysis")
    if errs:
        raise UserError(f"{analysis_path}: malformed analysis: {errs[0]}")
    bases = [report_dir, report_dir.parent, analysis_path.parent, analysis_path.parent.parent]

    if lock is not None:
        lock_path = Path(lock)
        if not lock_path.exists():
            raise UserError(f"{lock_path}: lock not found (--lock)")
    else:
        named = (analysis.get("lock") or {}).get("path")
        lock_path = _first_existing(_candidates(named, bases)) if isinstance(named, str) else None
        if lock_path is None:
            raise UserError(f"{analysis_path}: $.lock.path {named!r} not found; pass --lock")
    data = read_json(lock_path, "lock")
    if not isinstance(data, dict):
        raise UserError(f"{lock_path}: malformed lock: not a JSON object")
    lock_rec = LockRecord(lock_path, data)
    chain = _load_chain(lock_path, data.get("study_id"))
    if isinstance(data.get("lock_hash"), str):
        chain.setdefault(data["lock_hash"], lock_rec)

    runs_path: Path | None = None
    run_list: list[Run] = []
    bad: list[tuple[Path, str]] = []
    schema_bad: dict[str, list[str]] = {}
    if runs is not None:
        runs_path = Path(runs)
        if not runs_path.exists():
            raise UserError(f"{runs_path}: runs folder not found (--runs)")
    elif analysis.get("source") != "imported":
        runs_path = _runs_root_from_analysis(analysis, bases)
        if runs_path is None:
            raise UserError(f"{analysis_path}: $.inputs names no run folder that exists here; pass --runs")
    else:
        table = (analysis.get("inputs") or {}).get("table") or {}
        named = table.get("path") if isinstance(table, dict) else None
        named = named or (analysis.get("inputs") or {}).get("root")
        runs_path = _first_existing(_candidates(named, bases)) if isinstance(named, str) else None
    files = RunFiles()
    if runs_path is not None and runs_path.is_dir():
        run_list, bad, schema_bad = _load_runs(runs_path, data.get("study_id"), files)
    return AuditContext(report_dir=report_dir, analysis_path=analysis_path, analysis=analysis,
                        lock_path=lock_path, lock=lock_rec, chain=chain, runs_path=runs_path,
                        runs=run_list, unreadable_runs=bad, schema_bad=schema_bad, strict=strict, trusted_keys=trusted_keys,
                        trusted_run_keys=trusted_run_keys, files=files, jobs=jobs)
