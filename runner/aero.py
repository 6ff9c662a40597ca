"""AERO: adaptive rollout allocation, rejection curation and Beta-posterior advantages.

After Zhang et al., "Train Less, Learn More: Adaptive Efficient Rollout Optimization for
Group-Based Reinforcement Learning" (arXiv 2602.14338), scaled to this runner's locked
rollout ceiling per prompt (``num_generations``). Why it exists: a GRPO group whose
rollouts all succeed or all fail has zero advantage and wastes its generation; AERO spends
generation where it can still produce signal and keeps some signal from degenerate groups.

The rules implemented here, exactly (all thresholds are lock fields):

1. Exploration: ``aero_exploration_rollouts`` rollouts per prompt (at most the ceiling).
2. Rescue: a global budget of ``aero_rescue_budget`` extra rollouts per generation batch is
   handed out one rollout at a time, round-robin in prompt order, to groups that have no
   success yet and are below the ceiling; a group leaves the rescue set at its first success
   (or when it reaches the ceiling); rescue stops when the budget or the candidates run out.
   Rounds are batched (one generation call per round) — same allocation, fewer calls.
3. Curation, per group with n generated rollouts and s successes (success = reward >=
   the success reward, by default the task's maximum):
   * s == 0 (``posterior_all_fail``) or s == n (``posterior_all_correct``): ONE rollout is kept
     (the first generated) with advantage ``A = y - (s + 1) / (n + 2)``, where y = 1 for a
     success, 0 otherwise, and ``(s + 1) / (n + 2)`` is the posterior mean of the prompt's
     success probability under a Beta(1, 1) prior after s successes in n Bernoulli trials
     (Laplace's rule of succession). So an all-fail group pushes its rollout down by
     ``1 / (n + 2)`` and an all-correct group pushes its rollout up by ``1 / (n + 2)``:
     small, signed, never zero.
   * 0 < s/n < ``aero_success_threshold`` (``rejection``): keep every successful rollout and
     the first ``aero_keep_incorrect`` unsuccessful ones (generation order); the rest are
     rejected (not trained on).
   * otherwise (``keep_all``): keep all.
   For ``rejection`` and ``keep_all`` groups the kept rollouts get GRPO's advantage computed
   over ALL n generated rollouts of the group, ``A_i = r_i - mean(r)``, divided by
   ``std(r) + 1e-4`` (sample std, as TRL) when the arm scales rewards by group: rejection is
   a choice of which rollouts to train on, not a change of the baseline the group measured.

Telemetry: rollouts generated / kept / rejected, rescue rollouts used, groups rescued, and
the strategy of every group. Everything is pure (rewards in, decisions out); the runner's
trainer (``runner.rollouts``) mirrors the decisions on the actual completions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prereg.errors import UserError

STRATEGIES = ("keep_all", "rejection", "posterior_all_fail", "posterior_all_correct")
STD_EPS = 1e-4


@dataclass(frozen=True)
class AeroSettings:
    exploration_rollouts: int
    rescue_budget: int
    success_threshold: float
    keep_incorrect: int
    ceiling: int  # locked rollouts per prompt (num_generations)
    scale_rewards: str = "group"  # "group" divides mixed-group advantages by the group std; or "none"

    @classmethod
    def from_fields(cls, runner_fields: dict, *, num_generations: int, scale_rewards: str = "group") -> AeroSettings:
        """Settings from the lock's runner fields; every AERO field must be locked."""
        names = ("aero_exploration_rollouts", "aero_rescue_budget", "aero_success_threshold", "aero_keep_incorrect")
        missing = [n for n in names if runner_fields.get(n) is None]
        if missing:
            raise UserError(f"training.{missing[0]}: the aero algorithm needs it locked (all of {', '.join(names)})")
        s = cls(int(runner_fields["aero_exploration_rollouts"]), int(runner_fields["aero_rescue_budget"]),
                float(runner_fields["aero_success_threshold"]), int(runner_fields["aero_keep_incorrect"]),
                int(num_generations), scale_rewards)
        s.check()
        return s

    def check(self) -> None:
        if not 1 <= self.exploration_rollouts <= self.ceiling:
            raise UserError(f"training.aero_exploration_rollouts: {self.exploration_rollouts} must lie in "
                            f"1..num_generations ({self.ceiling})")
        if self.rescue_budget < 0:
            raise UserError("training.aero_rescue_budget: must be >= 0")
        if not 0 <= self.success_threshold <= 1:
            raise UserError("training.aero_success_threshold: must lie in [0, 1]")
        if self.keep_incorrect < 0:
            raise UserError("training.aero_keep_incorrect: must be >= 0")
        if self.scale_rewards not in ("group", "none"):
            raise UserError(f"training.scale_rewards: {self.scale_rewards!r}; the aero algorithm defines "
                            "advantages for 'group' or 'none' scaling only")


def posterior_mean(successes: int, n: int) -> float:
    """Mean of Beta(1 + s, 1 + n - s): the Beta(1, 1)-prior posterior of a success probability."""
    return (successes + 1) / (n + 2)


@dataclass
class Allocation:
    rewards: list[list[float]]  # per group, every generated rollout in generation order
    rescue_rollouts: list[int]  # per group, how many came from the rescue budget
    rescue_used: int
    rescue_rounds: int


