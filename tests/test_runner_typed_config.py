"""The runner reads the locked evaluation protocol as typed values (issue 15: typed configuration).

``runner.evaluate`` used to read ``lock.prereg["evaluation"]`` by string keys with its own
defaults (``"greedy"``, ``"transformers"``, temperature 1.0); it now takes
:class:`prereg.study.Evaluation`, whose ``sampling_temperature`` holds the one default.
Real held-out scoring runs in the slow tier (tests/test_runner_run.py, tests/test_reference_runs.py).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from prereg.errors import Refusal
from prereg.study import SAMPLING_TEMPERATURE, study_of
from runner.evaluate import check_backend

DEMO = json.loads((Path(__file__).resolve().parents[1] / "examples" / "demo.json").read_text())


def _evaluation(**changes):
    p = copy.deepcopy(DEMO)
    p["evaluation"].update(changes)
    for k in [k for k, v in changes.items() if v is None]:
        del p["evaluation"][k]
    return study_of(p).evaluation


def test_the_sampling_temperature_default_is_held_by_the_typed_protocol():
    assert _evaluation(decoding="sample", temperature=None).sampling_temperature == SAMPLING_TEMPERATURE == 1.0
    assert _evaluation(decoding="sample", temperature=0.7).sampling_temperature == 0.7
    ev = _evaluation()
    assert ev.heldout_n == DEMO["dataset"]["heldout_n"] and ev.max_new_tokens == DEMO["evaluation"]["max_new_tokens"]


def test_a_backend_this_host_cannot_run_is_refused_and_transformers_passes():
    check_backend(_evaluation(backend="transformers"), "cpu")
    with pytest.raises(Refusal, match="^evaluation.backend is 'vllm'"):
        check_backend(_evaluation(backend="vllm"), "cpu")


def test_the_runner_reads_arms_tasks_and_the_evaluation_record_from_the_typed_study():
    from runner.config import arm_view
    from runner.tasks import get_task

    study = study_of(copy.deepcopy(DEMO))
    for arm in study.trained_arms:  # the typed view gives what the dict view gave
        algorithm, merged, changes = arm_view(study, arm)
        assert algorithm == DEMO["arms"][arm]["algorithm"] and changes == DEMO["arms"][arm]["changes"]
        assert merged == {**DEMO["training"], **DEMO["arms"][arm]["changes"]}
    with pytest.raises(Refusal, match="not registered"):
        arm_view(study, "nope")
    assert arm_view(study, "dapo", exploratory=True) == ("dapo", DEMO["training"], {})
    typed, raw = get_task(study.task, study.dataset), get_task(DEMO["task"], DEMO["dataset"])
    assert typed.manifest_record() == raw.manifest_record()
    assert typed.heldout_items(2) == raw.heldout_items(2)
    assert study.evaluation.as_locked() == DEMO["evaluation"]
    sampled = _evaluation(decoding="sample", temperature=0.7)
    assert sampled.as_locked() == {**DEMO["evaluation"], "decoding": "sample", "temperature": 0.7}
    assert dict(study.stack_pins) == DEMO.get("stack_pins", {})
