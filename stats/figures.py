"""The report's figures (``stats render``): the forest plot and the per-seed reward and ZVF curves.

Nothing here computes a statistic: the forest plot draws values of the typed analysis
(:class:`stats.result.AnalysisResult`), and the curves draw each analysed run's telemetry, read
only when its bytes match the digest in the run's sealed manifest and the manifest's seal is the
one the analysis read. PNGs are written through the one atomic writer without a timestamp, so
a rerender is byte-identical. The sequential boundary plot is :mod:`stats.seqplot`.
"""

from __future__ import annotations

from pathlib import Path

from prereg.canonical import sha256_file
from prereg.errors import UserError
from prereg.jsonio import read_json, read_jsonl, write_atomic
from prereg.records import MANIFEST, TELEMETRY, is_reference_run
from stats.result import AnalysisResult


def _save(fig, path: Path) -> None:
    """PNG bytes through the one atomic writer: umask honoured, a read-only folder is one line."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    write_atomic(path, buf.getvalue())


def runs_folder(r: AnalysisResult, analysis_path: Path, override: str | Path | None) -> Path | None:
    """The run folders an analysis read: ``override`` (``--runs``), else ``inputs.root`` as given or
    relative to the analysis file; None when neither is a folder here.

    Why: figures and model cards read the runs' telemetry and manifests, which are not in analysis.json.

    Args:
        r: the analysis; analysis_path: its file; override: ``--runs``, or None.

    Returns:
        The folder, or None.

    Example:
        >>> from types import SimpleNamespace
        >>> runs_folder(SimpleNamespace(runs_root="no/such/runs"), Path("report/analysis.json"), None) is None
        True
    """
    if override is not None:
        return Path(override)
    root = Path(r.runs_root or "")
    for cand in (root, analysis_path.parent / root):
        if cand.is_dir():
            return cand
    return None


def _telemetry(result: AnalysisResult, root: Path, notes: list[str]) -> dict[str, dict[int, list[dict]]]:
    out: dict[str, dict[int, list[dict]]] = {}
    for r in result.runs:
        rdir = root / r.path
        try:
            man = read_json(rdir / MANIFEST, "run manifest")
            if not isinstance(man, dict):
                notes.append(f"figures: {r.path}: manifest is not a JSON object; not plotted")
                continue
            if is_reference_run(man) and TELEMETRY not in (man.get("artifacts") or {}):
                continue  # a reference evaluation trained nothing: no curves to plot
            entry = man.get("artifacts") if isinstance(man.get("artifacts"), dict) else {}
            entry = entry.get(TELEMETRY) if isinstance(entry.get(TELEMETRY), dict) else {}
            digest = entry.get("sha256")
            if digest is None or sha256_file(rdir / TELEMETRY) != digest:
                notes.append(f"figures: {r.path}: telemetry does not match its manifest digest; not plotted")
                continue
            if man.get("seal") != r.seal:
                notes.append(f"figures: {r.path}: manifest seal differs from the analysed one; not plotted")
                continue
            out.setdefault(r.arm, {})[r.seed] = read_jsonl(rdir / TELEMETRY, "telemetry")
        except (UserError, OSError) as exc:
            notes.append(f"figures: {r.path}: {exc}")
    return out


def _curves(tel, key: str, ylabel: str, path: Path) -> bool:
    """One panel per arm: each seed a thin line, the mean over seeds bold, min–max over seeds shaded."""
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    mats = {}
    for arm in sorted(tel):
        series = [[np.nan if row.get(key) is None else float(row[key]) for row in rows] for rows in tel[arm].values()]
        series = [x for x in series if x]
        if not series:
            continue
        n = max(len(x) for x in series)
        mat = np.full((len(series), n), np.nan)
        for i, x in enumerate(series):
            mat[i, :len(x)] = x
        if not np.all(np.isnan(mat)):
            mats[arm] = mat
    if not mats:
        return False
    k = len(mats)
    fig, axes = plt.subplots(1, k, figsize=(2.6 * k + 0.8, 3.2), dpi=110, sharey=True, squeeze=False)
    for ax, (arm, mat), color in zip(axes[0], mats.items(), [f"C{i}" for i in range(k)], strict=True):
        steps = np.arange(1, mat.shape[1] + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean, lo, hi = np.nanmean(mat, 0), np.nanmin(mat, 0), np.nanmax(mat, 0)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.15, linewidth=0)
        for row in mat:
            ax.plot(steps, row, color=color, alpha=0.25, linewidth=0.6)
        ax.plot(steps, mean, color=color, linewidth=2)
        ax.set_title(f"{arm} ({mat.shape[0]} seeds)", fontsize=9)
        ax.set_xlabel("step", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel(ylabel, fontsize=8)
    fig.suptitle(f"{ylabel}: per seed (thin), mean over seeds (bold), min–max band", fontsize=9)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return True


def _forest(r: AnalysisResult, path: Path) -> None:
    """The forest plot: arms (first planned statistic, its interval) beside contrasts (difference,
    the first two planned intervals thin and thick, the equivalence margin shaded)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 0.5 * max(len(r.arms), 3) + 1.5), dpi=110)
    _forest_arms(r, ax1)
    _forest_contrasts(r, ax2)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def _forest_arms(r: AnalysisResult, ax) -> None:
    """Left panel: each arm's first planned statistic with its planned interval."""
    plan = r.plan
    metric, summ = plan.primary_metric, plan.arm_summary
    s0 = summ.statistics[0]
    tag = r.arm_interval_tag
    for i, arm in enumerate(r.arms):
        base = f"arms.{arm}.{metric}.{s0}"
        mu, lo, hi = r.value(base), r.value(f"{base}.{tag}.low"), r.value(f"{base}.{tag}.high")
        if mu is None:
            continue
        if lo is not None and hi is not None:
            ax.plot([lo, hi], [i, i], color="C0", linewidth=2)
        ax.plot([mu], [i], "o", color="C0")
    ax.set_yticks(range(len(r.arms)), list(r.arms))
    ax.invert_yaxis()
    ax.set_xlabel(f"{metric} {s0} ({summ.level * 100:g}% {summ.interval} CI)")
    ax.set_title("Arms")


