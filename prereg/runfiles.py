"""One reading of a campaign's run files, shared by every reader in one step.

The audit checks a campaign and then recomputes its analysis with ``stats``: without sharing,
each of 1,000 manifests is read, schema-checked and sealed twice and each trace hashed twice.
A :class:`RunFiles` made by the caller and handed to each reader does that work once. It is an
explicit object, not a module-level cache: its owner decides how long the memory lives (one
audit) and nothing survives into the next one, whose files may have changed.
"""

from __future__ import annotations

from pathlib import Path

from prereg.canonical import sha256_file
from prereg.errors import UserError
from prereg.jsonio import read_json
from prereg.records import MANIFEST, Run, seal_of
from prereg.schema import schema_errors


def _path(p) -> Path:
    """``Path(p)``, without re-parsing a Path (pathlib parses every part again: ~20,000 calls a
    1,000-run audit)."""
    return p if isinstance(p, Path) else Path(p)


class RunFiles:
    """Manifests (parsed, schema errors, seal) and file digests, each computed at most once.

    Example:
        >>> files = RunFiles()                              # doctest: +SKIP
        >>> run = files.read_run("runs/e1/grpo/s1")          # reads and validates the manifest
        >>> files.seal_ok(run), files.sha256(run.path / "telemetry.jsonl")
        (True, '3f...')
    """

    def __init__(self) -> None:
        self._docs: dict[Path, object] = {}          # manifest path -> parsed JSON or the UserError
        self._schema: dict[Path, list[str]] = {}
        self._seals: dict[Path, tuple[dict, str]] = {}  # run folder -> (the manifest sealed, its seal)
        self._digests: dict[Path, str] = {}
        self._kept: dict[tuple[Path, object], object] = {}  # (file, what) -> a value derived from it

    def manifest(self, path: str | Path):
        """The parsed manifest file (any JSON value), as :func:`prereg.jsonio.read_json` reads it.

        Raises:
            UserError: the file is missing or not one strict JSON record (the same error each time).
        """
        path = _path(path)
        if path not in self._docs:
            try:
                self._docs[path] = read_json(path, "run manifest")
            except UserError as exc:
                self._docs[path] = exc
        doc = self._docs[path]
        if isinstance(doc, UserError):
            raise doc
        return doc

    def schema_errors(self, path: str | Path) -> list[str]:
        """:func:`prereg.schema.schema_errors` of the manifest at ``path`` (read as :meth:`manifest`)."""
        path = _path(path)
        if path not in self._schema:
            self._schema[path] = schema_errors(self.manifest(path), "manifest")
        return list(self._schema[path])

    def read_run(self, run_dir: str | Path) -> Run:
        """:func:`prereg.records.read_run`: the run, or a UserError naming its first schema violation."""
        run_dir = _path(run_dir)
        doc = self.manifest(run_dir / MANIFEST)
        errs = self.schema_errors(run_dir / MANIFEST)
        if errs:
            raise UserError(f"{run_dir / MANIFEST}: malformed manifest: {errs[0]}")
        return Run(path=run_dir, manifest=doc)

    def seal_of(self, run: Run) -> str:
        """:func:`prereg.records.seal_of` of the run's manifest, computed once per manifest object.

        Raises:
            UserError: the manifest cannot be canonicalized (as ``seal_of`` raises it)."""
        hit = self._seals.get(run.path)
        if hit is None or hit[0] is not run.manifest:  # another dict for this folder: seal it afresh
            hit = (run.manifest, seal_of(run.manifest))
            self._seals[run.path] = hit
        return hit[1]

    def seal_ok(self, run: Run) -> bool:
        """:meth:`prereg.records.Run.seal_ok`."""
        return self.seal_of(run) == run.manifest.get("seal")

    def sha256(self, path: str | Path) -> str:
        """:func:`prereg.canonical.sha256_file` of ``path``, hashed once."""
        path = _path(path)
        if path not in self._digests:
            self._digests[path] = sha256_file(path)
        return self._digests[path]

    def learn(self, run: Run, seal: str | None, digests: dict) -> None:
        """Take the seal of ``run``'s manifest (this very manifest object) and file digests
        (path -> SHA-256) that another process computed from these same files, as :meth:`seal_of`
        and :meth:`sha256` would have (the audit's forked workers, :mod:`audit.pool`), so they are
        not computed again here."""
        if seal is not None:
            self._seals[run.path] = (run.manifest, seal)
        for path, digest in digests.items():
            self._digests[_path(path)] = digest

    def keep(self, path: str | Path, what, value) -> None:
        """Leave ``value``, derived from the file at ``path`` by one reader, for another reader.

        The audit's check 7 reads and verifies every held-out trace; check 9's ``stats``
        recomputation needs only compact per-item arrays of it, so check 7 keeps those here
        instead of the rows (~500k rows at 1,000 runs, ~300 MB) and stats does not parse them again.
        ``what`` names the derivation (e.g. a tuple with its options), so readers needing another
        one miss and read the file themselves."""
        self._kept[(_path(path), what)] = value

    def kept(self, path: str | Path, what):
        """The value :meth:`keep` left for ``(path, what)``, or None."""
        return self._kept.get((_path(path), what))
