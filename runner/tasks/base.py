"""What a task is: items, one prompt builder, a parser, a reward, and hashes of all of them.

A task owns the only code path from an item to a prompt (``build_prompt``): training items
and held-out items both carry ``prompt = build_prompt(item)`` made here, so the prompt a
policy is trained on cannot drift from the one it is evaluated on. The task's
``source_sha256`` hashes the source of every module that defines its behaviour (its class
and base classes, plus any module it names in ``source_modules``), so editing the reward or
the prompt changes the run's stack fingerprint.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
import sys
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import Any

from prereg.canonical import sha256_json, sha256_text
from prereg.errors import UserError
from prereg.study import DatasetSpec, TaskSpec


def module_source(module: ModuleType | str) -> str:
    mod = sys.modules[module] if isinstance(module, str) else module
    try:
        return inspect.getsource(mod)
    except (OSError, TypeError):
        raise UserError(f"task: cannot read the source of module {mod.__name__}, so it cannot be hashed") from None


def sources_sha256(module_names: list[str]) -> tuple[str, dict[str, str]]:
    """(combined hash, per-module hashes) over the given modules' source text."""
    per = {name: sha256_text(module_source(name)) for name in sorted(set(module_names))}
    combined = sha256_text("".join(f"# module {n} sha256 {h}\n" for n, h in per.items()))
    return combined, per


def _block(spec: Mapping | TaskSpec | DatasetSpec | None) -> dict:
    """A task or dataset block as a plain dict (from the typed spec: its fields, options as a dict)."""
    if isinstance(spec, (TaskSpec, DatasetSpec)):
        values = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
        return {k: dict(v) if isinstance(v, Mapping) else v for k, v in values.items() if v is not None}
    return dict(spec or {})


