"""Upload-ready folders, one per analysed run (``stats render --hub-dir OUT``).

Each ``OUT/<study>-<arm>-s<seed>/`` is what a user pushes to one Hugging Face model repo: the
adapter files at the top (so ``PeftModel.from_pretrained("<repo>")`` finds them), the run's model
card as ``README.md``, and under ``rlprereg/`` the sealed manifest, telemetry and traces
(completion hashes; text only where the run stored it). Every copied file is checked against
the manifest's artifact digest first, so a folder never ships a file the record does not vouch
for. ``OUT/README.md`` names the lock hash and gives the upload commands; nothing here touches
the network — uploading stays the user's ``huggingface-cli upload``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from prereg.canonical import sha256_bytes, sha256_file
from prereg.errors import UserError
from prereg.jsonio import make_dirs, write_atomic
from prereg.records import ADAPTER_DIR, MANIFEST

if TYPE_CHECKING:
    from stats.result import AnalysisResult

RECORD_DIR = "rlprereg"


def folder_name(study_id: str, run) -> str:
    """The run's hub folder (and suggested repo) name: ``<study>-<arm>-s<seed>``.

    Args:
        study_id: the study's id.
        run: the run (``arm``, ``seed``; a :class:`stats.modelcard.CardRun`).

    Returns:
        The folder name.

    Example:
        >>> from types import SimpleNamespace
        >>> folder_name("e1", SimpleNamespace(arm="gspo", seed=2))
        'e1-gspo-s2'
    """
    return f"{study_id}-{run.arm}-s{run.seed}"


def destination(rel: str) -> str:
    """Where a run artifact goes in its hub folder: adapter files at the top, the rest under ``rlprereg/``.

    PEFT's own stub ``adapter/README.md`` is kept under ``rlprereg/adapter/``: the folder's README is
    the rendered model card.

    Args:
        rel: the artifact's path relative to the run folder (a manifest ``artifacts`` key).

    Returns:
        Its path relative to the run's hub folder.

    Example:
        >>> destination("adapter/adapter_config.json"), destination("traces/train.jsonl")
        ('adapter_config.json', 'rlprereg/traces/train.jsonl')
    """
    if rel.startswith(ADAPTER_DIR + "/") and rel != f"{ADAPTER_DIR}/README.md":
        return rel[len(ADAPTER_DIR) + 1:]
    return f"{RECORD_DIR}/{rel}"


def layout(run) -> dict[str, Path]:
    """Destination (relative to the run's hub folder) -> source file, for every artifact and the manifest.

    Args:
        run: the run (``path``, ``artifacts``; a :class:`stats.modelcard.CardRun`).

    Returns:
        The copy plan, the manifest first, then the artifacts in path order.

    Example:
        >>> from types import SimpleNamespace
        >>> run = SimpleNamespace(path=Path("runs/e1/gspo/s1"), artifacts={"adapter/adapter_model.safetensors": {}})
        >>> sorted(layout(run))
        ['adapter_model.safetensors', 'rlprereg/manifest.json']
    """
    out = {f"{RECORD_DIR}/{MANIFEST}": run.path / MANIFEST}
    for rel in sorted(run.artifacts):
        out[destination(rel)] = run.path / rel
    return out


def check_hub_dir(hub_dir: str | Path, runs: list) -> None:
    """Refuse a non-empty OUT, and any run file that is missing or differs from its manifest digest.

    Why before anything is written: a half-written hub folder would ship files the record does
    not vouch for.

    Args:
        hub_dir: OUT (``--hub-dir``).
        runs: the analysed runs (:func:`stats.modelcard.card_runs`).

    Raises:
        UserError: OUT holds files, a run lists no adapter files, or a file is missing or altered.

    Example:
        >>> check_hub_dir("hub", runs)  # doctest: +SKIP
    """
    hub = Path(hub_dir)
    if hub.exists() and (not hub.is_dir() or any(hub.iterdir())):
        raise UserError(f"--hub-dir {hub}: already exists and is not an empty folder; choose another")
    for run in runs:
        arts = run.artifacts
        if not any(rel.startswith(ADAPTER_DIR + "/") for rel in arts):
            raise UserError(f"{run.path}: the manifest lists no adapter files; nothing to upload")
        for rel, entry in sorted(arts.items()):
            p = run.path / rel
            if not p.is_file() or sha256_file(p) != entry.get("sha256"):
                raise UserError(f"{p}: missing or not the file its manifest digests; refusing to package it")


def _index(result: AnalysisResult, digest: str, texts: dict[str, str], runs: list) -> str:
    """OUT/README.md: which folder holds which run and card, and the upload commands."""
    study = result.study_id
    L = [f"# Upload-ready run folders: study `{study}`", "",
         f"Lock `{result.lock_hash}` (version {result.lock_version}); analysis.json sha256 `{digest}`.", "",
         "One folder per analysed run: the PEFT adapter at the top, the run's model card as `README.md` "
         f"(the same text `stats render --model-cards` wrote and `audit check` verified), and `{RECORD_DIR}/` "
         "with the sealed manifest, telemetry and traces. Nothing has been uploaded.", "",
         "| Folder | Evidence class | Manifest seal | Card sha256 |", "|---|---|---|---|"]
    for run in runs:
        L.append(f"| `{folder_name(study, run)}` | {run.evidence_class} | `{run.seal}` | "
                 f"`{sha256_bytes(texts[run.name].encode())}` |")
    L += ["", "## Upload", "", "Each folder is one model repo. With a token that may write to `<namespace>`:", "",
          "```bash", "huggingface-cli login   # once"]
    L += [f"huggingface-cli upload <namespace>/{folder_name(study, run)} {folder_name(study, run)} ."
          for run in runs]
    L += ["```", "", "(`hf upload` is the same command in newer huggingface_hub releases.)", ""]
    return "\n".join(L)


def write_hub_dir(hub_dir: str | Path, result: AnalysisResult, digest: str, texts: dict[str, str],
                  runs: list) -> list[Path]:
    """Lay out every run's folder and the index; returns the files written.

    Args:
        hub_dir: OUT, empty or absent (:func:`check_hub_dir` has refused anything else).
        result: the analysis (:func:`stats.result.read_analysis`); digest: sha256 of its bytes.
        texts: card text by run name (``stats.modelcard.model_cards``).
        runs: the analysed runs (``stats.modelcard.card_runs``).

    Returns:
        The paths written, the index first.

    Example:
        >>> write_hub_dir("hub", result, digest, texts, runs)[0]  # doctest: +SKIP
        PosixPath('hub/README.md')
    """
    hub = make_dirs(hub_dir)
    written = [write_atomic(hub / "README.md", _index(result, digest, texts, runs), overwrite=False)]
    for run in runs:
        folder = hub / folder_name(result.study_id, run)
        written.append(write_atomic(folder / "README.md", texts[run.name], overwrite=False))
        for dest, src in layout(run).items():
            target = folder / dest
            make_dirs(target.parent)
            shutil.copyfile(src, target)
            written.append(target)
    return written
