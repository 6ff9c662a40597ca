"""``runner run`` and ``runner sweep`` share one options object (issue 15).

The free settings of a unit are :class:`runner.options.RunOptions`: ``runner run`` builds it from
its command line, ``runner sweep`` from the same flags, and a sweep's child gets it back as
``runner run`` arguments (:meth:`RunOptions.argv`). The round trip must give the same object, or a
setting would be lost or changed on its way to the unit.
"""

from __future__ import annotations

import pytest

from runner.cli import build_parser
from runner.options import RunOptions

FULL = RunOptions(device="cuda", store_text=True, require_signature=True, trusted_keys=("AAAA", "BBBB"),
                  report_to=("mlflow", "tensorboard"), tensorboard_dir="/tmp/tb", sign_key="/tmp/k.pem")


@pytest.mark.parametrize("opts", [RunOptions(), FULL, RunOptions(report_to=("wandb",)),
                                  RunOptions(device="cpu", trusted_keys=("AAAA",))])
def test_a_sweep_childs_arguments_parse_back_to_the_same_options(opts):
    args = build_parser().parse_args(["run", "--arm", "grpo", "--seed", "1", *opts.argv()])
    back = RunOptions.from_args(args)
    assert back == opts.with_(device=opts.device or "cpu")  # `runner run` makes the default device explicit


def test_runner_sweep_reads_the_same_flags_into_the_same_object(tmp_path):
    argv = ["sweep", str(tmp_path / "x.lock.json"), *FULL.argv()]
    assert RunOptions.from_args(build_parser().parse_args(argv)) == FULL


def test_a_lost_setting_would_show():
    args = build_parser().parse_args(["run", "--arm", "grpo", "--seed", "1", *FULL.argv()[:-2]])  # --sign dropped
    assert RunOptions.from_args(args) != FULL


def test_run_unit_receives_the_same_settings():
    kw = FULL.run_unit_kwargs()
    assert kw == {"store_text": True, "require_signature": True, "trusted_keys": ["AAAA", "BBBB"],
                  "report_to": ["mlflow", "tensorboard"], "tensorboard_dir": "/tmp/tb", "sign_key": "/tmp/k.pem",
                  "device": "cuda"}
