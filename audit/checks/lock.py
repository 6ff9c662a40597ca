"""Check 1: the lock is what it says (hash, signature, amendment chain) and is the one analysed."""

from __future__ import annotations

from audit.findings import WARNING
from prereg.errors import UserError
from prereg.lock import verify_lock


def run(ctx, out) -> None:
    lp = ctx.rel(ctx.lock_path)
    try:
        verify_lock(ctx.lock_path, trusted_keys=ctx.trusted_keys)
    except UserError as exc:
        out.add(lp, "a lock whose hashes, signature and amendment chain verify", str(exc), "lock does not verify")
    data = ctx.lock.data
    named = ctx.analysis.get("lock") or {}
    ap = ctx.rel(ctx.analysis_path)
    if named.get("hash") != data.get("lock_hash"):
        out.add(f"{ap}#$.lock.hash", data.get("lock_hash"), named.get("hash"),
                "analysis names a different lock than the one audited")
    if "version" in named and named.get("version") != data.get("version"):
        out.add(f"{ap}#$.lock.version", data.get("version"), named.get("version"), "analysis names another lock version")
    # Every signed lock of one study should be signed by one key: an amendment signed by
    # someone else is a lock the registrant may never have seen.
    keys = {}
    for rec in ctx.chain.values():
        sig = rec.data.get("signature")
        if isinstance(sig, dict) and sig.get("public_key"):
            keys.setdefault(sig["public_key"], []).append(ctx.rel(rec.path))
    if len(keys) > 1:
        names = "; ".join(f"{k[:12]}...: {', '.join(v)}" for k, v in sorted(keys.items()))
        out.add(lp, "one signing key for every lock of the study", names, "locks of one study signed by different keys")
    versions = [r.version for r in ctx.chain.values() if isinstance(r.version, int)]
    if versions and isinstance(data.get("version"), int) and max(versions) > data["version"]:
        out.add(lp, f"the latest lock (version {max(versions)})", f"version {data['version']}",
                "a newer amendment of this study exists; the analysis used an older lock", WARNING)
