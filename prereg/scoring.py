"""The pure scoring rules of the registered tasks: (prediction, target) -> (correct, reward).

One rule in one place: the runner's tasks (``runner.tasks.arith``, ``gsm8k``, ``connections``)
compute their rewards through these functions, and audit check 7 re-scores every held-out
trace row with them, without torch and without the runner (README "Record guarantees"). A row
whose ``correct`` or ``reward`` disagrees with its own prediction and target is a finding, so
``correct: true`` with prediction "3" and target "7" cannot pass once the summaries are
recomputed and the manifest re-sealed.

Example:
    >>> scorer_for("arith").rescore("3", "7")
    Outcome(correct=False, reward=0.1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Outcome:
    correct: bool
    reward: float


@dataclass(frozen=True)
class Scorer:
    """A registered task's reward range and its pure re-scoring function."""

    task: str
    min_reward: float
    max_reward: float
    rescore: Callable[[Any, Any], Outcome]


# -- arith: exact integer, or format credit for any integer -----------------------------------
ARITH_FORMAT_CREDIT = 0.1


def arith_outcome(prediction: str | None, target: str) -> Outcome:
    """1.0 for the right integer, 0.1 for another integer, 0.0 for none (``runner.tasks.arith``)."""
    if prediction is None:
        return Outcome(False, 0.0)
    if prediction == target:
        return Outcome(True, 1.0)
    return Outcome(False, ARITH_FORMAT_CREDIT)


# -- gsm8k: exact integer after the final #### --------------------------------------------------
def exact_outcome(prediction: str | None, target: str) -> Outcome:
    """1.0 when the parsed integer equals the target, else 0.0 (``runner.tasks.gsm8k``)."""
    ok = prediction is not None and prediction == target
    return Outcome(ok, 1.0 if ok else 0.0)


# -- connections: groups found, solve bonus, one-away bonus, invalid penalty --------------------
CONNECTIONS_FORMAT_CREDIT = 0.1
CONNECTIONS_GROUP_CREDIT = 1.0
CONNECTIONS_SOLVE_BONUS = 0.5
CONNECTIONS_ONE_AWAY_BONUS = 0.05
CONNECTIONS_INVALID_PENALTY = -0.1
CONNECTIONS_MAX_REWARD = CONNECTIONS_FORMAT_CREDIT + CONNECTIONS_GROUP_CREDIT + CONNECTIONS_SOLVE_BONUS


def connections_score(guess: list[list[str]] | None, board_groups: list[list[str]],
                      board_words: list[str]) -> dict:
    """Per-answer outcome: invalid, groups_correct (0-4), solved, one_away, reward, correct_mask."""
    truth = [frozenset(g) for g in board_groups]
    valid = (isinstance(guess, list) and all(isinstance(g, list) for g in guess)
             and sorted(str(w) for g in guess for w in g) == sorted(board_words))
    if not valid:
        return {"invalid": True, "groups_correct": 0, "solved": False, "one_away": False,
                "reward": CONNECTIONS_INVALID_PENALTY, "correct_mask": [False] * 4}
    guessed = [frozenset(g) for g in guess]
    correct_mask = [t in guessed for t in truth]
    n_correct = sum(correct_mask)
    solved = n_correct == 4
    one_away = (not solved) and any(len(gs & t) == 3 for gs in guessed for t in truth)
    reward = (CONNECTIONS_FORMAT_CREDIT + CONNECTIONS_GROUP_CREDIT * n_correct / 4
              + (CONNECTIONS_SOLVE_BONUS if solved else 0.0))
    if one_away:
        reward += CONNECTIONS_ONE_AWAY_BONUS
    return {"invalid": False, "groups_correct": n_correct, "solved": solved, "one_away": one_away,
            "reward": round(reward, 10), "correct_mask": correct_mask}


def connections_target_groups(target: str) -> list[list[str]]:
    """``"A, B, C, D | E, ..."`` (the task's answer string) back into its four groups."""
    return [[w.strip() for w in part.split(",")] for part in str(target).split(" | ")]


def connections_outcome(prediction: Any, target: str) -> Outcome:
    groups = connections_target_groups(target)
    out = connections_score(prediction, groups, [w for g in groups for w in g])
    return Outcome(out["solved"], out["reward"])


SCORERS: dict[str, Scorer] = {
    "arith": Scorer("arith", 0.0, 1.0, arith_outcome),
    "gsm8k": Scorer("gsm8k", 0.0, 1.0, exact_outcome),
    "connections": Scorer("connections", CONNECTIONS_INVALID_PENALTY, CONNECTIONS_MAX_REWARD, connections_outcome),
}


def scorer_for(task_name: Any) -> Scorer | None:
    """The registered task's scorer, or None for a user task (``module:callable``) or unknown name."""
    return SCORERS.get(task_name) if isinstance(task_name, str) else None
