"""The looks log: every analysis of confirmatory data before the final look, sealed and chained.

Why (README failure 19, peeking): a sequential design keeps its error rates only if the data
were looked at exactly at the registered looks and the registered decision was taken. Each
interim analysis (``stats interim``) and each early ``stats analyze`` appends one entry to
``<runs>/<study>/_looks/looks.jsonl``; an entry is sealed like a manifest (SHA-256 of its
canonical form without ``seal``) and names the seal of the entry before it (``prev``), so an
entry cannot be removed, reordered or edited without the audit seeing a broken chain. The
runner reads the same log to refuse the seeds of a later look until the earlier look's
interim record says continue. Stdlib-only, so the runner's preflight stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from prereg.canonical import canonical_bytes, sha256_json
from prereg.errors import Refusal, UserError
from prereg.jsonio import make_dirs, read_jsonl, write_atomic, write_json_atomic
from prereg.study import Study

LOOKS_DIR = "_looks"
LOG = "looks.jsonl"
LOG_FORMAT = 1
CONTINUE = "continue"


@dataclass(frozen=True)
class LookContrast:
    """One monitored contrast of an interim record (``contrasts.<id>``), as :mod:`stats.interim` wrote it.

    Fields hold what the log says (an intact log has the annotated types; an edited one is audit
    check 12's to report, so nothing is coerced here); ``raw`` is the record itself, which a later
    look copies when it carries a stopped contrast forward."""

    arm: str | None
    baseline: str | None
    t: float | None                # the paired t (arm - baseline) over the look's seeds
    decision: str | None           # continue, stop_efficacy or stop_futility
    look: int | None               # the look that decided it (a carried contrast keeps its own)
    bound_efficacy: float | None   # the t-scale boundary the record applied
    carried: bool                  # decided at an earlier look and copied forward
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, rec: Any) -> LookContrast:
        """A contrast record of the log (anything that is not an object reads as an empty one)."""
        r = rec if isinstance(rec, dict) else {}
        return cls(r.get("arm"), r.get("baseline"), r.get("t"), r.get("decision"), r.get("look"),
                   r.get("bound_efficacy"), bool(r.get("carried")), MappingProxyType(r))


@dataclass(frozen=True)
class LookEntry:
    """One entry of the looks log: an ``interim`` record (a registered look and its decisions) or an
    ``analysis`` of confirmatory data before the final look (README failure 19).

    The one reading of an entry that the runner's gate, ``stats interim``, the sequential block of
    ``stats analyze`` and audit check 12 share; the sealed dict stays in ``raw`` (the chain and the
    seal are computed over it, :func:`chain_problems`). Fields hold what the log says, as in
    :class:`LookContrast`.

    Example:
        >>> e = LookEntry.of({"kind": "interim", "look": 1, "decision": "continue",
        ...                   "contrasts": {"gspo-grpo": {"arm": "gspo", "baseline": "grpo", "decision": "continue"}}})
        >>> e.look, e.contrasts["gspo-grpo"].decision, e.continues("gspo"), e.continues("dapo")
        (1, 'continue', True, True)
    """

    kind: str | None
    study_id: str | None
    lock_hash: str | None
    look: int | None
    n_seeds: int | None
    seeds: list | None
    decision: str | None                 # the study's: continue while any contrast continues, else stop
    contrasts: Mapping[str, LookContrast]
    seeds_per_arm: Mapping | None        # an ``analysis`` entry: seeds per arm it analysed
    created_at: str | None
    raw: Mapping[str, Any]

    @classmethod
    def of(cls, e: Any) -> LookEntry:
        """An entry of the log as :func:`read_log` returns it."""
        r = e if isinstance(e, dict) else {}
        cs = r.get("contrasts")
        return cls(r.get("kind"), r.get("study_id"), r.get("lock_hash"), r.get("look"), r.get("n_seeds"),
                   r.get("seeds"), r.get("decision"),
                   MappingProxyType({c: LookContrast.of(v) for c, v in (cs.items() if isinstance(cs, dict) else ())}),
                   r.get("seeds_per_arm"), r.get("created_at"), MappingProxyType(r))

    def continues(self, arm: str) -> bool:
        """Whether this interim record lets ``arm`` run more seeds: a contrast naming it continues,
        or, for an arm in no monitored contrast, any contrast continues."""
        cs = self.contrasts.values()
        mine = [c for c in cs if arm in (c.arm, c.baseline)]
        return any(c.decision == CONTINUE for c in (mine or cs))


def looks_dir(runs: str | Path, study_id: str) -> Path:
    """``<runs>/<study>/_looks``, whether ``runs`` is the runs root or the study's own folder.

    Example:
        >>> looks_dir("runs", "demo").as_posix()
        'runs/demo/_looks'
    """
    p = Path(runs)
    if p.name == study_id and not (p / study_id).is_dir():
        return p / LOOKS_DIR
    return p / study_id / LOOKS_DIR


def seal_of(entry: dict) -> str:
    return sha256_json({k: v for k, v in entry.items() if k != "seal"})


def read_log(runs: str | Path, study_id: str) -> list[dict]:
    """Every entry of the study's looks log, oldest first (empty when there is none)."""
    path = looks_dir(runs, study_id) / LOG
    return read_jsonl(path, "looks log") if path.exists() else []


def chain_problems(entries: list[dict]) -> list[tuple[int, str]]:
    """(index, problem) for every entry whose seal or link to the entry before it is wrong."""
    out, prev = [], None
    for i, e in enumerate(entries):
        if e.get("seal") != seal_of(e):
            out.append((i, "seal does not match the entry's content (edited after it was written)"))
        if e.get("prev") != prev:
            out.append((i, "prev does not name the seal of the entry before it (an entry removed, "
                           "reordered or inserted)"))
        if e.get("index") != i:
            out.append((i, f"index {e.get('index')!r} where entry {i} was expected"))
        prev = e.get("seal")
    return out


def append(runs: str | Path, study_id: str, entry: dict) -> dict:
    """Seal ``entry`` onto the end of the chain and write it; returns the sealed entry.

    Refuses to extend a log whose chain is already broken: a tampered log stays tampered.
    """
    from filelock import FileLock

    d = make_dirs(looks_dir(runs, study_id))
    with FileLock(str(d / ".looks.lock")):
        entries = read_log(runs, study_id)
        bad = chain_problems(entries)
        if bad:
            raise UserError(f"{d / LOG}: entry {bad[0][0]}: {bad[0][1]}; refusing to append")
        rec = {**entry, "format": LOG_FORMAT, "index": len(entries),
               "prev": entries[-1]["seal"] if entries else None}
        rec["seal"] = seal_of(rec)
        lines = [_line(e) for e in entries + [rec]]
        write_atomic(d / LOG, "".join(lines))
        if rec.get("kind") == "interim":
            write_json_atomic(d / f"look{rec['look']}.json", rec)
    return rec


def _line(e: dict) -> str:
    """One canonical JSON line (the same bytes whatever wrote the entry)."""
    return canonical_bytes(e).decode("utf-8") + "\n"


def interims(entries: list[dict], lock_hash: str) -> dict[int, LookEntry]:
    """Interim entries of this lock by look number (the first one of a look wins), typed."""
    out: dict[int, LookEntry] = {}
    for e in map(LookEntry.of, entries):
        if e.kind == "interim" and e.lock_hash == lock_hash:
            out.setdefault(e.look, e)
    return out


def registered_looks(study: Study) -> list[int] | None:
    """The registered looks (cumulative seeds per arm) of the typed plan
    (:class:`prereg.study.SequentialSpec`); None for a fixed design."""
    seq = study.analysis.sequential
    return list(seq.looks) if seq else None


def look_of_seed(study: Study, seed: int) -> int:
    """1-based look whose seeds include ``seed`` (looks are cumulative seeds in registered order)."""
    i = study.seeds.index(seed)
    return next(j + 1 for j, n in enumerate(registered_looks(study)) if i < n)


def record_before(lock_hash: str, runs: str | Path, study_id: str, look: int) -> LookEntry:
    """The sealed interim record of look ``look - 1``, or a Refusal saying why there is none."""
    entries = read_log(runs, study_id)
    bad = chain_problems(entries)
    where = looks_dir(runs, study_id) / LOG
    if bad:
        raise Refusal(f"{where}: entry {bad[0][0]}: {bad[0][1]}; look {look} cannot be gated")
    rec = interims(entries, lock_hash).get(look - 1)
    if rec is None:
        raise Refusal(f"look {look} needs the interim record of look {look - 1}: run `stats interim` first "
                      f"(none in {where})")
    return rec


def gate(study: Study, lock_hash: str, runs: str | Path, study_id: str, arm: str, seed: int) -> None:
    """Refuse a seed of look k > 1 until the sealed interim record of look k - 1 says continue.

    Args:
        study: the locked preregistration, typed (a fixed design passes untouched).
        lock_hash: the lock the run would use.
        runs: the runs root the run is written under.
    Raises:
        Refusal: one line naming the look and what is missing.
    """
    if registered_looks(study) is None or seed not in study.seeds:
        return
    look = look_of_seed(study, seed)
    if look == 1:
        return
    rec = record_before(lock_hash, runs, study_id, look)
    if not rec.continues(arm):
        raise Refusal(f"seed {seed} belongs to look {look}, but the interim record of look {look - 1} says "
                      f"{rec.decision!r} for arm {arm!r}: the design stops here")


def planned_seeds(study: Study, lock_hash: str, entries: list[dict]) -> dict[str, int]:
    """Seeds per arm the design asks for so far: n_j for an arm stopped at look j, else the final look."""
    looks = registered_looks(study)
    recs = interims(entries, lock_hash)
    out = {}
    for arm in study.arms:
        out[arm] = looks[-1]
        for j in sorted(recs):
            if not recs[j].continues(arm):
                out[arm] = looks[j - 1]
                break
    return out


def look_units(study: Study, lock_hash: str, runs: str | Path, study_id: str, look: int,
               arms: list[str] | None, seeds: list[int] | None) -> tuple[list[str], list[int]]:
    """The (arms, seeds) ``runner sweep --look`` runs: the first n_look seeds of the arms still going.

    Raises:
        UserError: a fixed design or a look that does not exist; Refusal: a look whose previous
            interim record is missing or says stop.
    """
    looks = registered_looks(study)
    if looks is None:
        raise UserError("--look: this lock has a fixed design (no analysis.sequential)")
    if not 1 <= look <= len(looks):
        raise UserError(f"--look {look}: the design has looks 1..{len(looks)} ({looks} seeds per arm)")
    first = study.seeds[: looks[look - 1]]
    chosen = [s for s in first if seeds is None or s in seeds]
    going = list(arms) if arms is not None else list(study.arms)
    if look > 1:
        rec = record_before(lock_hash, runs, study_id, look)
        going = [a for a in going if rec.continues(a)]
        if not going:
            raise Refusal(f"--look {look}: the interim record of look {look - 1} stopped every selected arm")
    return going, chosen
