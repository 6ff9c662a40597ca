"""The task registry: a name in the lock's ``task.name`` -> a factory that builds the task.

Built-in factories are imported lazily, so listing or refusing a task never imports
``datasets``. A later task (e.g. ``connections``) registers itself with
``register_task("connections", "runner.tasks.connections:make_task")`` or with a callable.
A name containing ``:`` that is not registered is a user task ``module:callable``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from prereg.errors import UserError
from prereg.study import DatasetSpec, TaskSpec
from runner.tasks.base import Task, _block

Factory = Callable[[dict, dict], Task]

_REGISTRY: dict[str, Factory | str] = {
    "arith": "runner.tasks.arith:make_task",
    "gsm8k": "runner.tasks.gsm8k:make_task",
    "connections": "runner.tasks.connections:make_task",
}


def register_task(name: str, factory: Factory | str, *, replace: bool = False) -> None:
    """Register ``factory(task_spec, dataset_spec) -> Task`` (or its ``"module:attr"`` path)."""
    if ":" in name:
        raise ValueError(f"task name {name!r} must not contain ':' (reserved for module:callable)")
    if name in _REGISTRY and not replace:
        raise ValueError(f"task {name!r} is already registered")
    _REGISTRY[name] = factory


def registered_tasks() -> list[str]:
    return sorted(_REGISTRY)


def _resolve(factory: Factory | str) -> Factory:
    if callable(factory):
        return factory
    module, _, attr = factory.partition(":")
    return getattr(importlib.import_module(module), attr)


def get_task(task_spec: TaskSpec | Mapping, dataset_spec: DatasetSpec | Mapping) -> Task:
    """The task the lock's ``task`` block names, over the lock's ``dataset`` block.

    Args:
        task_spec: the lock's typed task (``lock.study.task``), or the block as a dict.
        dataset_spec: the lock's typed dataset (``lock.study.dataset``), or the block as a dict.

    Returns:
        The built :class:`runner.tasks.base.Task`. Factories (registered or ``module:callable``)
        receive the blocks as plain dicts (the plugin interface of runner/tasks/README.md), made
        from the typed values: a field the lock leaves unset (or null) is absent.

    Example:
        >>> get_task(lock.study.task, lock.study.dataset).name  # doctest: +SKIP
        'arith'
    """
    task_block, dataset_block = _block(task_spec), _block(dataset_spec)
    name = task_block.get("name")
    if not isinstance(name, str) or not name:
        raise UserError("task.name: missing")
    if name in _REGISTRY:
        return _resolve(_REGISTRY[name])(task_block, dataset_block)
    if ":" in name:
        from runner.tasks.user import load_user_task

        return load_user_task(name, task_block, dataset_block)
    raise UserError(f"task.name: unknown task {name!r}; registered: {', '.join(registered_tasks())} "
                    "(or give 'module:callable')")


__all__ = ["Task", "get_task", "register_task", "registered_tasks"]
