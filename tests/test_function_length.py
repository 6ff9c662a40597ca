"""Every function of prereg, runner, stats and audit fits on a screen: at most 60 lines of code
(docstrings not counted), the developer standard issue 15 asks for (``scripts/long_functions.py``)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from long_functions import long_functions  # noqa: E402


def test_no_function_is_longer_than_a_screen():
    assert long_functions(60) == []


def test_the_counter_sees_a_long_function(tmp_path):
    pkg = tmp_path / "stats"
    pkg.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    (pkg / "m.py").write_text(f'def f():\n    """Doc.\n\n    More.\n    """\n{body}\n\n\ndef g():\n    return 1\n')
    for other in ("prereg", "runner", "audit"):
        (tmp_path / other).mkdir()
    assert long_functions(60, root=tmp_path) == [(62, "stats/m.py:1 f")]   # def line + 61, docstring not counted
    assert long_functions(60, root=tmp_path, total=True) == [(66, "stats/m.py:1 f")]
    assert ast.parse((pkg / "m.py").read_text())
