"""Check 4: each arm's resolved config differs from the baseline's in exactly its declared changes.

Extra differences are drift (README failure 1); a declared change that left the config equal
to the baseline's is a flag never wired (failure 2); a locked field missing from the
resolved config was dropped (failure 3).
"""

from __future__ import annotations

from prereg.fields import FREE_PATHS, flatten, resolved_path
from prereg.records import MANIFEST, is_reference_run
from prereg.rules import off_policy
from prereg.study import Study

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


def _trained_confirmatory(ctx, study: Study) -> list:
    """Confirmatory runs of trained arms under the audited lock. A reference evaluation (runner
    evaluate; README failure 16) trained nothing: it has no config to compare."""
    return [r for r in ctx.runs if r.manifest.get("evidence_class") == "confirmatory"
            and r.manifest.get("arm") in study.arms and r.manifest.get("lock", {}).get("hash") == ctx.lock.hash
            and not is_reference_run(r.manifest) and study.arms[r.manifest["arm"]].trained]


def _locked_view(study: Study, arm: str) -> dict:
    """The arm's locked training settings (shared settings with its changes), by resolved-config path."""
    return {resolved_path(k): v for k, v in study.arms[arm].training.fields.items()}


def _check_locked_view(out, study: Study, m: dict, mp: str, f: dict, view: dict) -> None:
    """The run's declared changes and resolved config against its arm's locked ``view`` (README
    failure 3: a locked field dropped)."""
    arm, seed = m.get("arm"), m.get("seed")
    locked_changes = dict(study.arms[arm].changes)
    if m.get("declared_changes") != locked_changes:
        out.add(f"{mp}#$.declared_changes", locked_changes, m.get("declared_changes"),
                "declared changes differ from the lock's arm")
    for path, want in sorted(view.items()):
        got = f.get(path, _MISSING)
        if got is _MISSING:
            out.add(f"{mp}#$.resolved_config.{path}", repr(want), "absent",
                    f"locked field {path} missing from the resolved config (dropped)")
        elif not same(got, want):
            out.add(f"{mp}#$.resolved_config.{path}", repr(want), repr(got),
                    f"{arm}/s{seed}: resolved value differs from the locked value")


def _check_seeds_agree(ctx, out, r, mp: str, flat: dict, first_of_arm: dict) -> None:
    """Seeds of one arm must share one config (up to free paths)."""
    arm = r.manifest.get("arm")
    key = first_of_arm.setdefault(arm, r)
    if key is r:
        return
    f, kf = flat[str(r.path)], flat[str(key.path)]
    for path in sorted(_diff(f, kf)):
        out.add(f"{mp}#$.resolved_config.{path}", f"{_show(kf.get(path, _MISSING))} (as in {ctx.rel(key.path)})",
                _show(f.get(path, _MISSING)), f"{arm}: config differs between seeds of one arm")


def _check_objectives_differ(out, m: dict, mp: str, f: dict, bf: dict, base: str, seen: set) -> None:
    """An importance-sampling level that differs from the baseline's under fully on-policy
    training changes nothing (the two objectives coincide); flagged once per arm."""
    arm, isl = m.get("arm"), "trainer.importance_sampling_level"
    if f.get(isl) == bf.get(isl) or not (_on_policy(f) and _on_policy(bf)) or arm in seen:
        return
    seen.add(arm)
    out.add(f"{mp}#$.resolved_config.trainer.num_iterations",
            "num_iterations > 1 or steps_per_generation > gradient_accumulation_steps "
            "(some off-policy updates)",
            f"num_iterations={f.get('trainer.num_iterations')}, steps_per_generation="
            f"{f.get('trainer.steps_per_generation')}, gradient_accumulation_steps="
            f"{f.get('trainer.gradient_accumulation_steps')}",
            f"{arm} vs {base}: importance-sampling level differs but training is fully on-policy, "
            "so the two objectives coincide (the contrast cannot show a difference)")


def _declared(view: dict, base_view: dict) -> set[str]:
    """The resolved paths where an arm's locked view differs from the baseline's (its declared changes)."""
    return {p for p in set(view) | set(base_view)
            if p not in FREE_PATHS and not same(view.get(p, _MISSING), base_view.get(p, _MISSING))}


def _check_declared_differences(ctx, out, m: dict, mp: str, f: dict, b, bf: dict, view: dict,
                                declared: set[str]) -> None:
    """Differences from the baseline run must be exactly the declared ones: an extra one is drift
    (README failure 1), a missing one a flag never wired (failure 2). A difference the arm's
    algorithm preset (or a rule over declared fields) put there is implied by the registered
    algorithm, not drift; the manifest says where each came from."""
    arm, seed = m.get("arm"), m.get("seed")
    actual = _diff(f, bf)
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


def run(ctx, out) -> None:
    study = ctx.study
    if study is None:  # check 1 fails such a lock; there is no locked view to compare against
        out.notes.append("the lock's preregistration does not validate (check 1): configs not compared")
        return
    base = study.baseline_arm
    conf = _trained_confirmatory(ctx, study)
    flat = {}
    for r in conf:
        rc = r.manifest.get("resolved_config")
        flat[str(r.path)] = flatten(rc) if isinstance(rc, dict) else {}
    base_runs = [r for r in conf if r.manifest.get("arm") == base]
    base_by_seed = {r.manifest.get("seed"): r for r in base_runs}
    base_view = _locked_view(study, base) if base in study.arms else {}
    first_of_arm: dict = {}
    on_policy_flagged: set = set()
    views: dict[str, dict] = {}
    declared_of: dict[str, set[str]] = {}
    for r in conf:
        m = r.manifest
        arm, seed = m.get("arm"), m.get("seed")
        mp = ctx.rel(r.path / MANIFEST)
        f = flat[str(r.path)]
        if arm not in views:  # one locked view per arm, not per run (1,000 runs, 5 arms)
            views[arm] = _locked_view(study, arm)
            declared_of[arm] = _declared(views[arm], base_view)
        view = views[arm]
        _check_locked_view(out, study, m, mp, f, view)
        _check_seeds_agree(ctx, out, r, mp, flat, first_of_arm)
        if arm == base:
            continue
        b = base_by_seed.get(seed) or (base_runs[0] if base_runs else None)
        if b is None:
            why = ("the baseline is a reference arm (not trained)" if base in study.arms
                   and not study.arms[base].trained else "no baseline run")
            out.notes.append(f"{arm}/s{seed}: {why}: checked against its locked view only")
            continue
        bf = flat[str(b.path)]
        _check_objectives_differ(out, m, mp, f, bf, base, on_policy_flagged)
        _check_declared_differences(ctx, out, m, mp, f, b, bf, view, declared_of[arm])
