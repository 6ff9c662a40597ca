"""A fact stated in a table's header cell ("seed 4", "(n=400)") is checked in every kind of table, as it
is in a Markdown pipe table (README failure 15: a label that states a checkable fact is checked):
reST list, csv, simple and grid tables, HTML tables (one line or a cell per line) and LaTeX tabulars.

Before, only pipe rows (Markdown tables, reST grid tables) and HTML rows on one line had their header
facts read: "seed 9" (not a registered seed) or "(n=500)" (the lock says 400) in the header of a
``list-table``, ``csv-table``, simple table or ``tabular`` audited clean.

Over the unseen set's rst study (GRPO and Dr. GRPO × seeds 1-6, n = 400; seed 4: GRPO 0.5525,
Dr. GRPO 0.5825), in wordings of its own.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.report_corpus import corpus
from tests.report_corpus_unseen import unseen

# only the report differs from test to test: check 9 recomputes the study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

# name -> (text with {h} for the header cell, the header cell's line)
TABLES = {
    "list.rst": ("""Per-run results
===============

.. list-table:: Accuracy on the held-out split, one run per arm
   :header-rows: 1

   * - Method
     - {h}
   * - GRPO
     - 0.5525
   * - Dr. GRPO
     - 0.5825
""", 8),
    "csv.rst": ("""Per-run results
===============

.. csv-table:: Accuracy on the held-out split, one run per arm
   :header: "Method", "{h}"

   "GRPO", 0.5525
   "Dr. GRPO", 0.5825
""", 5),
    "simple.rst": ("""Per-run results
===============

Accuracy on the held-out split, one run per arm:

========  ==========================
Method    {h}
========  ==========================
GRPO      0.5525
Dr. GRPO  0.5825
========  ==========================
""", 7),
    "grid.rst": ("""Per-run results
===============

Accuracy on the held-out split, one run per arm:

+----------+----------------------------+
| Method   | {h}   |
+==========+============================+
| GRPO     | 0.5525                     |
+----------+----------------------------+
| Dr. GRPO | 0.5825                     |
+----------+----------------------------+
""", 7),
    "html_one_line.md": ("""# Per-run results

Accuracy on the held-out split, one run per arm:

<table>
<tr><th>Method</th><th>{h}</th></tr>
<tr><td>GRPO</td><td>0.5525</td></tr>
<tr><td>Dr. GRPO</td><td>0.5825</td></tr>
</table>
""", 6),
    "html_cells.md": ("""# Per-run results

Accuracy on the held-out split, one run per arm:

<table>
  <thead>
    <tr>
      <th>Method</th>
      <th>{h}</th>
    </tr>
  </thead>
  <tbody>
    <tr><td>GRPO</td><td>0.5525</td></tr>
    <tr><td>Dr. GRPO</td><td>0.5825</td></tr>
  </tbody>
</table>
""", 9),
    "tabular.tex": (r"""\section{Per-run results}
Accuracy on the held-out split, one run per arm.

\begin{tabular}{lc}
\toprule
Method & {h} \\
\midrule
GRPO & 0.5525 \\
Dr. GRPO & 0.5825 \\
\bottomrule
\end{tabular}
""", 6),
}
RIGHT, WRONG_SEED, WRONG_N = "held-out, seed 4 (n=400)", "held-out, seed 9 (n=400)", "held-out, seed 4 (n=500)"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    rep = unseen.build("rst_notes", tmp_path_factory.mktemp("hdr"))
    (rep / "report.rst").unlink()
    return rep


def _by_file(study, tmp_path, header: str) -> dict[str, list[tuple[int, str]]]:
    """(line, message) of each check-10 finding, by file, with every table's header cell ``header``
    (each file alone in its report folder: one file's facts cannot answer for another's)."""
    out = {}
    for name, (text, _) in TABLES.items():
        res = corpus.audit_written(study, Path(tempfile.mkdtemp(dir=tmp_path)), {name: text.replace("{h}", header)})
        out[name] = [(int(f.location.rsplit(":", 1)[1]), f.message) for f in res.findings if f.check == "10"]
    return out


def test_right_header_facts_audit_clean_in_every_table_kind(study, tmp_path):
    assert _by_file(study, tmp_path, RIGHT) == {name: [] for name in TABLES}


def test_an_unregistered_seed_in_a_header_cell_is_one_finding_at_its_line(study, tmp_path):
    got = _by_file(study, tmp_path, WRONG_SEED)
    for name, (_, line) in TABLES.items():
        seeds = [(ln, msg) for ln, msg in got[name] if "registered seed" in msg]
        assert seeds == [(line, "seed 9 is not a registered seed (lock.seeds = [1, 2, 3, 4, 5, 6])")], (name, got[name])


def test_a_wrong_n_in_a_header_cell_is_the_one_finding(study, tmp_path):
    got = _by_file(study, tmp_path, WRONG_N)
    assert got == {name: [(line, "n written as 500, the lock says 400 (lock.dataset.heldout_n)")]
                   for name, (_, line) in TABLES.items()}
