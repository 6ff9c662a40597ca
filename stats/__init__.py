"""stats: execute exactly the locked analysis plan over run records (no torch needed).

Python API: ``from stats import analyze, render`` (see :mod:`stats.api`): ``analyze`` returns
an :class:`AnalysisResult`. Importing the API loads the ``stats.analyze`` and ``stats.render``
modules first, so the package's ``analyze`` and ``render`` are the API functions; the modules
stay importable as ``from stats.analyze import ...``.
"""

from stats.api import AnalysisResult, ContrastResult, analyze, render

__all__ = ["AnalysisResult", "ContrastResult", "analyze", "render"]
