"""Rules over several fields of a preregistration that a JSON Schema cannot state.

They run inside :func:`prereg.schema.schema_errors`, so ``prereg validate``, ``lint``,
``lock`` and ``verify`` refuse the same documents. A contrast baseline that is not an arm
used to lock with a lint warning and then made every contrast n/a with an "AS_PLANNED"
verdict (README "Record guarantees").
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from prereg.declarations import normalise_label
from prereg.rules import study_seeds

_CONTRAST_ARM_KEYS = ("arm", "baseline", "baseline_arm", "treatment")


def _arm_names(doc: dict) -> list[str] | None:
    arms = doc.get("arms")
    return list(arms) if isinstance(arms, dict) else None


def _not_an_arm(path: str, value: Any, arms: list[str]) -> str | None:
    if isinstance(value, str) and value not in arms:
        return f"{path}: {value!r} is not one of the arms ({', '.join(arms)})"
    return None


def _contrast_refs(doc: dict):
    """(path, arm name) of every arm a contrast names: the plan's ``baseline`` and any declared list."""
    yield "$.baseline_arm", doc.get("baseline_arm")
    analysis = doc.get("analysis") if isinstance(doc.get("analysis"), dict) else {}
    lists = [("$.contrasts", doc.get("contrasts"))]
    contrasts = analysis.get("contrasts")
    if isinstance(contrasts, dict):
        for key in ("baseline", "baseline_arm"):
            yield f"$.analysis.contrasts.{key}", contrasts.get(key)
        lists.append(("$.analysis.contrasts.pairs", contrasts.get("pairs")))  # declared (arm, baseline) pairs
    lists.append(("$.analysis.contrasts", contrasts))
    for base, items in lists:
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    for key in _CONTRAST_ARM_KEYS:
                        yield f"{base}[{i}].{key}", item.get(key)


def prereg_errors(doc: Any) -> list[str]:
    """Cross-field errors of a preregistration as ``"$.path: message"`` (empty when none).

    Example:
        >>> prereg_errors({"arms": {"a": {}}, "baseline_arm": "zzz"})
        ["$.baseline_arm: 'zzz' is not one of the arms (a)"]
    """
    if not isinstance(doc, dict):
        return []
    arms = _arm_names(doc)
    if not arms:
        return []
    out = []
    for path, value in _contrast_refs(doc):
        problem = _not_an_arm(path, value, arms)
        if problem:
            out.append(problem)
    return out + sequential_errors(doc) + session_label_errors(doc)


def session_label_errors(doc: dict) -> list[str]:
    """A display label (or name) that two declared sessions answer to: a report writing it could be
    either session's, so the audit could not scope its numbers (README failure 16). Refused, not
    linted: an ambiguous label would silently scope a number to whichever session was read first.

    Example:
        >>> session_label_errors({"sessions": {"s1": {"labels": ["rerun"]}, "s2": {"labels": ["Re-run"]}}})
        ["$.sessions: label 'Re-run' names sessions s1 and s2"]
    """
    sessions = doc.get("sessions")
    if not isinstance(sessions, dict) or not all(isinstance(d, dict) for d in sessions.values()):
        return []
    seen: dict[str, str] = {}
    out = []
    for name, d in sessions.items():
        for text in (name, *d.get("labels", ())):
            key = normalise_label(text) if isinstance(text, str) else ""
            if key and seen.setdefault(key, name) != name:
                out.append(f"$.sessions: label {text!r} names sessions {seen[key]} and {name}")
    return out


def sequential_errors(doc: dict) -> list[str]:
    """A group-sequential design whose looks cannot be run (README failure 19).

    Looks are cumulative seeds per arm: they must increase strictly and the last one must be
    the registered seed count, or the study could never reach (or would overrun) its final look.

    Example:
        >>> sequential_errors({"seeds": [1, 2, 3], "analysis": {"sequential": {"looks": [2, 2], "spending": "pocock"}}})[0]
        '$.analysis.sequential.looks: looks must increase strictly, got [2, 2]'
    """
    a = doc.get("analysis")
    s = a.get("sequential") if isinstance(a, dict) else None
    if not isinstance(s, dict) or not isinstance(s.get("looks"), list) or not s["looks"]:
        return []
    looks, seeds, where, out = s["looks"], study_seeds(doc), "$.analysis.sequential", []
    if not all(isinstance(n, int) for n in looks):
        return []
    if any(b <= a for a, b in zip(looks[:-1], looks[1:], strict=True)):
        out.append(f"{where}.looks: looks must increase strictly, got {looks}")
    if seeds and looks[-1] != len(seeds):
        out.append(f"{where}.looks: the last look ({looks[-1]} seeds) must equal the registered seeds ({len(seeds)})")
    if s.get("spending") == "hsd" and "gamma" not in s:
        out.append(f"{where}.gamma: the hsd spending function needs gamma")
    fut = s.get("futility")
    if isinstance(fut, dict) and fut.get("spending") == "hsd" and "gamma" not in fut:
        out.append(f"{where}.futility.gamma: the hsd beta-spending function needs gamma")
    return out


def task_reference_problem(name: Any) -> str | None:
    """Why a ``module:callable`` task name cannot be a task factory, or None.

    Checked when a study is validated or locked, not at run time: ``"os:system"`` used to lock
    and then fail with a TypeError traceback after the run folder was made. A factory takes
    ``(task_spec, dataset_spec)``; a builtin or a callable of another arity is refused. Names
    without ``:`` are registered tasks, resolved by the runner.

    Example:
        >>> task_reference_problem("os:system") is not None
        True
    """
    if not isinstance(name, str) or ":" not in name:
        return None
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        return f"{name!r} is not 'module:callable'"
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import failure of user code is a one-line refusal
        return f"cannot import module {module_name!r} ({type(exc).__name__}: {exc})"
    factory: Any = module
    for part in attr.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            return f"module {module_name!r} has no attribute {attr!r}"
    return factory_problem(name, factory)


def factory_problem(name: str, factory: Any) -> str | None:
    """Why ``factory`` cannot be called as ``factory(task_spec, dataset_spec)``, or None."""
    if not callable(factory):
        return f"{name!r} is not callable"
    if inspect.isbuiltin(factory):
        return f"{name!r} is a builtin, not a task factory taking (task_spec, dataset_spec)"
    try:
        inspect.signature(factory).bind({}, {})
    except (TypeError, ValueError):
        return f"{name!r} cannot be called as factory(task_spec, dataset_spec), so it is not a task factory"
    return None


def task_errors(doc: Any) -> list[str]:
    """``["$.task.name: ..."]`` when the study names a ``module:callable`` that is not a task factory."""
    task = doc.get("task") if isinstance(doc, dict) else None
    problem = task_reference_problem(task.get("name")) if isinstance(task, dict) else None
    return [f"$.task.name: {problem}"] if problem else []
