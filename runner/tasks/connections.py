"""``connections``: NYT-Connections-style boards (16 words, four hidden groups of four).

Board file (``dataset.path``; JSON list, ``{"boards": [...]}``, or JSON lines), one board::

    {"id": "b001", "date": "2024-01-01", "split": "train",
     "words": ["RED", "PEAR", ...16 words...],
     "groups": [{"category": "COLOURS", "words": ["RED", "BLUE", "GREEN", "PINK"],
                 "stratum": "synonyms"}, ...4 groups...]}

``split`` is optional: boards carrying it are assigned by ``dataset.train_split`` /
``dataset.heldout_split``; a file without it needs the locked option ``split_date``
(boards dated before it train, on or after it evaluate). ``dataset.path`` may also contain
``{split}`` to name one file per split. ``stratum`` (optional) is a group's category type,
kept in per-item records so evaluation can be stratified.

Why the checks live here and run at load time (README failure 12):

* Chronological split: every evaluation board must be dated strictly after every training
  board, or the task refuses to load (a model could otherwise have trained on the puzzles
  it is evaluated on, or on later ones that reuse their categories).
* Word order: the prompt lists the words in a permutation seeded by SHA-256 of the locked
  option ``shuffle_seed`` and the board id, applied to the alphabetically sorted words, so
  the order carries no information about the answer groups or the file's order. Training
  and evaluation prompts go through the same ``build_prompt``.
* Shortcut probe: before any item is handed out, trivial policies (copy the board in order
  in chunks of four; read it in columns of a 4x4 grid; a seeded random grouping) are scored
  on the training prompts as they will be shown; if one earns more than the locked
  fraction ``shortcut_max_fraction`` of the maximum reward, the task refuses to start. A
  board file whose words are listed in answer order with ``shuffle: false`` is caught here.

Reward (``reward: connections_v1``, ``parser: last_answer_block``), as in the Connections
study this toolkit is modelled on: an answer is the LAST ``<answer>...</answer>`` block of
the completion (an unclosed last block, e.g. a truncated one, is no answer), four lines of
four comma-separated words (a ``label:`` before the words is ignored). It is valid when the four lines partition the board's 16 words. A valid answer
earns 0.1 (format) + 1.0 x correct_groups/4 + 0.5 if all four are correct (solved) + 0.05
if not solved but some guessed group shares exactly three words with a true group (one
away); an invalid answer earns -0.1. Range [-0.1, 1.6]; ``correct`` means solved.
"""

from __future__ import annotations

import datetime as _dt
import json
import random
from pathlib import Path

from prereg.canonical import sha256_file, sha256_text
from prereg.errors import UserError
from prereg.scoring import (
    CONNECTIONS_FORMAT_CREDIT,
    CONNECTIONS_GROUP_CREDIT,
    CONNECTIONS_INVALID_PENALTY,
    CONNECTIONS_MAX_REWARD,
    CONNECTIONS_ONE_AWAY_BONUS,
    CONNECTIONS_SOLVE_BONUS,
    connections_score,
)
from runner.tasks.base import Task, check_options

# The reward rule lives in prereg.scoring (one rule for the runner and the audit's re-scoring).
FORMAT_CREDIT = CONNECTIONS_FORMAT_CREDIT
GROUP_CREDIT = CONNECTIONS_GROUP_CREDIT
SOLVE_BONUS = CONNECTIONS_SOLVE_BONUS
ONE_AWAY_BONUS = CONNECTIONS_ONE_AWAY_BONUS
INVALID_PENALTY = CONNECTIONS_INVALID_PENALTY
MAX_REWARD = CONNECTIONS_MAX_REWARD
score = connections_score

DEFAULT_OPTIONS = {
    "shuffle": True,
    "shuffle_seed": 0,
    "shortcut_max_fraction": 0.25,
    "shortcut_random_draws": 4,
    "split_date": None,
    "instruction": ("Group the 16 words into four groups of four that share a connection. "
                    "Answer with four lines of four comma-separated words inside <answer></answer>."),
}

_WORDS_LINE = "Words: "


def norm(word: str) -> str:
    return " ".join(str(word).split()).upper()


def _seed_int(*parts) -> int:
    return int(sha256_text(":".join(str(p) for p in parts))[:16], 16)


# -- board file ------------------------------------------------------------------------------

