"""A large report read and traced in worker processes (README failure 10: any report up to 5 MB
audits in seconds, and a machine has more than one core).

The report is parsed once, in the audit's own process. It is then cut into parts at the lines where
its reading may be cut (:func:`audit.prose.reading_breaks`: a line no paragraph spans, before a
paragraph read with no enclosing list item), and each part's prose is read (:mod:`audit.prose`), its
numbers traced (:func:`audit.trace.trace_in_context`) and its paragraphs' claims in words checked
(:mod:`audit.claims`) in a worker process forked from the audit: the parsed files and the source
index are inherited, not sent. A worker sends back only what it decided (status, source ids, texts),
which is put back in document order; the claims read over whole files (seed labels, verdict tables,
marks) are one more task per file. The result is the serial path's, byte for byte
(tests/test_audit_report_pool.py).

The pool is used only where it pays: a report of at least :data:`MIN_NUMBERS` values to read in
their words or in tables (:func:`jobs_for`), more than one job and ``fork`` available (:mod:`audit.pool`: ``audit check --jobs N``, else
``RLPREREG_AUDIT_JOBS``, else the CPUs); elsewhere the serial path.
"""

from __future__ import annotations

import bisect
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from audit.claims import Tally, file_claims, merged_claims, paragraph_claims, report_facts
from audit.context import TracedReport
from audit.markers import legend_lines
from audit.pool import can_fork
from audit.prose import _LIST_ITEM, SentenceCut, file_paragraphs, prepare_cut, read_file, reading_breaks
from audit.trace import Traced, TraceMemo, _only_contrast, _trace_files, trace_in_context
from audit.words import sentences

__all__ = ["MIN_NUMBERS", "jobs_for", "traced_in_parts"]

MIN_NUMBERS = 10_000     # fewer values in words or tables: traced serially (forking would cost more than it saves)
_PARTS_PER_JOB = 3       # parts of about equal numbers per worker, so that one slow part does not hold the rest


def jobs_for(files: list, jobs: int) -> int:
    """The worker processes to trace these parsed files with: ``jobs`` (the audit's,
    :func:`audit.pool.default_jobs`) for a report of :data:`MIN_NUMBERS` values or more to read in
    their words or in a table (outside code and comments), else 1 (serial). A number in code is
    decided by its value alone, cheaper than sending its decision back (the 1 MB code shape: 4.8 +
    3.5 CPU-s against 6.3 serial). A table's cells count since the benchmark's tables stopped
    repeating their values (a cell context decided once gains nothing where every cell differs):
    the 1 MB dense table of 93,286 cells is traced in two workers (README failure 10)."""
    if jobs < 2 or not can_fork():
        return 1
    read = sum(1 for f in files for m in f.mentions if not m.in_code and m.status_hint == "value")
    return jobs if read >= MIN_NUMBERS else 1


@dataclass(frozen=True)
class _Part:
    """One task of a worker, over the lines ``lines`` of file ``file``: ``trace`` the numbers
    ``numbers`` there (indices into the file's mentions), reading the paragraphs that start there;
    check the ``claims`` of those paragraphs; or (``whole``) the claims read over the whole file. ``cut``:
    (line, k0, k1, lo, hi) of :class:`audit.prose.SentenceCut`: of the long paragraph starting on that line,
    read only the sentences ``k0:k1`` and decide only its numbers at offsets ``lo:hi`` (``sentences``:
    a part of a paragraph that another part starts, :func:`_sentence_parts`)."""

    file: int
    what: str                  # trace | sentences | claims | whole
    lines: range = range(0)
    numbers: tuple[int, ...] = ()
    cut: tuple = ()


