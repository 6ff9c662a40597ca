"""A large report traced in worker processes (audit.report_pool) gives the serial audit's output, byte for
byte; small reports never start a worker; the number of jobs is read and checked (README failure 10)."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures.process import BrokenProcessPool

import pytest

import audit.prose as prose
import audit.report_pool as pool
from audit import check
from audit.output import plain_text, to_json
from tests.report_corpus import corpus

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the pool forks; without fork the audit is serial (audit.pool)")


# nested bullets read with the arm of the item they sit under: a part must never start at one
NESTED = ("\n- **GRPO**: 63.2% mean\n  - seed 11: 63.2%\n  - seed 23: 62.8%\n"
          "- **DAPO**: 63.55% mean\n  - seed 11: 63.4%\n  - seed 23: 63.2%\n    - seed 37: 63.3%\n")


def _planted(name: str, root):
    """Corpus report ``name`` built, with every one of its planted errors written in (so that the
    output holds errors, unit mix-ups, claims and value-only numbers, not only traced ones)."""
    report = corpus.build(name, root)
    if name == "prose_results":
        (report / "report.md").write_text((report / "report.md").read_text() + NESTED)
    for p in corpus.plants(name):
        path = report / p.file
        text = path.read_text()
        if text.count(p.find) == 1:
            path.write_text(text.replace(p.find, p.replace))
    return report


def _outputs(result) -> tuple[str, str]:
    for r in result.results:   # the time a check took is the one thing that may differ
        r.seconds = r.cpu_seconds = 0.0
    return to_json(result), plain_text(result, show_all=True)


@pytest.mark.parametrize("name", ["prose_results", "mixed_units", "paper_tex", "seed_columns", "run_card", "arm_table"])
def test_pooled_audit_is_byte_identical_to_the_serial_one(name, tmp_path, monkeypatch):
    report = _planted(name, tmp_path / name)
    serial = _outputs(check(report, jobs=1))
    cut, put_back = [], []
    parts, assembled = pool._parts, pool._assembled
    monkeypatch.setattr(pool, "MIN_NUMBERS", 0)        # this small report through the pool
    monkeypatch.setattr(pool, "_PARTS_PER_JOB", 40)    # cut into as many parts as it has breaks for
    monkeypatch.setattr(pool, "_parts", lambda *a: cut.append(parts(*a)) or cut[-1])
    monkeypatch.setattr(pool, "_assembled", lambda *a: put_back.append(1) or assembled(*a))
    pooled = _outputs(check(report, jobs=2))
    assert put_back, "the workers' answers were put back (not the serial path)"
    assert sum(1 for p in cut[0] if p.what == "trace") >= 3, "the report is cut into parts"
    assert '"error_count": 0' not in serial[0]      # the planted errors are in both outputs
    assert pooled[0] == serial[0]
    assert pooled[1] == serial[1]


def _one_line(report) -> None:
    """The results section's paragraphs of report.md joined into one line: one long paragraph of many
    sentences (as a one-line report of 5 MB is)."""
    path = report / "report.md"
    head, sep, rest = path.read_text().partition("## 4 Results\n\n")
    body, sep2, tail = rest.partition("### ")
    path.write_text(head + sep + " ".join(body.split()) + "\n\n" + sep2 + tail)


@pytest.mark.parametrize("warm", [prose.WARM_SENTENCES, 0])
def test_one_long_paragraph_read_in_parts_is_byte_identical(warm, tmp_path, monkeypatch):
    """A paragraph too long for one part is read by several, each from the state the reading had where it
    starts: rebuilt from the sentences before it, and where that differs from the state the part before it
    ended with (no warm-up at all here, with ``warm`` 0) the part is read again from that one."""
    report = _planted("prose_results", tmp_path / "p")
    _one_line(report)
    serial = _outputs(check(report, jobs=1))
    cut, again = [], []
    parts, decided = pool._parts, pool._decided
    monkeypatch.setattr(pool, "MIN_NUMBERS", 0)
    monkeypatch.setattr(pool, "_PARTS_PER_JOB", 40)
    monkeypatch.setattr(prose, "WARM_SENTENCES", warm)
    monkeypatch.setattr(pool, "_parts", lambda *a: cut.append(parts(*a)) or cut[-1])
    monkeypatch.setattr(pool, "_decided", lambda *a: (again.append(1) if len(a) > 5 else None) or decided(*a))
    pooled = _outputs(check(report, jobs=2))
    assert sum(1 for p in cut[0] if p.what == "sentences") >= 2, "the long paragraph is read in parts"
    assert bool(again) == (warm == 0), "a part is read again where (and only where) its rebuilt state is wrong"
    assert '"error_count": 0' not in serial[0]
    assert pooled == serial


def test_a_small_report_starts_no_worker(tmp_path, monkeypatch):
    report = corpus.build("arm_table", tmp_path / "s")

    def refuse(*a, **k):
        raise AssertionError("a report of a few hundred numbers was sent to worker processes")

    monkeypatch.setattr(pool, "traced_in_parts", refuse)
    assert check(report, jobs=4).passed


def test_values_read_in_words_or_tables_make_a_report_large():
    """Code and comments are decided by value alone: only values read in their words or in a table make
    a report large enough to cut (a 1 MB table of distinct cells is decided cell by cell)."""
    from audit.numbers import Mention, ParsedFile

    def report(kind: str, n: int, **how):
        return [ParsedFile("r.md", mentions=[Mention("r.md", 1, "1", 1.0, 0, kind=kind, **how)] * n)]

    big = pool.MIN_NUMBERS
    assert pool.jobs_for(report("table", big), 2) == 2
    assert pool.jobs_for(report("table", big, status_hint="label"), 2) == 1
    assert pool.jobs_for(report("prose", 10 * big, in_code=True, status_hint="code"), 2) == 1
    assert pool.jobs_for(report("prose", 10 * big, status_hint="comment"), 2) == 1
    assert pool.jobs_for(report("prose", big - 1), 2) == 1
    assert pool.jobs_for(report("prose", big), 2) == 2
    assert pool.jobs_for(report("prose", big), 1) == 1


def _die(k: int):
    os._exit(3)   # a worker killed mid-task (out of memory, a signal)


def test_a_worker_that_dies_is_an_error_not_a_hang(tmp_path, monkeypatch):
    report = corpus.build("prose_results", tmp_path / "s")
    monkeypatch.setattr(pool, "MIN_NUMBERS", 0)
    monkeypatch.setattr(pool, "_run_part", _die)
    with pytest.raises(BrokenProcessPool):
        check(report, jobs=2)
