"""The orjson fast path of ``canonical_bytes`` writes exactly rfc8785's bytes and refuses what it
refuses (README failure 5: a seal covers one canonical text; a manifest sealed by the runner
must verify in the audit whichever path wrote each side)."""

from __future__ import annotations

import enum
import math
import sys

import pytest
import rfc8785
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from prereg.canonical import _check_finite, _fast_canonical, canonical_bytes
from prereg.errors import UserError


def _reference(obj):
    """What canonical_bytes returned before the fast path: rfc8785 alone (bytes or the error line)."""
    try:
        _check_finite(obj)
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, TypeError, ValueError, UserError) as exc:
        return type(exc)


def _ours(obj):
    try:
        return canonical_bytes(obj)
    except UserError:
        return UserError


def _agree(obj, *, fast: bool = False) -> None:
    """canonical_bytes(obj) is the reference's result; with ``fast``, the orjson path wrote it."""
    want = _reference(obj)
    got = _ours(obj)
    if isinstance(want, bytes):
        assert got == want
        assert _fast_canonical(obj) in (None, want)
        if fast:
            assert _fast_canonical(obj) == want
    else:  # refused by the reference: refused here too, and never by the fast path
        assert got is UserError
        assert _fast_canonical(obj) is None


FLOAT_EDGES = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-7, 1e-6, 9.99e-7, 1e-5, 1e-4, 0.000123, 1e15, 1e16, 1.5e16,
               123456789012345680.0, 2.0 ** 60, 1e20, 1e21, 1e22, 1.5e300, 5e-324, sys.float_info.max,
               sys.float_info.min, 2.0 ** 53, 2.0 ** 53 + 2, 1 / 3, -2.5e-8, 100.0, 0.5]


@pytest.mark.parametrize("f", FLOAT_EDGES + [-f for f in FLOAT_EDGES])
def test_every_float_spelling_matches_rfc8785(f):
    _agree({"x": f, "l": [f, "1.0", f"{f}"]}, fast=True)


@pytest.mark.parametrize("obj", [
    {"b": 1, "a": 2, "": 3, "é": 4, "Z": 5, "\u00ff": 6, "\uffff": 7},   # sort order
    ["\x00\x01\x1f\x7f\"\\/\b\f\n\r\t\u2028\u2029 ok", 1.0],              # escapes
    {"s": "a:1.0,\"b\":1e+16,[2.0]", "t": "\\\"1.0", "f": 2.0},   # float-like text in strings, quotes
    {"s": "a:1.0,b:1e+16,[2.0]", "t": "x\\", "f": [2.0, -0.0, 1e-5]},    # ... without an escaped quote
    [2 ** 53 - 1, -(2 ** 53) + 1, 0, -0, True, False, None, [], {}],
])
def test_edge_documents_match_rfc8785(obj):
    _agree(obj, fast=True)


def test_astral_keys_take_the_exact_path():
    """orjson orders U+1F600 after U+FB01 (code points); RFC 8785 before it (UTF-16 units)."""
    _agree({"\U0001f600": 1, "\ufb01": 2})
    assert _fast_canonical({"\U0001f600": 1}) is None


class _Color(enum.Enum):
    RED = "red"


class _Key(str, enum.Enum):
    A = "a"


@pytest.mark.parametrize("obj", [
    [float("nan")], {"a": {"b": float("inf")}}, [-math.inf],      # non-finite
    [2 ** 53], [-(2 ** 53)], [10 ** 30],                           # outside the integer domain
    {1: "int key"}, {None: 1},                                     # non-string keys
    ["\ud800"], {"\udfff": 1},                                     # lone surrogates
    [_Color.RED], [object()], [b"bytes"], [{1, 2}],                # not JSON
])
def test_what_rfc8785_refuses_is_refused(obj):
    _agree(obj)


def test_subclasses_and_tuples_take_the_exact_path():
    """A str-valued enum, an int subclass and a tuple are written as rfc8785 writes them."""
    for obj in ([_Key.A], {"k": (1, 2.0, "x")}, [True, 1, 1.0], {_Key.A: 1}):
        _agree(obj)


def test_non_finite_refusal_names_the_field():
    with pytest.raises(UserError, match=r"\$\.a\[1\]: non-finite number nan"):
        canonical_bytes({"a": [1.0, float("nan")]})


_text = st.text(st.characters(codec="utf-8"), max_size=8) | st.sampled_from(["1.0", "a\"b", "\\", "\ud83d\ude00"])
_scalar = (st.none() | st.booleans() | st.integers(-(2 ** 54), 2 ** 54) | _text
           | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(FLOAT_EDGES))
_json = st.recursive(_scalar, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_text, kids, max_size=4),
                     max_leaves=20)


@settings(max_examples=examples(ci=1000, dev=100), deadline=None)
@given(obj=_json)
def test_generated_values_match_rfc8785(obj):
    _agree(obj)
