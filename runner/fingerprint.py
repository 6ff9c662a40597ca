"""The stack fingerprint: what actually ran, component by component, and one hash over it.

Every value is read from the running interpreter, the installed packages, the hardware and
the files that were loaded; nothing is a label someone typed. The task's source hash and
the model's weight-file hashes are components, so two runs with different task code or
different weights never share a fingerprint. torch is imported lazily (inside functions):
comparing fingerprints (``diff_components``) needs no ML stack and lives in
``prereg.fingerprints``.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
from pathlib import Path

from prereg.canonical import sha256_json
from prereg.errors import UserError
from prereg.fingerprints import diff_components, differing_components, fingerprint_hash_ok
from prereg.gitinfo import git_state

# Distribution names whose versions are fingerprint components (and may be stack-pinned).
TRACKED_PACKAGES = ("torch", "transformers", "trl", "peft", "accelerate", "datasets", "tokenizers",
                    "safetensors", "bitsandbytes", "vllm", "numpy")

__all__ = ["TRACKED_PACKAGES", "check_stack_pins", "diff_components", "differing_components",
           "fingerprint_hash_ok", "installed_versions", "stack_fingerprint"]


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def installed_versions(packages: tuple[str, ...] | list[str] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed distribution version per package name (None when not installed)."""
    return {name: _dist_version(name) for name in packages}


def check_stack_pins(pins: dict[str, str]) -> list[str]:
    """One message per lock stack pin that the installed packages contradict (empty = all met)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    violations = []
    for name in sorted(pins or {}):
        spec_text = pins[name]
        try:
            spec = SpecifierSet(spec_text)
        except InvalidSpecifier:
            violations.append(f"stack_pins.{name}: {spec_text!r} is not a PEP 440 version specifier")
            continue
        installed = _dist_version(name)
        if installed is None:
            violations.append(f"stack_pins.{name}: pinned {spec_text!r} but {name} is not installed")
            continue
        try:
            ok = spec.contains(Version(installed), prereleases=True)
        except InvalidVersion:
            ok = False
        if not ok:
            violations.append(f"stack_pins.{name}: pinned {spec_text!r} but {installed} is installed")
    return violations


def require_stack_pins(pins: dict[str, str]) -> None:
    """Refuse (UserError) when any stack pin is contradicted; the message names the first."""
    violations = check_stack_pins(pins)
    if violations:
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        raise UserError(violations[0] + more)


def _torch_component() -> dict | None:
    if _dist_version("torch") is None:
        return None
    import torch

    cudnn = None
    try:
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    except Exception:  # cudnn probing can fail on CPU builds; absence is the honest record
        cudnn = None
    return {"version": torch.__version__, "cuda": torch.version.cuda, "cudnn": cudnn,
            "cuda_available": bool(torch.cuda.is_available())}


def _nvidia_smi() -> list[dict] | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    rows = []
    for line in out.stdout.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3:
            rows.append({"name": parts[0], "driver": parts[1], "memory": parts[2]})
    return rows or None


def _accelerator_component() -> dict | None:
    smi = _nvidia_smi()
    names: list[str] = []
    if _dist_version("torch") is not None:
        import torch

        if torch.cuda.is_available():
            names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    if not names and not smi:
        return None
    if not names:
        names = [row["name"] for row in smi or []]
    drivers = sorted({row["driver"] for row in smi or []})
    return {"type": "cuda", "names": names, "count": len(names),
            "driver": drivers[0] if len(drivers) == 1 else (drivers or None),
            "memory": [row["memory"] for row in smi] if smi else None}


def _cpu_component() -> dict:
    model = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"model": model or platform.processor() or None, "count": os.cpu_count(), "arch": platform.machine()}


def _project_component() -> dict:
    from prereg import __version__

    repo = Path(__file__).resolve().parents[1]
    git = git_state(repo) if (repo / ".git").exists() else None
    return {"version": _dist_version("rlprereg") or __version__, "commit": git["commit"] if git else None,
            "dirty": git["dirty"] if git else None}


def stack_fingerprint(*, task=None, model_info: dict | None = None, dataset_fingerprint: dict | None = None,
                      extra: dict | None = None) -> dict:
    """``{"components": {...}, "hash": sha256_json(components)}`` for this process.

    ``task`` is a :class:`runner.tasks.base.Task` (its source hashes are recorded);
    ``dataset_fingerprint`` defaults to the task's own. ``extra`` adds components (a key
    that collides with a built-in component is an error).
    """
    versions = installed_versions()
    components: dict = {
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation()},
        "torch": _torch_component(),
        **{name: versions[name] for name in TRACKED_PACKAGES if name != "torch"},
        "rlprereg": _project_component(),
        "accelerator": _accelerator_component(),
        "cpu": _cpu_component(),
        "os": {"system": platform.system(), "release": platform.release(), "platform": platform.platform()},
        "task": task.source_fingerprint() if task is not None else None,
        # The local cache folder is where, not what: leave it out so the hash names content.
        "model": {k: v for k, v in model_info.items() if k != "path"} if model_info is not None else None,
        "dataset": dataset_fingerprint if dataset_fingerprint is not None
        else (task.dataset_fingerprint() if task is not None else None),
    }
    for key, value in (extra or {}).items():
        if key in components:
            raise ValueError(f"extra fingerprint component {key!r} collides with a built-in component")
        components[key] = value
    return {"components": components, "hash": sha256_json(components)}
