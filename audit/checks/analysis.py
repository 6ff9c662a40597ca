"""Check 9: analysis.json is exactly what the locked plan computes from the current records.

Three layers, so the check still says something when stats cannot run: (a) consistency of
the file with the plan (RNG seed of every draw, multiplicity actually applied, power
method), (b) its input seals are the seals of the manifests on disk now, (c) a full
recomputation with the stats API, compared value by value.
"""

from __future__ import annotations

import inspect
import math
import tempfile
from pathlib import Path

from prereg.errors import UserError

TOL = 1e-12


def values_equal(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(float(a)) or math.isnan(float(b)):
            return math.isnan(float(a)) and math.isnan(float(b))
        return a == b or abs(a - b) <= TOL * max(1.0, abs(a), abs(b))
    return a == b


def recompute(lock_path: Path, runs_path: Path | None, analysis: dict, files=None):
    """The stats API's analysis of the same inputs, or None when stats is not available.

    ``files`` (the audit's :class:`prereg.runfiles.RunFiles`) lets stats reuse the manifests the
    audit read, validated and sealed and the digests it took; the fresh analysis is not checked
    against the schema again, since it is compared value by value with the validated file."""
    try:
        from stats.analyze import analyze
    except ImportError:
        return None
    params = inspect.signature(analyze).parameters
    kwargs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("out", "output", "out_path", "output_path"):
            if name in params:
                kwargs[name] = Path(tmp) / "analysis.json"
                break
        if runs_path is None:
            return None
        if "log_look" in params:  # recomputing is not a look at the data (README failure 19)
            kwargs["log_look"] = False
        if "files" in params and files is not None:
            kwargs["files"] = files
        if "validate" in params:
            kwargs["validate"] = False
        return analyze(lock_path, runs_path, **kwargs)


def _consistency(ctx, out, ap) -> None:
    plan = ctx.lock_view  # the lock's plan read once, tolerantly (a lock failing its schema still audits)
    values = ctx.analysis.get("values") or {}
    seed = plan.rng_seed
    for vid, rec in sorted(values.items()):
        rs = rec.get("rng_seed")
        if rs is not None and seed is not None and rs != seed:
            out.add(f"{ap}#$.values['{vid}'].rng_seed", seed, rs, "value drawn with an RNG seed other than the plan's")
        if ("power" in vid or "mde" in vid) and plan.power_method == "exact_noncentral_t":
            meth = f"{rec.get('method', '')} {rec.get('params', {}).get('method', '') if isinstance(rec.get('params'), dict) else ''}".lower()
            if "normal" in meth and "noncentral" not in meth:
                out.add(f"{ap}#$.values['{vid}'].method", "exact noncentral t (the plan's power method)",
                        rec.get("method"), "power computed by another method than planned")
    method, family = plan.multiplicity_method, list(plan.family)
    if method and method != "none" and len(family) > 1:
        raw, adj = {}, {}
        for vid, rec in values.items():
            for c in family:
                if vid.startswith(f"contrasts.{c}."):
                    tail = vid[len(f"contrasts.{c}."):]
                    if tail == "p":
                        raw[c] = rec.get("value")
                    elif tail == "p_adjusted":
                        adj[c] = (vid, rec.get("value"))
        if adj:
            from stats.multiplicity import adjust  # the same definition stats applies

            # a family member without a p-value enters with p = 1 (as stats applies it)
            fam = list(family)
            ps = [1.0 if raw.get(c) is None else float(raw[c]) for c in fam]
            want = dict(zip(fam, adjust(ps, method), strict=True))
            for c, (vid, got) in sorted(adj.items()):
                if c in want and got is not None and abs(got - want[c]) > 1e-10 * max(1.0, abs(want[c])):
                    same_as_raw = raw.get(c) is not None and values_equal(got, raw[c])
                    out.add(f"{ap}#$.values['{vid}'].value", f"{want[c]!r} ({method} over {len(fam)} contrasts)",
                            repr(got), "declared multiplicity correction not applied" if same_as_raw
                            else "adjusted p differs from the declared correction")


def grim_possible(v: float, n: int) -> bool:
    """Whether ``v`` can be some k/n rounded to the decimals ``v`` is written with (GRIM, Brown & Heathers
    2017). An imported table types a seed's accuracy to a few decimals (0.6013 for 451/750): the value
    stands for its rounding interval, so a k/n inside it is possible; a value in e-notation or with 12
    or more decimals is taken as exact.

    Args:
        v: the proportion as read from the table.
        n: the locked held-out n.

    Returns:
        True when some k/n lies within half a unit of ``v``'s last decimal (or within 1e-9).

    Example:
        >>> grim_possible(0.6013, 750), grim_possible(0.6014, 750)
        (True, False)
    """
    text = repr(float(v))
    decimals = len(text.split(".")[1]) if "." in text and "e" not in text else 12
    half = 0.5 * 10.0 ** -decimals if decimals < 12 else 0.0
    return any(abs(k / n - v) <= half + 1e-9 for k in (math.floor(v * n), math.ceil(v * n)))


def _grim(ctx, out, ap) -> None:
    """Imported per-seed proportions must be possible k/n at the locked held-out n (GRIM), as rounded."""
    n, metric = ctx.lock_view.heldout_n, ctx.lock_view.primary_metric
    if not isinstance(n, int) or n <= 0 or metric != "heldout_accuracy":
        return
    for vid, rec in sorted((ctx.analysis.get("values") or {}).items()):
        parts = vid.split(".")
        v = rec.get("value")
        if (len(parts) == 4 and parts[0] == "runs" and parts[3] == metric and isinstance(v, (int, float))
                and not isinstance(v, bool) and not grim_possible(v, n)):
            out.add(f"{ap}#$.values['{vid}'].value", f"a possible k/{n} (locked heldout_n)", repr(v),
                    f"proportion impossible with n = {n} (GRIM)")


def _seals(ctx, out, ap) -> None:
    current = {r.manifest.get("seal") for r in ctx.runs}
    by_unit = {(r.manifest.get("arm"), r.manifest.get("seed")): r for r in ctx.runs}
    listed = set()
    for i, item in enumerate((ctx.analysis.get("inputs") or {}).get("runs") or []):
        seal = item.get("seal")
        listed.add(seal)
        if seal not in current:
            r = by_unit.get((item.get("arm"), item.get("seed")))
            out.add(f"{ap}#$.inputs.runs[{i}].seal", r.manifest.get("seal") if r else "a seal of a manifest on disk",
                    seal, "analysis input is not the current manifest (records changed after the analysis)")
    for vid, rec in sorted((ctx.analysis.get("values") or {}).items()):
        stale = [s for s in rec.get("inputs") or [] if isinstance(s, str) and len(s) == 64 and s not in current]
        if stale:
            out.add(f"{ap}#$.values['{vid}'].inputs", "seals of current manifests", f"{len(stale)} unknown seal(s), "
                    f"e.g. {stale[0][:12]}...", "value computed from records that are not on disk now")


def _compare(out, ap, stored: dict, fresh: dict) -> None:
    sv, fv = stored.get("values") or {}, fresh.get("values") or {}
    for vid in sorted(set(sv) | set(fv)):
        if vid not in fv:
            out.add(f"{ap}#$.values['{vid}']", "absent (the locked plan does not compute it)",
                    repr(sv[vid].get("value")), "value not produced by the locked analysis")
            continue
        if vid not in sv:
            out.add(f"{ap}#$.values['{vid}']", repr(fv[vid].get("value")), "absent", "value of the locked analysis missing")
            continue
        a, b = sv[vid], fv[vid]
        if not values_equal(a.get("value"), b.get("value")):
            out.add(f"{ap}#$.values['{vid}'].value", repr(b.get("value")), repr(a.get("value")),
                    "value differs from its recomputation")
        for key in ("method", "unit", "rng_seed"):
            if a.get(key) != b.get(key):
                out.add(f"{ap}#$.values['{vid}'].{key}", repr(b.get(key)), repr(a.get(key)), f"{key} differs from the recomputation")
        if sorted(a.get("inputs") or []) != sorted(b.get("inputs") or []):
            out.add(f"{ap}#$.values['{vid}'].inputs", f"{len(b.get('inputs') or [])} seals of the recomputation",
                    f"{len(a.get('inputs') or [])} seals", "value's inputs differ from the recomputation")
    if stored.get("verdicts") != fresh.get("verdicts"):
        keys = sorted(set(stored.get("verdicts") or {}) | set(fresh.get("verdicts") or {}))
        diff = [k for k in keys if (stored.get("verdicts") or {}).get(k) != (fresh.get("verdicts") or {}).get(k)]
        for k in diff[:10]:
            out.add(f"{ap}#$.verdicts.{k}", repr((fresh.get("verdicts") or {}).get(k)),
                    repr((stored.get("verdicts") or {}).get(k)), "verdict differs from its recomputation")


SESSION_KEYS = ("sessions", "session_arms", "session_labels")


def _compare_sessions(out, ap, stored: dict, fresh: dict) -> None:
    """The session blocks (which session each ``sessions.<tag>.`` prefix is, the declared labels) and
    each input run's session, against the recomputation: values compared by id alone would let an
    edited ``session_arms`` pass a later session's values off as another's (README failure 16)."""
    for key in SESSION_KEYS:
        if stored.get(key) != fresh.get(key):
            out.add(f"{ap}#$.{key}", repr(fresh.get(key)), repr(stored.get(key)),
                    f"{key} differs from its recomputation (which evaluation session a value belongs to)")
    runs = {r.get("seal"): r.get("session") for r in (fresh.get("inputs") or {}).get("runs") or []
            if isinstance(r, dict) and r.get("seal")}
    for i, r in enumerate((stored.get("inputs") or {}).get("runs") or []):
        if isinstance(r, dict) and r.get("seal") in runs and r.get("session") != runs[r["seal"]]:
            out.add(f"{ap}#$.inputs.runs[{i}].session", repr(runs[r["seal"]]), repr(r.get("session")),
                    "input run's session differs from its manifest's")


def run(ctx, out) -> None:
    ap = ctx.rel(ctx.analysis_path)
    _consistency(ctx, out, ap)
    _grim(ctx, out, ap)
    if not ctx.imported:
        _seals(ctx, out, ap)
    else:
        table = (ctx.analysis.get("inputs") or {}).get("table") or {}
        if ctx.runs_path is not None and ctx.runs_path.is_file() and table.get("sha256"):
            from prereg.canonical import sha256_file

            got = sha256_file(ctx.runs_path)
            if got != table["sha256"]:
                out.add(f"{ap}#$.inputs.table.sha256", got, table["sha256"],
                        "imported results table changed after the analysis")
    try:
        fresh = recompute(ctx.lock_path, ctx.runs_path, ctx.analysis, ctx.files)
    except UserError as exc:
        out.add(ap, "an analysis the stats API can recompute from these records", str(exc),
                "recomputation failed")
        return
    except (TypeError, ValueError, KeyError) as exc:  # a record value of a type the plan cannot use
        out.add(ap, "an analysis the stats API can recompute from these records", f"{type(exc).__name__}: {exc}",
                "recomputation failed (a record holds a value of the wrong type)")
        return
    if fresh is None:
        out.notes.append("stats API not available for these inputs: full recomputation skipped")
        return
    _compare(out, ap, ctx.analysis, fresh)
    _compare_sessions(out, ap, ctx.analysis, fresh)
