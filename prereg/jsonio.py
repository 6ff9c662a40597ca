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

from prereg.errors import UserError


@contextmanager
def _reading(p: Path, what: str):
    """Missing, a folder, unreadable or not UTF-8: one error naming the file."""
    if not p.exists():
        raise UserError(f"{p}: {what} not found")
    if p.is_dir():
        raise UserError(f"{p}: is a directory, expected a {what}")
    try:
        yield
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read ({exc.strerror})") from None


def read_text(path: str | Path, what: str = "file") -> str:
    p = Path(path)
    with _reading(p, what):
        return p.read_text(encoding="utf-8")


def read_json(path: str | Path, what: str = "file") -> Any:
    p = Path(path)
    text = read_text(p, what)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except ValueError as exc:
        raise UserError(f"{p}: {exc}") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def read_jsonl(path: str | Path, what: str = "JSON-lines file") -> list[dict]:
    p = Path(path)
    with _reading(p, what), open(p, encoding="utf-8") as fh:
        lines = fh.readlines()
    # One shared decoder in one pass: json.loads builds a decoder per call, which is most of
    # the time spent on a large trace (the audit reads ~1M rows at 1,000 runs).
    try:
        rows = [_DECODER.decode(line) for line in lines if line.strip()]
        if all(isinstance(r, dict) for r in rows):
            return rows
    except ValueError:
        pass
    for n, line in enumerate(lines, 1):  # name the first bad line
        if not line.strip():
            continue
        try:
            row = _DECODER.decode(line)
        except ValueError as exc:
            raise UserError(f"{p}:{n}: not valid JSON ({exc})") from None
        if not isinstance(row, dict):  # every reader indexes rows by field name
            raise UserError(f"{p}:{n}: expected a JSON object, got {type(row).__name__}")
    raise AssertionError("unreachable: the fast pass failed, so some line is bad")


def dumps_pretty(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def make_dirs(path: str | Path) -> Path:
    """``mkdir -p`` whose failure (a file where a folder must be, no permission) names the path."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocker = next((a for a in (p, *p.parents) if a.exists() and not a.is_dir()), None)
        if blocker is not None:
            raise UserError(f"{blocker}: is a file, expected a folder") from None
        raise UserError(f"{p}: cannot create folder ({exc.strerror})") from None
    return p


def write_atomic(path: str | Path, data: bytes | str, overwrite: bool = True) -> Path:
    """Write via a temp file in the same folder and rename; refuse to replace when asked."""
    p = Path(path)
    make_dirs(p.parent)
    if isinstance(data, str):
        data = data.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
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
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p


def write_json_atomic(path: str | Path, obj: Any, overwrite: bool = True) -> Path:
    return write_atomic(path, dumps_pretty(obj), overwrite=overwrite)
