"""Experiment trackers (``runner run --report-to``): W&B, MLflow, trackio, TensorBoard.

A tracker is a *free setting*: it is recorded in the manifest (``settings.report_to`` and the
tracker's run id/URL under ``trackers``) and never enters the scientific config. The trainer's
own ``report_to`` stays ``"none"`` in the resolved config (so configs of runs with and without a
tracker are identical and the audit's config check 4 sees no difference), and this module does
the reporting from a callback instead:

- every numeric value TRL logs goes to the tracker as ``train/<key>`` (the names transformers'
  own integrations use);
- our per-step telemetry row (``telemetry.jsonl``: ZVF, GU, all-fail/all-max fractions, reward
  mean/std, ...) goes as ``rlprereg/<key>``, so a dashboard never mixes our ZVF with TRL's
  batch-level ``frac_reward_zero_std`` (README failure 6);
- the run is tagged with the study id, lock hash and version, arm, seed and evidence class at
  start and, once the manifest is sealed, with the seal and final status.

Every tracker call runs with the Python, NumPy and torch random states saved and restored, so
a tracker can never change a trace (``tests/test_runner_trackers_*.py`` compare traces with and
without one). A tracker that fails while logging is switched off and the failure is written to
the manifest's notes; the run itself goes on.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from prereg.errors import UserError

TRACKERS = ("wandb", "mlflow", "trackio", "tensorboard")
# the Python module each tracker needs (tensorboard: its event writer through torch)
_MODULES = {"wandb": "wandb", "mlflow": "mlflow", "trackio": "trackio", "tensorboard": "tensorboard"}
EXTRA_HINT = "pip install 'rlprereg[trackers]'"
TRL_PREFIX = "train/"
OUR_PREFIX = "rlprereg/"
# telemetry fields that are not per-step numbers of their own
_NOT_METRICS = frozenset({"step", "generations", "trl"})


def parse_report_to(values) -> tuple[str, ...]:
    """``--report-to`` values (repeatable, comma-separated) -> tracker names in given order.

    Args:
        values: None, a string or a list of strings such as ``["mlflow,wandb", "tensorboard"]``.

    Returns:
        The distinct tracker names; ``()`` for ``none``/nothing.

    Example:
        >>> parse_report_to(["mlflow,wandb", "mlflow"])
        ('mlflow', 'wandb')
    """
    if values is None:
        return ()
    items = [values] if isinstance(values, str) else list(values)
    names: list[str] = []
    for item in items:
        for name in (x.strip().lower() for x in str(item).split(",")):
            if not name:
                continue
            if name not in (*TRACKERS, "none"):
                raise UserError(f"--report-to {name!r}: unknown tracker (choose from none, {', '.join(TRACKERS)})")
            if name not in names:
                names.append(name)
    if "none" in names and len(names) > 1:
        raise UserError("--report-to: 'none' cannot be combined with a tracker")
    return tuple(n for n in names if n != "none")


def check_clients(names) -> None:
    """Refuse (one line, naming the extra) a tracker whose client package is not importable.

    Called before anything is written, so a missing client costs no half-made run folder.

    Args:
        names: tracker names from :func:`parse_report_to`.

    Returns:
        None; raises ``UserError`` naming the tracker, its package and ``rlprereg[trackers]``.

    Example:
        >>> check_clients(("tensorboard",))
    """
    for name in names:
        try:
            importlib.import_module(_MODULES[name])
        except ImportError:
            raise UserError(f"--report-to {name}: the {_MODULES[name]} package is not installed; "
                            f"{EXTRA_HINT}") from None


@dataclass(frozen=True)
class RunIdentity:
    """What every tracker run is tagged with, from the lock and the unit."""

    study_id: str
    lock_hash: str
    lock_version: int
    arm: str
    seed: int
    evidence_class: str

    @property
    def run_name(self) -> str:
        return f"{self.study_id}/{self.arm}/s{self.seed}"

    def tags(self) -> dict[str, str]:
        """Tag name -> value (``rlprereg.lock_hash`` ...), all strings as trackers want them."""
        return {"rlprereg.study_id": self.study_id, "rlprereg.lock_hash": self.lock_hash,
                "rlprereg.lock_version": str(self.lock_version), "rlprereg.arm": self.arm,
                "rlprereg.seed": str(self.seed), "rlprereg.evidence_class": self.evidence_class}


@contextlib.contextmanager
def _untouched_rng():
    """Run tracker code with every random state restored after it (traces never depend on it)."""
    import random

    import numpy as np
    import torch

    py, npr, tr = random.getstate(), np.random.get_state(), torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    try:
        with contextlib.redirect_stdout(sys.stderr):  # `runner run` prints only the run folder on stdout
            yield
    finally:
        random.setstate(py)
        np.random.set_state(npr)
        torch.set_rng_state(tr)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


def numeric(value) -> float | None:
    """A loggable number (bools and non-finite values are not)."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def step_metrics(trl_logs: dict | None, row: dict | None) -> dict[str, float]:
    """The metrics one ``on_log`` sends: TRL's as ``train/<key>``, our telemetry row as ``rlprereg/<key>``.

    Example:
        >>> step_metrics({"loss": 0.5}, {"step": 1, "zvf": 0.25, "trl": {"loss": 0.5}})
        {'train/loss': 0.5, 'rlprereg/zvf': 0.25}
    """
    out = {}
    for k, v in (trl_logs or {}).items():
        if numeric(v) is not None:
            out[TRL_PREFIX + k] = numeric(v)
    for k, v in (row or {}).items():
        if k not in _NOT_METRICS and numeric(v) is not None:
            out[OUR_PREFIX + k] = numeric(v)
    return out


