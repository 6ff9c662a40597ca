"""The boundary plot of a sequential study: registered t boundaries and each contrast's observed path.

Why (README failure 19): a reader sees at a glance at which look each contrast stopped and that
it stopped because its path crossed the registered boundary, not because someone peeked.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stats.result import AnalysisResult


def boundary_plot(r: AnalysisResult, path: Path) -> bool:
    """Draw ``path`` from an analysis' sequential values; False when the plan is not sequential.

    Args:
        r: the analysis (:func:`stats.result.read_analysis`); its plan names the looks, its
            values the boundaries (``sequential.look<k>.bound_*``) and each contrast's path.
        path: PNG to write.

    Returns:
        whether a figure was written.

    Example:
        >>> boundary_plot(read_analysis("report/analysis.json"), Path("b.png"))  # doctest: +SKIP
        True
    """
    seq = r.plan.sequential
    if seq is None:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    looks = list(seq.looks)
    ks = range(1, len(looks) + 1)
    up = [r.value(f"sequential.look{k}.bound_efficacy") for k in ks]
    fut = [r.value(f"sequential.look{k}.bound_futility") for k in ks]
    paths = {cid: [r.value(f"contrasts.{cid}.sequential.path.look{k}.t") for k in ks] for cid in r.contrasts}
    two = r.plan.alternative == "two-sided"
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    _boundaries(ax, looks, up, fut, two)
    for cid, ts in paths.items():
        pts = [(n, t) for n, t in zip(looks, ts, strict=True) if t is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-s", label=f"{cid} (observed)")
    ax.axhline(0, color="0.8", lw=0.8)
    finite = [abs(x) for x in up if x is not None] + [abs(t) for ts in paths.values() for t in ts if t is not None]
    lim = min(max(finite + [3.0]) * 1.1, 30.0)
    ax.set_ylim(-lim if two else min(-3.0, -lim / 4), lim)
    ax.set_xticks(looks)
    ax.set_xlabel("seeds per arm (registered looks)")
    ax.set_ylabel("paired t statistic")
    ax.set_title(f"{r.study_id}: {seq.spending} spending, observed paths")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def _boundaries(ax, looks: list, up: list, fut: list, two: bool) -> None:
    """The registered efficacy (solid) and futility (dashed) boundaries, mirrored for a two-sided test."""
    ax.plot(looks, up, "k-o", label="efficacy boundary (t)")
    if two:
        ax.plot(looks, [None if u is None else -u for u in up], "k-o")
    if any(f is not None for f in fut):
        ax.plot(looks, fut, "k--", label="futility boundary (t)")
        if two:
            ax.plot(looks, [None if f is None else -f for f in fut], "k--")