def check_options(task_name: str, options: dict, allowed: dict[str, Any]) -> dict[str, Any]:
    """Options with defaults filled in; an unknown option is an error naming it."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise UserError(f"task.options.{unknown[0]}: not an option of task {task_name!r} "
                        f"(known: {', '.join(sorted(allowed)) or 'none'})")
    return {**allowed, **options}


class Task:
    """Base class of every task. Subclasses set ``name``, ``max_reward``, ``min_reward``,
    ``reward_name``, ``parser_name`` and implement ``load_items``, ``build_prompt``, ``parse`` and
    ``reward``; ``correct`` defaults to "earned the maximum reward".
    """

    name: str = "task"
    max_reward: float = 1.0
    min_reward: float = 0.0  # the lowest reward the task can give (telemetry's "all-fail" level)
    reward_name: str = ""
    parser_name: str = ""
    # Per-item numbers the held-out trace carries beyond reward/correct, with their units and
    # ranges (shaped like a preregistration's metric declaration): {"groups_correct": {"unit":
    # "count", "max": 4}}. Recorded in the manifest, where the audit reads them.
    item_metrics: dict = {}
    # Extra modules (dotted names) whose source defines this task's behaviour.
    source_modules: tuple[str, ...] = ()

    def __init__(self, task_spec: Mapping | TaskSpec, dataset_spec: Mapping | DatasetSpec):
        # Parsed once into the typed study's frozen values (prereg.study): tasks read attributes
        # (self.locked_task.options, self.locked_dataset.train_n). task_spec / dataset_spec stay as read-only
        # views of the blocks as written, for user tasks written against that interface.
        self.locked_task = task_spec if isinstance(task_spec, TaskSpec) else TaskSpec.of(task_spec)
        self.locked_dataset = dataset_spec if isinstance(dataset_spec, DatasetSpec) else DatasetSpec.of(dataset_spec)
        self.task_spec = MappingProxyType(_block(task_spec))
        self.dataset_spec = MappingProxyType(_block(dataset_spec))
        self._check_names()
        self._train: list[dict] | None = None
        self._heldout: list[dict] | None = None

    # -- to implement -------------------------------------------------------------------
    def load_items(self) -> tuple[list[dict], list[dict]]:
        """(train items, held-out items) in their fixed order, without ``prompt``.

        Each item is a JSON-able dict with at least ``id`` and ``answer`` (strings).
        """
        raise NotImplementedError

    def build_prompt(self, item: dict) -> str:
        raise NotImplementedError

    def parse(self, completion: str) -> str | None:
        raise NotImplementedError

    def reward(self, completion: str, item: dict) -> float:
        raise NotImplementedError

    def correct(self, completion: str, item: dict) -> bool:
        return self.reward(completion, item) >= self.max_reward

    def manifest_record(self) -> dict:
        """What the audit must know about this task, written into every run's manifest (``task``).

        The task is the one place that knows its reward bounds and per-item metrics; the audit
        reads them from the manifest instead of keeping its own table (README failure 14).

        Returns:
            ``{"name", "reward_bounds": [min, max], "item_metrics": {name: {"unit", "max"|"range"}}}``.

        Example:
            >>> get_task({"name": "arith"}, {...}).manifest_record()  # doctest: +SKIP
            {'name': 'arith', 'reward_bounds': [0.0, 1.0], 'item_metrics': {}}
        """
        return {"name": self.name, "reward_bounds": [float(self.min_reward), float(self.max_reward)],
                "item_metrics": {k: dict(v) for k, v in sorted(self.item_metrics.items())}}

    # -- provided -----------------------------------------------------------------------
    def _check_names(self) -> None:
        # The lock may name the reward and parser; a task that implements something else
        # must refuse rather than silently run a different reward than the one locked.
        for field, mine in (("reward", self.reward_name), ("parser", self.parser_name)):
            locked = getattr(self.locked_task, field)
            if locked is not None and mine and locked != mine:
                raise UserError(f"task.{field}: {locked!r} is not what task {self.name!r} implements ({mine!r})")

    def _loaded(self) -> tuple[list[dict], list[dict]]:
        if self._train is None or self._heldout is None:
            train, heldout = self.load_items()
            for kind, items in (("train", train), ("held-out", heldout)):
                seen: set[str] = set()
                for item in items:
                    if "id" not in item or "answer" not in item:
                        raise UserError(f"task {self.name}: a {kind} item lacks 'id' or 'answer': {item!r:.200}")
                    if item["id"] in seen:
                        raise UserError(f"task {self.name}: duplicate {kind} item id {item['id']!r}")
                    seen.add(item["id"])
            self._train = [{**it, "prompt": self.build_prompt(it)} for it in train]
            self._heldout = [{**it, "prompt": self.build_prompt(it)} for it in heldout]
        return self._train, self._heldout

    def train_items(self, seed: int | None = None) -> list[dict]:
        """Training items (copies); ``seed`` gives a reproducible permutation of their order."""
        items = [dict(it) for it in self._loaded()[0]]
        if seed is not None:
            random.Random(seed).shuffle(items)
        return items

    def heldout_items(self, n: int) -> list[dict]:
        """Exactly the first ``n`` held-out items, always in the same order."""
        heldout = self._loaded()[1]
        if n > len(heldout):
            raise UserError(f"dataset.heldout_n: {n} held-out items requested but task {self.name!r} "
                            f"has only {len(heldout)}")
        return [dict(it) for it in heldout[:n]]

    def first_train_n(self, train: list[dict], source: str) -> list[dict]:
        """The first ``dataset.train_n`` training items (all when it is unset); more than
        ``source`` holds is refused, never silently trained on fewer."""
        train_n = self.locked_dataset.train_n
        if train_n is None:
            return train
        if train_n > len(train):
            raise UserError(f"dataset.train_n: {train_n} requested but {source} has {len(train)} training items")
        return train[:train_n]

    def _source_modules(self) -> list[str]:
        mods = [c.__module__ for c in type(self).__mro__ if c is not object]
        return mods + list(self.source_modules)

    @property
    def source_sha256(self) -> str:
        return sources_sha256(self._source_modules())[0]

    def source_fingerprint(self) -> dict:
        combined, per = sources_sha256(self._source_modules())
        return {"name": self.name, "reward": self.reward_name, "parser": self.parser_name,
                "source_sha256": combined, "modules": per}

    def dataset_identity(self) -> dict:
        """Where the items come from (overridden by tasks that read files or the hub)."""
        return {"name": self.locked_dataset.name, "config": self.locked_dataset.config, "revision": self.locked_dataset.revision}

    def dataset_fingerprint(self) -> dict:
        train, heldout = self._loaded()
        n_held = self.locked_dataset.heldout_n
        used_held = heldout[: n_held] if isinstance(n_held, int) else heldout
        return {
            **self.dataset_identity(),
            "train_split": self.locked_dataset.train_split,
            "heldout_split": self.locked_dataset.heldout_split,
            "split_sizes": {"train": len(train), "heldout": len(heldout)},
            "used": {"train": len(train), "heldout": len(used_held)},
            "train_items_sha256": sha256_json(train),
            "heldout_items_sha256": sha256_json(used_held),
        }
