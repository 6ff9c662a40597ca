"""The issue's adversary, on real records: a tiny signed campaign (2 arms x 2 seeds of real
GRPO runs on the offline tiny model, ``runner run --sign``), analysed, rendered and audited
with ``--trusted-run-key``; then the issue's forgeries on copies, each caught.
"""

from __future__ import annotations

import json
import shutil

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from runner_run_support import prereg, run, write_lock

    from prereg.signing import keygen, load_public_key_b64
    from stats.analyze import analyze, write
    from stats.render import render

    root = tmp_path_factory.mktemp("real")
    key, pub = keygen(root / "cluster")
    p = prereg(id="rr", arms={"grpo": {"algorithm": "grpo", "changes": {}},
                              "dr_grpo": {"algorithm": "dr_grpo",
                                          "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"}}})
    p["training"] = {**p["training"], "learning_rate": 5e-2}  # big steps: the seeds' adapters differ
    lock = write_lock(root / "locks", p)
    for arm in ("grpo", "dr_grpo"):
        for seed in (1, 2):
            run(lock, arm, seed, root / "runs", sign_key=key)
    write(analyze(lock, root / "runs"), root / "report" / "analysis.json")
    render(root / "report" / "analysis.json", root / "report")
    return {"root": root, "lock": lock, "key": key, "pub": load_public_key_b64(pub)}


def _copy(c, tmp_path):
    dest = tmp_path / "c"
    shutil.copytree(c["root"], dest)
    return dest


def _audit(root, c, **kw):
    from audit.engine import run_audit

    return run_audit(root / "report", lock=root / "locks" / c["lock"].name, runs=root / "runs",
                     trusted_run_keys=[c["pub"]], **kw)


def _reanalyze(root, c):
    from stats.analyze import analyze, write

    write(analyze(root / "locks" / c["lock"].name, root / "runs"), root / "report" / "analysis.json", overwrite=True)


def _errors(res):
    return [f"{f.check} {f.location}: {f.message}" for f in res.errors]


def test_clean_signed_campaign_passes(campaign):
    from prereg.jsonio import read_json
    from prereg.records import signature_problem

    root = campaign["root"]
    for m in (root / "runs").rglob("manifest.json"):
        assert signature_problem(read_json(m), [campaign["pub"]]) is None
    res = _audit(root, campaign)
    assert _errors(res) == []


def test_self_contradicting_row_resealed_and_reanalysed_is_caught(campaign, tmp_path):
    from prereg.jsonio import read_json, write_json_atomic
    from prereg.records import HELDOUT_TRACE, MANIFEST, artifact_digests, seal
    from prereg.summaries import compute_summaries

    root = _copy(campaign, tmp_path)
    unit = root / "runs" / "rr" / "grpo" / "s1"
    rows = [json.loads(x) for x in (unit / HELDOUT_TRACE).read_text().splitlines()]
    rows[0].update(correct=True, prediction="3", target="7", reward=0.1)
    (unit / HELDOUT_TRACE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    m = read_json(unit / MANIFEST)
    m["summaries"] = compute_summaries([json.loads(x) for x in (unit / "telemetry.jsonl").read_text().splitlines()],
                                       rows)
    m["artifacts"] = artifact_digests(unit)
    write_json_atomic(unit / MANIFEST, seal(m))
    _reanalyze(root, campaign)
    errs = _errors(_audit(root, campaign))
    assert any("outcome contradicts its own prediction" in e for e in errs), errs
    assert any("not vouched for: unsigned" in e for e in errs), errs


def test_copied_run_under_another_seed_is_caught(campaign, tmp_path):
    from prereg.jsonio import read_json, write_json_atomic
    from prereg.records import MANIFEST, TRAIN_TRACE, artifact_digests, seal

    root = _copy(campaign, tmp_path)
    src, dst = root / "runs" / "rr" / "grpo" / "s1", root / "runs" / "rr" / "grpo" / "s2"
    shutil.rmtree(dst)
    shutil.copytree(src, dst)
    rows = (dst / TRAIN_TRACE).read_text().splitlines()
    first = json.loads(rows[0])
    first["completion_sha256"] = "f" * 64
    (dst / TRAIN_TRACE).write_text("\n".join([json.dumps(first), *rows[1:]]) + "\n")
    m = read_json(dst / MANIFEST)
    m["seed"] = 2
    m["artifacts"] = artifact_digests(dst)
    write_json_atomic(dst / MANIFEST, seal(m))
    _reanalyze(root, campaign)
    errs = _errors(_audit(root, campaign))
    assert any("two different seeds" in e for e in errs), errs
    assert any("share one held-out trace" in e for e in errs), errs
