"""``audit check --json`` writes what ``json.dumps(indent=2)`` writes, byte for byte, with its long
lists of flat rows written by json's C string encoder (README failure 10: about 11 us a row in the
pure-Python indenting encoder)."""

from __future__ import annotations

import json

import pytest

import audit.output as output
from audit import check
from tests.report_corpus import corpus

TRICKY = [
    {"a": [{"x": "1", "y": 'é"\\\n\t\u2028<\u0000>&'}], "b": [], "c": [{}], "d": [[{"x": "1"}]],
     "e": {"f": [{"k": "v"}, {"k2": "v2"}]}},
    [{"x": "1"}, {"y": "2"}],
    {"n": 1.5, "m": None, "t": True, "rows": [{"a": "b"}] * 3, "mixed": [{"a": "b"}, {"a": 1}]},
    {"deep": {"deeper": {"rows": [{"a": "😀", "b": ""}], "after": [1, 2]}}, "z": "@rows-0"},
]


@pytest.mark.parametrize("obj", TRICKY)
def test_rows_written_as_json_dumps_writes_them(obj, monkeypatch):
    monkeypatch.setattr(output, "_FLAT_MIN", 1)   # every list of flat rows through the fast path
    assert output._dumps(obj) == json.dumps(obj, indent=2, ensure_ascii=False)


def test_an_audit_with_errors_as_json_dumps_writes_it(tmp_path, monkeypatch):
    report = corpus.build("prose_results", tmp_path / "s")
    for p in corpus.plants("prose_results")[:6]:
        path = report / p.file
        path.write_text(path.read_text().replace(p.find, p.replace, 1))
    result = check(report, jobs=1)
    monkeypatch.setattr(output, "_FLAT_MIN", 2)
    assert result.errors and len(result.numbers) >= 2
    assert output.to_json(result) == json.dumps(result.as_dict(), indent=2, ensure_ascii=False) + "\n"