def _parts(files: list, jobs: int, claims: bool) -> list[_Part]:
    """The report cut at reading breaks into parts of about ``len(numbers) / (jobs * 3)`` numbers, each
    traced and its claims checked apart (so that a report of one long paragraph still reads its
    claims beside its numbers); ``claims``: whether claims are read at all (facts to read them with)."""
    target = max(1, sum(len(f.mentions) for f in files) // (jobs * _PARTS_PER_JOB))
    out: list[_Part] = []
    for k, f in enumerate(files):
        first = len(out)
        breaks = reading_breaks(f)
        legend_lines(f)   # found once here (a per-file memo), inherited by every worker that reads a part
        groups: dict[int, list[int]] = {}
        for i, m in enumerate(f.mentions):   # the part of a number: the last break at or before its line
            groups.setdefault(bisect.bisect_right(breaks, m.line) - 1, []).append(i)
        cuts, numbers = [0], []
        for b in range(len(breaks)):
            numbers += groups.get(b - 1, [])
            if len(numbers) >= target and breaks[b] > cuts[-1]:
                out.append(_Part(k, "trace", range(cuts[-1], breaks[b]), tuple(numbers)))
                cuts.append(breaks[b])
                numbers = []
        numbers += groups.get(len(breaks) - 1, [])
        out.append(_Part(k, "trace", range(cuts[-1], sys.maxsize), tuple(numbers)))
        out[first:] = [q for p in out[first:] for q in _sentence_parts(f, p, target)]
        if claims:
            ends = [*cuts[1:], sys.maxsize]
            out += [_Part(k, "claims", range(a, b)) for a, b in zip(cuts, ends, strict=True)]
            out.append(_Part(k, "whole"))
    return out


def _sentence_parts(f, part: _Part, target: int) -> list[_Part]:
    """``part``, or, where it holds a paragraph of at least four times ``target`` numbers that is no list item
    (its reading starts from nothing that came before it), ``part`` reading only that paragraph's first
    sentences and one more part for each further run of sentences of about twice ``target`` numbers (cut at
    equal lengths of its text): a report of one 5 MB line is read by every worker, not one (README
    failure 10). A part after the first rebuilds the reading's state where it starts
    (:class:`audit.prose.SentenceCut`); :func:`_checked_cuts` reads it again where that state is not the
    one the part before it ended with."""
    if len(part.numbers) < 4 * target:
        return [part]
    tex = f.path.endswith(".tex")
    per_line: dict[int, list[int]] = {}
    for i in part.numbers:
        if f.mentions[i].kind == "prose":
            per_line.setdefault(f.mentions[i].line, []).append(i)
    best, mine = None, []
    for para in file_paragraphs(f):
        if para[0][0] in part.lines and (tex or not _LIST_ITEM.match(f.lines[para[0][0] - 1])):
            idx = [i for n in para[0] for i in per_line.get(n, ())]
            if len(idx) > len(mine):
                best, mine = para, idx
    n_cuts = len(mine) // (2 * target)   # each part reads the whole paragraph's names and facts: not too many
    if best is None or n_cuts < 2:
        return [part]
    text, sents = best[1], sentences(best[1])
    starts = [a for a, _ in sents]
    ks = sorted({bisect.bisect_left(starts, len(text) * j // n_cuts) for j in range(1, n_cuts)} - {0, len(sents)})
    if not ks:
        return [part]
    ks = [0, *ks, len(sents)]
    los = [0, *(starts[k] for k in ks[1:-1]), sys.maxsize]
    line, span = best[0][0], range(best[0][0], best[0][-1] + 1)
    return [_Part(part.file, "trace", part.lines, part.numbers, (line, 0, ks[1], 0, los[1]))] + [
        _Part(part.file, "sentences", span, tuple(mine), (line, ks[j], ks[j + 1], los[j], los[j + 1]))
        for j in range(1, len(ks) - 1)]


_WORK: tuple | None = None   # (index, files, vocab, facts, parts): set just before the fork, inherited
_WORK_MEMO: TraceMemo | None = None   # made just before the fork: each worker fills its own copy
_PREPARED: dict = {}   # (file, line) of a paragraph read in parts -> audit.prose.prepare_cut's: set before the fork


def _run_part(k: int):
    """A worker's task (:class:`_Part`): the numbers it decided, compactly (:func:`_compact`), or the
    claims it found with their tally."""
    idx, files, vocab, facts, parts = _WORK
    part = parts[k]
    f = files[part.file]
    tally = Tally()
    if part.what == "whole":
        return file_claims(f, vocab, facts, tally), tally
    if part.what == "claims":
        return paragraph_claims(f, vocab, facts, tally, part.lines), tally
    return _decided(idx, f, vocab, part, _WORK_MEMO)   # one memo per worker, kept from task to task


def _decided(idx, f, vocab, part: _Part, memo: TraceMemo, state: tuple | None = None) -> tuple[list, tuple | None]:
    """A trace part's numbers read and traced: [(index of the mention, :func:`_compact` decision)], and the
    (start, end) reading states of its :class:`audit.prose.SentenceCut`, if it has one (else None);
    ``state``: the state its cut starts from, where known."""
    cut = SentenceCut(*part.cut, state=state, prepared=_PREPARED.get((part.file, part.cut[0]), ())) if part.cut else None
    readings = read_file(f, vocab, part.lines, {cut.line: cut} if cut else None) if vocab is not None else {}
    decided = []
    for i in part.numbers:
        m = f.mentions[i]
        if cut is not None and (id(m) not in cut.ids if part.what == "sentences" or id(m) in cut.all_ids else False):
            continue   # another part's (a part of the same long paragraph)
        decided.append((i, _compact(idx, trace_in_context(idx, m, readings.get(id(m)), vocab, memo))))
    return decided, (cut.start_state, cut.end_state) if cut else None


def _compact(idx, t: Traced) -> tuple:
    """What a worker sends back of one traced number: its sources by id where the index holds that
    very source (a contrast read in the other order is a new, sign-flipped source: sent whole), and
    the unit its row gave its mention."""
    srcs = tuple(s.id if idx.by_id.get(s.id) is s else s for s in t.sources)
    return t.status, srcs, t.expected, t.message, t.decisive, t.rule, t.mention.column_percent


def _checked_cuts(idx, files, vocab, parts: list[_Part], done: list) -> list:
    """``done`` with each part of a long paragraph (:func:`_sentence_parts`) read again, here, from the state
    the part before it ended with, where the state its worker rebuilt differs from that one: the result is
    the serial reading's whatever the warm-up found."""
    done = list(done)
    ended: dict[tuple, tuple] = {}   # (file, line) of a cut paragraph -> the state its last part read ended with
    memo = TraceMemo(only=_only_contrast(idx))
    for j in sorted((j for j, p in enumerate(parts) if p.cut), key=lambda j: (parts[j].file, parts[j].cut[:2])):
        part, key = parts[j], (parts[j].file, parts[j].cut[0])
        states = done[j][1]
        if part.what == "sentences" and states is not None and states[0] != ended.get(key):
            done[j] = _decided(idx, files[part.file], vocab, part, memo, ended.get(key))
            states = done[j][1]
        ended[key] = states[1] if states is not None else None
    return done


def _traced(idx, m, c: tuple) -> Traced:
    status, srcs, expected, message, decisive, rule, column_percent = c
    m.column_percent = column_percent
    return Traced(m, status, [idx.by_id[s] if isinstance(s, str) else s for s in srcs], expected, message,
                  decisive, rule)


def traced_in_parts(ctx, idx, files: list, vocab, jobs: int) -> TracedReport:
    """The report's numbers traced, and its claims read, by ``jobs`` worker processes (module docstring).

    Args:
        ctx: the audit context (lock and analysis, for the claims' facts).
        idx: the source index (:func:`audit.sources.build_index`). files: the parsed report files.
        vocab: the study's names, or None. jobs: worker processes (at least 2).
    Returns:
        The :class:`audit.context.TracedReport` the serial path gives, with ``claims`` read.
    """
    global _WORK, _WORK_MEMO
    facts = report_facts(ctx, vocab)
    parts = _parts(files, jobs, facts is not None)
    if len(parts) < 2:   # nothing to cut, no claims to read beside: the serial path
        return TracedReport(results=_trace_files(idx, files, vocab), index=idx, files=files, vocab=vocab)
    _WORK, _WORK_MEMO = (idx, files, vocab, facts, parts), TraceMemo(only=_only_contrast(idx))
    if vocab is not None:   # a long paragraph's names and facts, found here once, not once in each part reading it
        _PREPARED.update({key: prepare_cut(files[key[0]], key[1], vocab) for key in {(p.file, p.cut[0]) for p in parts if p.cut}})
    try:
        # a worker that dies is a BrokenProcessPool error here, never a hang (as in audit.pool)
        with ProcessPoolExecutor(min(jobs, len(parts)), mp_context=multiprocessing.get_context("fork")) as workers:
            done = list(workers.map(_run_part, range(len(parts))))
        return _assembled(idx, files, vocab, facts, parts, done)
    finally:
        _WORK = _WORK_MEMO = None
        _PREPARED.clear()


def _assembled(idx, files, vocab, facts, parts, done) -> TracedReport:
    """The workers' answers put back in document order: each file's claims merged as
    :func:`audit.claims.check_file` orders them, the tally counted in the serial path's order (a
    file's paragraphs, part by part, then its whole-file claims; files in order: :func:`_parts`)."""
    slots = [[None] * len(f.mentions) for f in files]
    paras: list[list] = [[] for _ in files]
    claims: list = []
    tally = Tally()
    done = _checked_cuts(idx, files, vocab, parts, done)
    for part, answer in zip(parts, done, strict=True):
        if part.what in ("trace", "sentences"):
            mentions = files[part.file].mentions
            for i, c in answer[0]:
                slots[part.file][i] = _traced(idx, mentions[i], c)
            continue
        found, t = answer
        tally.checked += t.checked
        tally.undecided += t.undecided
        if part.what == "claims":
            paras[part.file] += found
        else:
            claims += merged_claims(found[0], paras[part.file], found[1])
    results = [t for per_file in slots for t in per_file]
    return TracedReport(results=results, index=idx, files=files, vocab=vocab,
                        claims=(claims, tally) if facts is not None else None)
