"""Check 4: each arm's resolved config differs from the baseline's in exactly its declared changes.

Extra differences are drift (README failure 1); a declared change that left the config equal
to the baseline's is a flag never wired (failure 2); a locked field missing from the
resolved config was dropped (failure 3).
"""

from __future__ import annotations

from prereg.fields import FREE_PATHS, flatten, merged_fields, resolved_path
from prereg.records import MANIFEST, is_reference_run
from prereg.rules import off_policy

_MISSING = object()


def same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return a == b and type(a) is type(b)


def _show(v) -> str:
    return "absent" if v is _MISSING else repr(v)


def _diff(a: dict, b: dict) -> set[str]:
    return {p for p in set(a) | set(b)
            if p not in FREE_PATHS and not same(a.get(p, _MISSING), b.get(p, _MISSING))}


def _implied(manifest: dict, path: str, algorithm) -> bool:
    src = (manifest.get("config_sources") or {}).get(path)
    if not isinstance(src, str):
        return False
    return src == f"preset:{algorithm}" or src.startswith("derived") or src == "trl-derived"


def _on_policy(f: dict) -> bool:
    """Fully on-policy by the one rule (prereg.rules.off_policy) over the flattened resolved config."""
    return not off_policy(f, prefix="trainer.")


def run(ctx, out) -> None:
    prereg = ctx.prereg
    base = ctx.baseline
    # A reference evaluation (runner evaluate; README failure 16) trained nothing: it has no
    # config to compare, and a reference baseline leaves each trained arm checked against its lock view.
    conf = [r for r in ctx.runs if r.manifest.get("evidence_class") == "confirmatory"
            and r.manifest.get("arm") in ctx.arms and r.manifest.get("lock", {}).get("hash") == ctx.lock.hash
            and not is_reference_run(r.manifest) and prereg["arms"][r.manifest["arm"]].get("kind") != "reference"]
    flat = {}
    for r in conf:
        rc = r.manifest.get("resolved_config")
        flat[str(r.path)] = flatten(rc) if isinstance(rc, dict) else {}
    base_runs = [r for r in conf if r.manifest.get("arm") == base]
    base_by_seed = {r.manifest.get("seed"): r for r in base_runs}
    base_view = {resolved_path(f): v for f, v in merged_fields(prereg, base).items()} if base in ctx.arms else {}
    first_of_arm = {}
    for r in conf:
        m = r.manifest
        arm, seed = m.get("arm"), m.get("seed")
        mp = ctx.rel(r.path / MANIFEST)
        f = flat[str(r.path)]
        locked_changes = prereg["arms"][arm].get("changes", {})
        if m.get("declared_changes") != locked_changes:
            out.add(f"{mp}#$.declared_changes", locked_changes, m.get("declared_changes"),
                    "declared changes differ from the lock's arm")
        view = {resolved_path(k): v for k, v in merged_fields(prereg, arm).items()}
        for path, want in sorted(view.items()):
            got = f.get(path, _MISSING)
            if got is _MISSING:
                out.add(f"{mp}#$.resolved_config.{path}", repr(want), "absent",
                        f"locked field {path} missing from the resolved config (dropped)")
            elif not same(got, want):
                out.add(f"{mp}#$.resolved_config.{path}", repr(want), repr(got),
                        f"{arm}/s{seed}: resolved value differs from the locked value")
        # Seeds of one arm must share one config (up to free paths).
        key = first_of_arm.setdefault(arm, r)
        if key is not r:
            for path in sorted(_diff(f, flat[str(key.path)])):
                out.add(f"{mp}#$.resolved_config.{path}", f"{_show(flat[str(key.path)].get(path, _MISSING))} "
                        f"(as in {ctx.rel(key.path)})", _show(f.get(path, _MISSING)),
                        f"{arm}: config differs between seeds of one arm")
        if arm == base:
            continue
        b = base_by_seed.get(seed) or (base_runs[0] if base_runs else None)
        if b is None:
            why = "the baseline is a reference arm (not trained)" if prereg["arms"].get(base, {}).get("kind") == \
                "reference" else "no baseline run"
            out.notes.append(f"{arm}/s{seed}: {why}: checked against its locked view only")
            continue
        bf = flat[str(b.path)]
        isl = "trainer.importance_sampling_level"
        if (f.get(isl) != bf.get(isl) and _on_policy(f) and _on_policy(bf)
                and (arm, "on_policy") not in first_of_arm):
            first_of_arm[(arm, "on_policy")] = r
            out.add(f"{mp}#$.resolved_config.trainer.num_iterations",
                    "num_iterations > 1 or steps_per_generation > gradient_accumulation_steps "
                    "(some off-policy updates)",
                    f"num_iterations={f.get('trainer.num_iterations')}, steps_per_generation="
                    f"{f.get('trainer.steps_per_generation')}, gradient_accumulation_steps="
                    f"{f.get('trainer.gradient_accumulation_steps')}",
                    f"{arm} vs {base}: importance-sampling level differs but training is fully on-policy, "
                    "so the two objectives coincide (the contrast cannot show a difference)")
        declared = {p for p in set(view) | set(base_view)
                    if p not in FREE_PATHS and not same(view.get(p, _MISSING), base_view.get(p, _MISSING))}
        actual = _diff(f, bf)
        # A difference the arm's algorithm preset (or a rule over declared fields) put there is
        # implied by the registered algorithm, not drift; the manifest says where each came from.
        implied = {p for p in actual - declared
                   if _implied(m, p, m.get("algorithm")) or _implied(b.manifest, p, b.manifest.get("algorithm"))}
        for p in sorted(implied):
            out.notes.append(f"{arm}/s{seed}: {p} differs from the baseline as implied by "
                             f"{(m.get('config_sources') or {}).get(p) or (b.manifest.get('config_sources') or {}).get(p)}")
        for path in sorted(actual - declared - implied):
            out.add(f"{mp}#$.resolved_config.{path}", f"{_show(bf.get(path, _MISSING))} (as baseline {ctx.rel(b.path)})",
                    _show(f.get(path, _MISSING)), f"{arm}/s{seed}: undeclared difference from the baseline (drift)")
        for path in sorted(declared - actual):
            out.add(f"{mp}#$.resolved_config.{path}", f"{_show(view.get(path, _MISSING))} (declared change of {arm})",
                    f"{_show(f.get(path, _MISSING))} (same as baseline)",
                    f"{arm}/s{seed}: declared change not reflected in the resolved config (never wired)")
