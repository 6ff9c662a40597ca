"""Check 7: numbers in a manifest recomputed from the run's own telemetry and traces.

Summaries come from :func:`prereg.summaries.compute_summaries` (the one definition), so a
hand-edited summary shows even when the manifest was re-sealed (README failure 5); ranges
(ZVF, GU in [0, 1], GU = 1 - ZVF) catch a logger whose definition changed (failures 6, 14).
Every held-out row is re-scored with the task's own scorer (:mod:`prereg.scoring`): ``correct``
and ``reward`` must follow from the row's prediction and target, and the reward must lie in the
task's range (the manifest's record of it when present), so a self-contradicting row cannot
pass even after its summaries are recomputed and the manifest re-sealed.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from audit.context import hashes_key
from audit.findings import CheckResult
from audit.pool import map_runs
from prereg.errors import UserError
from prereg.fields import merged_fields
from prereg.records import (
    HELDOUT_TRACE,
    MANIFEST,
    TELEMETRY,
    TRAIN_TRACE,
    is_reference_run,
    recorded_reward_bounds,
)
from prereg.scoring import scorer_for
from prereg.summaries import compute_summaries
from stats.load import ItemOrder, items_from_rows, items_key, needs_items

HEX64 = re.compile(r"^[0-9a-f]{64}$")
TOL = 1e-12
REWARD_TOL = 1e-9


def reward_bounds(manifest: dict, task: str | None) -> tuple[float, float] | None:
    """The task's reward range: the manifest's own record when it holds a valid one
    (:func:`prereg.records.recorded_reward_bounds`, the one reader stats uses too), else the
    registered scorer's; None for a user task that recorded none (its rewards are then only
    checked for finiteness)."""
    recorded = recorded_reward_bounds(manifest)
    if recorded is not None:
        return recorded
    sc = scorer_for(task)
    return (sc.min_reward, sc.max_reward) if sc else None


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _column(rows: list[dict], key: str) -> list:
    """``[r.get(key) for r in rows]``, in C when every row has the key."""
    try:
        return list(map(itemgetter(key), rows))
    except KeyError:
        return [r.get(key) for r in rows]


def _types(values: list) -> set:
    return set(map(type, values))


class _Columns:
    """A held-out trace's columns, each taken from its rows once: check 7's tests, the summaries
    it recomputes and the per-item arrays it keeps read ``correct`` and ``reward`` three times
    over ~500k rows at 1,000 runs. ``cols(key)`` is ``[row.get(key) for row in cols.rows]``;
    callers must not change the lists."""

    def __init__(self, rows: list[dict]):
        self.rows, self._taken = rows, {}

    def __call__(self, key: str) -> list:
        col = self._taken.get(key)
        if col is None:
            col = self._taken[key] = _column(self.rows, key)
        return col


def _rows_agree_with_scorer(cols: _Columns, scorer, bounds) -> bool:
    """True only when :func:`_rescore_heldout` would find nothing, decided per column in C-level
    passes (types, range, one list comparison): ~500k rows at 1,000 runs. False sends the trace
    to the row-by-row scan, which names the first bad row of each kind."""
    oks, rws = cols("correct"), cols("reward")
    reward_types = _types(rws)
    if not _types(oks) <= {bool} or not reward_types <= {float, int}:
        return False
    big = sys.float_info.max
    lo, hi = (bounds[0] - REWARD_TOL, bounds[1] + REWARD_TOL) if bounds else (-big, big)
    if reward_types == {float}:
        arr = np.asarray(rws, dtype=float)
        if not (np.all(arr >= lo) and np.all(arr <= hi)):  # NaN fails both
            return False
    elif not all(lo <= r <= hi for r in rws):  # integers compared exactly, as the scan does
        return False
    if scorer is None:
        return True
    preds, targets = cols("prediction"), cols("target")
    pairs = list(zip(preds, targets, strict=True))
    try:
        if _types(preds) <= {str, type(None)} and _types(targets) <= {str}:  # few distinct pairs
            memo = {pair: scorer.rescore(*pair) for pair in set(pairs)}
            outcomes = [memo[pair] for pair in pairs]
        else:  # e.g. a Connections guess (a list of groups): scored row by row, as the scan does
            outcomes = [scorer.rescore(*pair) for pair in pairs]
        if oks != [o.correct for o in outcomes]:
            return False
        # in range, so every reward is a float or a small integer: float arithmetic is the scan's
        diff = np.asarray(rws, dtype=float) - np.asarray([o.reward for o in outcomes], dtype=float)
    except (TypeError, ValueError, AttributeError):
        return False
    return bool(np.all(np.abs(diff) <= REWARD_TOL))


def _rescore_heldout(out, hp, cols: _Columns, scorer, bounds) -> None:
    """Each row's ``correct`` and ``reward`` must follow from its own prediction and target
    (the task's scorer, :mod:`prereg.scoring`), and its reward must lie in the task's range.

    Outcomes are memoised per (prediction, target): a trace holds few distinct pairs, and the
    audit reads ~500k rows at 1,000 runs. ``hp`` is called for the trace's path only when a row is bad."""
    if _rows_agree_with_scorer(cols, scorer, bounds):
        return
    held = cols.rows
    bad: dict[str, list] = {}
    big = sys.float_info.max  # finite bounds also refuse inf and NaN in one comparison
    lo, hi = (bounds[0] - REWARD_TOL, bounds[1] + REWARD_TOL) if bounds else (-big, big)
    memo: dict = {}
    for i, row in enumerate(held):
        rw, ok = row.get("reward"), row.get("correct")
        if ok is not True and ok is not False:
            bad.setdefault("outcome", []).append((i, "correct as true/false", repr(ok), "held-out outcome not boolean"))
            continue
        if rw is not None and not ((type(rw) is float or type(rw) is int) and lo <= rw <= hi):
            bad.setdefault("range", []).append((i, f"reward in {list(bounds) if bounds else 'finite'}", repr(rw),
                                                "held-out reward outside the task's range"))
            continue
        if scorer is None:
            continue
        pred, tgt = row.get("prediction"), row.get("target")
        key = (pred, tgt) if (pred is None or type(pred) is str) and type(tgt) is str else None
        want = memo.get(key) if key is not None else None
        if want is None:
            try:
                want = scorer.rescore(pred, tgt)
            except (TypeError, ValueError, AttributeError) as exc:
                bad.setdefault("score", []).append((i, "a prediction and target the task can score",
                                                    f"{type(exc).__name__}: {exc}", "held-out row cannot be re-scored"))
                continue
            if key is not None:
                memo[key] = want
        if ok != want.correct:
            bad.setdefault("correct", []).append(
                (i, f"correct {want.correct} ({scorer.task} scorer: prediction {pred!r}, target {tgt!r})",
                 f"correct {ok}", "held-out row's outcome contradicts its own prediction and target"))
        elif rw is None or abs(rw - want.reward) > REWARD_TOL:
            bad.setdefault("reward", []).append(
                (i, f"reward {want.reward} ({scorer.task} scorer)", f"reward {rw!r}",
                 "held-out row's reward contradicts its own prediction and target"))
    for rows in bad.values():
        i, want, got, msg = rows[0]
        more = f" ({len(rows)} row(s))" if len(rows) > 1 else ""
        out.add(f"{hp()}:{i + 1}", want, got, msg + more)


def close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    try:
        return abs(float(a) - float(b)) <= TOL * max(1.0, abs(float(a)), abs(float(b)))
    except (TypeError, ValueError):
        return a == b


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


_HEX_DIGITS = b"0123456789abcdef"


def _all_hex64(vals: list) -> bool:
    """Every value a string of exactly 64 lowercase hex digits, in C-level passes over the column."""
    if not _types(vals) <= {str} or not set(map(len, vals)) <= {64}:
        return False
    try:
        joined = "".join(vals).encode("ascii")
    except UnicodeEncodeError:
        return False
    return not joined.translate(None, _HEX_DIGITS)  # nothing left once the hex digits are deleted


def _check_hashes(out, where, vals: list, field="completion_sha256"):
    """Every row's ``field`` is 64 lowercase hex digits; ``vals`` is that column, ``where()`` the trace's path."""
    if _all_hex64(vals):
        return  # the per-line scan below only names the first bad line
    bad = [(i + 1, v) for i, v in enumerate(vals) if not isinstance(v, str) or not HEX64.fullmatch(v)]
    if bad:
        line, val = bad[0]
        out.add(f"{where()}:{line}", f"{field} as 64 lowercase hex digits", repr(val),
                f"malformed completion hash ({len(bad)} line(s))")


class _Paths:
    """A run's file paths as findings name them, resolved only when a finding needs one
    (resolving ~4 paths for each of 1,000 clean runs was a tenth of the check)."""

    def __init__(self, ctx, run_dir):
        self._ctx, self._dir, self._done = ctx, run_dir, {}

    def __call__(self, rel: str) -> str:
        if rel not in self._done:
            self._done[rel] = self._ctx.rel(self._dir / rel)
        return self._done[rel]

    def of(self, rel: str):
        return lambda: self(rel)


def _read_run_files(ctx, out, r, paths: _Paths, reference: bool):
    """Telemetry, held-out and training rows (None when unreadable: a finding). A reference
    evaluation's telemetry or training trace is read (and checked) only when its folder has one."""
    tel, terr = ctx.telemetry(r) if not reference or (r.path / TELEMETRY).exists() else ([], None)
    held, herr = ctx.heldout(r)
    train, trerr = ctx.train(r) if not reference or (r.path / TRAIN_TRACE).exists() else (None, None)
    for err, rel in ((terr, TELEMETRY), (herr, HELDOUT_TRACE), (trerr, TRAIN_TRACE)):
        if err:
            out.add(paths(rel), "a readable JSON-lines file", err, "trace cannot be read")
    return tel, held, train


def _check_heldout_indices(out, hp, cols: _Columns, heldout_n) -> None:
    """Item indices 0..heldout_n-1, each once, as integers; as many rows as the lock's held-out n."""
    n = len(cols.rows)
    if heldout_n is not None and n != heldout_n:
        out.add(hp(), f"{heldout_n} items (locked heldout_n)", f"{n} items", "held-out count differs from the lock")
    idx = cols("index")
    want_n = heldout_n if heldout_n is not None else n
    if _types(idx) <= {int} and len(set(idx)) == len(idx) == want_n and (
            not idx or (min(idx) == 0 and max(idx) == want_n - 1)):
        return  # n distinct integers in [0, n-1]: exactly 0..n-1
    not_int = [(i + 1, v) for i, v in enumerate(idx) if not _is_int(v)]
    if not_int:
        out.add(f"{hp()}:{not_int[0][0]}", "index as an integer", repr(not_int[0][1]),
                f"held-out item index not an integer ({len(not_int)} line(s))")
    seen, dups = set(), []
    for i, v in enumerate(idx):
        if not _is_int(v):  # reported above; a list or object index cannot be compared
            continue
        if v in seen:
            dups.append((i + 1, v))
        seen.add(v)
    if dups:
        out.add(f"{hp()}:{dups[0][0]}", "unique item indices", f"index {dups[0][1]!r} repeated ({len(dups)} duplicate(s))",
                "duplicated held-out item index")
    want = set(range(want_n))
    missing = sorted(want - seen, key=lambda x: (str(type(x)), x))
    if missing:
        out.add(hp(), f"indices 0..{len(want) - 1}", f"missing {missing[:5]}{' ...' if len(missing) > 5 else ''}",
                "held-out item indices incomplete")


def _telemetry_ok(tel, train_bounds) -> bool:
    """True only when the row-by-row scan of :func:`_check_telemetry` would find nothing: contiguous
    integer steps from 0 or 1; float ZVF, GU and reward_mean, integer rollouts (other types go to
    the scan), checked as arrays with the scan's own comparisons."""
    steps, ro = _column(tel, "step"), _column(tel, "rollouts")
    cols = [_column(tel, k) for k in ("zvf", "gu", "reward_mean")]
    if not tel or not _types(steps) <= {int} or not _types(ro) <= {int} or any(_types(c) - {float} for c in cols):
        return False
    if steps[0] not in (0, 1) or steps != list(range(steps[0], steps[0] + len(steps))):
        return False
    z, g, rm = (np.asarray(c, dtype=float) for c in cols)
    if not (np.all(np.isfinite(z)) and np.all(np.isfinite(g)) and np.all(np.isfinite(rm))):
        return False
    if not (np.all((z >= 0.0) & (z <= 1.0)) and np.all((g >= 0.0) & (g <= 1.0)) and np.all(np.abs(g - (1.0 - z)) <= 1e-9)):
        return False
    if train_bounds and not np.all((rm >= train_bounds[0]) & (rm <= train_bounds[1])):
        return False
    return all(a <= b for a, b in zip(ro, ro[1:], strict=False))  # exact integer comparisons, as the scan


def _check_telemetry(out, tp, tel, m, max_steps, train_bounds) -> None:
    """Contiguous steps from 0 or 1, the locked step count, ZVF and GU in [0, 1] with GU = 1 - ZVF,
    training rewards in the task's range, cumulative rollouts that never decrease."""
    fine = _telemetry_ok(tel, train_bounds)
    steps = [] if fine else _column(tel, "step")
    if steps:
        start = steps[0]
        if start not in (0, 1):
            out.add(f"{tp()}:1", "first step 0 or 1", repr(start), "telemetry does not start at the first step")
        for i, st in enumerate(steps):
            if not _is_int(st) or st != start + i:
                out.add(f"{tp()}:{i + 1}", f"step {start + i}", f"step {st!r}",
                        "telemetry steps not contiguous (a line missing or repeated)")
                break
    if max_steps is not None and m.get("status") == "complete" and len(tel) != max_steps:
        out.add(tp(), f"{max_steps} steps (locked max_steps)", f"{len(tel)} lines", "telemetry line count differs from the lock")
    if fine:
        return
    prev = None
    for i, row in enumerate(tel):
        z, g = row.get("zvf"), row.get("gu")
        for name, v in (("zvf", z), ("gu", g)):
            if v is not None and (not _finite(v) or not 0.0 <= v <= 1.0):
                out.add(f"{tp()}:{i + 1}", f"{name} in [0, 1]", repr(v), f"{name.upper()} outside its range")
        if _finite(z) and _finite(g) and abs(g - (1.0 - z)) > 1e-9:
            out.add(f"{tp()}:{i + 1}", f"gu = 1 - zvf = {1.0 - z!r}", repr(g), "GU differs from 1 - ZVF")
        rm = row.get("reward_mean")
        if rm is not None and (not _finite(rm) or (train_bounds and not train_bounds[0] <= rm <= train_bounds[1])):
            out.add(f"{tp()}:{i + 1}", f"reward_mean in {list(train_bounds) if train_bounds else 'finite'}", repr(rm),
                    "training reward outside the task's range")
        ro = row.get("rollouts")
        if ro is not None:
            if prev is not None and (not _finite(ro) or ro < prev):
                out.add(f"{tp()}:{i + 1}", f"rollouts >= {prev}", repr(ro), "cumulative rollouts decrease")
            prev = ro if _finite(ro) else prev


def _check_recomputed_summaries(out, mp, s, tel, cols: _Columns) -> None:
    """The manifest's summaries equal :func:`compute_summaries` of its own telemetry and held-out trace."""
    try:
        re_s = compute_summaries(tel, cols.rows, cols)
    except (TypeError, ValueError, OverflowError) as exc:  # a trace value of the wrong type
        out.add(f"{mp()}#$.summaries", f"summaries recomputable from {TELEMETRY} and {HELDOUT_TRACE}",
                f"{type(exc).__name__}: {exc}", "a trace value has the wrong type; summaries cannot be recomputed")
        re_s = {}
    for k, v in re_s.items():
        if k in s and not close(s[k], v):
            out.add(f"{mp()}#$.summaries.{k}", f"{v!r} (recomputed from {TELEMETRY} and {HELDOUT_TRACE})",
                    repr(s[k]), "summary differs from its recomputation")
        elif k not in s:
            out.add(f"{mp()}#$.summaries.{k}", repr(v), "absent", "summary missing")


def _check_summary_ranges(out, mp, s, heldout_n) -> None:
    """Summaries possible on their own: the locked n, fractions in [0, 1], GU = 1 - ZVF, an
    accuracy that is some k/n (GRIM), every number finite."""
    if heldout_n is not None and "heldout_n" in s and s["heldout_n"] != heldout_n:
        out.add(f"{mp()}#$.summaries.heldout_n", heldout_n, s["heldout_n"], "summary held-out n differs from the lock")
    for k in ("zvf_mean", "gu_mean", "heldout_accuracy"):
        v = s.get(k)
        if v is not None and (not _finite(v) or not 0.0 <= v <= 1.0):
            out.add(f"{mp()}#$.summaries.{k}", "a value in [0, 1]", repr(v), f"{k} outside its range")
    z, g = s.get("zvf_mean"), s.get("gu_mean")
    if _finite(z) and _finite(g) and abs(g - (1.0 - z)) > 1e-9:
        out.add(f"{mp()}#$.summaries.gu_mean", f"1 - zvf_mean = {1.0 - z!r}", repr(g), "GU differs from 1 - ZVF")
    acc, n = s.get("heldout_accuracy"), s.get("heldout_n")
    if _finite(acc) and isinstance(n, int) and n > 0:
        k = round(acc * n)
        if abs(k / n - acc) > 1e-12:
            out.add(f"{mp()}#$.summaries.heldout_accuracy", f"a possible k/{n}", repr(acc),
                    f"proportion impossible with n = {n} (GRIM)")
    for k, v in s.items():
        if isinstance(v, float) and not math.isfinite(v):
            out.add(f"{mp()}#$.summaries.{k}", "a finite number", repr(v), "non-finite summary")


def _items_of(ctx, r, cols: _Columns | None, order_of: ItemOrder) -> tuple | None:
    """The held-out trace's per-item arrays (:func:`stats.load.items_from_rows`, a few kB a run)
    as ``(path, what, (ids, items, tasks))`` for the audit's shared :class:`prereg.runfiles.RunFiles`,
    so check 9's recomputation does not parse the ~500k rows of 1,000 runs again; None when the
    plan needs none or a trace they cannot be made from (left to stats, which reads it and says
    why itself). ``order_of`` sorts the runs' identical item ids once (and hands back one list
    for them all)."""
    study = ctx.study
    if cols is None or study is None or not needs_items(study.analysis):
        return None
    path = r.path / HELDOUT_TRACE
    try:
        value = items_from_rows(cols.rows, path, bool(study.analysis.tasks), cols, order_of)
    except UserError:
        return None
    return path, items_key(study.analysis), value


def _keep_items(ctx, kept: tuple | None, last_ids: list | None) -> list | None:
    """Leave :func:`_items_of`'s arrays in ``ctx.files``; a run whose item ids equal ``last_ids``
    (the previous run's, returned) shares that list: 1,000 runs keep one list of 500 ids, not 1,000."""
    if kept is None:
        return last_ids
    path, what, (ids, items, tasks) = kept
    if last_ids is not None and last_ids == ids:
        ids = last_ids
    ctx.files.keep(path, what, (ids, items, tasks))
    return ids


def _check_run(ctx, out, keys: dict, r, heldout_n, bounds, train_bounds, max_steps, scorer=None, reference=False):
    """Every check 7 makes of one run, in order: traces readable, held-out rows (indices, hashes,
    re-scored), training-trace hashes, telemetry, summaries recomputed and possible. Each trace's
    :func:`audit.context.hashes_key` goes into ``keys``. Returns the held-out trace's columns
    (None when unreadable)."""
    m = r.manifest
    paths = _Paths(ctx, r.path)
    s = m.get("summaries") if isinstance(m.get("summaries"), dict) else {}
    tel, held, train = _read_run_files(ctx, out, r, paths, reference)
    cols = None if held is None else _Columns(held)
    if cols is not None:
        hp = paths.of(HELDOUT_TRACE)
        _check_heldout_indices(out, hp, cols, heldout_n)
        hashes = cols("completion_sha256")
        keys[(str(r.path), HELDOUT_TRACE)] = hashes_key(hashes)
        _check_hashes(out, hp, hashes)
        _rescore_heldout(out, hp, cols, scorer, bounds)
    if train is not None:
        hashes = _column(train, "completion_sha256")
        keys[(str(r.path), TRAIN_TRACE)] = hashes_key(hashes)
        _check_hashes(out, paths.of(TRAIN_TRACE), hashes)
    if tel is not None:
        _check_telemetry(out, paths.of(TELEMETRY), tel, m, max_steps, train_bounds)
    mp = paths.of(MANIFEST)
    if tel is not None and cols is not None:
        _check_recomputed_summaries(out, mp, s, tel, cols)
    _check_summary_ranges(out, mp, s, heldout_n)
    return cols


def _probes(obj, path="$"):
    """Every ``shortcut_probe`` report recorded in a fingerprint (the connections task writes one)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "shortcut_probe" and isinstance(v, dict):
                yield f"{path}.{k}", v
            else:
                yield from _probes(v, f"{path}.{k}")


def _check_probe(out, where, probe) -> None:
    """README failure 12: a trivial policy (answer order as shown) must not earn real reward."""
    limit, top = probe.get("max_fraction"), probe.get("max_reward")
    for name, pol in sorted((probe.get("policies") or {}).items()):
        frac = pol.get("fraction_of_max") if isinstance(pol, dict) else None
        if not _finite(frac):
            continue
        if _finite(top) and top and _finite(pol.get("mean_reward")) and abs(pol["mean_reward"] / top - frac) > 1e-6:
            out.add(f"{where}.policies.{name}", f"fraction_of_max = mean_reward / max_reward = {pol['mean_reward'] / top!r}",
                    repr(frac), "shortcut probe report is inconsistent")
        if _finite(limit) and frac > limit:
            out.add(f"{where}.policies.{name}", f"at most {limit} of the maximum reward", repr(frac),
                    f"a trivial policy ({name}) earns real reward: the prompts leak the answer")


@dataclass(frozen=True)
class _Outcome:
    """What check 7 found in one run, made where the run was checked (here or in a worker,
    :mod:`audit.pool`) and applied to the check's result and the context in run order."""
    findings: list
    trace_keys: dict      # (run folder, trace) -> :func:`audit.context.hashes_key`, for check 8
    kept: tuple | None    # :func:`_items_of`, for check 9


def _bounds_record(ctx, out: CheckResult, r, task, scorer, bounds) -> None:
    """Report a manifest whose ``task.reward_bounds`` is not a valid pair (NaN, reversed, wrong
    shape: the stats loader ignores such a record too) or contradicts the registered scorer's."""
    where = f"{ctx.rel(r.path / MANIFEST)}#$.task.reward_bounds"
    rec = r.manifest.get("task")
    if isinstance(rec, dict) and "reward_bounds" in rec and recorded_reward_bounds(r.manifest) is None:
        out.add(where, "[min, max] of two finite numbers, min <= max", rec["reward_bounds"],
                "the manifest's reward bounds are not a valid [min, max] pair (ignored)")
    elif scorer is not None and bounds != (scorer.min_reward, scorer.max_reward):
        out.add(where, [scorer.min_reward, scorer.max_reward], list(bounds),
                f"the manifest's reward bounds differ from the task's ({task})")


def _one_run(ctx, head: tuple, scorer, order_of: ItemOrder, r) -> _Outcome:
    """Every check 7 makes of one complete run (the unit :func:`audit.pool.map_runs` spreads);
    ``head`` is the check's (id, name, title)."""
    prereg, heldout_n, task = ctx.lock_view.raw, ctx.lock_view.heldout_n, ctx.lock_view.task
    out = CheckResult(*head)
    keys: dict = {}
    bounds = reward_bounds(r.manifest, task)
    _bounds_record(ctx, out, r, task, scorer, bounds)
    arm = r.manifest.get("arm")
    max_steps, train_bounds = None, bounds
    if is_reference_run(r.manifest):  # evaluated, never trained: no telemetry, no training trace
        cols = _check_run(ctx, out, keys, r, heldout_n, bounds, None, None, scorer, reference=True)
        return _Outcome(out.findings, keys, _items_of(ctx, r, cols, order_of))
    if arm in ctx.arms:
        view = merged_fields(prereg, arm)
        max_steps = view.get("max_steps")
        if view.get("overlong_penalty_factor") or view.get("overlong_filtering"):
            train_bounds = None  # a length penalty moves training rewards outside the task range
    cols = _check_run(ctx, out, keys, r, heldout_n, bounds, train_bounds, max_steps, scorer)
    kept = _items_of(ctx, r, cols, order_of)
    seen = set()
    fp = r.manifest.get("fingerprint") if isinstance(r.manifest.get("fingerprint"), dict) else {}
    for where, probe in _probes(fp.get("components"), "$.fingerprint.components"):
        key = repr(sorted(probe.items(), key=str))
        if key not in seen:
            seen.add(key)
            _check_probe(out, f"{ctx.rel(r.path / 'manifest.json')}#{where}", probe)
    return _Outcome(out.findings, keys, kept)


def run(ctx, out) -> None:
    """Check 7 over every complete run; above :data:`audit.pool.MIN_RUNS` runs the runs are
    checked by ``ctx.jobs`` forked workers, and their outcomes applied here in run order, so the
    findings are the serial path's."""
    task = ctx.lock_view.task
    scorer = scorer_for(task)
    if scorer is None and task is not None:
        out.notes.append(f"task {task!r} has no registered scorer: held-out rows checked for range only, not re-scored")
    todo = [r for r in ctx.runs if r.manifest.get("status") == "complete"]
    one = functools.partial(_one_run, ctx, (out.check, out.name, out.title), scorer, ItemOrder())
    last_ids = None
    for o in map_runs(one, todo, jobs=ctx.jobs):
        out.findings.extend(o.findings)
        ctx.trace_keys.update(o.trace_keys)
        last_ids = _keep_items(ctx, o.kept, last_ids)
