"""Check 2: every manifest's seal and signature, every artifact file's digest (missing and extra
files too), and the sweep log's hash chain (:mod:`audit.checks.sweeplog`).

A signature (``runner run --sign``) is checked whenever present; with ``--trusted-run-key``
every confirmatory run must carry one by a trusted key, so a campaign forged by someone who
re-sealed consistently but holds no run key fails (README "Record guarantees")."""

from __future__ import annotations

import functools

from audit.findings import CheckResult
from audit.pool import map_runs
from prereg.errors import UserError
from prereg.records import MANIFEST, signature_problem


def _files_on_disk(run_dir):
    from prereg.records import artifact_files

    return artifact_files(run_dir)


def _check_signature(ctx, out, mp, m: dict) -> None:
    required = ctx.trusted_run_keys is not None and m.get("evidence_class") == "confirmatory"
    if not required and m.get("signature") is None:
        return
    problem = signature_problem(m, ctx.trusted_run_keys)
    if problem is not None:
        want = "a signature by a --trusted-run-key" if ctx.trusted_run_keys is not None else "a valid signature"
        out.add(f"{mp()}#$.signature", want, problem, f"run record not vouched for: {problem}")


def run(ctx, out) -> None:
    """Check 2; above :data:`audit.pool.MIN_RUNS` runs the runs are checked by ``ctx.jobs``
    forked workers and their outcomes applied here in run order (the serial path's findings),
    the seals and digests they took kept in ``ctx.files`` for check 9's recomputation."""
    from audit.checks.sweeplog import check_sweep_log

    check_sweep_log(ctx, out)
    for path, msg in ctx.unreadable_runs:
        out.add(ctx.rel(path), "a readable manifest", msg, "manifest cannot be read")
    one = functools.partial(_one_run, ctx, (out.check, out.name, out.title))
    for run, (res, seal, digests) in zip(ctx.runs, map_runs(one, ctx.runs, jobs=ctx.jobs), strict=True):
        out.findings.extend(res.findings)
        out.notes.extend(res.notes)
        ctx.files.learn(run, seal, digests)


def _one_run(ctx, head: tuple, run) -> tuple[CheckResult, str | None, dict]:
    """Check 2 of one run (the unit :func:`audit.pool.map_runs` spreads): its findings and notes
    (a :class:`CheckResult` headed ``head``), its manifest's seal (None when it cannot be sealed)
    and the digests of the files hashed."""
    out = CheckResult(*head)
    # the manifest's name as findings write it, resolved only for a finding (1,000 clean runs need none)
    mp = functools.partial(ctx.rel, run.path / MANIFEST)
    m = run.manifest
    for err in ctx.schema_bad.get(str(run.path), [])[:5]:
        out.add(f"{mp()}#{err.split(':', 1)[0]}", "a manifest following schemas/manifest.schema.json",
                err, "manifest violates its schema")
    try:
        actual = ctx.files.seal_of(run)
    except UserError as exc:
        out.add(f"{mp()}#$", "a canonicalizable manifest", str(exc), "manifest cannot be sealed")
        return out, None, {}
    if actual != m.get("seal"):
        out.add(f"{mp()}#$.seal", actual, m.get("seal"), "manifest seal does not match its content (edited after sealing)")
    _check_signature(ctx, out, mp, m)
    _check_session(out, mp, m)
    if m.get("status") != "complete":
        out.notes.append(f"{mp()}: status {m.get('status')}; artifact files not checked (not sealed yet)")
        return out, actual, {}
    return out, actual, _check_artifacts(ctx, out, run, mp)


def _check_session(out, mp, m: dict) -> None:
    """The manifest's ``session`` is the one the runner was given (``settings.session``, written with
    it): a run moved to another evaluation session by editing ``session`` and re-sealing shows here
    (README failure 16). Manifests from before ``settings`` recorded it carry neither."""
    settings = m.get("settings") if isinstance(m.get("settings"), dict) else {}
    if "session" in settings and settings.get("session") != m.get("session"):
        out.add(f"{mp()}#$.session", repr(settings.get("session")), repr(m.get("session")),
                "manifest's session differs from the session the runner was given (settings.session)")


def _check_artifacts(ctx, out, run, mp) -> dict:
    """Every file the manifest lists is there with its digest and size; nothing else is.
    Returns the digests taken (path -> SHA-256)."""
    m = run.manifest
    digests = {}
    declared = m.get("artifacts") if isinstance(m.get("artifacts"), dict) else {}
    on_disk = _files_on_disk(run.path)
    for rel, digest in sorted(declared.items()):
        p = on_disk.get(rel)
        if p is None:
            out.add(f"{mp()}#$.artifacts['{rel}']", f"file {rel}", "missing", "artifact listed in the manifest is missing")
            continue
        want = digest.get("sha256") if isinstance(digest, dict) else None
        got = digests[p] = ctx.files.sha256(p)
        if got != want:
            out.add(ctx.rel(p), f"sha256 {want}", f"sha256 {got}", "artifact changed after the run was sealed")
        elif isinstance(digest, dict) and digest.get("bytes") != p.stat().st_size:
            out.add(ctx.rel(p), f"{digest.get('bytes')} bytes", f"{p.stat().st_size} bytes", "artifact size differs")
    for rel in sorted(set(on_disk) - set(declared)):
        out.add(ctx.rel(on_disk[rel]), "only files listed in the manifest", f"unlisted file {rel}",
                "file in the run folder that the manifest does not seal")
    return digests
