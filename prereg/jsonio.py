"""Reading and writing JSON files with errors that name the file, and atomic writes.

Atomic writes (temp file + fsync + rename) are how "nothing already written is lost" and
"a crash never leaves a half-written file" are kept everywhere in the project.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from prereg.errors import UserError


@contextmanager
def _reading(p: Path, what: str):
    """Missing, a folder, unreadable or not UTF-8: one error naming the file.

    Told apart by the error opening the file raises, not by asking first (two ``stat`` calls
    for each of the ~4,000 files an audit of 1,000 runs reads)."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (FileNotFoundError, NotADirectoryError):  # also a broken link, or a file where a folder is named
        raise UserError(f"{p}: {what} not found") from None
    except IsADirectoryError:
        raise UserError(f"{p}: is a directory, expected a {what}") from None
    except OSError as exc:
        if p.is_dir():  # some systems refuse to open a folder with another error
            raise UserError(f"{p}: is a directory, expected a {what}") from None
        raise UserError(f"{p}: cannot read ({exc.strerror})") from None


def read_text(path: str | Path, what: str = "file") -> str:
    p = path if isinstance(path, Path) else Path(path)
    with _reading(p, what):
        return p.read_text(encoding="utf-8")


MAX_DEPTH = 64  # no record of the project nests deeper than ~8; deeper is damage or an attack
MAX_INT_DIGITS = 400  # far above any count or seed; below Python's own 4,300-digit limit


class RecordError(ValueError):
    """A JSON text that parses but cannot be one unambiguous record (repeated key, huge number)."""


def _pairs(items: list) -> dict:
    """``object_pairs_hook`` that refuses a repeated key (README failure 5: one record, one meaning).

    With a repeated key a reader of the file sees one value while ``json`` keeps the last one,
    so a manifest could show ``"heldout_accuracy": 0.9`` above the value its seal covers.
    """
    d = dict(items)
    if len(d) != len(items):
        seen: set = set()
        for k, _ in items:
            if k in seen:
                raise RecordError(f"key {k!r} appears twice in one object; the record is ambiguous")
            seen.add(k)
    return d


unique_pairs = _pairs  # public name: readers with their own json.loads options (imported tables)


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise RecordError(f"an integer of {len(text.lstrip('-'))} digits (more than {MAX_INT_DIGITS})")
    return int(text)


def _reject_constant(name: str) -> Any:
    raise RecordError(f"non-standard JSON constant {name}")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_pairs, parse_int=_parse_int)


def _too_deep(obj: Any) -> bool:
    """Iterative depth test: deeper than MAX_DEPTH would crash recursive readers later."""
    stack = [(obj, 1)]
    while stack:
        cur, d = stack.pop()
        if isinstance(cur, (dict, list)):
            if d > MAX_DEPTH:
                return True
            stack.extend((v, d + 1) for v in (cur.values() if isinstance(cur, dict) else cur))
    return False


def loads_record(text: str) -> Any:
    """Parse one JSON record the strict way every reader shares; raises ``ValueError`` with a reason.

    Refused: repeated keys, NaN/Infinity, integers over MAX_INT_DIGITS digits and nesting deeper
    than MAX_DEPTH. Example: ``loads_record('{"a": 1}') == {"a": 1}``.
    """
    try:
        doc = _DECODER.decode(text)
    except RecursionError:
        raise RecordError(f"nested more than {MAX_DEPTH} levels deep") from None
    if _too_deep(doc):
        raise RecordError(f"nested more than {MAX_DEPTH} levels deep")
    return doc