def read_boards(path: str | Path) -> list[dict]:
    """Boards from a JSON list / ``{"boards": [...]}`` / JSON-lines file, validated.

    Each error names the file, the board (line or index) and the field.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"dataset.path: cannot read {p}: {exc.strerror or exc}") from None
    rows: list[tuple[str, object]] = []
    data = None
    if p.suffix != ".jsonl":
        try:
            data = json.loads(text)
        except ValueError as exc:
            if not text.lstrip().startswith("{"):
                raise UserError(f"{p}: not valid JSON: {exc}") from None
    if data is not None:
        if isinstance(data, dict) and "boards" not in data and "id" in data:
            data = [data]
        elif isinstance(data, dict):
            data = data.get("boards")
        if not isinstance(data, list):
            raise UserError(f"{p}: expected a list of boards or {{\"boards\": [...]}}")
        rows = [(f"{p}: board {i}", b) for i, b in enumerate(data)]
    else:
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append((f"{p}:{lineno}", json.loads(line)))
            except ValueError as exc:
                raise UserError(f"{p}:{lineno}: not valid JSON: {exc}") from None
    boards, seen = [], set()
    for where, raw in rows:
        board = _check_board(where, raw)
        if board["id"] in seen:
            raise UserError(f"{where}: id: duplicate board id {board['id']!r}")
        seen.add(board["id"])
        boards.append(board)
    if not boards:
        raise UserError(f"{p}: no boards")
    return boards


def _check_board(where: str, raw) -> dict:
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a board must be a JSON object")
    for key in ("id", "date", "words", "groups"):
        if key not in raw:
            raise UserError(f"{where}: {key}: missing")
    if not isinstance(raw["id"], str) or not raw["id"]:
        raise UserError(f"{where}: id: must be a non-empty string")
    try:
        date = _dt.date.fromisoformat(str(raw["date"]))
    except ValueError:
        raise UserError(f"{where}: date: {raw['date']!r} is not an ISO date (YYYY-MM-DD)") from None
    words = raw["words"]
    if not isinstance(words, list) or len(words) != 16 or not all(isinstance(w, str) and w.strip() for w in words):
        raise UserError(f"{where}: words: must be a list of 16 non-empty strings")
    words = [norm(w) for w in words]
    if len(set(words)) != 16:
        raise UserError(f"{where}: words: contains duplicates")
    for w in words:
        if "," in w or "<" in w or ">" in w or "\n" in w:
            raise UserError(f"{where}: words: {w!r} contains a character the answer format reserves (, < >)")
    groups = raw["groups"]
    if not isinstance(groups, list) or len(groups) != 4:
        raise UserError(f"{where}: groups: must be a list of 4 groups")
    out_groups = []
    for gi, g in enumerate(groups):
        if not isinstance(g, dict) or not isinstance(g.get("category"), str) or not isinstance(g.get("words"), list):
            raise UserError(f"{where}: groups[{gi}]: needs 'category' (string) and 'words' (list)")
        gw = [norm(w) for w in g["words"]]
        if len(gw) != 4 or len(set(gw)) != 4:
            raise UserError(f"{where}: groups[{gi}].words: must be 4 distinct words")
        stratum = g.get("stratum")
        if stratum is not None and not isinstance(stratum, str):
            raise UserError(f"{where}: groups[{gi}].stratum: must be a string")
        out_groups.append({"category": g["category"], "words": gw, "stratum": stratum})
    in_groups = [w for g in out_groups for w in g["words"]]
    if sorted(in_groups) != sorted(words):
        raise UserError(f"{where}: groups: the four groups do not partition the board's 16 words")
    split = raw.get("split")
    if split is not None and not isinstance(split, str):
        raise UserError(f"{where}: split: must be a string")
    return {"id": raw["id"], "date": date.isoformat(), "split": split, "words": words, "groups": out_groups}


def check_chronological(train: list[dict], heldout: list[dict]) -> None:
    """Refuse unless every evaluation board is dated strictly after every training board."""
    if not train or not heldout:
        return
    last_train = max(train, key=lambda b: b["date"])
    first_eval = min(heldout, key=lambda b: b["date"])
    if first_eval["date"] <= last_train["date"]:
        raise UserError(
            f"dataset: chronological split violated: evaluation board {first_eval['id']!r} "
            f"({first_eval['date']}) is not after training board {last_train['id']!r} ({last_train['date']})")


# -- answers ---------------------------------------------------------------------------------

def parse_answer(completion: str) -> list[list[str]] | None:
    """The last ``<answer>`` block as four groups of four words, or None when malformed.

    Whether the words are on the board is checked by ``score``.
    """
    text = completion or ""
    lower = text.lower()
    start = lower.rfind("<answer>")
    end = lower.find("</answer>", start + 1) if start >= 0 else -1
    if start < 0 or end < 0:  # no block, or the last one was never closed (e.g. truncated): no answer
        return None
    lines = [ln.strip() for ln in text[start + len("<answer>"):end].strip().splitlines() if ln.strip()]
    if len(lines) != 4:
        return None
    groups = []
    for line in lines:
        if ":" in line:
            line = line.split(":", 1)[1]
        words = [norm(w) for w in line.split(",")]
        if len(words) != 4 or any(not w for w in words):
            return None
        groups.append(words)
    return groups


def format_answer(groups: list[list[str]]) -> str:
    """The canonical answer text for ``groups`` (what ``parse_answer`` reads back)."""
    return "<answer>\n" + "\n".join(", ".join(g) for g in groups) + "\n</answer>"


# -- the task --------------------------------------------------------------------------------

class ConnectionsTask(Task):
    name = "connections"
    max_reward = MAX_REWARD
    min_reward = INVALID_PENALTY
    reward_name = "connections_v1"
    parser_name = "last_answer_block"
    source_modules = ("prereg.scoring",)
    item_metrics = {"groups_correct": {"unit": "count", "max": 4}}  # a board has 4 groups

    def __init__(self, task_spec: dict, dataset_spec: dict):
        super().__init__(task_spec, dataset_spec)
        self.options = check_options(self.name, dict(self.locked_task.options), DEFAULT_OPTIONS)
        frac = self.options["shortcut_max_fraction"]
        if not isinstance(frac, (int, float)) or isinstance(frac, bool) or not 0 < frac <= 1:
            raise UserError("task.options.shortcut_max_fraction: must be a number in (0, 1]")
        if not isinstance(self.options["shuffle"], bool):
            raise UserError("task.options.shuffle: must be true or false")
        if not isinstance(self.options["shuffle_seed"], int):
            raise UserError("task.options.shuffle_seed: must be an integer")
        if not self.locked_dataset.path:
            raise UserError("dataset.path: the connections task reads boards from a local JSON/JSONL file")
        self._files: dict[str, str] = {}
        self.shortcut_report: dict | None = None

    def _boards(self) -> tuple[list[dict], list[dict]]:
        spec = self.locked_dataset
        train_split, held_split = spec.train_split, spec.heldout_split
        if train_split == held_split:
            raise UserError(f"dataset.heldout_split: {held_split!r} is also the train split")
        path = spec.path
        if "{split}" in path:
            out = []
            for split in (train_split, held_split):
                f = path.replace("{split}", split)
                self._files[Path(f).name] = sha256_file(f) if Path(f).exists() else ""
                out.append(read_boards(f))
            return out[0], out[1]
        boards = read_boards(path)
        self._files[Path(path).name] = sha256_file(path)
        with_split = [b for b in boards if b["split"] is not None]
        if with_split:
            if len(with_split) != len(boards):
                raise UserError(f"{path}: split: some boards name a split and some do not")
            unknown = sorted({b["split"] for b in boards} - {train_split, held_split})
            if unknown:
                raise UserError(f"{path}: split: {unknown[0]!r} is neither dataset.train_split {train_split!r} "
                                f"nor dataset.heldout_split {held_split!r}")
            return ([b for b in boards if b["split"] == train_split],
                    [b for b in boards if b["split"] == held_split])
        cut = self.options["split_date"]
        if cut is None:
            raise UserError(f"task.options.split_date: {path} has no 'split' fields, so the split date must be locked")
        try:
            cut = _dt.date.fromisoformat(str(cut)).isoformat()
        except ValueError:
            raise UserError(f"task.options.split_date: {cut!r} is not an ISO date") from None
        return [b for b in boards if b["date"] < cut], [b for b in boards if b["date"] >= cut]

    def load_items(self) -> tuple[list[dict], list[dict]]:
        train, heldout = self._boards()
        check_chronological(train, heldout)
        train.sort(key=lambda b: (b["date"], b["id"]))
        heldout.sort(key=lambda b: (b["date"], b["id"]))
        train_n = self.locked_dataset.train_n
        if train_n is not None:
            if train_n > len(train):
                raise UserError(f"dataset.train_n: {train_n} requested but only {len(train)} training boards")
            train = train[:train_n]
        return [self._item(b) for b in train], [self._item(b) for b in heldout]

    @staticmethod
    def _item(board: dict) -> dict:
        groups = [g["words"] for g in board["groups"]]
        return {
            "id": board["id"], "date": board["date"], "board_words": board["words"], "groups": groups,
            "categories": [g["category"] for g in board["groups"]],
            "strata": [g["stratum"] for g in board["groups"]],
            "answer": " | ".join(sorted(", ".join(sorted(g)) for g in groups)),
        }

    def _loaded(self):
        first = self._train is None or self._heldout is None
        out = super()._loaded()
        if first:
            self.shortcut_report = shortcut_probe(self, out[0])
        return out

    def preflight(self) -> None:
        """Load the boards now: the split-date check and the shortcut probe refuse before a run starts."""
        self._loaded()

    # The one prompt path for training and evaluation.
    def presented_words(self, item: dict) -> list[str]:
        words = list(item["board_words"])
        if self.options["shuffle"]:
            words = sorted(words)
            random.Random(_seed_int("connections-shuffle", self.options["shuffle_seed"], item["id"])).shuffle(words)
        return words

    def build_prompt(self, item: dict) -> str:
        return f"{self.options['instruction']}\n{_WORDS_LINE}{', '.join(self.presented_words(item))}\n"

    def parse(self, completion: str) -> list[list[str]] | None:
        return parse_answer(completion)

    def outcome(self, completion: str, item: dict) -> dict:
        return score(self.parse(completion), item["groups"], item["board_words"])

    def reward(self, completion: str, item: dict) -> float:
        return self.outcome(completion, item)["reward"]

    def correct(self, completion: str, item: dict) -> bool:
        return self.outcome(completion, item)["solved"]

    def item_record(self, completion: str, item: dict) -> dict:
        """Fields a per-item trace keeps (solved, groups correct, one-away, invalid, reward, strata)."""
        out = self.outcome(completion, item)
        return {
            "solved": out["solved"], "groups_correct": out["groups_correct"], "one_away": out["one_away"],
            "invalid": out["invalid"], "reward": out["reward"], "date": item["date"],
            "groups": [{"category": c, "stratum": s, "correct": ok} for c, s, ok
                       in zip(item["categories"], item["strata"], out["correct_mask"], strict=True)],
        }

    def dataset_identity(self) -> dict:
        train, _ = self._loaded()
        ident = super().dataset_identity()
        ident.update({"path": self.locked_dataset.path, "files_sha256": dict(sorted(self._files.items())),
                      "options": self.options, "shortcut_probe": self.shortcut_report})
        return ident


def words_from_prompt(prompt: str) -> list[str]:
    """The words exactly as a prompt shows them (what a trivial policy can copy)."""
    for line in prompt.splitlines():
        if line.startswith(_WORDS_LINE):
            return [norm(w) for w in line[len(_WORDS_LINE):].split(",")]
    raise ValueError("prompt has no words line")


def shortcut_probe(task: ConnectionsTask, items: list[dict]) -> dict:
    """Score trivial policies on the prompts of ``items``; refuse if one earns too much.

    Policies: ``in_order`` (the words as shown, in chunks of four), ``columns`` (the words as
    a 4x4 grid read by column) and ``random`` (a seeded random grouping, averaged over
    ``shortcut_random_draws`` draws). Each is scored by the task's own reward on the prompt
    built by ``build_prompt``, so a prompt that leaks the answer order is caught whatever
    produced it. Raises ``UserError`` when a policy's mean reward exceeds
    ``shortcut_max_fraction`` x ``max_reward``; returns the per-policy means otherwise.
    """
    limit = task.options["shortcut_max_fraction"]
    draws = int(task.options["shortcut_random_draws"])
    totals = {"in_order": 0.0, "columns": 0.0, "random": 0.0}
    solved = dict.fromkeys(totals, 0.0)
    for item in items:
        shown = words_from_prompt(item.get("prompt") or task.build_prompt(item))
        policies = {
            "in_order": [shown[i:i + 4] for i in range(0, 16, 4)],
            "columns": [shown[j::4] for j in range(4)],
        }
        for name, guess in policies.items():
            out = task.outcome(format_answer(guess), item)
            totals[name] += out["reward"]
            solved[name] += out["solved"]
        rng = random.Random(_seed_int("connections-probe", task.options["shuffle_seed"], item["id"]))
        for _ in range(draws):
            perm = list(shown)
            rng.shuffle(perm)
            out = task.outcome(format_answer([perm[i:i + 4] for i in range(0, 16, 4)]), item)
            totals["random"] += out["reward"] / draws
            solved["random"] += out["solved"] / draws
    n = max(len(items), 1)
    report = {
        "n_items": len(items), "max_reward": task.max_reward, "max_fraction": limit,
        "policies": {k: {"mean_reward": round(totals[k] / n, 10),
                         "fraction_of_max": round(totals[k] / n / task.max_reward, 10),
                         "solved_rate": round(solved[k] / n, 10)} for k in totals},
    }
    worst = max(report["policies"], key=lambda k: report["policies"][k]["fraction_of_max"])
    frac = report["policies"][worst]["fraction_of_max"]
    if items and frac > limit:
        raise UserError(
            f"task.options.shortcut_max_fraction: the trivial policy {worst!r} earns {frac:.3f} of the maximum "
            f"reward on the training prompts (limit {limit}); the prompts leak the answer order "
            f"(check the board file's word order and task.options.shuffle)")
    return report


def make_task(task_spec: dict, dataset_spec: dict) -> ConnectionsTask:
    return ConnectionsTask(task_spec, dataset_spec)
