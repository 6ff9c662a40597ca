"""The connections task: board file, reward, chronological split, seeded word order, shortcut probe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereg.errors import UserError
from runner.tasks import get_task
from runner.tasks.connections import (
    MAX_REWARD,
    format_answer,
    parse_answer,
    read_boards,
    shortcut_probe,
    words_from_prompt,
)

BOARDS = Path(__file__).parent / "data" / "connections_boards.jsonl"
TASK = {"name": "connections", "reward": "connections_v1", "parser": "last_answer_block"}


def dataset(path=BOARDS, **kw):
    return {"name": "synthetic-connections", "revision": None, "path": str(path), "train_split": "train",
            "heldout_split": "test", "heldout_n": 8, **kw}


def make(path=BOARDS, options=None, **kw):
    return get_task({**TASK, "options": options or {}}, dataset(path, **kw))


def write_boards(tmp_path, boards, name="boards.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(b) + "\n" for b in boards))
    return p


@pytest.fixture(scope="module")
def task():
    return make()


@pytest.fixture(scope="module")
def item(task):
    return task.train_items()[0]


def test_board_file_loads_with_chronological_split(task):
    train, held = task.train_items(), task.heldout_items(8)
    assert len(train) == 16 and len(held) == 8
    assert max(b["date"] for b in train) < min(b["date"] for b in held)
    assert task.max_reward == pytest.approx(1.6) == MAX_REWARD
    assert task.min_reward == pytest.approx(-0.1)


def test_reward_rules_on_hand_made_answers(task, item):
    g = item["groups"]
    assert task.reward(format_answer(g), item) == pytest.approx(1.6)
    assert task.correct(format_answer(g), item)
    # Two groups right, the other two swapped one word each: each of those is one away.
    a, b = list(g[2]), list(g[3])
    a[0], b[0] = b[0], a[0]
    rec = task.item_record(format_answer([g[0], g[1], a, b]), item)
    assert rec["groups_correct"] == 2 and rec["one_away"] and not rec["solved"] and not rec["invalid"]
    assert rec["reward"] == pytest.approx(0.1 + 0.5 + 0.05)
    # A partition with no right group and no 3-overlap: format credit only.
    cols = [[g[r][c] for r in range(4)] for c in range(4)]
    rec = task.item_record(format_answer(cols), item)
    assert rec["groups_correct"] == 0 and not rec["one_away"]
    assert rec["reward"] == pytest.approx(0.1)
    # Invalid: missing block, wrong count, word not on the board, repeated word.
    for bad in ("no answer here", format_answer(g[:3]),
                format_answer([g[0], g[1], g[2], [*g[3][:3], "NOTONBOARD"]]),
                format_answer([g[0], g[0], g[2], g[3]])):
        rec = task.item_record(bad, item)
        assert rec["invalid"] and rec["reward"] == pytest.approx(-0.1) and rec["groups_correct"] == 0


def test_parser_takes_last_answer_block_and_ignores_labels(task, item):
    g = item["groups"]
    wrong = format_answer([[g[r][c] for r in range(4)] for c in range(4)])
    labelled = "<answer>\n" + "\n".join(f"group {i}: " + ", ".join(x).lower() for i, x in enumerate(g)) + "\n</answer>"
    assert parse_answer(labelled) == [[w.upper() for w in x] for x in g]
    assert task.reward(wrong + "\nactually:\n" + labelled, item) == pytest.approx(1.6)
    assert task.reward(labelled + "\nactually:\n" + wrong, item) == pytest.approx(0.1)
    # a last block that is never closed (truncated) is no answer, even after a correct one
    assert task.reward(labelled + "\n<answer>\n" + ", ".join(g[0]), item) == pytest.approx(-0.1)


def test_item_record_keeps_category_strata(task, item):
    rec = task.item_record(format_answer(item["groups"]), item)
    assert [x["category"] for x in rec["groups"]] == item["categories"]
    assert all(x["stratum"] in {"members", "synonyms", "wordplay", "trivia"} for x in rec["groups"])
    assert all(x["correct"] for x in rec["groups"])
    assert set(rec) >= {"solved", "groups_correct", "one_away", "invalid", "reward"}


def test_prompt_order_is_a_seeded_permutation_independent_of_the_file(task, item, tmp_path):
    shown = words_from_prompt(item["prompt"])
    assert sorted(shown) == sorted(item["board_words"])
    # Same prompt for the same board whatever order the file lists its words or groups in.
    boards = [json.loads(line) for line in BOARDS.read_text().splitlines()]
    for b in boards:
        b["words"] = list(reversed(b["words"]))
        b["groups"] = list(reversed(b["groups"]))
    other = make(write_boards(tmp_path, boards))
    assert other.train_items()[0]["prompt"] == item["prompt"]
    # A different locked shuffle seed gives a different order; evaluation prompts use the same builder.
    reseeded = make(options={"shuffle_seed": 1})
    assert reseeded.train_items()[0]["prompt"] != item["prompt"]
    held = task.heldout_items(1)[0]
    assert held["prompt"] == task.build_prompt(held)


def test_chronological_split_is_checked_at_load(tmp_path):
    boards = [json.loads(line) for line in BOARDS.read_text().splitlines()]
    boards[3]["date"] = "2024-12-31"  # a training board dated after the evaluation boards
    t = make(write_boards(tmp_path, boards))
    with pytest.raises(UserError, match="chronological split violated.*syn004"):
        t.train_items()


def test_split_date_option_when_file_has_no_splits(tmp_path):
    boards = [json.loads(line) for line in BOARDS.read_text().splitlines()]
    for b in boards:
        del b["split"]
    p = write_boards(tmp_path, boards)
    with pytest.raises(UserError, match="split_date"):
        make(p).train_items()
    t = make(p, options={"split_date": "2024-03-21"})
    assert len(t.train_items()) == 20 and len(t.heldout_items(4)) == 4


def test_bad_board_files_name_the_field(tmp_path):
    good = json.loads(BOARDS.read_text().splitlines()[0])
    cases = [
        ({**good, "words": good["words"][:15]}, "words"),
        ({**good, "date": "March 1"}, "date"),
        ({**good, "groups": good["groups"][:3]}, "groups"),
        ({k: v for k, v in good.items() if k != "id"}, "id: missing"),
        ({**good, "groups": [*good["groups"][:3], {**good["groups"][3], "words": ["A", "B", "C", "D"]}]},
         "do not partition"),
    ]
    for board, needle in cases:
        with pytest.raises(UserError, match=needle):
            read_boards(write_boards(tmp_path, [board]))
    with pytest.raises(UserError, match="duplicate board id"):
        read_boards(write_boards(tmp_path, [good, good]))


def test_shortcut_probe_passes_shuffled_boards(task):
    report = task.shortcut_report
    assert report["n_items"] == 16
    for name in ("in_order", "columns", "random"):
        assert report["policies"][name]["fraction_of_max"] <= 0.25
    assert task.dataset_fingerprint()["shortcut_probe"] == report


def test_failure_12_answer_ordered_prompt_is_refused_by_the_probe(tmp_path):
    """README failure 12: words listed in answer order let a trivial policy earn full reward."""
    boards = [json.loads(line) for line in BOARDS.read_text().splitlines()]
    for b in boards:
        b["words"] = [w for g in b["groups"] for w in g["words"]]
    leaky = write_boards(tmp_path, boards)
    t = make(leaky, options={"shuffle": False})
    with pytest.raises(UserError, match="shortcut_max_fraction.*in_order"):
        t.train_items()
    # The same file is fine once the locked shuffle is on (the default) ...
    assert len(make(leaky).train_items()) == 16
    # ... and the probe also catches a grid laid out by columns.
    for b in boards:
        b["words"] = [b["groups"][r]["words"][c] for c in range(4) for r in range(4)]
    t = make(write_boards(tmp_path, boards, "cols.jsonl"), options={"shuffle": False})
    with pytest.raises(UserError, match="columns"):
        t.train_items()


def test_probe_scores_by_the_prompt_it_is_given(task):
    items = task.train_items()
    leaked = [{**it, "prompt": task.options["instruction"] + "\nWords: "
               + ", ".join(w for g in it["groups"] for w in g) + "\n"} for it in items]
    with pytest.raises(UserError):
        shortcut_probe(task, leaked)
    report = shortcut_probe(task, items)
    assert report["policies"]["in_order"]["solved_rate"] < 0.5


def test_unknown_option_and_missing_path_refused():
    with pytest.raises(UserError, match="task.options.nope"):
        make(options={"nope": 1})
    with pytest.raises(UserError, match="dataset.path"):
        get_task(TASK, {k: v for k, v in dataset().items() if k != "path"})
    with pytest.raises(UserError, match="task.reward"):
        get_task({**TASK, "reward": "exact"}, dataset())


# -- through `runner run` --------------------------------------------------------------------------

def _connections_lock(root, path=BOARDS, options=None):
    from runner_run_support import prereg, write_lock

    p = prereg(id="conn")
    p["task"] = {**TASK, "options": options or {}}
    p["dataset"] = dataset(path, heldout_n=4)
    p["training"] = {**p["training"], "max_steps": 1}
    return write_lock(root / "locks", p)


@pytest.mark.slow
def test_real_run_records_connections_outcomes_and_one_prompt_path(tmp_path):
    from runner_run_support import run

    from prereg.canonical import sha256_text
    from prereg.records import read_run

    r = read_run(run(_connections_lock(tmp_path), "grpo", 1, tmp_path / "runs"))
    assert r.manifest["status"] == "complete"
    task = make()
    held = r.heldout_trace()
    items = task.heldout_items(4)
    for row, item in zip(held, items, strict=True):
        assert row["prompt_sha256"] == sha256_text(task.build_prompt(item))
        assert set(row) >= {"solved", "groups_correct", "one_away", "invalid", "reward", "groups"}
        assert row["invalid"] and row["reward"] == pytest.approx(-0.1)  # 8 random tokens are no answer
        assert [g["category"] for g in row["groups"]] == item["categories"]
    train_prompts = {sha256_text(it["prompt"]) for it in task.train_items()}
    assert {t["prompt_sha256"] for t in r.train_trace()} <= train_prompts
    assert r.manifest["fingerprint"]["components"]["dataset"]["shortcut_probe"]["n_items"] == 16
    # every completion of the untrained model is invalid (-0.1, the task's minimum): all groups all-fail
    assert [row["frac_all_fail"] for row in r.telemetry()] == [1.0]


def test_runner_run_refuses_a_leaky_board_file_before_writing_anything(tmp_path, capsys):
    from runner.cli import main

    boards = [json.loads(line) for line in BOARDS.read_text().splitlines()]
    for b in boards:
        b["words"] = [w for g in b["groups"] for w in g["words"]]
    lock = _connections_lock(tmp_path, write_boards(tmp_path, boards), {"shuffle": False})
    rc = main(["run", "--arm", "grpo", "--seed", "1", "--lock", str(lock), "--out", str(tmp_path / "runs"),
               "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("error: task.options.shortcut_max_fraction")
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_connections_campaign_audits_clean_and_a_planted_reward_out_of_range_is_caught(tmp_path):
    """2 arms x 2 seeds of real runs on the tiny model, analysed, rendered and audited.

    Every completion of the untrained model is invalid (reward -0.1, the task's minimum), which an
    audit with its own [0, 4] table called out of range; the bounds now come from the task's record
    in the manifest, [-0.1, 1.6], so the campaign is clean, and a held-out reward of 2.0 (inside the
    old table, outside the task's range) is caught by check 7 (README failure 14).
    """
    import shutil

    from runner_run_support import prereg, run, write_lock

    from audit.engine import run_audit
    from prereg.records import HELDOUT_TRACE, artifact_digests, read_run, write_manifest
    from stats.analyze import analyze, write
    from stats.render import render

    p = prereg(id="conn", arms={"grpo": {"algorithm": "grpo", "changes": {}},
                                "dr_grpo": {"algorithm": "dr_grpo",
                                            "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"}}})
    p["task"] = dict(TASK)
    p["dataset"] = dataset(heldout_n=4)
    p["training"] = {**p["training"], "max_steps": 1}
    lock = write_lock(tmp_path / "locks", p)
    runs = tmp_path / "runs"
    for arm in ("grpo", "dr_grpo"):
        for seed in (1, 2):
            run(lock, arm, seed, runs)
    m = read_run(runs / "conn" / "grpo" / "s1").manifest
    assert m["task"] == {"name": "connections", "reward_bounds": [-0.1, MAX_REWARD],
                         "item_metrics": {"groups_correct": {"unit": "count", "max": 4}}}
    write(analyze(lock, runs), tmp_path / "report" / "analysis.json")
    render(tmp_path / "report" / "analysis.json", tmp_path / "report")
    clean = run_audit(tmp_path / "report", lock=lock, runs=runs)
    # Every answer is invalid, so every group's rewards are equal, advantages are zero and no
    # adapter moves: the audit rightly says seeds share one held-out trace (check 8, an error)
    # and arms one training trace (a warning). Nothing else: no reward out of range, every number traced.
    assert {(f.check, f.level) for f in clean.findings} <= {("8", "error"), ("8", "warning"), ("5", "warning")}, [
        (f.check, f.level, f.message) for f in clean.findings]
    assert all("identical" in f.message or "share one held-out trace" in f.message
               for f in clean.errors), [f.message for f in clean.errors]
    assert not [f for f in clean.findings if f.check == "7"] and clean.untraced == []

    bad_runs = tmp_path / "bad-runs"
    shutil.copytree(runs, bad_runs)
    unit = bad_runs / "conn" / "dr_grpo" / "s2"
    rows = [json.loads(x) for x in (unit / HELDOUT_TRACE).read_text().splitlines()]
    rows[2]["reward"] = 2.0
    (unit / HELDOUT_TRACE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    bad = read_run(unit).manifest
    bad["artifacts"] = artifact_digests(unit)  # re-sealed: only the range check can see it
    bad.pop("seal")
    write_manifest(unit, bad)
    caught = run_audit(tmp_path / "report", lock=lock, runs=bad_runs, only=["7"])
    hits = [f for f in caught.errors if "outside the task's range" in f.message]
    assert len(hits) == 1 and hits[0].location.endswith(f"{HELDOUT_TRACE}:3") and "[-0.1, 1.6]" in hits[0].expected
