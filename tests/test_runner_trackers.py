"""`--report-to`: real, offline tracker runs read back from each tracker's own store, then the
model cards and Hub folders of the same real study.

A tiny study (tiny:qwen2, 2 GRPO steps; arms grpo and dr_grpo, seeds 1 and 2) is swept with
`runner sweep --report-to mlflow,wandb,trackio,tensorboard` (real `runner run` children), and
its unit grpo/s1 is also run once with `runner run`'s Python API and no tracker. MLflow writes to
a SQLite store, W&B offline files, trackio its local database, TensorBoard event files; each is
read back with the tracker's own reader and compared with the unit's telemetry.jsonl. The traces
must be byte-identical to the run without trackers. The swept study is then analysed and
rendered with `--model-cards --hub-dir`, audited, and a Hub folder's adapter loaded with PEFT.
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
    arms = {"grpo": {"algorithm": "grpo", "changes": {}},
            "dr_grpo": {"algorithm": "dr_grpo", "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"}}}
    lock = write_lock(root, prereg(id="trk", arms=arms, seeds=[1, 2]))
    saved = {k: os.environ.get(k) for k in TRACKER_ENV}
    os.environ.update(MLFLOW_TRACKING_URI=f"sqlite:///{root / 'mlflow.db'}", WANDB_MODE="offline",
                      WANDB_DIR=str(root / "wb"), WANDB_SILENT="true", TRACKIO_DIR=str(root / "trackio"))
    (root / "wb").mkdir()
    try:
        torch.set_num_threads(1)  # the swept child runs with --cpus-per-run 1
        plain = run_unit(lock, "grpo", 1, root / "plain", quiet=True, environ={})
        rc = sweep_main([str(lock), "--out", str(root / "tracked"), "--no-live",
                         "--cpus-per-run", "1", "--report-to", "mlflow,wandb", "--report-to", "trackio,tensorboard",
                         "--tensorboard-dir", str(root / "tb")])
        assert rc == 0
        yield {"root": root, "lock": lock, "plain": plain, "tracked": unit_dir(root / "tracked", "trk", "grpo", 1)}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _tel(run_dir: Path) -> list[dict]:
    return read_jsonl(run_dir / TELEMETRY, "telemetry")


def _rec(manifest: dict, name: str) -> dict:
    recs = [t for t in manifest["trackers"] if t["name"] == name]
    assert len(recs) == 1
    return recs[0]


def _record(run_dir: Path, name: str) -> dict:
    return _rec(read_run(run_dir).manifest, name)


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
    runs = {r.info.run_id: r for r in client.search_runs([exp.experiment_id])}
    # every unit of the sweep is in the store, tagged with the lock hash and its own seal
    swept = [read_run(unit_dir(units["root"] / "tracked", "trk", arm, seed)).manifest
             for arm in ("grpo", "dr_grpo") for seed in (1, 2)]
    assert sorted(runs) == sorted(_rec(u, "mlflow")["run_id"] for u in swept)
    for u in swept:
        tags = runs[_rec(u, "mlflow")["run_id"]].data.tags
        assert (tags["rlprereg.lock_hash"], tags["rlprereg.seal"]) == (u["lock"]["hash"], u["seal"])
        assert (tags["rlprereg.arm"], tags["rlprereg.seed"]) == (u["arm"], str(u["seed"]))
    run = runs[rec["run_id"]]
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
def test_trackio_local_run_holds_the_tags_seal_and_telemetry(units, monkeypatch):
    import trackio.sqlite_storage as store

    # trackio fixes its folder (TRACKIO_DIR) when it is first imported; in a whole-suite run an
    # earlier test may have imported it before the fixture set TRACKIO_DIR, so the reader is pointed
    # at the folder the swept runs wrote to (the manifest's recorded location, asserted below)
    monkeypatch.setattr(store, "TRACKIO_DIR", units["root"] / "trackio")
    SQLiteStorage = store.SQLiteStorage
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


@pytest.mark.slow
def test_real_study_cards_pass_the_audit_and_hub_adapter_loads(units):
    import torch
    from huggingface_hub import ModelCard, metadata_load
    from huggingface_hub.repocard_data import model_index_to_eval_results
    from peft import PeftModel

    from audit.cli import main as audit_main
    from runner.models import load_model_and_tokenizer
    from stats.analyze import analyze, write
    from stats.cli import main as stats_main

    root = units["root"]
    apath = write(analyze(units["lock"], root / "tracked"), root / "report" / "analysis.json")
    assert stats_main(["render", str(apath), "-o", str(root / "report"), "--model-cards",
                       "--hub-dir", str(root / "hub")]) == 0
    assert audit_main(["check", str(root / "report"), "--plain"]) == 0  # body pins and model-index values
    m = read_run(units["tracked"]).manifest
    card = root / "report" / "model_cards" / "grpo-s1" / "README.md"
    _, results = model_index_to_eval_results(metadata_load(card)["model-index"])
    assert {e.metric_type: e.metric_value for e in results}["heldout_accuracy"] == pytest.approx(
        m["summaries"]["heldout_accuracy"], abs=5e-5)
    assert ModelCard.load(card).data.base_model == "tiny:qwen2"
    folder = root / "hub" / "trk-grpo-s1"
    assert (folder / "README.md").read_bytes() == card.read_bytes()  # not PEFT's stub card
    assert (folder / "rlprereg" / "adapter" / "README.md").is_file() and (folder / "adapter_config.json").is_file()
    base, _, _ = load_model_and_tokenizer("tiny:qwen2", None, dtype="float32", device="cpu")
    loaded = PeftModel.from_pretrained(base, str(folder))
    from safetensors.torch import load_file

    saved = load_file(str(units["tracked"] / "adapter" / "adapter_model.safetensors"))
    live = {k: v for k, v in loaded.state_dict().items() if "lora_" in k}
    assert len(live) == len(saved) > 0
    for k, v in saved.items():
        match = [t for name, t in live.items() if name.replace(".default", "") == k]
        assert len(match) == 1 and torch.equal(match[0], v), k


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


@pytest.mark.slow
def test_a_crashed_run_tags_its_tracker_run_failed_with_the_seal(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import TENSORS, EventAccumulator

    from runner.train import run_unit

    p = prereg(id="crash")
    p["task"] = {"name": "runner_run_support:make_fixed_task", "options": {"fail_after": 8}}
    p["dataset"] = {"name": "fixed", "revision": None, "train_split": "train", "heldout_split": "heldout",
                    "heldout_n": 2}
    lock = write_lock(tmp_path, p)
    with pytest.raises(RuntimeError, match="injected reward failure"):
        run_unit(lock, "grpo", 1, tmp_path / "runs", quiet=True, environ={}, report_to=["tensorboard"],
                 tensorboard_dir=tmp_path / "tb")
    m = read_run(unit_dir(tmp_path / "runs", "crash", "grpo", 1)).manifest
    assert m["status"] == "failed"
    acc = EventAccumulator(str(tmp_path / "tb" / "crash" / "grpo" / "s1"), size_guidance={TENSORS: 0})
    acc.Reload()

    def text(tag):
        return [e.tensor_proto.string_val[0].decode() for e in acc.Tensors(f"{tag}/text_summary")]

    assert text("rlprereg.status") == ["failed"] and text("rlprereg.seal") == [m["seal"]]
    zvf = read_jsonl(unit_dir(tmp_path / "runs", "crash", "grpo", 1) / TELEMETRY, "telemetry")[0]["zvf"]
    assert [(e.step, e.value) for e in acc.Scalars("rlprereg/zvf")] == [(1, pytest.approx(zvf))]


class _RandomBackend:
    """A tracker backend that draws from every global RNG while logging (as a client library might)."""

    name = "random"

    def __init__(self):
        self.logged = []

    def log(self, metrics, step):
        import random

        import numpy as np
        import torch

        random.random(), np.random.rand(), torch.rand(1)
        self.logged.append((step, metrics))

    def finish(self, seal, status):
        self.logged.append(("finish", seal, status))


class _BrokenBackend(_RandomBackend):
    name = "broken"

    def log(self, metrics, step):
        raise ConnectionError("dashboard unreachable\nsecond line")


def test_tracker_calls_leave_every_random_state_untouched():
    import random

    import numpy as np
    import torch

    from runner.trackers import Trackers

    backend = _RandomBackend()
    random.seed(1), np.random.seed(1), torch.manual_seed(1)
    Trackers([backend], []).log({"rlprereg/zvf": 0.5}, 3)
    after = (random.random(), float(np.random.rand()), float(torch.rand(1)))
    random.seed(1), np.random.seed(1), torch.manual_seed(1)
    assert after == (random.random(), float(np.random.rand()), float(torch.rand(1)))
    assert backend.logged == [(3, {"rlprereg/zvf": 0.5})]


def test_a_failing_tracker_is_switched_off_and_noted_while_others_go_on():
    from runner.trackers import Trackers

    good, bad = _RandomBackend(), _BrokenBackend()
    group = Trackers([bad, good], [])
    group.log({"train/loss": 1.0}, 1)
    group.log({"train/loss": 0.5}, 2)
    assert group.problems == ["tracker broken stopped at step 1: ConnectionError: dashboard unreachable"]
    assert [s for s, _ in good.logged] == [1, 2]
    assert group.finish("ab" * 32, "complete", {"heldout_accuracy": 0.25}, step=2) == []
    assert good.logged[-2:] == [(2, {"rlprereg/heldout_accuracy": 0.25}), ("finish", "ab" * 32, "complete")]


class _UnflushableBackend(_RandomBackend):
    name = "unflushable"

    def flush(self):
        raise OSError("store went away")


def test_flush_sends_the_summaries_and_notes_a_tracker_that_cannot_store_them():
    from runner.trackers import Trackers

    good, bad = _RandomBackend(), _UnflushableBackend()
    group = Trackers([good, bad], [])
    group.flush({"heldout_accuracy": 0.5, "heldout_n": 4, "note": "text"}, step=2)
    assert good.logged == [(2, {"rlprereg/heldout_accuracy": 0.5, "rlprereg/heldout_n": 4.0})]
    assert group.problems == ["tracker unflushable stopped: OSError: store went away"]
    assert group.backends == [good]


def test_sweep_refuses_a_missing_client_before_any_unit_starts(tmp_path, monkeypatch, capsys):
    from runner.sweep import main as sweep_main

    lock = write_lock(tmp_path, prereg(id="trk"))
    monkeypatch.setitem(__import__("sys").modules, "wandb", None)
    rc = sweep_main([str(lock), "--out", str(tmp_path / "runs"), "--no-live", "--report-to", "mlflow,wandb"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == ["error: --report-to wandb: the wandb package is not installed; "
                               "pip install 'rlprereg[trackers]'"]
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_a_killed_and_resumed_unit_keeps_both_tracker_runs(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from tensorboard.backend.event_processing.event_accumulator import TENSORS, EventAccumulator

    from runner.train import run_unit

    p = prereg(id="rsm")
    p["training"] = {**p["training"], "max_steps": 4, "checkpoint_every": 2}
    lock = write_lock(tmp_path, p)
    out, tb = tmp_path / "runs", tmp_path / "tb"
    repo = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLPREREG_", "ACCELERATE_", "TRL_"))}
    env.update(PYTHONPATH=str(repo), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-m", "runner", "run", "--arm", "grpo", "--seed", "1", "--lock",
                             str(lock), "--out", str(out), "--quiet", "--report-to", "tensorboard",
                             "--tensorboard-dir", str(tb)], cwd=repo, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    unit = unit_dir(out, "rsm", "grpo", 1)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if (unit / TELEMETRY).exists() and (unit / TELEMETRY).read_text().count("\n") >= 3:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.01)
    finally:
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the run was not killed mid-training"
    first = read_run(unit).manifest["trackers"]
    assert [t["name"] for t in first] == ["tensorboard"]

    import torch

    torch.set_num_threads(1)
    run_unit(lock, "grpo", 1, out, quiet=True, environ={}, report_to=["tensorboard"], tensorboard_dir=tb)
    m = read_run(unit).manifest
    assert m["status"] == "complete" and len(m["resumes"]) == 1
    assert m["trackers"][:1] == first and [t["name"] for t in m["trackers"]] == ["tensorboard", "tensorboard"]
    acc = EventAccumulator(str(tb / "rsm" / "grpo" / "s1"), size_guidance={TENSORS: 0})
    acc.Reload()
    got = {e.step: e.value for e in acc.Scalars("rlprereg/reward_mean")}
    want = {r["step"]: r["reward_mean"] for r in read_jsonl(unit / TELEMETRY, "telemetry")}
    assert sorted(got) == [1, 2, 3, 4] and all(got[s] == pytest.approx(want[s], rel=1e-6) for s in want)
    seals = [e.tensor_proto.string_val[0].decode() for e in acc.Tensors("rlprereg.seal/text_summary")]
    assert seals == [m["seal"]]
