"""The stack fingerprint: every component, a hash over them, and pins that are enforced."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest  # noqa: E402

from prereg.canonical import sha256_json  # noqa: E402
from prereg.errors import UserError  # noqa: E402
from prereg.fingerprints import diff_components, differing_components, fingerprint_hash_ok  # noqa: E402
from runner import fingerprint  # noqa: E402
from runner.tasks import get_task  # noqa: E402

COMPONENTS = {"python", "torch", "transformers", "trl", "peft", "accelerate", "datasets", "bitsandbytes", "vllm",
              "rlprereg", "accelerator", "cpu", "os", "task", "model", "dataset"}
ARITH_DATA = {"name": "synthetic/arith", "revision": None, "train_split": "train", "heldout_split": "heldout",
              "heldout_n": 8}


@pytest.fixture
def frozen_project(monkeypatch):
    # Other work may commit while the suite runs; pin the git component for comparisons.
    monkeypatch.setattr(fingerprint, "_project_component", lambda: {"version": "t", "commit": "c", "dirty": False})


def _user_task_module(tmp_path, monkeypatch, name: str, credit: float) -> str:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(f"""
        from runner.tasks.arith import ArithTask

        class MyTask(ArithTask):
            name = "{name}"
            reward_name = "mine"

            def reward(self, completion, item):
                return 1.0 if self.correct(completion, item) else {credit}

        def make(task_spec, dataset_spec):
            return MyTask(task_spec, dataset_spec)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:make"


def test_every_component_and_hash():
    task = get_task({"name": "arith"}, ARITH_DATA)
    fp = fingerprint.stack_fingerprint(task=task, model_info={"name": "m", "weights_sha256": {"w": "0" * 64}})
    comps = fp["components"]
    assert COMPONENTS <= set(comps)
    assert fp["hash"] == sha256_json(comps) and fingerprint_hash_ok(fp)
    assert comps["python"]["version"].count(".") == 2
    assert comps["trl"] == fingerprint.installed_versions()["trl"]
    assert set(comps["torch"]) == {"version", "cuda", "cudnn", "cuda_available"}
    assert comps["task"]["source_sha256"] == task.source_sha256
    assert comps["dataset"] == task.dataset_fingerprint()
    assert comps["cpu"]["count"] == os.cpu_count()
    assert set(comps["rlprereg"]) == {"version", "commit", "dirty"}


def test_tampered_fingerprint_hash_detected():
    fp = fingerprint.stack_fingerprint()
    fp["components"]["trl"] = "0.0.1"
    assert not fingerprint_hash_ok(fp)


def test_fingerprint_changes_with_task_source(tmp_path, monkeypatch, frozen_project):
    spec_a = {"name": _user_task_module(tmp_path, monkeypatch, "fp_task_a", 0.1)}
    spec_b = {"name": _user_task_module(tmp_path, monkeypatch, "fp_task_b", 0.2)}
    ta, tb = get_task(spec_a, ARITH_DATA), get_task(spec_b, ARITH_DATA)
    assert ta.source_sha256 != tb.source_sha256
    fa, fb = fingerprint.stack_fingerprint(task=ta), fingerprint.stack_fingerprint(task=tb)
    assert fa["hash"] != fb["hash"]
    assert differing_components(fa, fb) == ["task"]
    assert "task.source_sha256" in diff_components(fa, fb)
    # Same task twice: same hash (nothing random or time-dependent in the fingerprint).
    assert fingerprint.stack_fingerprint(task=get_task(spec_a, ARITH_DATA))["hash"] == fa["hash"]


