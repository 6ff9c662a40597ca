"""A large report's numbers placed in two processes (audit.parse_pool) are the one-process parse's, field
for field; small files and one job never fork (README failure 10)."""

from __future__ import annotations

import dataclasses
import multiprocessing
from pathlib import Path

import pytest

import audit.parse_pool as parse_pool
from audit.numbers import parse_latex, parse_markdown, parse_report

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the two-process parse forks; without fork it is one process")

# Intervals, pins, tables (one with a second header row), headings whose scope crosses the cut,
# code, comments, front matter, a footnote, an HTML table and a collapsible section: every kind of item
# and every field numbered or carried across pieces.
MARKDOWN = """---
model-index: [{results: [{metrics: [{value: 0.61}]}]}]
---
# GSPO seed 37

GSPO reached 0.612 (95% CI [0.580, 0.640]) over 2 seeds; p = 0.021 (BH-adjusted 0.084).[^1]

| Arm | Seed | Held-out accuracy (%) | 95% CI |
|---|---|---|---|
| grpo | 1 | 61.3 | [60.4, 62.2] |
| gspo | 2 | 62.8 | 60.4–61.7% |

## Contrasts

GSPO − GRPO: +0.005 [−0.003, 0.013], 0.0781<!-- id: arms.gspo.heldout_accuracy.mean --> and `lr = 1e-6`.

| Method | Held-out accuracy (%) | | |
|---|---|---|---|
| | *s = 0* | *s = 1* | *mean (std)* |
| GRPO | 61.0 | 62.0 | 61.5 (0.7) |

<!-- draft: was 0.5 -->

```python
acc = [0.61, 0.62]
```

<details><summary>DAPO seed 3</summary>

DAPO 0.603 (n=500, test split), 95% CI 0.58–0.62.

</details>

<table><tr><th>Arm</th><th>Acc</th></tr><tr><td>GRPO</td><td>0.61</td></tr></table>

### Last 10 steps

Reward 0.45 ± 0.02 at step 300.

[^1]: measured over 1,078 puzzles.
"""

LATEX = r"""\section{Results}\label{sec:r} GSPO mean held-out accuracy was 0.6120 (95\% CI [0.580, 0.640]).
\newcommand{\gspoAcc}{0.61} % id: arms.gspo.heldout_accuracy.mean
\begin{tabular}{lrr}
\toprule
Arm & mean (\%) & sd \\
\midrule
GSPO & \SI{61.2}{\percent} & $0.61 \pm 0.02$ \\
\bottomrule
\end{tabular}
\subsection{Seeds} seed 1: 0.60 [0.58, 0.62]; seed 2: 0.62 [0.60, 0.64].
"""


def _fields(parsed) -> list[dict]:
    return [dataclasses.asdict(m) for m in parsed.mentions]


@pytest.fixture
def always_cut(monkeypatch):
    """Every file of two items or more is cut (the size floor off); counts the cuts made."""
    cuts = []
    real = parse_pool.placed_in_two

    def counted(*args, **kwargs):
        cuts.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr(parse_pool, "MIN_BYTES", 0)
    monkeypatch.setattr(parse_pool, "placed_in_two", counted)
    return cuts


@pytest.mark.parametrize("repeat", [1, 3])
def test_markdown_placed_in_two_processes_is_the_one_process_parse(always_cut, repeat):
    text = MARKDOWN * repeat
    one = parse_markdown("r.md", text, "r.md")
    two = parse_markdown("r.md", text, "r.md", jobs=2)
    assert always_cut, "the file was not cut: the worker never ran"
    assert _fields(two) == _fields(one)
    assert two.heading_scopes == one.heading_scopes and two.front_matter == one.front_matter
    # the worker's part numbers its intervals after the audit's part: ids stay unique per interval
    ends = {}
    for m in two.mentions:
        if m.interval is not None:
            ends.setdefault(m.interval, []).append(m.role)
    assert len(ends) > 4 and all(len(r) <= 2 for r in ends.values())


