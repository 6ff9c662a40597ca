"""``gsm8k``: grade-school math, reward = exact match of the integer after the final ``####``.

Items come from HF ``datasets.load_dataset(name, config, revision=..., split=...)`` at the
locked revision, or, when the dataset block has ``path``, from local files in the same
format through datasets' own ``json``/``parquet`` builders (offline sites and tests). A
local ``path`` is either a folder holding one file per split (``<split>.jsonl``,
``<split>.json``, ``<split>.parquet`` or ``<split>-*.parquet``, optionally under a
``<config>/`` subfolder as in the hub layout) or a path containing ``{split}``. A single
file cannot hold two splits, so it is refused rather than silently shared.

Rows have ``question`` and ``answer``; the target is the integer after the last ``####`` of
the reference answer. The parser reads the number right after the LAST ``####`` of the
completion (``$``, thousands commas and a trailing period allowed, ``12.0`` read as 12) and
returns None when there is none, so an answer that never commits earns nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from prereg.canonical import sha256_file
from prereg.errors import UserError
from prereg.scoring import exact_outcome
from runner.tasks.base import Task, check_options

_AFTER_HASHES = re.compile(r"^\s*\$?\s*(-?\s*\$?\s*[0-9][0-9,]*(?:\.[0-9]+)?)")
DEFAULT_OPTIONS = {"instruction": "Solve the problem step by step. End with a final line '#### <integer answer>'."}


def normalize_number(text: str) -> str | None:
    """Canonical integer string of a number like ``-$1,234.00``; None if not an integer."""
    cleaned = text.replace(",", "").replace("$", "").replace(" ", "").rstrip(".")
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", cleaned):
        return None
    if "." in cleaned:
        whole, frac = cleaned.split(".")
        if frac.strip("0"):
            return None
        cleaned = whole
    return str(int(cleaned))


def final_hashes_integer(text: str) -> str | None:
    """The integer right after the last ``####`` in ``text``, or None."""
    pos = text.rfind("####")
    if pos < 0:
        return None
    match = _AFTER_HASHES.match(text[pos + 4:])
    return None if match is None else normalize_number(match.group(1))


def _split_files(path: str, split: str, config: str | None) -> tuple[str, list[str]]:
    if "{split}" in path:
        p = Path(path.replace("{split}", split))
        candidates = [p] if p.exists() else []
    else:
        root = Path(path)
        if not root.is_dir():
            raise UserError(f"dataset.path: {path} must be a folder with one file per split "
                            "or a path containing {split}")
        candidates = []
        for base in ([root / config] if config else []) + [root]:
            for pattern in (f"{split}.jsonl", f"{split}.json", f"{split}.parquet", f"{split}-*.parquet"):
                candidates += sorted(base.glob(pattern))
            if candidates:
                break
    if not candidates:
        raise UserError(f"dataset.path: no file for split {split!r} under {path}")
    kinds = {"parquet" if c.suffix == ".parquet" else "json" for c in candidates}
    if len(kinds) > 1:
        raise UserError(f"dataset.path: split {split!r} mixes parquet and json files under {path}")
    return kinds.pop(), [str(c) for c in candidates]


class Gsm8kTask(Task):
    name = "gsm8k"
    max_reward = 1.0
    reward_name = "exact_int_after_final_hashes"
    parser_name = "final_hashes_integer"
    source_modules = ("prereg.scoring",)

    def __init__(self, task_spec: dict, dataset_spec: dict):
        super().__init__(task_spec, dataset_spec)
        self.options = check_options(self.name, dict(self.locked_task.options), DEFAULT_OPTIONS)
        self._files: dict[str, dict[str, str]] = {}

    def _load_split(self, split: str):
        import datasets

        spec = self.locked_dataset
        try:
            if spec.path:
                builder, files = _split_files(spec.path, split, spec.config)
                self._files[split] = {Path(f).name: sha256_file(f) for f in files}
                return datasets.load_dataset(builder, data_files={split: files}, split=split)
            if not spec.revision:
                raise UserError(f"dataset.revision: {spec.name} must be pinned to a revision")
            return datasets.load_dataset(spec.name, spec.config, revision=spec.revision, split=split)
        except UserError:
            raise
        except Exception as exc:  # missing file, offline hub, unknown split: one line naming the dataset
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise UserError(f"dataset: cannot load split {split!r} of {spec.path or spec.name}: "
                            f"{type(exc).__name__}: {first}") from None

    def _items(self, split: str) -> list[dict]:
        rows = self._load_split(split)
        missing = {"question", "answer"} - set(rows.column_names)
        if missing:
            raise UserError(f"dataset: split {split!r} lacks column(s) {', '.join(sorted(missing))}")
        items = []
        for i, row in enumerate(rows):
            target = final_hashes_integer(row["answer"])
            if target is None:
                raise UserError(f"dataset: split {split!r} row {i} has no integer after '####' in its answer")
            items.append({"id": f"{split}:{i}", "question": row["question"], "answer": target})
        return items

    def load_items(self) -> tuple[list[dict], list[dict]]:
        train_split, held_split = self.locked_dataset.train_split, self.locked_dataset.heldout_split
        if train_split == held_split:
            raise UserError(f"dataset.heldout_split: {held_split!r} is also the train split")
        train, heldout = self._items(train_split), self._items(held_split)
        return self.first_train_n(train, f"split {train_split!r}"), heldout

    def build_prompt(self, item: dict) -> str:
        return f"{item['question'].strip()}\n{self.options['instruction']}\n"

    def parse(self, completion: str) -> str | None:
        return final_hashes_integer(completion)

    def reward(self, completion: str, item: dict) -> float:
        return exact_outcome(self.parse(completion), item["answer"]).reward  # the audit re-scores with it

    def dataset_identity(self) -> dict:
        self._loaded()
        ident = super().dataset_identity()
        if self.locked_dataset.path:
            ident["path"] = self.locked_dataset.path
            ident["files_sha256"] = {s: self._files[s] for s in sorted(self._files)}
        return ident


def make_task(task_spec: dict, dataset_spec: dict) -> Gsm8kTask:
    return Gsm8kTask(task_spec, dataset_spec)
