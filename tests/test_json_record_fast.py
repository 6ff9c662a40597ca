"""``read_json`` reads an object through orjson only when it reads it exactly as the strict reader
(:func:`prereg.jsonio.loads_record`) would, and never accepts what that reader refuses (README
failure 5: a manifest with a repeated key has two meanings; the audit must refuse it)."""

from __future__ import annotations

import json

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from prereg.errors import UserError
from prereg.jsonio import MAX_DEPTH, fast_record, loads_record, read_json


def _strict(data: bytes):
    try:
        return loads_record(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return exc


def _same(a, b) -> bool:
    """Equal including types (1 vs 1.0, -0.0 vs 0.0, True vs 1)."""
    return json.dumps(a) == json.dumps(b)


REFUSED_OR_OTHER = {
    "repeated key": b'{"seal": "a", "arm": "x", "seal": "b"}',
    "repeated nested key": b'{"summaries": {"heldout_accuracy": 0.9, "heldout_accuracy": 0.1}}',
    "repeated key in an object in a list": b'{"a": [{"k": 1, "k": 2}]}',
    "repeated key hidden by an escaped colon": b'{"p": "x\\u003ay", "r": 1, "r": 2}',
    "401-digit integer": b'{"seed": ' + b"7" * 401 + b"}",
    "25-digit integer": b'{"seed": 1234567890123456789012345}',
    "19-digit integer below -2^63": b'{"seed": -9223372036854775809}',
    "-2^63": b'{"seed": -9223372036854775808}',
    "20-digit integer": b'{"seed": 18446744073709551616}',
    "NaN": b'{"lr": NaN}',
    "Infinity": b'{"lr": -Infinity}',
    "1e400": b'{"lr": 1e400}',
    "too deep": b'{"a": ' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}",
    "lone surrogate": b'{"a": "\\ud800"}',
    "byte-order mark": b'\xef\xbb\xbf{"a": 1}',
    "bad UTF-8": b'{"a": "\xff"}',
    "a list": b"[1, 2]",
    "a bare big integer": b"123456789012345678901234567890",
    "trailing data": b'{"a": 1} {"b": 2}',
    "empty": b"",
}


@pytest.mark.parametrize("case", sorted(REFUSED_OR_OTHER))
def test_the_fast_path_leaves_every_hard_case_to_the_strict_reader(tmp_path, case):
    data = REFUSED_OR_OTHER[case]
    strict = _strict(data)
    fast = fast_record(data)
    assert fast is None or (not isinstance(strict, Exception) and _same(fast, strict))
    p = tmp_path / "r.json"
    p.write_bytes(data)
    if isinstance(strict, Exception):
        with pytest.raises(UserError, match=r"r\.json"):
            read_json(p)
    else:
        assert _same(read_json(p), strict)


def test_records_as_the_project_writes_them_take_the_fast_path():
    doc = {"arm": "grpo", "seed": 3, "lock": {"hash": "ab" * 32, "version": 1}, "error": None,
           "summaries": {"heldout_accuracy": 0.632, "zvf_mean": 0.0, "rollouts": 10 ** 18},
           "resolved_config": {"peft": {"target_modules": ["q_proj", "v_proj"], "alpha": 32}, "lr": 1e-05},
           "notes": "time: 12:30 {braces} [brackets] \\ \"quoted\" é \U0001f600"}
    for text in (json.dumps(doc, indent=2, sort_keys=True), json.dumps(doc, ensure_ascii=False)):
        data = text.encode("utf-8")
        fast = fast_record(data)
        assert fast is not None and _same(fast, _strict(data))  # same values, types and key order
        assert json.dumps(fast, sort_keys=True) == json.dumps(doc, sort_keys=True)


def test_a_missing_or_undecodable_file_is_one_line_naming_it(tmp_path):
    with pytest.raises(UserError, match=r"gone\.json: manifest not found"):
        read_json(tmp_path / "gone.json", "manifest")
    (tmp_path / "bad.json").write_bytes(b'{"a": "\xff"}')
    with pytest.raises(UserError, match=r"bad\.json: not UTF-8 text"):
        read_json(tmp_path / "bad.json")


_scalar = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10 ** 25), max_value=10 ** 25),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                    st.sampled_from(["a:b", ":", "{", "[", "\\", '"', "\u2028", "é", "\U0001f600"]))
_key = st.sampled_from(["seal", "arm", "a:b", "é", "x"])


def _members(c):
    return st.lists(st.tuples(_key, c), max_size=3)


def _text_of(v, sep: str) -> str:
    """JSON text of a value in which objects are lists of (key, value) pairs, repeated keys kept."""
    if isinstance(v, tuple) and v and v[0] == "obj":
        return "{" + ",".join(f"{json.dumps(k)}:{sep}{_text_of(x, sep)}" for k, x in v[1]) + "}"
    if isinstance(v, list):
        return "[" + f",{sep}".join(_text_of(x, sep) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


_value = st.recursive(_scalar, lambda c: st.lists(c, max_size=3) | _members(c).map(lambda m: ("obj", m)),
                      max_leaves=8)


@settings(max_examples=examples(ci=400, dev=80), deadline=None)
@given(top=_members(_value), sep=st.sampled_from(["", " ", "\n  "]), escape=st.booleans())
def test_fast_path_agrees_with_the_strict_reader(top, sep, escape):
    text = _text_of(("obj", top), sep)
    if escape:  # the escaped spelling of ':' inside strings
        text = text.replace("a:b", "a\\u003ab")
    data = text.encode("utf-8", "surrogatepass")
    strict = _strict(data)
    fast = fast_record(data)
    if isinstance(strict, Exception):
        assert fast is None, (data, strict)
    elif fast is not None:
        assert _same(fast, strict), data


def test_nesting_up_to_the_limit_is_read_and_one_deeper_is_refused(tmp_path):
    ok = b'{"a": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}"   # containers at depths 1..64
    assert fast_record(ok) is not None and _same(fast_record(ok), _strict(ok))
    deep = b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}"             # one at depth 65
    assert isinstance(_strict(deep), ValueError) and fast_record(deep) is None


def test_each_unreadable_path_is_named_with_its_reason(tmp_path):
    """Missing, a folder, a broken link, a file standing where a folder is named, not UTF-8."""
    from prereg.jsonio import read_jsonl, read_text

    (tmp_path / "dir.json").mkdir()
    (tmp_path / "link.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "file").write_text("{}")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"a": "\xe9"}\n')
    cases = {"gone.json": "manifest not found", "dir.json": "is a directory, expected a manifest",
             "link.json": "manifest not found", "file/inner.json": "manifest not found"}
    for reader in (read_json, read_jsonl, read_text):
        for rel, msg in cases.items():
            with pytest.raises(UserError) as exc:
                reader(tmp_path / rel, "manifest")
            assert str(exc.value) == f"{tmp_path / rel}: {msg}"
    with pytest.raises(UserError, match=r"latin1\.jsonl: not UTF-8 text"):
        read_jsonl(tmp_path / "latin1.jsonl")
