"""``stats interim``: one registered look of a sequential study, its decision, a sealed record.

Why (README failure 19): stopping early keeps the lock's error rates only when the look is
taken at its registered number of seeds and the registered boundary decides. This module
computes each monitored contrast's paired t over the first n_k registered seeds, takes the
decision with :func:`prereg.seqdesign.decide`, and appends a sealed interim record to the
study's looks log (:mod:`prereg.looks`), which the runner reads before it runs the next
look's seeds. An early ``stats analyze`` is logged through :func:`log_early_analysis`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from prereg import looks as lk
from prereg.errors import UserError
from prereg.lock import Lock, verify_lock
from prereg.seqdesign import CONTINUE, Design, decide, design, require_usable


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class PairedStat:
    """Mean, SD and paired t of arm - baseline differences over one look's seeds (t None when the SD is 0).

    Rounded to 12 significant places as every record of the toolkit is, so the interim record,
    the final analysis (:mod:`stats.seqfinal`) and the audit's recomputation agree to the bit."""

    n: int
    mean_diff: float
    sd_diff: float
    t: float | None


def paired_stat(x: np.ndarray, y: np.ndarray) -> PairedStat:
    """The paired statistic of a look: :class:`PairedStat` of ``x - y``.

    Args:
        x, y: the arm's and the baseline's primary metric over the same seeds, in seed order.

    Returns:
        n, mean and SD of the differences and the paired t (None when the SD is 0 or n < 2).

    Example:
        >>> paired_stat(np.array([1.0, 2.0, 4.0]), np.array([0.0, 0.0, 1.0])).t
        3.464101615138
    """
    d = np.asarray(x, float) - np.asarray(y, float)
    n = len(d)
    mean, sd = float(d.mean()), float(d.std(ddof=1)) if n > 1 else float("nan")
    t = mean / (sd / math.sqrt(n)) if n > 1 and sd > 0 else None
    return PairedStat(n, round(mean, 12), round(sd, 12), None if t is None else round(t, 12))