def _flat_config(config: dict, prefix: str = "") -> dict[str, str]:
    """The resolved config as ``trainer.learning_rate`` -> text (tracker params are strings)."""
    import json

    out = {}
    for k, v in config.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(_flat_config(v, key + "."))
        else:
            out[key] = v if isinstance(v, str) else json.dumps(v, sort_keys=True)
    return out


class _MLflow:
    """MLflow through ``MlflowClient`` (no global active run): the store is MLFLOW_TRACKING_URI or
    MLflow's default; the experiment MLFLOW_EXPERIMENT_NAME or the study id."""

    name = "mlflow"

    def start(self, ident: RunIdentity, config: dict, options: dict) -> dict:
        from mlflow import MlflowClient
        from mlflow.entities import Param

        logging.getLogger("mlflow").setLevel(logging.WARNING)
        self.client = MlflowClient()
        exp_name = os.environ.get("MLFLOW_EXPERIMENT_NAME") or ident.study_id
        exp = self.client.get_experiment_by_name(exp_name)
        exp_id = exp.experiment_id if exp is not None else self.client.create_experiment(exp_name)
        run = self.client.create_run(exp_id, run_name=ident.run_name, tags=ident.tags())
        self.run_id = run.info.run_id
        self.pending: list = []
        params = [Param(k, v[:6000]) for k, v in sorted(_flat_config(config).items())]
        for i in range(0, len(params), 100):
            self.client.log_batch(self.run_id, params=params[i:i + 100])
        uri = self.client.tracking_uri
        url = f"{uri.rstrip('/')}/#/experiments/{exp_id}/runs/{self.run_id}" if uri.startswith("http") else None
        return {"name": self.name, "run_id": self.run_id, "url": url, "location": uri, "project": exp_name}

    def log(self, metrics: dict, step: int) -> None:
        import time

        from mlflow.entities import Metric

        self.flush()  # the previous step's batch: its error surfaces now, while the manifest can note it
        now = int(time.time() * 1000)
        # queued (MLflow's async logging), written while the next step trains: a synchronous SQLite
        # write per step cost about a fifth of a tiny model's step (benchmarks/tracker_overhead.py)
        self.pending.append(self.client.log_batch(self.run_id, metrics=[Metric(k, v, now, step)
                                                                        for k, v in metrics.items()],
                                                  synchronous=False))

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        for ops in pending:
            ops.wait()

    def finish(self, seal: str | None, status: str) -> None:
        self.flush()
        if seal:
            self.client.set_tag(self.run_id, "rlprereg.seal", seal)
        self.client.set_tag(self.run_id, "rlprereg.status", status)
        self.client.set_terminated(self.run_id, "FINISHED" if status == "complete" else "FAILED")


