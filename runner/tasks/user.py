"""User tasks named ``module:callable`` in the lock's ``task.name``.

The callable receives the lock's ``task`` and ``dataset`` blocks and returns a
:class:`runner.tasks.base.Task`. The user's module joins the task's hashed sources, so two
runs whose task code differs have different stack fingerprints even if the class is the same.
"""

from __future__ import annotations

import importlib

from prereg.errors import UserError
from runner.tasks.base import Task


def load_user_task(ref: str, task_spec: dict, dataset_spec: dict) -> Task:
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr:
        raise UserError(f"task.name: {ref!r} is not 'module:callable'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UserError(f"task.name: cannot import module {module_name!r}: {exc}") from None
    factory = module
    for part in attr.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise UserError(f"task.name: module {module_name!r} has no attribute {attr!r}")
    from prereg.crossfield import factory_problem

    problem = factory_problem(ref, factory)  # the same rule `prereg lock` applied
    if problem:
        raise UserError(f"task.name: {problem}")
    task = factory(task_spec, dataset_spec)
    if not isinstance(task, Task):
        raise UserError(f"task.name: {ref!r} returned {type(task).__name__}, not a runner.tasks.base.Task")
    if module_name not in task.source_modules:
        task.source_modules = (*task.source_modules, module_name)
    return task
