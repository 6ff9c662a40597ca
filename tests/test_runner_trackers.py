"""`--report-to`: real, offline tracker runs read back from each tracker's own store.

One tiny unit (tiny:qwen2, 2 GRPO steps) is run twice: once with `runner run`'s Python API and
no tracker, once through `runner sweep --report-to mlflow,wandb,trackio,tensorboard` (a real
`runner run` child). MLflow writes to a SQLite store, W&B offline files, trackio its local
database, TensorBoard event files; each is read back with the tracker's own reader and compared
with the run's telemetry.jsonl. The traces must be byte-identical to the run without trackers.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from prereg.fields import flatten
from prereg.jsonio import read_jsonl
from prereg.records import HELDOUT_TRACE, TELEMETRY, TRAIN_TRACE, read_run, unit_dir
from prereg.schema import schema_errors
from runner.trackers import parse_report_to, step_metrics
from tests.runner_run_support import prereg, write_lock
from tests.tracker_readers import wandb_history, wandb_run_info

TRACKER_ENV = ("MLFLOW_TRACKING_URI", "WANDB_MODE", "WANDB_DIR", "WANDB_SILENT", "TRACKIO_DIR")
OURS = ("zvf", "gu", "frac_all_fail", "frac_all_max", "reward_mean", "reward_std", "rollouts")
TRL = (("loss", "loss"), ("grad_norm", "grad_norm"), ("learning_rate", "learning_rate"))


@pytest.fixture(scope="module")
def units(tmp_path_factory):
    import torch

    from runner.sweep import main as sweep_main
    from runner.train import run_unit

    root = tmp_path_factory.mktemp("trackers")
    lock = write_lock(root, prereg(id="trk", seeds=[1]))
    saved = {k: os.environ.get(k) for k in TRACKER_ENV}
    os.environ.update(MLFLOW_TRACKING_URI=f"sqlite:///{root / 'mlflow.db'}", WANDB_MODE="offline",
                      WANDB_DIR=str(root / "wb"), WANDB_SILENT="true", TRACKIO_DIR=str(root / "trackio"))
    (root / "wb").mkdir()
    try:
        torch.set_num_threads(1)  # the swept child runs with --cpus-per-run 1
        plain = run_unit(lock, "grpo", 1, root / "plain", quiet=True, environ={})
        rc = sweep_main([str(lock), "--arms", "grpo", "--seeds", "1", "--out", str(root / "tracked"), "--no-live",
                         "--cpus-per-run", "1", "--report-to", "mlflow,wandb", "--report-to", "trackio,tensorboard",
                         "--tensorboard-dir", str(root / "tb")])
        assert rc == 0
        yield {"root": root, "plain": plain, "tracked": unit_dir(root / "tracked", "trk", "grpo", 1)}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _tel(run_dir: Path) -> list[dict]:
    return read_jsonl(run_dir / TELEMETRY, "telemetry")


def _record(run_dir: Path, name: str) -> dict:
    recs = [t for t in read_run(run_dir).manifest["trackers"] if t["name"] == name]
    assert len(recs) == 1
    return recs[0]


def _expected(run_dir: Path) -> dict[int, dict[str, float]]:
    """step -> what must reach every tracker: TRL's log keys and our telemetry, from telemetry.jsonl."""
    out = {}
    for row in _tel(run_dir):
        vals = {f"rlprereg/{k}": float(row[k]) for k in OURS if row.get(k) is not None}
        vals.update({f"train/{t}": float(row["trl"][t]) for _, t in TRL if row["trl"].get(t) is not None})
        out[row["step"]] = vals
    return out