def test_model_and_dataset_components(frozen_project):
    info = {"name": "tiny:qwen2", "revision": None, "kind": "tiny", "path": "/somewhere/cache",
            "weights_sha256": {"model.safetensors": "a" * 64}, "config_sha256": "b" * 64, "num_parameters": 1}
    fa = fingerprint.stack_fingerprint(model_info=info, dataset_fingerprint={"items": "x"})
    moved = fingerprint.stack_fingerprint(model_info={**info, "path": "/elsewhere"}, dataset_fingerprint={"items": "x"})
    assert fa["hash"] == moved["hash"]  # the cache location is not content
    changed = fingerprint.stack_fingerprint(model_info={**info, "weights_sha256": {"model.safetensors": "c" * 64}},
                                            dataset_fingerprint={"items": "y"})
    assert diff_components(fa, changed) == ["dataset.items", "model.weights_sha256.model.safetensors"]


def test_extra_components_and_collision():
    fp = fingerprint.stack_fingerprint(extra={"launcher": {"kind": "local"}})
    assert fp["components"]["launcher"] == {"kind": "local"}
    with pytest.raises(ValueError, match="collides"):
        fingerprint.stack_fingerprint(extra={"trl": "x"})


def test_diff_components_pure():
    a = {"components": {"x": {"y": 1, "z": 2}, "w": None}, "hash": "h"}
    b = {"components": {"x": {"y": 1, "z": 3}, "w": {"k": 1}, "v": 0}, "hash": "h2"}
    assert diff_components(a, b) == ["v", "w", "w.k", "x.z"]
    assert differing_components(a, b) == ["v", "w", "x"]
    assert diff_components(a, a) == []


def test_stack_pins():
    versions = fingerprint.installed_versions()
    assert fingerprint.check_stack_pins({"trl": f"=={versions['trl']}", "datasets": ">=1"}) == []
    violations = fingerprint.check_stack_pins({"trl": "<0.1", "no-such-package-xyz": "==1.0", "peft": "bogus!"})
    assert len(violations) == 3
    assert any(v.startswith("stack_pins.trl:") and versions["trl"] in v for v in violations)
    assert any("no-such-package-xyz" in v and "not installed" in v for v in violations)
    assert any(v.startswith("stack_pins.peft:") and "specifier" in v for v in violations)
    with pytest.raises(UserError, match="stack_pins.trl"):
        fingerprint.require_stack_pins({"trl": "<0.1"})


def test_torch_local_version_satisfies_plain_pin():
    torch_version = fingerprint.installed_versions()["torch"]
    assert torch_version is not None, "torch is in the train extra CI installs: a missing torch fails, not skips"
    public = torch_version.split("+")[0]
    assert fingerprint.check_stack_pins({"torch": f"=={public}"}) == []


@pytest.mark.slow  # subprocess; fast tier: test_no_torch imports these modules torch-free
def test_imports_without_torch():
    code = ("import sys; import prereg.fingerprints, runner.fingerprint, runner.tasks, runner.models; "
            "bad = [m for m in ('torch', 'transformers', 'datasets', 'trl') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_components_are_read_not_typed(monkeypatch, frozen_project):
    before = fingerprint.stack_fingerprint()
    real = fingerprint._dist_version
    monkeypatch.setattr(fingerprint, "_dist_version", lambda n: "9.9.9" if n == "trl" else real(n))
    after = fingerprint.stack_fingerprint()
    assert after["components"]["trl"] == "9.9.9" and diff_components(before, after) == ["trl"]


def test_accelerator_from_nvidia_smi(tmp_path, monkeypatch):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA H200, 550.54.15, 143771 MiB'\necho 'NVIDIA H200, 550.54.15, 143771 MiB'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    acc = fingerprint.stack_fingerprint()["components"]["accelerator"]
    assert acc["driver"] == "550.54.15" and acc["memory"] == ["143771 MiB", "143771 MiB"]
    import torch  # the train extra: a missing torch fails here rather than skipping

    if not torch.cuda.is_available():  # without CUDA torch the names come from nvidia-smi
        assert acc["names"] == ["NVIDIA H200", "NVIDIA H200"]
    assert acc["count"] == len(acc["names"]) > 0
