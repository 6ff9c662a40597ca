"""``AuditContext.rel`` names a file as ``Path.resolve()`` then relative to the working folder
would, while resolving each folder once (findings name 1,000 run folders; README failure 5's
findings must point at the file a reader can open)."""

from __future__ import annotations

import os
from pathlib import Path

from audit.context import AuditContext


def _ctx(cwd: Path) -> AuditContext:
    return AuditContext(report_dir=cwd, analysis_path=cwd / "a.json", analysis={}, lock_path=None, lock=None,
                        chain={}, runs_path=None, runs=[], unreadable_runs=[], cwd=cwd.resolve())


def _by_resolve(p: Path, cwd: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(cwd.resolve()))
    except ValueError:
        return str(p)


def test_rel_names_files_as_resolve_does(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "runs" / "e1" / "grpo" / "s1").mkdir(parents=True)
    (work / "runs" / "e1" / "grpo" / "s1" / "manifest.json").write_text("{}")
    (tmp_path / "elsewhere" / "s2").mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere", work / "runs" / "e1" / "linked")        # a symlinked folder
    os.symlink(work / "runs" / "e1" / "grpo", work / "alias")                  # a link back inside
    os.symlink("../grpo/s1/manifest.json", work / "runs" / "e1" / "grpo" / "m")  # a relative file link
    (tmp_path / "outside.txt").write_text("x")
    monkeypatch.chdir(work)
    ctx = _ctx(work)
    paths = [Path("runs/e1/grpo/s1/manifest.json"), work / "runs/e1/grpo/s1/manifest.json",
             Path("runs/e1/linked/s2/manifest.json"), Path("alias/s1/manifest.json"),
             Path("runs/e1/grpo/m"), Path("runs/e1/grpo/../grpo/./s1"), Path("runs/e1/grpo/s9/missing.json"),
             tmp_path / "outside.txt", Path("."), Path("/"), Path("runs")]
    for p in paths * 2:  # the second pass is answered from what the first kept
        assert ctx.rel(p) == _by_resolve(p, work), p
    assert ctx.rel(Path("alias/s1/manifest.json")) == "runs/e1/grpo/s1/manifest.json"
    assert ctx.rel(Path("runs/e1/linked/s2/manifest.json")) == "runs/e1/linked/s2/manifest.json"  # outside: as given
