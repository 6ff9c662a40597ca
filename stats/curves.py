"""Learning-curve metrics: a claim about training dynamics, preregistered like any other.

A plan declares, under ``metrics``, a per-seed number read from the run's
``telemetry.jsonl`` (one line per optimizer step, sealed by the manifest's digest):

- ``kind: curve_auc``: the normalised area under a telemetry field's curve over the
  steps (trapezoid rule, divided by the step span, so it is in the field's own units:
  the curve's average height; one step: that step's value);
- ``kind: curve_at_step``: the field's value at ``step`` (the mean over steps
  ``step - window + 1 .. step`` when ``window`` > 1).

``field`` is ``reward_mean`` (the default), ``zvf``, ``gu`` or another numeric
telemetry field. The metric then enters ``stats analyze`` as a seed-level metric (arm
summaries, contrasts, verdicts, multiplicity when primary) and the audit recomputes it
with the rest of ``analysis.json``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from prereg.declarations import MetricDecl
    from prereg.study import Study

FIELDS = ("reward_mean", "reward_std", "zvf", "gu", "frac_all_fail", "frac_all_max", "entropy", "kl",
          "completion_length_mean", "truncated_frac", "loss", "grad_norm")


class CurveError(ValueError):
    """The telemetry cannot give the declared curve metric (field absent, step not reached)."""


def _series(rows: list[dict], field: str) -> tuple[np.ndarray, np.ndarray]:
    pts = sorted((int(r["step"]), float(r[field])) for r in rows
                 if isinstance(r, dict) and r.get(field) is not None and r.get("step") is not None
                 and math.isfinite(float(r[field])))
    if not pts:
        raise CurveError(f"telemetry has no finite {field!r} values")
    steps, vals = zip(*pts, strict=True)
    return np.asarray(steps, dtype=float), np.asarray(vals, dtype=float)


def curve_value(rows: list[dict], kind: str, field: str = "reward_mean", step: int | None = None,
                window: int = 1) -> float:
    """The per-run value of a declared learning-curve metric.

    Args:
        rows: telemetry rows (``{"step": int, field: float, ...}``).
        kind: ``curve_auc`` or ``curve_at_step``.
        field: the telemetry field.
        step: for ``curve_at_step``, the step whose value is read.
        window: for ``curve_at_step``, how many steps ending at ``step`` are averaged.

    Returns:
        The value, in the field's units.

    Example:
        >>> rows = [{"step": 1, "reward_mean": 0.0}, {"step": 2, "reward_mean": 0.5}, {"step": 3, "reward_mean": 1.0}]
        >>> curve_value(rows, "curve_auc"), curve_value(rows, "curve_at_step", step=2)
        (0.5, 0.5)
    """
    steps, vals = _series(rows, field)
    if kind == "curve_auc":
        if steps.size == 1:
            return float(vals[0])
        return float(np.trapezoid(vals, steps) / (steps[-1] - steps[0]))
    if kind == "curve_at_step":
        if step is None:
            raise CurveError("curve_at_step needs a step")
        sel = (steps <= step) & (steps > step - max(1, window))
        if not np.any(steps == step):
            raise CurveError(f"telemetry never reached step {step} (last step {int(steps[-1])})")
        return float(vals[sel].mean())
    raise CurveError(f"unknown curve kind {kind!r}")


def declared_curves(study: Study) -> dict[str, MetricDecl]:
    """The plan's learning-curve metrics: name -> declaration (its ``curve`` says where to read).

    Args:
        study: the locked preregistration as typed values.

    Returns:
        Metric name -> :class:`prereg.declarations.MetricDecl`, only those with a ``curve``.

    Example:
        >>> import json
        >>> from prereg.cli import template_bytes
        >>> from prereg.study import study_of
        >>> p = json.loads(template_bytes("demo"))
        >>> p["metrics"] = {"reward_auc": {"unit": "real", "kind": "curve_auc"}}
        >>> declared_curves(study_of(p))["reward_auc"].curve
        CurveSpec(field='reward_mean', step=None, window=1)
    """
    return {name: d for name, d in study.metrics.items() if d.curve is not None}


def metric_value(rows: list[dict], decl: MetricDecl) -> float:
    """:func:`curve_value` of the learning-curve metric ``decl`` declares (``decl.curve`` set).

    Args:
        rows: a run's telemetry rows, in step order.
        decl: the metric's declaration (:func:`declared_curves`).

    Returns:
        The metric's value over the curve (e.g. the area under the mean reward).

    Example:
        >>> import json
        >>> from prereg.cli import template_bytes
        >>> from prereg.study import study_of
        >>> p = json.loads(template_bytes("demo"))
        >>> p["metrics"] = {"reward_auc": {"unit": "real", "kind": "curve_auc"}}
        >>> decl = declared_curves(study_of(p))["reward_auc"]
        >>> round(metric_value([{"step": 1, "reward_mean": 0.2}, {"step": 2, "reward_mean": 0.4}], decl), 6)
        0.3
    """
    return curve_value(rows, decl.kind, decl.curve.field, decl.curve.step, decl.curve.window)
