"""One audit reads, validates and seals each manifest once and hashes each file once, for its
checks and for check 9's stats recomputation (prereg.runfiles.RunFiles), and the recomputation
it gets that way is byte-identical to a plain ``stats analyze`` (README failure 10)."""

from __future__ import annotations

import collections

from audit_defects import LOCK_REL, chdir

import prereg.runfiles as runfiles
from audit.engine import run_audit
from prereg.records import MANIFEST
from stats.analyze import analyze, dumps


def test_each_manifest_read_and_sealed_once_and_each_file_hashed_once(clean_campaign, monkeypatch):
    reads, seals, hashes = collections.Counter(), collections.Counter(), collections.Counter()
    real_read, real_seal, real_hash = runfiles.read_json, runfiles.seal_of, runfiles.sha256_file

    def read(path, what="file"):
        reads[str(path)] += 1
        return real_read(path, what)

    def seal(manifest):
        seals[(manifest.get("arm"), manifest.get("seed"))] += 1
        return real_seal(manifest)

    def digest(path):
        hashes[str(path)] += 1
        return real_hash(path)

    monkeypatch.setattr(runfiles, "read_json", read)
    monkeypatch.setattr(runfiles, "seal_of", seal)
    monkeypatch.setattr(runfiles, "sha256_file", digest)
    res = run_audit(clean_campaign.report)
    assert res.passed and not res.findings
    manifests = sorted(clean_campaign.root.glob(f"runs/*/*/*/{MANIFEST}"))
    assert len(manifests) == 9
    assert len(reads) == len(manifests)
    assert set(reads.values()) == {1} and set(seals.values()) == {1} and len(seals) == 9
    # check 2 hashed every artifact and stats hashed the held-out traces again: once in all
    assert hashes and set(hashes.values()) == {1}
    assert any(p.endswith("heldout.jsonl") for p in hashes)


def test_shared_recomputation_is_byte_identical(clean_campaign):
    with chdir(clean_campaign.root):
        plain = dumps(analyze(LOCK_REL, "runs", log_look=False))
        files = runfiles.RunFiles()
        shared = dumps(analyze(LOCK_REL, "runs", log_look=False, files=files, validate=False))
        again = dumps(analyze(LOCK_REL, "runs", log_look=False, files=files))  # everything already read
    assert plain == shared == again
    assert plain == (clean_campaign.root / "report" / "analysis.json").read_text()


def test_a_broken_seal_is_still_seen_by_stats_through_shared_files(clean_campaign, tmp_path):
    """A manifest edited after sealing: check 2 and stats both see the broken seal from the one reading."""
    from audit_defects import copy_campaign

    camp = copy_campaign(clean_campaign, tmp_path / "c")
    m = sorted(camp.root.glob(f"runs/*/*/*/{MANIFEST}"))[0]
    text = m.read_text()
    assert '"heldout_accuracy": 0.' in text
    m.write_text(text.replace('"heldout_accuracy": 0.', '"heldout_accuracy": 0.0', 1))  # 0.58 -> 0.058
    res = run_audit(camp.report)
    by_check = {r.check: [f.message for f in r.findings] for r in res.results}
    assert any("seal does not match" in msg for msg in by_check["2"])
    assert by_check["9"], "the recomputation excludes the broken run, so values differ"


def test_each_heldout_trace_parsed_once_and_the_kept_items_give_the_same_analysis(clean_campaign, monkeypatch):
    """Check 7 keeps each held-out trace's per-item arrays in the shared RunFiles, so check 9's
    recomputation parses no held-out trace again, and what it computes from them is byte-identical."""
    import audit.context as actx
    import stats.load as sload
    from prereg.jsonio import read_jsonl

    parsed = collections.Counter()

    def counted(path, what="file"):
        parsed[str(path)] += 1
        return read_jsonl(path, what)

    monkeypatch.setattr(actx, "read_jsonl", counted)
    monkeypatch.setattr(sload, "read_jsonl", counted)
    res = run_audit(clean_campaign.report)
    assert res.passed and not res.findings
    held = {p: n for p, n in parsed.items() if p.endswith("heldout.jsonl")}
    assert len(held) == 9 and set(held.values()) == {1}

    monkeypatch.undo()
    with chdir(clean_campaign.root):
        files = runfiles.RunFiles()
        for trace in sorted(clean_campaign.root.glob("runs/*/*/*/traces/heldout.jsonl")):
            rel = trace.relative_to(clean_campaign.root)
            files.keep(rel, ("heldout_items", False), sload.items_from_rows(read_jsonl(rel), rel, False))
        monkeypatch.setattr(sload, "read_jsonl", lambda path, what="file": (_ for _ in ()).throw(
            AssertionError(f"{path} parsed again")) if str(path).endswith("heldout.jsonl") else read_jsonl(path, what))
        shared = dumps(analyze(LOCK_REL, "runs", log_look=False, files=files))
    assert shared == (clean_campaign.root / "report" / "analysis.json").read_text()
