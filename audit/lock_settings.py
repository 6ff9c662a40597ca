"""Training and analysis settings a report states in words, against the lock (README failure 15).

A model card's "Training regime" bullet or a paper checklist's reproducibility answer restates what
the preregistration fixed: "LoRA rank 8 with alpha 16, learning rate 0.003", "rank-16 LoRA",
"learning rate $10^{-6}$", "4 generations per step", "RNG seed 20260714", "30 optimizer steps". Each
is checked against ``lock.training.*`` / ``lock.analysis.rng_seed``; a wrong one is a finding of check
10, a right one a label (its number is a fact, not a value to trace). The LoRA settings are read
only in a sentence that names LoRA ("alpha = 0.05" elsewhere is the test's level); the step count
only where no run recorded its steps (an imported table; the runs' own steps are checked by
:mod:`audit.claims`), and never in a window or cadence ("last 10 steps", "the final 10 steps", "every 50
steps": a metric's name such as "Reward, mean over the final 10 steps" is a label).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Setting", "setting_spans", "wrong_settings"]

# a power of ten first ("$10^{-6}$" reads as "10^ -6"), then "3 \\times 10^{-4}", then a plain number ("0.003", "1e-6")
_POW = r"10\s*\^\s*\{?\s*[-−]\s*\d+\s*\}?"
_NUM = rf"\$?({_POW}|\d+(?:\.\d+)?\s*(?:\\times|×|x)\s*{_POW}|\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?)(?![\d.])"
_PATTERNS: tuple[tuple[str, str, re.Pattern], ...] = (
    ("lora_r", "training", re.compile(r"\b(?:lora\s+)?rank[\s-]*[=:]?\s*(\d+)\b(?!\.\d)", re.I)),
    ("lora_alpha", "training", re.compile(r"\b(?:lora\s+)?(?:alpha|α)\s*[=:]?\s*(\d+)\b(?![.,]\d)", re.I)),
    ("learning_rate", "training", re.compile(r"\b(?:learning[\s-]+rate|\blr)\s*(?:of\s+|[=:]\s*)?" + _NUM, re.I)),
    ("num_generations", "training", re.compile(r"(?<![\d.,])(\d+)\s+(?:generations|completions)\s+(?:per|each|for\s+each)\b",
                                               re.I)),
    ("rng_seed", "analysis", re.compile(r"\b(?:rng|random|bootstrap)\s+seed\s*[=:]?\s*(\d+)\b", re.I)),
    ("max_steps", "training", re.compile(r"(?<![\d.,])(?<!step )(\d+)\s+"
                                         r"(?:training\s+|optimi[sz]er\s+|gradient\s+|RL\s+)?steps\b", re.I)),
)
_CUES = {"lora_r": ("rank",), "lora_alpha": ("alpha", "α"), "learning_rate": ("learning", "lr"),
         "num_generations": ("generations", "completions"), "rng_seed": ("seed",), "max_steps": ("steps",)}
_LORA = re.compile(r"\blora\b", re.I)
# "the last / final / past / first / previous / every N steps": a window or a cadence, not the training length
_WINDOW = re.compile(r"\b(?:last|final|past|first|initial|previous|closing|every|each)\s+$", re.I)


@dataclass(frozen=True)
class Setting:
    """One setting stated in words: where its number is, what it names and whether the lock agrees."""

    start: int
    end: int
    key: str            # the lock path: "training.lora_r", "analysis.rng_seed"
    written: str
    locked: object
    wrong: bool


def _value(text: str) -> float | None:
    """The number a setting is written as: "0.003", "1e-6", "$10^{-6}$", "3 \\times 10^{-4}"."""
    t = re.sub(r"[\s${}]", "", text.replace("−", "-"))
    m = re.fullmatch(r"(?:(\d+(?:\.\d+)?)(?:\\times|×|x))?10\^(-\d+)", t)
    if m:
        return float(m.group(1) or 1) * 10 ** int(m.group(2))
    try:
        return float(t)
    except ValueError:
        return None


def _settings(text: str, lock: Mapping, steps_recorded: bool) -> list[Setting]:
    """Every setting of the lock ``text`` states (its preregistration ``lock``)."""
    low = text.lower()
    lora = _LORA.search(text) is not None
    out = []
    for name, section, pat in _PATTERNS:
        if not any(c in low for c in _CUES[name]) or (name.startswith("lora") and not lora) \
                or (name == "max_steps" and steps_recorded):
            continue
        locked = (lock.get(section) or {}).get(name) if isinstance(lock.get(section), Mapping) else None
        if not isinstance(locked, (int, float)) or isinstance(locked, bool):
            continue
        for m in pat.finditer(text):
            if name == "max_steps" and _WINDOW.search(text, max(0, m.start(1) - 12), m.start(1)):
                continue
            v = _value(m.group(1))
            if v is not None:
                wrong = abs(v - locked) > 1e-9 * max(1.0, abs(locked))
                out.append(Setting(m.start(1), m.end(1), f"{section}.{name}", m.group(1), locked, wrong))
    return out


def wrong_settings(text: str, lock: Mapping, steps_recorded: bool = False) -> list[Setting]:
    """The settings ``text`` states that the lock contradicts.

    Args:
        text: a sentence. lock: the preregistration. steps_recorded: the runs recorded their steps
            (then "N steps" is checked against them elsewhere, not here).
    Returns:
        One :class:`Setting` per wrong statement, in order.
    Example:
        >>> lock = {"training": {"lora_r": 8, "lora_alpha": 16, "learning_rate": 0.003}}
        >>> [(s.key, s.written) for s in wrong_settings("LoRA rank 16 with alpha 16, learning rate 3e-3", lock)]
        [('training.lora_r', '16')]
    """
    return [s for s in _settings(text, lock, steps_recorded) if s.wrong]


def setting_spans(text: str, lock: Mapping, steps_recorded: bool = False) -> list[tuple[int, int]]:
    """Spans of the numbers of every setting ``text`` states (right or wrong): facts, not values to trace.

    Example:
        >>> setting_spans("RNG seed 20260714", {"analysis": {"rng_seed": 20260714}})
        [(9, 17)]
    """
    return [(s.start, s.end) for s in _settings(text, lock, steps_recorded)]
