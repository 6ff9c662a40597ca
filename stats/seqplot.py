"""The boundary plot of a sequential study: registered t boundaries and each contrast's observed path.

Why (README failure 19): a reader sees at a glance at which look each contrast stopped and that
it stopped because its path crossed the registered boundary, not because someone peeked.
"""

from __future__ import annotations

from pathlib import Path


def boundary_plot(a: dict, path: Path) -> bool:
    """Draw ``path`` from an analysis' sequential values; False when the plan is not sequential.

    Args:
        a: the analysis dict (``stats analyze``).
        path: PNG to write.
    Returns:
        whether a figure was written.
    """
    from prereg.study import analysis_plan

    plan = analysis_plan(a["plan"])  # the executed plan as typed values, defaults applied once
    seq = plan.sequential
    if seq is None:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    v = {k: r["value"] for k, r in a["values"].items()}
    looks = list(seq.looks)
    up = [v.get(f"sequential.look{k}.bound_efficacy") for k in range(1, len(looks) + 1)]
    fut = [v.get(f"sequential.look{k}.bound_futility") for k in range(1, len(looks) + 1)]
    two = plan.alternative == "two-sided"
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    ax.plot(looks, up, "k-o", label="efficacy boundary (t)")
    if two:
        ax.plot(looks, [None if u is None else -u for u in up], "k-o")
    if any(f is not None for f in fut):
        ax.plot(looks, fut, "k--", label="futility boundary (t)")
        if two:
            ax.plot(looks, [None if f is None else -f for f in fut], "k--")
    for cid in a["contrasts"]:
        ts = [v.get(f"contrasts.{cid}.sequential.path.look{k}.t") for k in range(1, len(looks) + 1)]
        pts = [(n, t) for n, t in zip(looks, ts, strict=True) if t is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-s", label=f"{cid} (observed)")
    ax.axhline(0, color="0.8", lw=0.8)
    finite = [abs(x) for x in up if x is not None] + [abs(p) for cid in a["contrasts"] for k in range(1, len(looks) + 1)
                                                      if (p := v.get(f"contrasts.{cid}.sequential.path.look{k}.t"))
                                                      is not None]
    lim = min(max(finite + [3.0]) * 1.1, 30.0)
    ax.set_ylim(-lim if two else min(-3.0, -lim / 4), lim)
    ax.set_xticks(looks)
    ax.set_xlabel("seeds per arm (registered looks)")
    ax.set_ylabel("paired t statistic")
    ax.set_title(f"{a['study_id']}: {seq.spending} spending, observed paths")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True
