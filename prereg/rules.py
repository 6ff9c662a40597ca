"""Domain rules decided in exactly one place, read by the runner, lint, stats and the audit.

Each rule here used to be written out in several packages, and copies drifted apart (issue 15):
the runner, the audit and lint disagreed on whether 4 gradient-accumulation steps with 4 steps
per generation and 1 iteration is on-policy. Everything in this module is plain Python (no
torch), so ``prereg``, ``stats`` and ``audit`` can use it.

- :func:`off_policy`: whether one generation batch serves more than one optimizer update
  (README failure 8: a GSPO arm run fully on-policy is GRPO under another name), and
  :func:`needs_off_policy`: which arms that matters for (lint warns, the runner refuses).
- :func:`study_seeds`: the study's seeds, each once (a repeated seed is refused by the schema), so
  every reader counts the same seeds.
- :data:`ZERO_VARIANCE_TOL` and :func:`all_equal`: when a group's rewards count as all equal,
  for ZVF/GU and for dynamic sampling (README failure 6); :func:`zero_variance_fraction`: ZVF.
- :func:`manifest_paths` and :func:`lock_files`: the one way to find run folders below a
  root and the locks in a lock folder; :data:`RUNS_DIR` and :data:`LOCK_DIR`: where they live
  by default.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from prereg.errors import UserError
from prereg.jsonio import read_json

MANIFEST = "manifest.json"
LOCK_SUFFIX = ".lock.json"
RUNS_DIR = "runs"    # where run folders live unless the user names another root (every CLI's --out, every API's out)
LOCK_DIR = "locks"   # where locks are written and found unless the user names another folder

# Two rewards closer than this are equal. Rewards are sums of a few float terms (0.1 + 0.2 is
# not 0.3 exactly), so exact equality would call a zero-advantage group "mixed".
ZERO_VARIANCE_TOL = 1e-9


# ---------------------------------------------------------------- on-policy

def off_policy(fields: Mapping, prefix: str = "") -> bool:
    """Whether one generation batch serves more than one optimizer update.

    TRL generates ``steps_per_generation`` micro-batches at once (default: the
    ``gradient_accumulation_steps`` of one update) and reuses them ``num_iterations`` times.
    The batch is used off-policy exactly when ``num_iterations > 1`` or
    ``steps_per_generation > gradient_accumulation_steps``; otherwise every importance ratio
    is 1 and sequence- and token-level sampling give the same objective.

    Args:
        fields: trainer settings by name: a preregistration arm's merged training view, the
            runner's GRPOConfig fields, or a flattened resolved config.
        prefix: prepended to each field name (``"trainer."`` for a flattened manifest config).

    Returns:
        True when some updates are off-policy; False when training is fully on-policy.

    Example:
        >>> off_policy({"gradient_accumulation_steps": 4, "steps_per_generation": 4, "num_iterations": 1})
        False
        >>> off_policy({"steps_per_generation": 2})
        True
    """
    gas = fields.get(prefix + "gradient_accumulation_steps") or 1
    spg = fields.get(prefix + "steps_per_generation") or gas
    return (fields.get(prefix + "num_iterations") or 1) > 1 or spg > gas


OFF_POLICY_ALGORITHMS = ("gspo",)                 # algorithms whose point is a sequence-level ratio
SEQUENCE_LEVELS = ("sequence", "sequence_token")   # importance-sampling levels that are not per token


def needs_off_policy(algorithm: str | None, fields: Mapping, prefix: str = "") -> bool:
    """Whether an arm's objective differs from token-level GRPO's only under off-policy updates.

    A sequence-level importance ratio is 1 on every fully on-policy update, so such an arm is the
    token-level objective under another name (README failure 8). That holds for the GSPO algorithm
    and for any arm that sets a sequence-level ``importance_sampling_level`` itself (a Dr. GRPO arm
    with ``sequence`` is as much GSPO-like): ``prereg lint`` (rule ``gspo-on-policy``) warns about
    exactly these arms and ``runner run`` refuses exactly these when confirmatory and on-policy.

    Args:
        algorithm: the arm's ``algorithm`` (None for a reference arm).
        fields: the arm's settings (a preregistration arm's merged training view, or the runner's
            resolved trainer fields).
        prefix: prepended to each field name (``"trainer."`` for a flattened manifest config).

    Returns:
        True when the arm must have some off-policy updates to mean anything.

    Example:
        >>> needs_off_policy("gspo", {}), needs_off_policy("dr_grpo", {"importance_sampling_level": "sequence"})
        (True, True)
        >>> needs_off_policy("grpo", {"importance_sampling_level": "token"})
        False
    """
    return algorithm in OFF_POLICY_ALGORITHMS or fields.get(prefix + "importance_sampling_level") in SEQUENCE_LEVELS


# ---------------------------------------------------------------- confidence levels

LEVEL_TOL = 1e-9  # two nominal levels closer than this are one level (0.9 and 1 - 0.1 are not equal floats)


def same_level(a: float, b: float) -> bool:
    """Whether two nominal confidence levels are the same level: the one comparison of the coverage
    table's lookup, lint's equivalence rule, the verdict rules and the analysis' interval tags.

    Args:
        a, b: nominal levels (e.g. 0.95).

    Returns:
        True when they differ by less than :data:`LEVEL_TOL`.

    Example:
        >>> same_level(0.9, 1 - 0.1), same_level(0.9, 0.95)
        (True, False)
    """
    return abs(a - b) < LEVEL_TOL


# ---------------------------------------------------------------- seeds

def study_seeds(prereg: Mapping) -> tuple[int, ...]:
    """The study's registered seeds, in the order registered: the one reader of ``$.seeds``.

    A repeated seed is no independent replicate. It used to be a lint warning while lint
    counted distinct seeds and the looks check and stats counted list entries, so one study
    had two seed counts. The schema now refuses a repeated seed (``uniqueItems``: validate,
    lint, lock and verify stop with one line naming ``$.seeds``), so the length of this tuple
    is the study's seed count for every reader: lint's power and coverage rules, the looks
    check, the runner, stats and the audit.

    Args:
        prereg: a preregistration (or a lock's ``preregistration``), as parsed JSON.

    Returns:
        The seeds; empty when ``$.seeds`` is not a list (an invalid document, refused elsewhere).

    Example:
        >>> study_seeds({"seeds": [37, 41, 43]})
        (37, 41, 43)
        >>> len(study_seeds({"seeds": [37, 41, 43]}))  # the seed count everywhere
        3
    """
    seeds = prereg.get("seeds") if isinstance(prereg, Mapping) else None
    return tuple(seeds) if isinstance(seeds, list | tuple) else ()


# ---------------------------------------------------------------- zero variance

def all_equal(rewards: Iterable[float | None], tol: float = ZERO_VARIANCE_TOL) -> bool:
    """Whether a group's rewards are all the same, so its advantages are all zero.

    Args:
        rewards: one prompt group's rewards; None and NaN (a reward function that abstained)
            are ignored.
        tol: largest spread still counted as equal (default :data:`ZERO_VARIANCE_TOL`).

    Returns:
        True for a group with at most one finite reward or a spread within ``tol``.

    Example:
        >>> all_equal([0.1 + 0.2, 0.3]), all_equal([0.0, 1.0])
        (True, False)
    """
    finite = [r for r in rewards if r is not None and not (isinstance(r, float) and math.isnan(r))]
    if len(finite) <= 1:
        return True
    return max(finite) - min(finite) <= tol


def zero_variance_fraction(groups: Iterable[Iterable[float | None]], tol: float = ZERO_VARIANCE_TOL) -> float | None:
    """ZVF: the share of prompt groups whose rewards are all equal (:func:`all_equal`), so they
    teach nothing (README failure 6). The one formula for the runner's telemetry rows and
    dynamic sampling's generated/optimized counts.

    Args:
        groups: each prompt group's rewards.
        tol: largest spread still counted as equal (default :data:`ZERO_VARIANCE_TOL`).

    Returns:
        The fraction in [0, 1]; None when there are no groups.

    Example:
        >>> zero_variance_fraction([[1, 1], [0, 1], [0, 0], [2, 3]])
        0.5
    """
    flags = [all_equal(g, tol) for g in groups]
    return sum(flags) / len(flags) if flags else None


def all_at(rewards: Iterable[float], value: float, tol: float = ZERO_VARIANCE_TOL) -> bool:
    """Whether every reward of the group equals ``value`` (all failed, or all at the maximum).

    Example:
        >>> all_at([1.0, 1.0 + 1e-12], 1.0)
        True
    """
    return all(abs(r - value) <= tol for r in rewards)


# ---------------------------------------------------------------- discovery

def manifest_paths(root: str | Path) -> list[Path]:
    """Every run manifest below ``root``, sorted by path: the one way run folders are found.

    A run folder is any folder holding ``manifest.json``; ``root`` may be ``runs/``,
    ``runs/<study>/`` or one run folder. Reading and judging each manifest is the caller's
    business (the runner refuses a bad one, the analysis excludes it, the audit reports it).

    Args:
        root: the folder to search.

    Returns:
        Paths of the manifests, sorted.

    Raises:
        UserError: ``root`` does not exist.

    Example:
        >>> [p.parent.name for p in manifest_paths("runs/demo")]  # doctest: +SKIP
        ['s1', 's2']
    """
    root = Path(root)
    if not root.exists():
        raise UserError(f"{root}: runs folder not found")
    found: list[Path] = []
    _find_manifests(root, str(root), found)
    return sorted(found)


def _find_manifests(folder: Path, top: str, found: list[Path]) -> None:
    """Append ``folder/**/manifest.json`` to ``found`` as ``Path.rglob`` lists them (a manifest
    that exists, through a link too; linked folders not entered; unreadable folders skipped),
    with one ``os.scandir`` per folder: rglob's per-folder ``exists`` and path objects cost
    ~0.1 s on a 1,000-run campaign, listed twice per audit (README failure 10)."""
    try:
        with os.scandir(top) as it:
            entries = list(it)
    except OSError:
        return
    for e in entries:
        try:
            if e.name == MANIFEST:
                if e.is_symlink() and not os.path.exists(e.path):
                    continue  # a dangling link does not exist for rglob either
                found.append(folder / e.name)
            if e.is_dir() and not e.is_symlink():
                _find_manifests(folder / e.name, e.path, found)
        except OSError:
            continue


def lock_files(lock_dir: str | Path, study_id: str | None = None) -> list[tuple[Path, dict]]:
    """Every readable lock in ``lock_dir`` (of one study when given), sorted by path.

    A file that is not a JSON object with a string ``study_id`` and ``lock_hash`` is not a
    lock and is passed over; verifying a lock is :func:`prereg.lock.verify_lock`'s job.

    Args:
        lock_dir: the folder holding ``*.lock.json`` files; a missing folder holds none.
        study_id: keep only locks of this study.

    Returns:
        ``(path, lock data)`` pairs.

    Example:
        >>> [p.name for p, _ in lock_files("locks", "demo")]  # doctest: +SKIP
        ['demo.lock.json', 'demo.v2.lock.json']
    """
    lock_dir = Path(lock_dir)
    found = []
    for cand in sorted(lock_dir.glob("*" + LOCK_SUFFIX)) if lock_dir.is_dir() else []:
        try:
            data = read_json(cand, "lock")
        except UserError:
            continue
        if (isinstance(data, dict) and isinstance(data.get("study_id"), str)
                and isinstance(data.get("lock_hash"), str)
                and (study_id is None or data["study_id"] == study_id)):
            found.append((cand, data))
    return found
