"""``artifact_files`` lists a run folder exactly as ``sorted(run_dir.rglob("*"))`` did (README
failure 5: a file added to a sealed run folder, or one it lost, is found by check 2)."""

from __future__ import annotations

import os
from pathlib import Path

from prereg.records import MANIFEST, NON_ARTIFACTS, artifact_files


def _by_rglob(run_dir: Path) -> dict[str, Path]:
    """The listing before scandir: every file under the folder in Path order, less non-artifacts."""
    out = {}
    for p in sorted(run_dir.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(run_dir).as_posix()
        if rel == MANIFEST or rel.startswith(NON_ARTIFACTS) or "/." in "/" + rel:
            continue
        out[rel] = p
    return out


def test_listing_matches_rglob_on_an_awkward_folder(tmp_path):
    for rel in ["a/x", "a-b/x", "a.b", "A/y", ".hidden", "z/.h/q", "checkpoints/c", ".unit.lock", MANIFEST,
                "traces/train.jsonl", "deep/er/est/f", "adapter/adapter_model.safetensors"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "linkdir")        # a symlinked folder is not entered
    os.symlink(tmp_path / "a.b", tmp_path / "linkfile")     # a symlink to a file is a file
    os.symlink(tmp_path / "nope", tmp_path / "broken")      # a broken link is no file
    os.mkfifo(tmp_path / "fifo")                            # nor is a pipe
    got = artifact_files(tmp_path)
    assert list(got.items()) == list(_by_rglob(tmp_path).items())
    assert list(got) == ["A/y", "a/x", "a-b/x", "a.b", "adapter/adapter_model.safetensors", "deep/er/est/f",
                         "linkfile", "traces/train.jsonl"]


def test_a_missing_folder_lists_nothing(tmp_path):
    assert artifact_files(tmp_path / "gone") == {} == _by_rglob(tmp_path / "gone")