def _forest_contrasts(r: AnalysisResult, ax) -> None:
    """Right panel: each contrast's difference with its first two planned intervals, zero and the margin."""
    plan = r.plan
    ctags = r.interval_tags
    for i, c in enumerate(r.contrasts):
        pre = f"contrasts.{c}"
        mu = r.value(f"{pre}.diff_mean")
        if mu is None:
            continue
        for j, (t, _) in enumerate(ctags[:2]):
            lo, hi = r.value(f"{pre}.{t}.low"), r.value(f"{pre}.{t}.high")
            if lo is not None and hi is not None:
                ax.plot([lo, hi], [i, i], color="C1", linewidth=1.5 + 2.5 * j, alpha=0.9 if j else 0.6)
        ax.plot([mu], [i], "o", color="C1")
    ax.axvline(0, color="k", linewidth=0.8)
    margin = plan.equivalence_margin
    if margin:
        ax.axvspan(-margin, margin, color="0.85", zorder=0, label=f"±margin {margin:g}")
        ax.legend(fontsize=8, loc="best")
    ax.set_yticks(range(len(r.contrasts)), list(r.contrasts))
    ax.invert_yaxis()
    ax.set_xlabel("paired difference\n" + "; ".join(f"{w}: {s.level * 100:g}% {s.method}"
                                                    for w, (_, s) in zip(("thin", "thick"), ctags[:2], strict=False)),
                  fontsize=8)
    ax.set_title("Contrasts (arm − baseline)")


def draw_figures(result: AnalysisResult, analysis_path: Path, out: Path, targets: dict, runs_root,
                 overwrite: bool, notes: list[str]) -> tuple[list[str], list[Path]]:
    """Draw the report's figures: the forest plot, the sequential boundaries (a sequential plan) and
    the reward/ZVF curves (run folders found, each run's telemetry matching its sealed manifest).

    Why here and not in report.md's writer: drawing is most of a render's time and needs the run
    folders; ``stats render --no-figures`` skips this module entirely.

    Args:
        result: the analysis; analysis_path: its file (a relative runs folder is tried next to it).
        out: the report folder; targets: the PNG paths (``forest``, ``reward``, ``zvf``).
        runs_root: ``--runs``, or None; overwrite: replace figures an earlier render drew.
        notes: appended to: what was not drawn and why (the report lists them with the warnings).

    Returns:
        (figure paths relative to the report, files written).

    Raises:
        UserError: a sequential boundary plot already there (without ``overwrite``).

    Example:
        >>> draw_figures(result, Path("report/analysis.json"), Path("report"), targets, None, False, [])  # doctest: +SKIP
        (['figures/forest.png', 'figures/reward_curves.png', 'figures/zvf_curves.png'], [...])
    """
    from stats.seqplot import boundary_plot

    _forest(result, targets["forest"])
    figures, written = ["figures/forest.png"], [targets["forest"]]
    seq_png = out / "figures" / "sequential_boundaries.png"
    if result.plan.sequential and seq_png.exists() and not overwrite:
        raise UserError(f"{seq_png}: already exists; refusing to overwrite (choose another -o)")
    if boundary_plot(result, seq_png):  # README failure 19: the boundaries and the observed path
        figures.append("figures/sequential_boundaries.png")
        written.append(seq_png)
    if result.source != "runs":
        notes.append("figures: imported results carry no telemetry; reward/ZVF curves not drawn")
        return figures, written
    root = runs_folder(result, analysis_path, runs_root)
    if root is None:
        notes.append(f"figures: runs folder {result.runs_root!r} not found; curves not drawn (use --runs)")
        return figures, written
    tel = _telemetry(result, root, notes)
    for key, label, name in (("reward_mean", "training reward (step mean)", "reward"),
                             ("zvf", "zero-variance fraction (ZVF)", "zvf")):
        if _curves(tel, key, label, targets[name]):
            figures.append(f"figures/{targets[name].name}")
            written.append(targets[name])
        else:
            notes.append(f"figures: no telemetry field {key!r}; {targets[name].name} not drawn")
    return figures, written
