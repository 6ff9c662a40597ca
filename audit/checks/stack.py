"""Check 6: one stack fingerprint across the confirmatory runs, honestly computed.

The fingerprint hash must be the hash of its components (not a label, README failure 4)
and the components must identify the code that ran.
"""

from __future__ import annotations

import functools
from collections import defaultdict

from audit.findings import WARNING
from prereg.canonical import sha256_json
from prereg.errors import UserError
from prereg.fingerprints import diff_components
from prereg.records import MANIFEST


def _flat(obj, prefix=""):
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
    else:
        out[prefix] = obj
    return out


def _short(v) -> str:
    t = repr(v)
    return t if len(t) <= 24 else t[:20] + "...'"


def _pins_violated(pins: dict, comps: dict) -> list[str]:
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion, Version
    except ImportError:
        return []
    bad = []
    for pkg, spec in (pins or {}).items():
        c = comps.get(pkg)
        ver = c.get("version") if isinstance(c, dict) else c
        if not isinstance(ver, str):
            continue
        try:
            if Version(ver) not in SpecifierSet(spec):
                bad.append(f"{pkg} {ver} (pinned {spec})")
        except (InvalidSpecifier, InvalidVersion):
            continue
    return bad


def run(ctx, out) -> None:
    conf = [r for r in ctx.runs if r.manifest.get("evidence_class") == "confirmatory"
            and (r.manifest.get("lock") or {}).get("hash") == ctx.lock.hash]
    groups = defaultdict(list)
    comps_of = {}
    fp_of = {}  # each run's fingerprint as an object ({} when the manifest holds something else)
    pins = ctx.lock_view.stack_pins
    for r in conf:
        fp = r.manifest.get("fingerprint") if isinstance(r.manifest.get("fingerprint"), dict) else {}
        mp = functools.partial(ctx.rel, r.path / MANIFEST)  # resolved only for a finding
        comps = fp.get("components") if isinstance(fp.get("components"), dict) else {}
        try:
            want = sha256_json(comps)
        except UserError:
            want = None
        if want != fp.get("hash"):
            out.add(f"{mp()}#$.fingerprint.hash", want, fp.get("hash"),
                    "fingerprint hash is not the hash of its components")
        flat = _flat(comps)
        if not any(("commit" in k or "sha256" in k or "source" in k) and v for k, v in flat.items()):
            out.add(f"{mp()}#$.fingerprint.components", "a component identifying the code (git commit or source hash)",
                    ", ".join(sorted(flat)) or "none", "fingerprint leaves out the code that ran", WARNING)
        for v in _pins_violated(pins, comps):
            out.add(f"{mp()}#$.fingerprint.components", "versions within the lock's stack_pins", v,
                    "stack contradicts a locked pin")
        h = fp.get("hash")
        groups[h if isinstance(h, str) or h is None else repr(h)].append(r)  # a mangled hash is still a group
        comps_of[str(r.path)] = flat
        fp_of[str(r.path)] = fp
    if len(groups) > 1:
        ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        ref = ordered[0][1][0]
        ref_flat = comps_of[str(ref.path)]
        for h, rs in ordered[1:]:
            f = comps_of[str(rs[0].path)]
            keys = diff_components(fp_of[str(ref.path)], fp_of[str(rs[0].path)])
            diffs = "; ".join(f"{k}: {_short(ref_flat.get(k))} -> {_short(f.get(k))}" for k in keys[:8])
            diffs = (diffs + (f"; +{len(keys) - 8} more" if len(keys) > 8 else "")) or "(components equal, hash differs)"
            where = ", ".join(ctx.rel(r.path) for r in rs[:5]) + (f" (+{len(rs) - 5} more)" if len(rs) > 5 else "")
            out.add(ctx.rel(rs[0].path / MANIFEST) + "#$.fingerprint",
                    f"fingerprint {str(ordered[0][0])[:12]}... (as {len(ordered[0][1])} runs)",
                    f"fingerprint {str(h)[:12]}... in {where}", f"mixed stack: {diffs}")