class _Wandb:
    """Weights & Biases: project WANDB_PROJECT or the study id; WANDB_MODE=offline works as usual."""

    name = "wandb"

    def start(self, ident: RunIdentity, config: dict, options: dict) -> dict:
        import wandb

        tags = [f"study:{ident.study_id}", f"arm:{ident.arm}", f"seed:{ident.seed}", ident.evidence_class,
                f"lock:{ident.lock_hash[:16]}", f"lock-v{ident.lock_version}"]
        self.run = wandb.init(project=os.environ.get("WANDB_PROJECT") or ident.study_id, name=ident.run_name,
                              group=f"{ident.study_id}/{ident.arm}", tags=[t[:64] for t in tags],
                              config={"rlprereg": ident.tags(), **config}, reinit="create_new",
                              settings=wandb.Settings(console="off", silent=True))
        return {"name": self.name, "run_id": self.run.id, "url": self.run.url,
                "location": str(Path(self.run.dir).parent), "project": self.run.project}

    def log(self, metrics: dict, step: int) -> None:
        self.run.log(metrics, step=step)

    def finish(self, seal: str | None, status: str) -> None:
        extra = {"rlprereg.status": status, **({"rlprereg.seal": seal} if seal else {})}
        self.run.config.update({"rlprereg": {**self.run.config["rlprereg"], **extra}}, allow_val_change=True)
        self.run.summary.update(extra)
        if seal:
            self.run.tags = (*self.run.tags, f"seal:{seal[:16]}")
        self.run.finish(exit_code=0 if status == "complete" else 1)


class _Trackio:
    """trackio, local by default (TRACKIO_DIR); the seal is logged as the final ``rlprereg/seal`` value."""

    name = "trackio"

    def start(self, ident: RunIdentity, config: dict, options: dict) -> dict:
        import trackio

        self.trackio = trackio
        self.run = trackio.init(project=ident.study_id, name=ident.run_name, group=f"{ident.study_id}/{ident.arm}",
                                config={**ident.tags(), **_flat_config(config)}, auto_log_cpu=False,
                                auto_log_gpu=False)
        from trackio.utils import TRACKIO_DIR

        self.last_step = 0
        return {"name": self.name, "run_id": getattr(self.run, "id", None) or ident.run_name, "url": None,
                "location": str(TRACKIO_DIR), "project": ident.study_id}

    def log(self, metrics: dict, step: int) -> None:
        self.last_step = max(self.last_step, step)
        self.run.log(metrics, step=step)

    def finish(self, seal: str | None, status: str) -> None:
        self.run.log({"rlprereg/status": status, **({"rlprereg/seal": seal} if seal else {})}, step=self.last_step)
        self.trackio.finish()


class _TensorBoard:
    """TensorBoard event files under ``<tensorboard_dir>/<study>/<arm>/s<seed>`` (never in the run folder,
    whose every file is a digested artifact); tags and the seal are text summaries."""

    name = "tensorboard"

    def start(self, ident: RunIdentity, config: dict, options: dict) -> dict:
        from torch.utils.tensorboard import SummaryWriter

        log_dir = Path(options.get("tensorboard_dir") or "tensorboard") / ident.study_id / ident.arm / f"s{ident.seed}"
        self.writer = SummaryWriter(log_dir=str(log_dir))
        self.last_step = 0
        for k, v in ident.tags().items():
            self.writer.add_text(k, v, 0)
        self.writer.flush()
        return {"name": self.name, "run_id": ident.run_name, "url": None, "location": str(log_dir),
                "project": ident.study_id}

    def log(self, metrics: dict, step: int) -> None:
        self.last_step = max(self.last_step, step)
        for k, v in metrics.items():
            self.writer.add_scalar(k, v, step)
        self.writer.flush()

    def finish(self, seal: str | None, status: str) -> None:
        if seal:
            self.writer.add_text("rlprereg.seal", seal, self.last_step)
        self.writer.add_text("rlprereg.status", status, self.last_step)
        self.writer.close()