def read_json(path: str | Path, what: str = "file") -> Any:
    """Read one JSON record; every problem is one ``UserError`` naming the file (and line).

    A JSON object is read by orjson when :func:`fast_record` proves it reads it as the strict
    reader would (an audit of 1,000 runs reads 1,000 manifests and a 10 MB analysis); anything
    else, and every error, comes from :func:`loads_record`."""
    p = path if isinstance(path, Path) else Path(path)
    with _reading(p, what):
        data = p.read_bytes()
        doc = fast_record(data)
        if doc is not None:
            return doc
        text = data.decode("utf-8")
    try:
        return loads_record(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except ValueError as exc:
        raise UserError(f"{p}: {exc}") from None


def read_jsonl(path: str | Path, what: str = "JSON-lines file") -> list[dict]:
    """Read JSON lines (one object a line) with the same refusals as :func:`read_json`.

    Args:
        path: the file.
        what: what the file is, for the error line ("held-out trace").
    Returns:
        One dict per non-blank line.
    Raises:
        UserError: missing, unreadable, not UTF-8, or a line that is not one strict JSON object
            (named by its line number).
    Example: ``read_jsonl("runs/e1/grpo/s1/telemetry.jsonl", "telemetry")[0]["step"] == 1``
    """
    p = path if isinstance(path, Path) else Path(path)
    with _reading(p, what):
        data = p.read_bytes()
    rows = fast_jsonl_rows(data)
    return rows if rows is not None else read_jsonl_strict(p, what)


def read_jsonl_strict(path: str | Path, what: str = "JSON-lines file") -> list[dict]:
    """:func:`read_jsonl` by the standard library alone (the reference its fast path is tested against)."""
    p = path if isinstance(path, Path) else Path(path)
    with _reading(p, what), open(p, encoding="utf-8") as fh:
        lines = fh.readlines()
    # One shared decoder in one pass: json.loads builds a decoder per call.
    try:
        rows = [_DECODER.decode(line) for line in lines if line.strip()]
        if all(isinstance(r, dict) for r in rows):  # depth: the C decoder's RecursionError suffices
            return rows
    except (ValueError, RecursionError):
        pass
    for n, line in enumerate(lines, 1):  # name the first bad line
        if not line.strip():
            continue
        try:
            row = loads_record(line)
        except RecordError as exc:
            raise UserError(f"{p}:{n}: {exc}") from None
        except ValueError as exc:
            raise UserError(f"{p}:{n}: not valid JSON ({exc})") from None
        if not isinstance(row, dict):  # every reader indexes rows by field name
            raise UserError(f"{p}:{n}: expected a JSON object, got {type(row).__name__}")
    raise AssertionError("unreachable: the fast pass failed, so some line is bad")


# digits -> "0"; what may stand right before a number token's digits (a separator, a space or
# tab) -> "S", a minus sign -> "M". orjson reads integers in [-2^63, 2^64) as ints, others as
# floats: 20 digits may reach 2^64, and after a minus sign 19 (-9223372036854775809 = -2^63 - 1)
_NUMBER_SHAPE = bytes.maketrans(b"0123456789:,[ \t-", b"0000000000SSSSSM")
_BIG_INT_SHAPE = b"S" + b"0" * 20
_BIG_NEGATIVE_SHAPE = b"M" + b"0" * 19
# the first pass: a minus sign is a separator too, so one search for 19 digits finds every
# candidate of both kinds (a file of ~1,000 trace rows almost never holds one)
_ANY_SHAPE = bytes.maketrans(b"0123456789:,[ \t-", b"0000000000SSSSSS")
_LONG_SHAPE = b"S" + b"0" * 19


def fast_jsonl_rows(data: bytes) -> list[dict] | None:
    """The rows of a JSON-lines text when orjson reads it exactly as the strict reader would, else None.

    A trace of 1,000 runs is ~1M rows; the strict reader's Python hooks (repeated keys, integer
    length) cost ~3 us a row, orjson ~0.7 us. Every difference between the two readers sends
    the file to the strict reader (None), so the fast path never accepts what it refuses:

    - repeated keys (orjson keeps the last): proven absent by counting, since each object
      member has one ``:`` outside strings (:func:`_members_counted`);
    - integers outside [-2^63, 2^64) (orjson turns them into floats; the strict reader keeps
      ints and refuses 400+ digits): any token of 20+ digits, or 19+ after a minus sign, sends
      the file back (:func:`_may_hold_big_int`; -2^63 - 1 has 19 digits);
    - nesting deeper than MAX_DEPTH, a line that is not an object, a blank line, a ``\\r``
      (the text reader also splits lines there), 1e400, NaN, lone surrogates, bad UTF-8:
      orjson refuses or the checks below do, and the strict reader names the line.
    """
    if b"\r" in data or _may_hold_big_int(data):
        return None
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    try:
        rows = list(map(orjson.loads, lines))
    except orjson.JSONDecodeError:
        return None
    if rows and set(map(type, rows)) != {dict}:  # in C: a generator costs ~0.2 s over 1M rows
        return None
    return rows if _members_counted(data, rows) else None


def fast_record(data: bytes) -> dict | None:
    """The JSON object ``data`` holds when orjson reads it exactly as :func:`loads_record` would, else None.

    The refusals of :func:`fast_jsonl_rows` for one object: a repeated key, an integer of 20+
    digits (19+ when negative) or nesting deeper than MAX_DEPTH send it to the strict reader,
    and so does anything orjson refuses (NaN, 1e400, lone surrogates, bad UTF-8, a byte-order mark) or a value that
    is not an object (a bare big integer has no separator before it)."""
    if _may_hold_big_int(data):
        return None
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if type(doc) is not dict:
        return None
    return doc if _members_counted(data, [doc]) else None


def _may_hold_big_int(data: bytes) -> bool:
    """True when a number token of 20 or more digits, or a negative one of 19 or more, may be
    present (false alarms only cost speed).

    A number token's digits follow ``:``, ``,`` or ``[``, a space or tab, or a minus sign;
    digits inside a hex digest follow a letter or a quote, so traces of hashes stay fast."""
    if _LONG_SHAPE not in data.translate(_ANY_SHAPE):  # one search instead of two (~200 MB of traces)
        return False
    shape = data.translate(_NUMBER_SHAPE)  # a 19-digit token: which kind decides
    return _BIG_INT_SHAPE in shape or _BIG_NEGATIVE_SHAPE in shape


def _members_counted(data: bytes, rows: list[dict]) -> bool:
    """True when the text holds exactly as many object members as the parsed rows (no repeated key).

    Outside strings each member has exactly one ``:``; inside strings a ``:`` is a character of
    the decoded string (or the escape ``\\u003a``, which sends the file back). A repeated key
    drops a member (and the colons of its strings) from the parsed rows, so the rows written
    out again by orjson (which never escapes ``:``) hold fewer colons than the text exactly when
    a key was repeated. Rows without nesting are counted without writing them out. Nesting
    deeper than MAX_DEPTH is refused on the way."""
    colons = data.count(b":")
    if data.count(b"{") == len(rows) and b"[" not in data:  # no nested object or array anywhere
        members = sum(map(len, rows))
        if colons == members:
            return True
        in_strings = sum(k.count(":") for r in rows for k in r) + sum(
            v.count(":") for r in rows for v in r.values() if type(v) is str)
        if b"\\u003a" in data or b"\\u003A" in data:
            return False
        return colons - in_strings == members
    if not _within_depth(rows) or b"\\u003a" in data or b"\\u003A" in data:
        return False
    return colons == orjson.dumps(rows).count(b":")


def _within_depth(level: list) -> bool:
    """True when no object or array below ``level`` (the objects at depth 1) lies deeper than
    MAX_DEPTH, as :func:`_too_deep` decides; one pass per level over the containers alone."""
    for _ in range(MAX_DEPTH):
        below: list = []
        for x in level:
            below.extend(x.values() if type(x) is dict else x)
        level = [v for v in below if type(v) is dict or type(v) is list]
        if not level:
            return True
    return False


def dumps_pretty(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def make_dirs(path: str | Path) -> Path:
    """``mkdir -p`` whose failure (a file where a folder must be, no permission) names the path."""
    p = path if isinstance(path, Path) else Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocker = next((a for a in (p, *p.parents) if a.exists() and not a.is_dir()), None)
        if blocker is not None:
            raise UserError(f"{blocker}: is a file, expected a folder") from None
        raise UserError(f"{p}: cannot create folder ({exc.strerror})") from None
    return p


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _cannot_write(p: Path, exc: OSError) -> UserError:
    return UserError(f"{p}: cannot write ({exc.strerror or exc})")


def write_atomic(path: str | Path, data: bytes | str, overwrite: bool = True, *,
                 mode: int | None = None, make_parents: bool = True) -> Path:
    """Write via a temp file in the same folder and rename; refuse to replace when asked.

    The file gets ``mode`` (default ``0o666`` less the umask, as ``open`` would give it; README
    "Record guarantees": a shared run folder stays readable by collaborators). A folder that
    cannot be written (read-only, full disk) is one ``UserError`` naming the file. With
    ``make_parents=False`` a missing parent folder is refused instead of created, for outputs
    whose path the user typed (nothing is written outside the paths the user named).

    Example: ``write_atomic("out/a.json", "{}", overwrite=False)``.
    """
    p = path if isinstance(path, Path) else Path(path)
    if make_parents:
        make_dirs(p.parent)
    elif not p.parent.is_dir():
        raise UserError(f"{p}: folder {p.parent} does not exist (create it first)")
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise _cannot_write(p, exc) from None
    try:
        os.fchmod(fd, (0o666 & ~_umask()) if mode is None else mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, p)
        else:
            try:
                os.link(tmp, p)  # fails if p exists: no race between check and write
            except FileExistsError:
                raise UserError(f"{p}: already exists; refusing to overwrite") from None
            os.unlink(tmp)
    except OSError as exc:
        _remove(tmp)
        raise _cannot_write(p, exc) from None
    except BaseException:
        _remove(tmp)
        raise
    return p


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def write_json_atomic(path: str | Path, obj: Any, overwrite: bool = True, **kwargs) -> Path:
    return write_atomic(path, dumps_pretty(obj), overwrite=overwrite, **kwargs)
