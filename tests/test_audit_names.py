"""Arm names in hand-written reports: the longest declared name or label wins (README failure 15).

An arm named ``grpo_lr100x`` used to be read as ``grpo`` (spans were capped at 3 words and the
left-over "lr" became the metric word "learning"), so its row was checked against GRPO's values:
a correct cell was an error and GRPO's value written in its row passed. These tests build a
study whose arm names nest (``grpo``, ``grpo_lr100x``, ``grpo_lr_1e5_warmup`` written ``grpo_lr_1e-5_warmup``, ``dr_grpo``) and
audit a table of them, clean and with one planted error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit import check
from audit.names import longest_names
from audit.sources import _id_entity, entity_from_text, find_arms
from audit.words import vocabulary
from tests.report_corpus import corpus

# check 9's recomputation and the study checks shared across the audits of one study (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("shared_recompute")

ARMS = ["grpo", "grpo_lr100x", "grpo_lr_1e5_warmup", "dr_grpo"]   # arm names are [a-z0-9_] (the schema)


@pytest.mark.parametrize("text, entity", [
    ("grpo_lr100x", ("arm", "grpo_lr100x")),
    ("GRPO-LR100x", ("arm", "grpo_lr100x")),
    ("grpo lr100x seed 2", ("run", "grpo_lr100x", 2)),
    ("grpo_lr_1e5_warmup", ("arm", "grpo_lr_1e5_warmup")),
    ("grpo_lr_1e-5_warmup", ("arm", "grpo_lr_1e5_warmup")),
    ("GRPO lr 1e-5 + warmup seed 3", ("run", "grpo_lr_1e5_warmup", 3)),
    ("grpo_lr_1e-5_warmup − grpo", ("contrast", "grpo_lr_1e5_warmup", "grpo")),
    ("Dr. GRPO", ("arm", "dr_grpo")),
    ("dr_grpo vs grpo", ("contrast", "dr_grpo", "grpo")),
    ("grpo", ("arm", "grpo")),
])
def test_the_longest_declared_arm_name_wins(text, entity):
    assert entity_from_text(f"{text} accuracy", ARMS) == (entity, ["accuracy"])


def test_a_shorter_arm_with_a_metric_word_stays_the_shorter_arm():
    """'grpo lr' names no arm 'grpo_lr': it is grpo and the word 'lr' (the synonym applies to what is left)."""
    assert entity_from_text("grpo lr accuracy", ARMS) == (("arm", "grpo"), ["learning", "accuracy"])


def test_declared_labels_are_names_too():
    names = {"Warm-up run (lr 1e-5)": "grpo_lr_1e5_warmup", "grpo": "grpo", "grpo_lr100x": "grpo_lr100x"}
    assert entity_from_text("Warm-up run (lr 1e-5), ZVF", names)[0] == ("arm", "grpo_lr_1e5_warmup")
    assert find_arms("grpo lr 100 x".split(), names) == [(0, 4, "grpo_lr100x")]


def test_any_number_of_words():
    names = {"abcdefgh": "long_arm", "a": "a"}
    assert longest_names(list("abcdefgh"), names) == [(0, 8, "long_arm")]
    assert longest_names(list("abcdefgx"), names) == [(0, 1, "a")]


def test_value_ids_of_nested_arm_names():
    assert _id_entity("contrasts.grpo_lr100x-grpo.p", ARMS)[0] == ("contrast", "grpo_lr100x", "grpo")
    assert _id_entity("runs.grpo_lr_1e5_warmup.s3.zvf_mean", ARMS)[0] == ("run", "grpo_lr_1e5_warmup", 3)


def test_prose_vocabulary_reads_long_names():
    p = {"arms": {a: {"algorithm": "grpo", "changes": {}} for a in ARMS}, "analysis": {}}
    p["arms"]["dr_grpo"]["labels"] = ["Dr. GRPO"]
    v = vocabulary(p)
    text = "grpo_lr_1e-5_warmup beats GRPO-LR100x and Dr. GRPO beats grpo"
    assert [a for _, a in v.arms_in(text)] == ["grpo_lr_1e5_warmup", "grpo_lr100x", "dr_grpo", "grpo"]


# ---- end to end: an imported study whose arm names nest ------------------------------------------

SEEDS = [1, 2, 3]
DATA = {
    "grpo": [0.576, 0.584, 0.572],
    "grpo_lr100x": [0.412, 0.436, 0.404],
    "grpo_lr_1e5_warmup": [0.604, 0.62, 0.6],
    "dr_grpo": [0.588, 0.596, 0.58],
}
REPORT = """# Learning-rate sweep

| Arm | Held-out accuracy (n=250) |
|---|---|
| grpo | 0.5773 |
| grpo_lr100x | 0.4173 |
| grpo_lr_1e-5_warmup | 0.6080 |
| Dr. GRPO | 0.5880 |
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    from prereg.jsonio import write_json_atomic
    from prereg.lock import build_lock
    from stats.analyze import analyze, write

    root = tmp_path_factory.mktemp("nested_arms")
    p = corpus.study_prereg({"id": "nested-arms", "arms": ["grpo", "dr_grpo"], "seeds": SEEDS, "heldout_n": 250})
    p["arms"]["grpo_lr100x"] = {"algorithm": "grpo", "changes": {"learning_rate": 1e-4}}
    p["arms"]["grpo_lr_1e5_warmup"] = {"algorithm": "grpo", "changes": {"learning_rate": 1e-5, "warmup_ratio": 0.1}}
    p["arms"]["dr_grpo"]["labels"] = ["Dr. GRPO"]
    p["analysis"]["multiplicity"]["family"] = [f"{a}-grpo" for a in ARMS if a != "grpo"]
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},{v!r}" for a, vs in DATA.items() for s, v in zip(SEEDS, vs, strict=True)]
    (root / "results.csv").write_text("\n".join(rows) + "\n")
    write_json_atomic(root / "locks/nested.lock.json", build_lock(p, now=corpus.LOCKED_AT))
    old = os.getcwd()
    os.chdir(root)
    try:
        write(analyze("locks/nested.lock.json", "results.csv"), "report/analysis.json", overwrite=True)
    finally:
        os.chdir(old)
    return root / "report"


def _audit(report: Path, text: str):
    (report / "report.md").write_text(text)
    return check(report, strict=True, only=["10"]).findings


def test_nested_arm_table_is_clean(study):
    values = json.loads((study / "analysis.json").read_text())["values"]
    assert values["arms.grpo_lr100x.heldout_accuracy.mean"]["value"] == pytest.approx(0.417333, abs=1e-6)
    assert [(f.location, f.message) for f in _audit(study, REPORT)] == []


def test_grpo_value_in_the_grpo_lr100x_row_is_caught(study):
    """GRPO's mean written in grpo_lr100x's row: an error naming grpo_lr100x's value (it used to pass)."""
    found = _audit(study, REPORT.replace("| grpo_lr100x | 0.4173 |", "| grpo_lr100x | 0.5773 |"))
    assert [f.location.rsplit("/", 1)[-1] for f in found] == ["report.md:6"]
    assert "arms.grpo_lr100x.heldout_accuracy.mean" in found[0].expected


def test_last_digit_in_the_six_word_arm_row_is_caught(study):
    found = _audit(study, REPORT.replace("| 0.6080 |", "| 0.6090 |"))
    assert [f.location.rsplit("/", 1)[-1] for f in found] == ["report.md:7"]
    assert "arms.grpo_lr_1e5_warmup.heldout_accuracy.mean" in found[0].expected
