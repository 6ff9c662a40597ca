"""Read tracker records back from their own files (test support, not a test module).

W&B's offline run file (``run-<id>.wandb``) is a LevelDB-style log of ``wandb_internal_pb2.Record``
protobufs: a 7-byte file header (``:W&B``, magic, version), then 32 KiB blocks of chunks, each
with a 7-byte header (CRC32, little-endian length, type FULL/FIRST/MIDDLE/LAST). The records are
decoded with wandb's own protobuf classes.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

_BLOCK = 32768
_FULL, _FIRST, _MIDDLE, _LAST = 1, 2, 3, 4


def wandb_records(path: Path) -> list:
    from wandb.proto import wandb_internal_pb2

    data = Path(path).read_bytes()
    assert data[:4] == b":W&B", f"{path}: not a W&B run file"
    pos, chunks, out = 7, [], []
    while pos + 7 <= len(data):
        left = _BLOCK - pos % _BLOCK
        if left < 7:  # block trailer padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        if kind == 0 and length == 0:
            pos += left
            continue
        body = data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind in (_FULL, _FIRST):
            chunks = [body]
        else:
            chunks.append(body)
        if kind in (_FULL, _LAST):
            rec = wandb_internal_pb2.Record()
            rec.ParseFromString(b"".join(chunks))
            out.append(rec)
    return out


def wandb_history(path: Path) -> dict[int, dict]:
    """step -> {key: value} of every history record in a W&B offline run file."""
    steps: dict[int, dict] = {}
    for rec in wandb_records(path):
        if rec.WhichOneof("record_type") != "history":
            continue
        row = {}
        for item in rec.history.item:
            key = item.key or "/".join(item.nested_key)
            row[key] = json.loads(item.value_json)
        step = int(row.get("_step", rec.history.step.num))
        steps.setdefault(step, {}).update(row)
    return steps


def wandb_run_info(path: Path) -> tuple[object, dict]:
    """(the run record, the merged config and summary updates) of a W&B offline run file."""
    run, config, summary = None, {}, {}
    for rec in wandb_records(path):
        kind = rec.WhichOneof("record_type")
        if kind == "run":
            run = rec.run
            for item in rec.run.config.update:
                config[item.key] = json.loads(item.value_json)
        elif kind == "config":
            for item in rec.config.update:
                config[item.key or "/".join(item.nested_key)] = json.loads(item.value_json)
        elif kind == "summary":
            for item in rec.summary.update:
                summary[item.key or "/".join(item.nested_key)] = json.loads(item.value_json)
    return run, {"config": config, "summary": summary}