_BACKENDS = {"mlflow": _MLflow, "wandb": _Wandb, "trackio": _Trackio, "tensorboard": _TensorBoard}


class Trackers:
    """The trackers of one unit: started before training, fed from a trainer callback, finished after
    the manifest is sealed. Empty (and free) when ``--report-to none``."""

    def __init__(self, backends: list, records: list[dict]):
        self.backends = backends
        self.records = records
        self.problems: list[str] = []
        self.sent_step = 0

    def log(self, metrics: dict, step: int) -> None:
        """Send ``metrics`` at ``step`` to every live tracker; a failing one is switched off and noted."""
        for b in list(self.backends):
            try:
                with _untouched_rng():
                    b.log(metrics, step)
            except Exception as exc:  # a dashboard outage must not end a confirmatory run
                self.backends.remove(b)
                self.problems.append(f"tracker {b.name} stopped at step {step}: {type(exc).__name__}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else ''}")

    def flush(self, summaries: dict | None = None, step: int = 0) -> None:
        """Send the final held-out summaries and wait for queued writes, so that any failure is in
        ``problems`` before the manifest is sealed."""
        final = {OUR_PREFIX + k: numeric(v) for k, v in (summaries or {}).items() if numeric(v) is not None}
        if final:
            self.log(final, step)
        for b in list(self.backends):
            try:
                with _untouched_rng():
                    getattr(b, "flush", lambda: None)()
            except Exception as exc:
                self.backends.remove(b)
                self.problems.append(f"tracker {b.name} stopped: {type(exc).__name__}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else ''}")

    def finish(self, seal: str | None, status: str, summaries: dict | None = None, step: int = 0) -> list[str]:
        """Final held-out summaries (``rlprereg/<key>``), then the seal and status tags; returns failures."""
        final = {OUR_PREFIX + k: numeric(v) for k, v in (summaries or {}).items() if numeric(v) is not None}
        if final:
            self.log(final, step)
        failed = []
        for b in self.backends:
            try:
                with _untouched_rng():
                    b.finish(seal, status)
            except Exception as exc:
                failed.append(f"tracker {b.name}: could not record the seal: {type(exc).__name__}: {exc}")
        self.backends = []
        return failed

    def callback(self, recorder):
        """A ``TrainerCallback`` forwarding each TRL log and our telemetry row of that step.

        It must come after the telemetry callback, which writes the row it forwards.
        """
        from transformers import TrainerCallback

        group = self

        class TrackerCallback(TrainerCallback):
            def on_log(self, args, state, control, logs=None, **kwargs):
                row = getattr(recorder, "last_row", None)
                if row is not None and row.get("step") == state.global_step and group.sent_step < state.global_step:
                    group.sent_step = state.global_step
                else:
                    row = None
                metrics = step_metrics(logs, row)
                if metrics:
                    group.log(metrics, state.global_step)

        return TrackerCallback()


def start_trackers(names, ident: RunIdentity, config: dict, *, tensorboard_dir: str | Path | None = None) -> Trackers:
    """Start one tracker run per name (before training, so the manifest can record their ids).

    Args:
        names: tracker names from :func:`parse_report_to`.
        ident: the unit's identity (its tags).
        config: the resolved config (logged as the tracker's params/config).
        tensorboard_dir: root of TensorBoard event folders (default ``./tensorboard``).

    Returns:
        The started :class:`Trackers`; a tracker that cannot start is a one-line ``UserError``
        (nothing has been trained yet), and those already started are closed.

    Example:
        >>> start_trackers((), ident, {}).records
        []
    """
    check_clients(names)
    started: list = []
    records: list[dict] = []
    for name in names:
        backend = _BACKENDS[name]()
        try:
            with _untouched_rng():
                records.append(backend.start(ident, config, {"tensorboard_dir": tensorboard_dir}))
        except Exception as exc:
            Trackers(started, records).finish(None, "failed")
            raise UserError(f"--report-to {name}: could not start a run: {type(exc).__name__}: "
                            f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
        started.append(backend)
    return Trackers(started, records)
