"""The orjson fast path of ``read_jsonl`` reads exactly what the strict reader reads and never
accepts what it refuses (README failure 5: one record, one meaning; a trace row with a repeated
key must not be read as its last value)."""

from __future__ import annotations

import json

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from prereg.errors import UserError
from prereg.jsonio import fast_jsonl_rows, read_jsonl, read_jsonl_strict


def _strict(tmp_path, data: bytes):
    p = tmp_path / "t.jsonl"
    p.write_bytes(data)
    try:
        return read_jsonl_strict(p)
    except UserError as exc:
        return exc


def _same(a, b) -> bool:
    """Equal including types (1 vs 1.0, -0.0 vs 0.0, True vs 1)."""
    return json.dumps(a) == json.dumps(b)


HEX = "3f" * 32
# each line is valid JSON for orjson; the strict reader refuses some of them
REFUSED = {
    "repeated key": b'{"index": 1, "correct": false, "correct": true}\n',
    "repeated key, colon in a string": b'{"prediction": "a:b", "reward": 1, "reward": 0}\n',
    "repeated key, escaped colon hides it": b'{"p": "x\\u003ay", "r": 1, "r": 2}\n',
    "repeated nested key": b'{"trl": {"loss": 1, "loss": 2}, "step": 1}\n',
    "repeated key next to an array": b'{"g": [1, 2], "s": 1, "s": 2}\n',
    "401-digit integer": b'{"step": ' + b"7" * 401 + b"}\n",
    "not an object": b'{"step": 1}\n[1]\n',
    "NaN": b'{"reward": NaN}\n',
    "1e400": b'{"reward": 1e400}\n',
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_fast_path_never_accepts_what_the_strict_reader_refuses_or_reads_otherwise(tmp_path, case):
    data = REFUSED[case]
    strict = _strict(tmp_path, data)
    fast = fast_jsonl_rows(data)
    if isinstance(strict, UserError):
        assert fast is None
        with pytest.raises(UserError, match=r"t\.jsonl"):
            read_jsonl(tmp_path / "t.jsonl")
    else:  # read the same, or left to the strict reader
        assert fast is None or _same(fast, strict)
        assert _same(read_jsonl(tmp_path / "t.jsonl"), strict)


def test_big_integers_keep_their_value(tmp_path):
    """orjson reads integers past 64 bits as floats; the file goes to the strict reader."""
    data = (b'{"step": 123456789012345678901234567890}\n{"step": -98765432109876543210}\n'
            b'{"step": -9223372036854775809}\n')  # one below -2^63: 19 digits, a float to orjson
    assert fast_jsonl_rows(data) is None
    assert fast_jsonl_rows(b'{"step": -9223372036854775809}\n') is None
    p = tmp_path / "t.jsonl"
    p.write_bytes(data)
    assert read_jsonl(p) == [{"step": 123456789012345678901234567890}, {"step": -98765432109876543210},
                             {"step": -9223372036854775809}]
    assert type(read_jsonl(p)[2]["step"]) is int


def test_trace_rows_take_the_fast_path(tmp_path):
    """The shapes the runner writes (flat rows; telemetry with a nested trl object and an array;
    predictions holding colons and braces) are read by the fast path, equal to the strict read."""
    rows = [{"completion_sha256": HEX, "correct": i % 2 == 0, "index": i, "item_id": f"item-{i}",
             "prediction": "answer: {x}" if i % 3 else "7", "reward": float(i % 2), "target": "7"} for i in range(50)]
    tel = [{"step": i + 1, "generations": [0, 1], "trl": {"loss": 0.5, "kl": None}, "reward_mean": -0.0,
            "zvf": 0.25, "gu": 0.75, "rollouts": 10 ** 18} for i in range(5)]
    for doc in (rows, tel):
        data = "".join(json.dumps(r) + "\n" for r in doc).encode()
        fast = fast_jsonl_rows(data)
        assert fast is not None and _same(fast, doc) and _same(fast, _strict(tmp_path, data))


_scalar = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10 ** 25), max_value=10 ** 25),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                    st.sampled_from(["a:b", ":", "{", "[", "\\", '"', "\u2028", "é", "\U0001f600"]))
_key = st.sampled_from(["index", "correct", "reward", "a:b", "é", "x"])
_value = st.recursive(_scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(_key, c, max_size=3), max_leaves=6)


def _object_text(pairs, sep: str) -> str:
    """An object with the given members in order, repeated keys kept (json.dumps cannot write them)."""
    return "{" + ",".join(f"{json.dumps(k)}:{sep}{json.dumps(v, ensure_ascii=False)}" for k, v in pairs) + "}"


@settings(max_examples=examples(ci=300, dev=60), deadline=None)
@given(lines=st.lists(st.lists(st.tuples(_key, _value), max_size=4), max_size=4),
       sep=st.sampled_from(["", " ", "\t"]), escape=st.booleans())
def test_fast_path_agrees_with_the_strict_reader(tmp_path_factory, lines, sep, escape):
    text = "".join(_object_text(pairs, sep) + "\n" for pairs in lines)
    if escape:  # the escaped spelling of ':' inside strings
        text = text.replace("a:b", "a\\u003ab")
    data = text.encode("utf-8", "surrogatepass")
    strict = _strict(tmp_path_factory.mktemp("h"), data)
    fast = fast_jsonl_rows(data)
    if isinstance(strict, UserError):
        assert fast is None, (data, strict)
    elif fast is not None:
        assert _same(fast, strict), data