def test_latex_placed_in_two_processes_is_the_one_process_parse(always_cut):
    text = LATEX * 3
    one, two = parse_latex("p.tex", text, "p.tex"), parse_latex("p.tex", text, "p.tex", jobs=2)
    assert always_cut
    assert _fields(two) == _fields(one)


def test_without_the_interval_shift_the_parts_would_differ(always_cut):
    """The comparison above can fail: unshifted, the worker's interval ids restart at 1 and collide with
    the audit's part's (the two ends of different intervals would be read as one interval)."""
    from audit.markdown_doc import walk
    from audit.numbers import _MENTION_FIELDS, Mention, _placed

    text = MARKDOWN * 2
    one = parse_markdown("r.md", text, "r.md")

    def unshifted(path, items, lines):
        b = _placed(path, items, lines)
        b._interval = 0
        return b

    items, lines = walk(text).items, text.splitlines()
    parts = parse_pool.split(items, len(text), 2)
    two = parse_pool.placed_in_two(unshifted, Mention, "r.md", parts, lines, tuple(_MENTION_FIELDS))
    assert [m.interval for m in two] != [m.interval for m in one.mentions]
    assert [m.text for m in two] == [m.text for m in one.mentions]


def test_small_files_and_one_job_are_never_cut(tmp_path: Path, monkeypatch):
    items = parse_markdown("r.md", MARKDOWN, "r.md") and __import__("audit.markdown_doc").markdown_doc.walk(MARKDOWN).items
    assert parse_pool.split(items, parse_pool.MIN_BYTES - 1, 2) is None
    assert parse_pool.split(items, parse_pool.MIN_BYTES, 1) is None
    assert parse_pool.split(items, parse_pool.MIN_BYTES, 2) is not None
    monkeypatch.setattr(parse_pool, "placed_in_two", lambda *a, **k: pytest.fail("forked for a small file"))
    (tmp_path / "report.md").write_text(MARKDOWN)
    (files,) = parse_report(tmp_path, lambda p: p.name, jobs=2)
    assert [m.text for m in files.mentions] == [m.text for m in parse_markdown("r.md", MARKDOWN, "r.md").mentions]


# One table is the whole file (the dense-table shape of benchmarks/audit_parse_scale.py): cut between
# two rows, the worker's rows read with the table's header, caption, heading and second header row.
ONE_TABLE = "# GSPO\n\n" + "| Method | Held-out accuracy (%, n=500) | | |\n|---|---|---|---|\n| | *s = 0* | *s = 1* | *mean (std)* |\n" + "".join(
    f"| {arm} s{k} | {k}.{k}1 | 0.{k}2 [0.{k}1, 0.{k}3] | 6{k}.5 (0.{k}) |\n" for k in range(1, 9) for arm in ("grpo", "gspo"))


@pytest.mark.parametrize("text", [ONE_TABLE, ONE_TABLE.replace("| | *s = 0*", "| x | *s = 0*")])
def test_one_table_is_cut_between_rows_and_placed_as_one(always_cut, text):
    from audit.doc import TableRows
    from audit.markdown_doc import walk

    first, later = parse_pool.split(walk(text).items, len(text), 2)
    assert isinstance(first[-1], TableRows) and isinstance(later[0], TableRows)
    assert 0 < first[-1].stop == later[0].start < len(later[0].table.rows)
    one = parse_markdown("r.md", text, "r.md")
    two = parse_markdown("r.md", text, "r.md", jobs=2)
    assert always_cut
    assert _fields(two) == _fields(one)
    assert len({m.header for m in two.mentions if m.kind == "table"}) == 1
    assert sum(m.status_hint == "label" and m.kind == "heading" for m in two.mentions) == sum(
        m.status_hint == "label" and m.kind == "heading" for m in one.mentions) > 0
