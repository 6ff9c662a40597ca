"""DAPO's pieces that TRL does not have: dynamic sampling and overlong reward shaping.

DAPO (Yu et al., 2025, arXiv 2503.14476) drops prompt groups whose rollouts all earned the
same reward (their group-relative advantage is zero, so they carry no gradient) and keeps
generating until the batch holds the locked number of groups that do carry signal. The
lock bounds that search (``dynamic_sampling_max_batches``); hitting the bound is a loud
failure, never a silent step on fewer groups, because a run that trains on less than its
locked batch is not the run that was registered.

ZVF is reported twice and named distinctly: ``zvf_generated`` over every group that was
generated for the step (what the policy actually produced) and ``zvf_optimized`` over the
groups that entered the loss (0 by construction after filtering). Reporting only the
second would hide how much generation the filter threw away.

Everything here is pure (lists of rewards and lengths in, numbers out) so it is tested
without a model; ``runner.rollouts`` wires it into TRL's GRPOTrainer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prereg.errors import UserError
from prereg.rules import ZERO_VARIANCE_TOL, all_equal, zero_variance_fraction


class DynamicSamplingExhausted(UserError):
    """The locked generation limit was reached before the batch held enough eligible groups."""


def zvf(groups: Sequence[Sequence[float]], tol: float = ZERO_VARIANCE_TOL) -> float:
    """Fraction of groups whose rewards are all equal (:func:`prereg.rules.zero_variance_fraction`;
    0.0 for no groups, as a dynamic-sampling count)."""
    return zero_variance_fraction(groups, tol) or 0.0


@dataclass
class DynamicSample:
    """What dynamic sampling produced for one optimizer batch, with its counts."""

    groups: list  # the kept groups (exactly ``needed_groups``), in generation order
    kept_from: list  # (batch_index, group_index) of each kept group
    batches: int  # generation batches spent
    groups_generated: int
    eligible_groups: int  # eligible groups seen (kept + surplus)
    surplus_eligible: int  # eligible groups generated beyond the need and dropped
    rollouts_generated: int
    zvf_generated: float
    zvf_optimized: float
    per_batch: list = field(default_factory=list)  # [{"groups", "eligible", "rollouts"}] per batch

    def telemetry(self) -> dict:
        return {
            "dynamic_sampling_batches": self.batches,
            "dynamic_sampling_groups_generated": self.groups_generated,
            "dynamic_sampling_eligible_groups": self.eligible_groups,
            "dynamic_sampling_surplus_eligible": self.surplus_eligible,
            "dynamic_sampling_rollouts": self.rollouts_generated,
            "zvf_generated": self.zvf_generated,
            "zvf_optimized": self.zvf_optimized,
        }


def fill_eligible_groups(generate_batch: Callable[[int], Sequence[Any]], needed_groups: int, max_batches: int,
                         *, rewards_of: Callable[[Any], Sequence[float]] = lambda g: g,
                         tol: float = ZERO_VARIANCE_TOL) -> DynamicSample:
    """Generate batches until ``needed_groups`` groups with unequal rewards are collected.

    ``generate_batch(i)`` returns the groups of the i-th generation batch (i = 0, 1, ...);
    ``rewards_of(group)`` gives a group's rewards. Groups whose rewards are all equal are
    dropped; the first ``needed_groups`` eligible groups in generation order are kept and
    the surplus of the last batch is dropped (and counted). Raises
    ``DynamicSamplingExhausted`` after ``max_batches`` batches without enough.
    """
    if needed_groups < 1:
        raise ValueError("needed_groups must be >= 1")
    if max_batches < 1:
        raise UserError(f"training.dynamic_sampling_max_batches: {max_batches} must be >= 1")
    kept, kept_from, all_rewards, per_batch = [], [], [], []
    eligible = rollouts = 0
    for b in range(max_batches):
        groups = list(generate_batch(b))
        n_eligible = n_rollouts = 0
        for gi, group in enumerate(groups):
            rewards = list(rewards_of(group))
            all_rewards.append(rewards)
            n_rollouts += len(rewards)
            if all_equal(rewards, tol):
                continue
            n_eligible += 1
            if len(kept) < needed_groups:
                kept.append(group)
                kept_from.append((b, gi))
        eligible += n_eligible
        rollouts += n_rollouts
        per_batch.append({"groups": len(groups), "eligible": n_eligible, "rollouts": n_rollouts})
        if len(kept) >= needed_groups:
            return DynamicSample(
                groups=kept, kept_from=kept_from, batches=b + 1, groups_generated=len(all_rewards),
                eligible_groups=eligible, surplus_eligible=eligible - len(kept), rollouts_generated=rollouts,
                zvf_generated=zvf(all_rewards, tol), zvf_optimized=zvf([rewards_of(g) for g in kept], tol),
                per_batch=per_batch,
            )
    raise DynamicSamplingExhausted(
        f"training.dynamic_sampling_max_batches: {max_batches} generation batches ({len(all_rewards)} groups, "
        f"{rollouts} rollouts) yielded only {len(kept)} of the {needed_groups} groups with unequal rewards "
        f"the locked batch needs; the run stops rather than train on less")


# -- overlong reward shaping -------------------------------------------------------------------

def overlong_penalty(length: int, max_length: int, buffer_length: int, factor: float = 1.0) -> float:
    """DAPO's soft overlong punishment (their Eq. 13), scaled by ``factor``.

    0 while ``length <= max_length - buffer_length``; then falls linearly to ``-factor`` at
    ``length == max_length``; ``-factor`` beyond it.
    """
    if buffer_length < 0 or buffer_length > max_length:
        raise UserError(f"training.overlong_buffer_length: {buffer_length} must lie in 0..max_completion_length "
                        f"({max_length})")
    threshold = max_length - buffer_length
    if length <= threshold:
        return 0.0
    if length > max_length or buffer_length == 0:
        return -float(factor)
    return float(factor) * (threshold - length) / buffer_length


def overlong_penalties(lengths: Sequence[int], max_length: int, buffer_length: int,
                       factor: float = 1.0) -> list[float]:
    return [overlong_penalty(n, max_length, buffer_length, factor) for n in lengths]


def overlong_filter_keep(truncated: Sequence[bool]) -> list[bool]:
    """DAPO's overlong filtering: a truncated completion is masked out of the loss."""
    return [not t for t in truncated]
