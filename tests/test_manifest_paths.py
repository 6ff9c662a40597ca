"""prereg.rules.manifest_paths (the one way run folders are found) lists exactly what
``sorted(Path.rglob("manifest.json"))`` lists, on the shapes a runs folder can take: nested
studies, hidden folders, linked manifests and folders, a dangling link, an unreadable folder."""

from __future__ import annotations

import os

from prereg.rules import manifest_paths


def _tree(root):
    for rel in ("s/arm/s1", "s/arm/s2", "s/arm/s10", "s/.hidden/s1", "t/x/s1/traces", "Z/a/s1", "s/arm/s1/nested"):
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "manifest.json").write_text("{}")
    (root / "s" / "arm" / "s3").mkdir()                                        # a run folder without one
    (root / "s" / "arm" / "s3" / "manifest.json.tmp").write_text("{}")
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "manifest.json").write_text("{}")
    (root / "s" / "arm" / "s4").mkdir()
    os.symlink(root / "elsewhere" / "manifest.json", root / "s" / "arm" / "s4" / "manifest.json")  # linked file: listed
    os.symlink(root / "t", root / "s" / "linked_folder")                      # linked folder: not entered
    (root / "s" / "arm" / "s5").mkdir()
    os.symlink(root / "missing.json", root / "s" / "arm" / "s5" / "manifest.json")  # dangling: not listed
    (root / "s" / "arm" / "s6" / "manifest.json").mkdir(parents=True)          # a folder of that name
    locked = root / "s" / "locked"
    locked.mkdir()
    (locked / "s1").mkdir()
    (locked / "s1" / "manifest.json").write_text("{}")
    locked.chmod(0)


def test_same_as_rglob(tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    _tree(root)
    try:
        want = sorted(root.rglob("manifest.json"))
        got = manifest_paths(root)
        assert got == want and len(got) >= 9
        assert manifest_paths(root / "s" / "arm" / "s1") == sorted((root / "s" / "arm" / "s1").rglob("manifest.json"))
        assert manifest_paths(str(root / "s")) == sorted((root / "s").rglob("manifest.json"))
        assert manifest_paths(root / "s" / "arm" / "s1" / "manifest.json") == []   # a file, not a folder
    finally:
        (root / "s" / "locked").chmod(0o755)
