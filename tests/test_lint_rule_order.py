"""Lint lists its findings in one order whichever rule module a program imports first (issue 15).

Rules register on import; importing ``prereg.lint_inference`` before ``prereg.lint`` used to register
the declaration rules before the inference rules, so the same plan's findings came out in another
order (CI's full run, where a coverage test imported ``prereg.lint_inference`` first, disagreed with
``tests/data/lint_findings.json``). Each order is tried in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache

import pytest

from tests.report_corpus import corpus

SHOW = "from prereg.lint import RULES; import json; print(json.dumps(list(RULES)))"


@cache  # the plain order is the same interpreter's answer for every parameter: asked once a session
def _rules_after(first_import: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"import {first_import}; {SHOW}"], capture_output=True, text=True,
                         check=True, cwd=corpus.REPO, env={"PYTHONPATH": str(corpus.REPO), "PATH": ""})
    return json.loads(out.stdout)


@pytest.mark.parametrize("first", ["prereg.lint_inference", "prereg.lint_declarations", "prereg.lint_sequential"])
def test_rule_order_does_not_depend_on_the_first_import(first):
    plain = list(_rules_after("prereg.lint"))
    assert _rules_after(first) == plain
    # the inference rules come before the declaration rules, as lint.py's own imports register them
    assert plain.index("interval-coverage") < plain.index("contrast-plan")
