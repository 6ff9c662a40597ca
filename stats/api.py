"""The Python API of the third stage: the locked analysis as a typed result, and its report.

``analyze`` executes exactly the plan in the lock over the run records and returns an
:class:`AnalysisResult` (the analysis document plus typed views of what readers ask first);
``render`` writes report.md, results.tex and figures from it. The ``stats`` CLI is a thin layer
over these; errors are :class:`prereg.errors.UserError`, which only the CLI turns into one line.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from prereg.canonical import sha256_file
from stats import analyze as _analyze_module
from stats import render as _render_module
from stats.result import AnalysedRun, AnalysisResult, ContrastResult, Deviation

__all__ = ["AnalysedRun", "AnalysisResult", "ContrastResult", "Deviation", "analyze", "render"]


def analyze(lock_path: str | Path, runs_path: str | Path, *, require_signature: bool = False,
            log_look: bool = True) -> AnalysisResult:
    """Verify the lock, read the runs and execute the locked analysis plan.

    Every random draw is seeded from the plan, so reruns are byte-identical; runs that do not
    belong (another lock, exploratory, broken seal, ...) are excluded and recorded as deviations.

    Args:
        lock_path: the study's lock file.
        runs_path: the runs folder (``runs/`` or ``runs/<study>/``) or an imported results table.
        require_signature: refuse an unsigned lock.
        log_look: record an analysis before a sequential study's final look on its looks log
            (README failure 19); the audit's recomputation passes False.

    Returns:
        An :class:`AnalysisResult`; ``.write(path)`` writes analysis.json.

    Raises:
        UserError: the lock does not verify, or there is no confirmatory run to analyse.

    Example:
        >>> import shutil, tempfile
        >>> from stats import analyze
        >>> from stats.synthetic import demo_campaign
        >>> c = demo_campaign(tempfile.mkdtemp())      # the demo study's lock and sealed runs, no training
        >>> result = analyze(c.lock_path, c.runs_dir)
        >>> g = result.contrasts["high_lr-grpo"]
        >>> g.verdict, round(g.estimate, 2), g.p_adjusted < 0.05
        ('LOWER', -0.35, True)
        >>> result.study_verdict, result.hypotheses["H4"]
        ('AS_PLANNED', 'LOWER')
        >>> shutil.rmtree(c.lock_path.parents[1])
    """
    doc = _analyze_module.analyze(lock_path, runs_path, require_signature=require_signature, log_look=log_look,
                                  validate=False)  # checked once, by from_document
    return AnalysisResult.from_document(doc, source="analysis output")


def render(analysis: AnalysisResult | str | Path, out_dir: str | Path = "report", *, overwrite: bool = False,
           runs_root: str | Path | None = None, **options) -> list[Path]:
    """Write report.md, results.tex and figures/*.png for an analysis.

    Every number in the report is pinned to its analysis.json id, so ``audit check`` can trace it.

    Args:
        analysis: an :class:`AnalysisResult` (written to ``out_dir/analysis.json`` first, then
            rendered from its typed values) or the path of an analysis.json (read and checked
            once by :func:`stats.result.read_analysis`).
        out_dir: the report folder.
        overwrite: replace files an earlier render wrote.
        runs_root: the run folders, for figures and model cards (default: from analysis.json).
        **options: ``model_cards``, ``hub_dir``, ``lock``, ``card_license``, ``figures`` (``False``:
            no PNGs, report.md and results.tex only; see :mod:`stats.render`).

    Returns:
        The paths written.

    Raises:
        UserError: an unreadable or invalid analysis, or a file in the way.

    Example:
        >>> import shutil, tempfile
        >>> from stats import analyze, render
        >>> from stats.synthetic import demo_campaign
        >>> c = demo_campaign(tempfile.mkdtemp())
        >>> report = c.lock_path.parents[1] / "report"
        >>> written = render(analyze(c.lock_path, c.runs_dir), report, figures=False)
        >>> sorted(p.name for p in written), (report / "analysis.json").is_file()
        (['report.md', 'results.tex'], True)
        >>> "<!-- id:contrasts.high_lr-grpo.diff_mean -->" in (report / "report.md").read_text()
        True
        >>> shutil.rmtree(c.lock_path.parents[1])
    """
    if not isinstance(analysis, AnalysisResult):
        return _render_module.render(Path(analysis), out_dir, runs_root=runs_root, overwrite=overwrite, **options)
    path = analysis.write(Path(out_dir) / "analysis.json", overwrite=overwrite)
    written = replace(analysis, digest=sha256_file(path))  # the report pins the bytes just written
    return _render_module.render_result(written, path, out_dir, runs_root=runs_root, overwrite=overwrite, **options)