@pytest.mark.slow
def test_a_tracker_changes_no_trace_and_no_config(units):
    plain, tracked = units["plain"], units["tracked"]
    for rel in (TRAIN_TRACE, HELDOUT_TRACE):
        assert (plain / rel).read_bytes() == (tracked / rel).read_bytes(), rel
    strip = [{k: v for k, v in r.items() if k not in ("step_time_s", "trl")} for r in _tel(plain)]
    assert strip == [{k: v for k, v in r.items() if k not in ("step_time_s", "trl")} for r in _tel(tracked)]
    a, b = read_run(plain).manifest, read_run(tracked).manifest
    # the scientific config is identical, report_to included: trackers are reported by the runner
    fa, fb = flatten(a["resolved_config"]), flatten(b["resolved_config"])
    assert [k for k in fa if fa[k] != fb.get(k)] == ["trainer.output_dir"]  # the --out folders differ
    assert b["resolved_config"]["trainer"]["report_to"] == a["resolved_config"]["trainer"]["report_to"]
    assert a["config_sources"] == b["config_sources"]
    assert a["settings"]["report_to"] == [] and b["settings"]["report_to"] == ["mlflow", "wandb", "trackio",
                                                                                "tensorboard"]
    assert "trackers" not in a and [t["name"] for t in b["trackers"]] == ["mlflow", "wandb", "trackio", "tensorboard"]
    assert schema_errors(b, "manifest") == []
    assert read_run(tracked).seal_ok() and b["status"] == "complete"


@pytest.mark.slow
def test_mlflow_store_holds_the_run_tags_seal_and_telemetry(units):
    from mlflow import MlflowClient

    run_dir = units["tracked"]
    m = read_run(run_dir).manifest
    rec = _record(run_dir, "mlflow")
    client = MlflowClient(tracking_uri=f"sqlite:///{units['root'] / 'mlflow.db'}")
    exp = client.get_experiment_by_name("trk")
    runs = client.search_runs([exp.experiment_id])
    assert [r.info.run_id for r in runs] == [rec["run_id"]]
    run = runs[0]
    tags = run.data.tags
    assert tags["rlprereg.lock_hash"] == m["lock"]["hash"] and tags["rlprereg.seal"] == m["seal"]
    assert tags["rlprereg.lock_version"] == "1" and tags["rlprereg.arm"] == "grpo" and tags["rlprereg.seed"] == "1"
    assert tags["rlprereg.study_id"] == "trk" and tags["rlprereg.evidence_class"] == "confirmatory"
    assert tags["rlprereg.status"] == "complete" and run.info.status == "FINISHED"
    assert run.data.params["trainer.learning_rate"] == "0.001"
    for step, vals in _expected(run_dir).items():
        for key, want in vals.items():
            hist = {h.step: h.value for h in client.get_metric_history(rec["run_id"], key)}
            assert hist[step] == pytest.approx(want, rel=1e-12), (key, step)
    assert run.data.metrics["rlprereg/heldout_accuracy"] == m["summaries"]["heldout_accuracy"]


@pytest.mark.slow
def test_wandb_offline_run_holds_the_tags_seal_and_telemetry(units):
    run_dir = units["tracked"]
    m = read_run(run_dir).manifest
    rec = _record(run_dir, "wandb")
    [path] = glob.glob(str(Path(rec["location"]) / f"run-{rec['run_id']}.wandb"))
    assert Path(path).is_relative_to(units["root"] / "wb")
    history = wandb_history(Path(path))
    for step, vals in _expected(run_dir).items():
        for key, want in vals.items():
            assert history[step][key] == pytest.approx(want, rel=1e-12), (key, step)
    run, info = wandb_run_info(Path(path))
    assert run.run_id == rec["run_id"] and run.display_name == "trk/grpo/s1"
    assert f"lock:{m['lock']['hash'][:16]}" in run.tags and f"seal:{m['seal'][:16]}" in run.tags
    meta = info["config"]["rlprereg"]
    assert meta["rlprereg.lock_hash"] == m["lock"]["hash"] and meta["rlprereg.seal"] == m["seal"]
    assert info["summary"]["rlprereg.seal"] == m["seal"]
    assert info["summary"]["rlprereg/heldout_accuracy"] == m["summaries"]["heldout_accuracy"]