def aero_allocate(initial: Sequence[Sequence[float]], *, ceiling: int, rescue_budget: int,
                  generate_more: Callable[[list[int]], Sequence[float]],
                  is_success: Callable[[float], bool]) -> Allocation:
    """Spend the rescue budget on all-fail groups, one rollout per group per round.

    ``initial`` holds each group's exploration rewards. ``generate_more(group_indices)``
    generates ONE more rollout for each listed group (a group may appear once per call) and
    returns their rewards in the same order.
    """
    rewards = [list(g) for g in initial]
    rescue = [0] * len(rewards)
    budget, rounds = rescue_budget, 0
    while budget > 0:
        candidates = [i for i, g in enumerate(rewards)
                      if len(g) < ceiling and not any(is_success(r) for r in g)]
        if not candidates:
            break
        request = candidates[:budget]
        got = list(generate_more(request))
        if len(got) != len(request):
            raise RuntimeError(f"generate_more returned {len(got)} rewards for {len(request)} requests")
        for i, r in zip(request, got, strict=True):
            rewards[i].append(r)
            rescue[i] += 1
        budget -= len(request)
        rounds += 1
    return Allocation(rewards=rewards, rescue_rollouts=rescue, rescue_used=rescue_budget - budget,
                      rescue_rounds=rounds)


@dataclass
class CuratedGroup:
    rewards: list[float]
    successes: int
    strategy: str
    kept: list[int]  # indices into ``rewards`` of the rollouts trained on
    advantages: list[float]  # one per kept rollout
    rescue_rollouts: int = 0

    @property
    def rejected(self) -> int:
        return len(self.rewards) - len(self.kept)


def _sample_std(xs: Sequence[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    m = sum(xs) / n
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def aero_curate(rewards: Sequence[float], *, success_threshold: float, keep_incorrect: int,
                is_success: Callable[[float], bool], scale_rewards: str = "group",
                rescue_rollouts: int = 0) -> CuratedGroup:
    """Which rollouts of one group to train on, and their advantages (rules in the module doc)."""
    rewards = list(rewards)
    n = len(rewards)
    if n == 0:
        raise ValueError("a group needs at least one rollout")
    ok = [is_success(r) for r in rewards]
    s = sum(ok)
    if s == 0 or s == n:
        strategy = "posterior_all_fail" if s == 0 else "posterior_all_correct"
        y = 1.0 if s == n else 0.0
        return CuratedGroup(rewards, s, strategy, [0], [y - posterior_mean(s, n)], rescue_rollouts)
    if s / n < success_threshold:
        strategy = "rejection"
        incorrect = [i for i in range(n) if not ok[i]][:keep_incorrect]
        kept = sorted([i for i in range(n) if ok[i]] + incorrect)
    else:
        strategy = "keep_all"
        kept = list(range(n))
    mean = sum(rewards) / n
    denom = (_sample_std(rewards) + STD_EPS) if scale_rewards == "group" else 1.0
    return CuratedGroup(rewards, s, strategy, kept, [(rewards[i] - mean) / denom for i in kept], rescue_rollouts)


@dataclass
class AeroStep:
    groups: list[CuratedGroup]
    rescue_used: int
    rescue_rounds: int
    strategy_counts: dict = field(default_factory=dict)

    @property
    def generated(self) -> int:
        return sum(len(g.rewards) for g in self.groups)

    @property
    def kept(self) -> int:
        return sum(len(g.kept) for g in self.groups)

    @property
    def rejected(self) -> int:
        return self.generated - self.kept

    def telemetry(self) -> dict:
        return {
            "aero_rollouts_generated": self.generated,
            "aero_rollouts_kept": self.kept,
            "aero_rollouts_rejected": self.rejected,
            "aero_rescue_used": self.rescue_used,
            "aero_rescue_rounds": self.rescue_rounds,
            "aero_groups_rescued": sum(1 for g in self.groups if g.rescue_rollouts and g.successes),
            "aero_strategies": dict(self.strategy_counts),
            "aero_group_strategy": [g.strategy for g in self.groups],
        }


def aero_step(exploration: Sequence[Sequence[float]], settings: AeroSettings, *,
              generate_more: Callable[[list[int]], Sequence[float]],
              is_success: Callable[[float], bool]) -> AeroStep:
    """Allocation (rescue) then curation of every group of one generation batch."""
    for i, g in enumerate(exploration):
        if len(g) != settings.exploration_rollouts:
            raise ValueError(f"group {i} has {len(g)} exploration rollouts, expected {settings.exploration_rollouts}")
    alloc = aero_allocate(exploration, ceiling=settings.ceiling, rescue_budget=settings.rescue_budget,
                          generate_more=generate_more, is_success=is_success)
    groups = [aero_curate(r, success_threshold=settings.success_threshold, keep_incorrect=settings.keep_incorrect,
                          is_success=is_success, scale_rewards=settings.scale_rewards, rescue_rollouts=k)
              for r, k in zip(alloc.rewards, alloc.rescue_rollouts, strict=True)]
    counts = {name: sum(1 for g in groups if g.strategy == name) for name in STRATEGIES}
    return AeroStep(groups=groups, rescue_used=alloc.rescue_used, rescue_rounds=alloc.rescue_rounds,
                    strategy_counts=counts)