def contrast_values(lock: Lock, data, contrast, seeds: list[int]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Primary-metric values of (arm, baseline) over ``seeds``; refuses a look whose runs are missing."""
    metric = lock.study.analysis.primary_metric
    xs, ys, seals = [], [], []
    for s in seeds:
        for arm, out in ((contrast.arm, xs), (contrast.baseline, ys)):
            u = data.units.get((arm, s))
            if u is None or u.metrics.get(metric) is None:
                raise UserError(f"{data.origin}: look needs {arm}/s{s} (a complete confirmatory run with "
                                f"{metric}); run `runner sweep --look` first")
            out.append(u.metrics[metric])
            seals.append(u.input_id)
    return np.array(xs), np.array(ys), seals


def look_record(lock: Lock, data, d: Design, look: int, previous: lk.LookEntry | None) -> dict:
    """The interim entry of ``look`` (unsealed): per contrast its statistic and decision; a contrast
    the ``previous`` look's record stopped is carried forward as that record wrote it."""

    plan = d.plan
    seeds = list(lock.study.seeds[: plan.looks[look - 1]])
    by_id = {c.id: c for c in lock.study.contrasts}
    contrasts, inputs = {}, []
    for cid in plan.contrasts:
        c = by_id[cid]
        before = previous.contrasts.get(cid) if previous is not None else None
        if before is not None and before.decision != CONTINUE:
            contrasts[cid] = {**before.raw, "carried": True}
            continue
        x, y, seals = contrast_values(lock, data, c, seeds)
        st = paired_stat(x, y)
        t = None if st.t is None else st.t * plan.direction
        contrasts[cid] = {"arm": c.arm, "baseline": c.baseline, **asdict(st), "t_signed": t, "look": look,
                          "bound_efficacy": _num(d.t_upper[look - 1]),
                          "bound_futility": _num(d.t_futility[look - 1]) if plan.spec.futility != "none" else None,
                          "decision": decide(d, look, t)}
        inputs += seals
    go = any(c["decision"] == CONTINUE for c in contrasts.values())
    return {"kind": "interim", "study_id": lock.study_id, "lock_hash": lock.hash, "look": look,
            "n_seeds": plan.looks[look - 1], "seeds": seeds, "contrasts": contrasts,
            "decision": CONTINUE if go else "stop", "inputs": sorted(set(i for i in inputs if i)),
            "created_at": _now()}


def _num(x: float):
    return x if math.isfinite(x) else None


def interim(lock_path: str | Path, runs: str | Path, look: int | None = None, *,
            require_signature: bool = False) -> dict:
    """Take the next registered look (or ``look``) and append its sealed record to the looks log.

    Args:
        lock_path: the study's lock.
        runs: runs root (or the study's folder in it).
        look: 1-based look; default the one after the last recorded look.
    Returns:
        the sealed interim entry.
    Raises:
        UserError: a fixed design, a look already taken or out of order, the final look (that is
            ``stats analyze``'s), a study that already stopped, or runs missing for the look.
    """
    from stats.load import load

    lock = verify_lock(lock_path, require_signature=require_signature)
    d = design(require_usable(lock.study))
    done = lk.interims(lk.read_log(runs, lock.study_id), lock.hash)
    nxt = max(done, default=0) + 1
    look = nxt if look is None else look
    if look != nxt:
        raise UserError(f"--look {look}: the next registered look is {nxt} (looks taken: {sorted(done) or 'none'})")
    if look >= len(d.plan.looks):
        raise UserError(f"--look {look}: the final look ({d.plan.looks[-1]} seeds) is analysed by `stats analyze`, "
                        f"not as an interim")
    prev = done.get(look - 1)
    if prev is not None and prev.decision != CONTINUE:
        raise UserError(f"--look {look}: the interim record of look {look - 1} stopped the study")
    rec = look_record(lock, load(lock, runs), d, look, prev)
    return lk.append(runs, lock.study_id, rec)


def log_early_analysis(lock: Lock, runs: str | Path, data) -> dict | None:
    """Log an analysis of a sequential study's confirmatory data before its final look.

    ``stats analyze`` calls this for every run: when fewer than the registered seeds are present
    for some arm and no interim stopped the study, the analysis is a look outside the design
    and goes on the record (the audit reports it).
    """
    seq = lock.study.analysis.sequential
    if not seq or data.source != "runs":
        return None
    counts = {a: len(data.seeds_of(a)) for a in lock.study.arms}
    planned = lk.planned_seeds(lock.study, lock.hash, lk.read_log(runs, lock.study_id))
    if all(counts[a] >= planned[a] for a in counts):  # the final analysis (maybe after an early stop)
        return None
    entry = {"kind": "analysis", "study_id": lock.study_id, "lock_hash": lock.hash,
             "seeds_per_arm": counts, "inputs": sorted(u.input_id for u in data.units.values() if u.input_id),
             "created_at": _now()}
    return lk.append(runs, lock.study_id, entry)


def drop_unasked_seeds(lock: Lock, runs: str | Path, data) -> None:
    """A study stopped early by its sealed interim record did not miss the seeds it never ran.

    ``missing_seed`` deviations for seeds beyond the look at which an arm stopped are removed
    (an intact looks log only; audit check 12 verifies the record that stopped it).
    """
    entries = lk.read_log(runs, lock.study_id)
    if lk.chain_problems(entries):
        return
    planned = lk.planned_seeds(lock.study, lock.hash, entries)
    order = {s: i for i, s in enumerate(lock.study.seeds)}
    data.deviations[:] = [d for d in data.deviations
                          if not (d.get("kind") == "missing_seed" and d.get("arm") in planned
                                  and order.get(d.get("seed"), -1) >= planned[d["arm"]])]
