"""``arith``: offline synthetic arithmetic with verifiable integer answers (demo and tests).

Items are every expression ``a op b`` and ``a op b op c`` over the digits 0-9 with the
operators ``+`` and ``-`` (evaluated left to right) whose value lies in 0..``max_answer``
(default 9, i.e. single-digit answers). The set is enumerated, not sampled, so it is the
same on every machine; an item goes to the held-out split when the first byte of
SHA-256(expression) is below 52 (about 1 in 5), to the training split otherwise, so the
splits are disjoint by construction and each is ordered by that hash. With the defaults
there are 1,890 items: 1,522 train and 368 held-out.

The prompt is the bare expression followed by ``=`` (``3+4-2=``): short, so the tiny
model is fast, and inside the tiny tokenizer's character vocabulary.

Reward design (``reward: exact_or_format_credit``, ``parser: first_integer``): the parser
takes the first integer (``-?\\d+``) anywhere in the completion.

* 1.0 when that integer equals the answer;
* 0.1 when the completion contains an integer but the wrong one (format credit);
* 0.0 when it contains no integer.

Why: the untrained random-weight ``tiny:qwen2`` model emits characters almost uniformly,
so an exact multi-digit answer is hopeless, but with single-digit answers the first digit it
happens to emit is right about one time in ten, and most 16-token completions contain
some digit. Measured on the tiny model (``tiny:qwen2`` untrained; temperature 1.0, top_k 0,
4 completions per prompt, 16 new tokens; 200 training prompts under each of 3 sampling
seeds): mean reward 0.135-0.149, 6-8% of completions exactly right, 67-71% format credit
only, and the rewards of a group all equal in 20-27% of groups (ZVF 0.20-0.27), so
telemetry, ZVF and the statistics of a demo are not degenerate. Greedy held-out accuracy
is 0.125 on the first 64 held-out items (0.098 on all 368), and after 4 GRPO+LoRA steps at
lr 1e-4 it was 0.109 / 0.125 / 0.125 for seeds 1 / 2 / 3: a real proportion that moves
with training. ``correct`` is
the exact match, so held-out accuracy never counts format credit. A policy that only
emits digits earns 0.1 plus a 1-in-10 guess; it cannot earn the maximum without the answer.
"""

from __future__ import annotations

import hashlib
import itertools
import re

from prereg.errors import UserError
from prereg.scoring import ARITH_FORMAT_CREDIT, arith_outcome
from runner.tasks.base import Task, check_options

_INT = re.compile(r"-?\d+")
DEFAULT_OPTIONS = {"max_answer": 9, "min_answer": 0, "operators": "+-", "max_operands": 3}


def _evaluate(tokens: list[str]) -> int:
    value = int(tokens[0])
    for op, num in zip(tokens[1::2], tokens[2::2], strict=True):
        value = value + int(num) if op == "+" else value - int(num) if op == "-" else value * int(num)
    return value


def enumerate_expressions(options: dict) -> list[tuple[str, int]]:
    ops = options["operators"]
    if not ops or set(ops) - set("+-*"):
        raise UserError(f"task.options.operators: {ops!r} must be a non-empty string of + - *")
    max_operands = options["max_operands"]
    if max_operands not in (2, 3):
        raise UserError(f"task.options.max_operands: {max_operands!r} must be 2 or 3")
    lo, hi = options["min_answer"], options["max_answer"]
    if not (isinstance(lo, int) and isinstance(hi, int) and lo <= hi):
        raise UserError("task.options.min_answer/max_answer: must be integers with min_answer <= max_answer")
    out = []
    for n in range(2, max_operands + 1):
        for digits in itertools.product("0123456789", repeat=n):
            for chosen in itertools.product(ops, repeat=n - 1):
                tokens = [digits[0]]
                for op, d in zip(chosen, digits[1:], strict=True):
                    tokens += [op, d]
                value = _evaluate(tokens)
                if lo <= value <= hi:
                    out.append(("".join(tokens), value))
    return out


class ArithTask(Task):
    name = "arith"
    max_reward = 1.0
    reward_name = "exact_or_format_credit"
    parser_name = "first_integer"
    format_credit = ARITH_FORMAT_CREDIT
    source_modules = ("prereg.scoring",)

    def __init__(self, task_spec: dict, dataset_spec: dict):
        super().__init__(task_spec, dataset_spec)
        self.options = check_options(self.name, dict(self.locked_task.options), DEFAULT_OPTIONS)

    def load_items(self) -> tuple[list[dict], list[dict]]:
        train, heldout = [], []
        for expr, value in enumerate_expressions(self.options):
            digest = hashlib.sha256(expr.encode()).hexdigest()
            item = {"id": f"arith:{expr}", "question": expr, "answer": str(value), "_key": digest}
            (heldout if int(digest[:2], 16) < 52 else train).append(item)
        train.sort(key=lambda it: it["_key"])
        heldout.sort(key=lambda it: it["_key"])
        for it in train + heldout:
            del it["_key"]
        return self.first_train_n(train, "arith"), heldout

    def build_prompt(self, item: dict) -> str:
        return f"{item['question']}="

    def parse(self, completion: str) -> str | None:
        match = _INT.search(completion)
        return None if match is None else str(int(match.group()))

    def reward(self, completion: str, item: dict) -> float:
        return arith_outcome(self.parse(completion), item["answer"]).reward  # the audit re-scores with it

    def correct(self, completion: str, item: dict) -> bool:
        return arith_outcome(self.parse(completion), item["answer"]).correct

    def dataset_identity(self) -> dict:
        return {**super().dataset_identity(), "generator": "arith-enumerate-v1", "options": self.options}


def make_task(task_spec: dict, dataset_spec: dict) -> ArithTask:
    return ArithTask(task_spec, dataset_spec)