@pytest.mark.slow
def test_trackio_local_run_holds_the_tags_seal_and_telemetry(units):
    from trackio.sqlite_storage import SQLiteStorage

    run_dir = units["tracked"]
    m = read_run(run_dir).manifest
    assert Path(_record(run_dir, "trackio")["location"]) == units["root"] / "trackio"
    logs = SQLiteStorage.get_logs("trk", "trk/grpo/s1")
    by_step: dict[int, dict] = {}
    for row in logs:
        by_step.setdefault(row["step"], {}).update(row)
    for step, vals in _expected(run_dir).items():
        for key, want in vals.items():
            assert by_step[step][key] == pytest.approx(want, rel=1e-12), (key, step)
    assert by_step[2]["rlprereg/seal"] == m["seal"] and by_step[2]["rlprereg/status"] == "complete"
    cfg = SQLiteStorage.get_run_config("trk", "trk/grpo/s1")
    assert cfg["rlprereg.lock_hash"] == m["lock"]["hash"] and cfg["rlprereg.arm"] == "grpo"


@pytest.mark.slow
def test_tensorboard_events_hold_the_tags_seal_and_telemetry(units):
    from tensorboard.backend.event_processing.event_accumulator import TENSORS, EventAccumulator

    run_dir = units["tracked"]
    m = read_run(run_dir).manifest
    loc = Path(_record(run_dir, "tensorboard")["location"])
    assert loc == units["root"] / "tb" / "trk" / "grpo" / "s1"
    acc = EventAccumulator(str(loc), size_guidance={TENSORS: 0})
    acc.Reload()
    for step, vals in _expected(run_dir).items():
        for key, want in vals.items():
            got = {e.step: e.value for e in acc.Scalars(key)}
            assert got[step] == pytest.approx(want, rel=1e-6), (key, step)  # event files store float32

    def text(tag):
        return [e.tensor_proto.string_val[0].decode() for e in acc.Tensors(f"{tag}/text_summary")]

    assert text("rlprereg.seal") == [m["seal"]] and text("rlprereg.lock_hash") == [m["lock"]["hash"]]


def test_report_to_values_are_parsed_and_bad_ones_refused():
    from prereg.errors import UserError

    assert parse_report_to(None) == () and parse_report_to(["none"]) == ()
    assert parse_report_to(["mlflow,WANDB", "mlflow", "tensorboard"]) == ("mlflow", "wandb", "tensorboard")
    with pytest.raises(UserError, match="--report-to 'comet': unknown tracker"):
        parse_report_to(["comet"])
    with pytest.raises(UserError, match="'none' cannot be combined"):
        parse_report_to(["none,mlflow"])


def test_step_metrics_names_trl_and_our_values_apart():
    got = step_metrics({"loss": 0.5, "frac_reward_zero_std": 1.0, "flag": True},
                       {"step": 3, "zvf": 0.25, "generations": [0], "trl": {"loss": 0.5}, "truncated_frac": None})
    assert got == {"train/loss": 0.5, "train/frac_reward_zero_std": 1.0, "rlprereg/zvf": 0.25}


@pytest.mark.parametrize("tracker,module", [("mlflow", "mlflow"), ("wandb", "wandb"), ("trackio", "trackio"),
                                            ("tensorboard", "tensorboard")])
def test_missing_client_is_one_line_naming_the_extra(tmp_path, monkeypatch, capsys, tracker, module):
    from runner.cli import main

    lock = write_lock(tmp_path, prereg(id="trk"))
    monkeypatch.setitem(__import__("sys").modules, module, None)  # `import <module>` now raises ImportError
    rc = main(["run", "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"),
               "--report-to", tracker])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == [f"error: --report-to {tracker}: the {module} package is not installed; "
                               "pip install 'rlprereg[trackers]'"]
    assert not (tmp_path / "runs").exists()
