"""Tasks: registry, the arith rewards on real tiny-model samples, the gsm8k parser and loader."""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest  # noqa: E402

from prereg.errors import UserError  # noqa: E402
from runner.tasks import get_task, register_task, registered_tasks  # noqa: E402
from runner.tasks.base import Task  # noqa: E402
from runner.tasks.gsm8k import final_hashes_integer  # noqa: E402

DATA = Path(__file__).parent / "data" / "gsm8k_mini"
ARITH = {"name": "synthetic/arith", "revision": None, "train_split": "train", "heldout_split": "heldout",
         "heldout_n": 64}
GSM = {"name": "openai/gsm8k", "config": "main", "revision": None, "path": str(DATA), "train_split": "train",
       "heldout_split": "test", "heldout_n": 3}


# -- registry ---------------------------------------------------------------------------------
def test_unknown_task_lists_registered():
    with pytest.raises(UserError) as exc:
        get_task({"name": "nope"}, ARITH)
    msg = str(exc.value)
    assert msg.startswith("task.name:") and "arith" in msg and "gsm8k" in msg and "\n" not in msg


def test_register_task_and_refuse_duplicates():
    from runner.tasks import _REGISTRY
    from runner.tasks.arith import ArithTask

    class Renamed(ArithTask):
        name = "arith_copy_for_test"

    register_task("arith_copy_for_test", Renamed)
    try:
        assert "arith_copy_for_test" in registered_tasks()
        assert get_task({"name": "arith_copy_for_test"}, ARITH).name == "arith_copy_for_test"
        with pytest.raises(ValueError, match="already registered"):
            register_task("arith_copy_for_test", Renamed)
    finally:
        _REGISTRY.pop("arith_copy_for_test")


def test_locked_reward_name_must_match_the_task():
    with pytest.raises(UserError, match="task.reward"):
        get_task({"name": "arith", "reward": "something_else"}, ARITH)
    with pytest.raises(UserError, match="task.parser"):
        get_task({"name": "gsm8k", "parser": "first_integer"}, GSM)
    task = get_task({"name": "arith", "reward": "exact_or_format_credit", "parser": "first_integer"}, ARITH)
    assert (task.name, task.reward_name, task.parser_name) == ("arith", "exact_or_format_credit", "first_integer")


def test_unknown_option_is_named():
    with pytest.raises(UserError, match="task.options.digits"):
        get_task({"name": "arith", "options": {"digits": 3}}, ARITH)


# -- user tasks -------------------------------------------------------------------------------
def test_user_task_module_callable(tmp_path, monkeypatch):
    (tmp_path / "my_user_task_mod.py").write_text(textwrap.dedent("""
        from runner.tasks.base import Task

        class Echo(Task):
            name = "echo"
            max_reward = 2.0

            def load_items(self):
                items = [{"id": str(i), "word": w, "answer": w} for i, w in enumerate(["ab", "cd", "ef", "gh"])]
                return items[:3], items[3:]

            def build_prompt(self, item):
                return "repeat " + item["word"] + ":"

            def parse(self, completion):
                return completion.strip() or None

            def reward(self, completion, item):
                return 2.0 if self.parse(completion) == item["answer"] else 0.0

        def make(task_spec, dataset_spec):
            return Echo(task_spec, dataset_spec)

        def not_a_task(task_spec, dataset_spec):
            return object()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    task = get_task({"name": "my_user_task_mod:make"}, {"name": "local", "revision": None, "train_split": "a",
                                                         "heldout_split": "b", "heldout_n": 1})
    assert task.name == "echo" and len(task.train_items()) == 3
    item = task.heldout_items(1)[0]
    assert item["prompt"] == "repeat gh:"
    assert task.reward(" gh ", item) == 2.0 and task.correct("gh", item) and not task.correct("ab", item)
    assert "my_user_task_mod" in task.source_fingerprint()["modules"]
    with pytest.raises(UserError, match="not a runner.tasks.base.Task"):
        get_task({"name": "my_user_task_mod:not_a_task"}, {})
    with pytest.raises(UserError, match="no attribute"):
        get_task({"name": "my_user_task_mod:missing"}, {})
    with pytest.raises(UserError, match="cannot import"):
        get_task({"name": "no_such_module_xyz:make"}, {})


# -- arith ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def arith():
    return get_task({"name": "arith"}, ARITH)


def test_arith_items_are_correct_deterministic_and_disjoint(arith):
    train, held = arith.train_items(), arith.heldout_items(64)
    assert len(held) == 64 and len(train) > 1000  # hundreds of steps of 4 prompts
    assert not {it["question"] for it in train} & {it["question"] for it in arith._loaded()[1]}
    for it in train[:50] + held:
        assert int(it["answer"]) == eval(it["question"])  # left-to-right +/- equals Python's
        assert 0 <= int(it["answer"]) <= 9
        assert it["prompt"] == arith.build_prompt(it)
    again = get_task({"name": "arith"}, ARITH)
    assert again.train_items() == train and again.heldout_items(64) == held
    assert again.dataset_fingerprint() == arith.dataset_fingerprint()


def test_arith_heldout_prefix_and_size(arith):
    assert arith.heldout_items(10) == arith.heldout_items(64)[:10]
    with pytest.raises(UserError, match="dataset.heldout_n"):
        arith.heldout_items(10_000)


def test_arith_seeded_order(arith):
    a, b, c = arith.train_items(seed=1), arith.train_items(seed=1), arith.train_items(seed=2)
    assert a == b and a != c and sorted(x["id"] for x in a) == sorted(x["id"] for x in c)


def test_arith_train_n():
    task = get_task({"name": "arith"}, {**ARITH, "train_n": 20})
    assert len(task.train_items()) == 20
    assert task.dataset_fingerprint()["used"] == {"train": 20, "heldout": 64}
    with pytest.raises(UserError, match="dataset.train_n"):
        get_task({"name": "arith"}, {**ARITH, "train_n": 10**6}).train_items()


def test_arith_reward_tiers(arith):
    item = {"id": "x", "question": "3+4", "answer": "7"}
    assert arith.parse("  7 then 8") == "7" and arith.parse("abc") is None and arith.parse("x-3") == "-3"
    assert arith.reward("7", item) == 1.0 and arith.correct("7xyz", item)
    assert arith.reward("ab 8 7", item) == pytest.approx(0.1) and not arith.correct("8 7", item)
    assert arith.reward("no digits", item) == 0.0
    assert arith.max_reward == 1.0


def test_arith_rewards_vary_on_untrained_tiny_model(arith):
    """The untrained tiny model earns reward sometimes, not always: groups are not degenerate."""
    import torch  # the train extra: a missing torch fails here rather than skipping

    from runner.models import load_model_and_tokenizer

    model, tok, _ = load_model_and_tokenizer("tiny:qwen2", None)
    items = arith.train_items(seed=0)[:64]
    torch.manual_seed(0)
    enc = tok([it["prompt"] for it in items], return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**enc, do_sample=True, temperature=1.0, top_k=0, top_p=1.0, max_new_tokens=16,
                             num_return_sequences=4, pad_token_id=tok.pad_token_id)
    texts = tok.batch_decode(out[:, enc.input_ids.shape[1]:], skip_special_tokens=True)
    groups = [[arith.reward(texts[4 * i + j], it) for j in range(4)] for i, it in enumerate(items)]
    zvf = sum(len(set(g)) == 1 for g in groups) / len(groups)
    flat = [r for g in groups for r in g]
    assert 0.05 < zvf < 0.9, zvf
    assert 0 < sum(r == 1.0 for r in flat) < len(flat) / 2  # some exact answers, far from all
    assert 0 < sum(flat) / len(flat) < 0.5

    held = arith.heldout_items(64)
    enc = tok([it["prompt"] for it in held], return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**enc, do_sample=False, max_new_tokens=16, pad_token_id=tok.pad_token_id)
    texts = tok.batch_decode(out[:, enc.input_ids.shape[1]:], skip_special_tokens=True)
    accuracy = sum(arith.correct(t, it) for t, it in zip(texts, held, strict=True)) / len(held)
    assert 0 < accuracy < 1, accuracy


# -- gsm8k ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("so the answer is\n#### 42", "42"),
    ("#### 1,234", "1234"),
    ("#### $1,234.", "1234"),
    ("#### -7", "-7"),
    ("####-$5", "-5"),
    ("#### 12.00", "12"),
    ("#### 12.5", None),
    ("#### 3\nwait, actually\n#### 4", "4"),
    ("#### 3\n####", None),  # the last marker commits to nothing: no fall-back to an earlier one
    ("#### forty", None),
    ("the answer is 42", None),
    ("", None),
    ("#### 007", "7"),
])
def test_gsm8k_parser(text, expected):
    assert final_hashes_integer(text) == expected


@pytest.fixture(scope="module")
def gsm():
    return get_task({"name": "gsm8k", "reward": "exact_int_after_final_hashes"}, GSM)


def test_gsm8k_local_loader(gsm):
    train, held = gsm.train_items(), gsm.heldout_items(3)
    assert [it["answer"] for it in train] == ["29", "270", "8", "1500", "-5", "3"]
    assert [it["answer"] for it in held] == ["7", "720", "850"]
    assert held[0]["id"] == "test:0" and held[0]["prompt"] == gsm.build_prompt(held[0])
    assert held[0]["question"] in held[0]["prompt"] and "####" in held[0]["prompt"]
    with pytest.raises(UserError, match="dataset.heldout_n"):
        gsm.heldout_items(5)
    fp = gsm.dataset_fingerprint()
    assert fp["split_sizes"] == {"train": 6, "heldout": 4} and fp["used"] == {"train": 6, "heldout": 3}
    assert set(fp["files_sha256"]) == {"train", "test"}


def test_gsm8k_reward(gsm):
    item = gsm.heldout_items(3)[1]  # 720
    assert gsm.reward("18*40 = 720\n#### 720", item) == 1.0
    assert gsm.reward("#### $720.", item) == 1.0
    assert gsm.reward("#### 72", item) == 0.0
    assert gsm.reward("720", item) == 0.0
    assert gsm.correct("#### 720", item) and not gsm.correct("#### 7200", item)


def test_gsm8k_split_template_and_parquet(tmp_path):
    import datasets

    for split in ("train", "test"):
        datasets.load_dataset("json", data_files=str(DATA / f"{split}.jsonl"), split="train").to_parquet(
            str(tmp_path / f"{split}-00000-of-00001.parquet"))
    from_parquet = get_task({"name": "gsm8k"}, {**GSM, "path": str(tmp_path)})
    templ_dir = tmp_path / "t"
    templ_dir.mkdir()
    for split in ("train", "test"):
        shutil.copy(DATA / f"{split}.jsonl", templ_dir / f"mini_{split}.jsonl")
    from_template = get_task({"name": "gsm8k"}, {**GSM, "path": str(templ_dir / "mini_{split}.jsonl")})
    reference = get_task({"name": "gsm8k"}, GSM)
    assert from_parquet.heldout_items(3) == reference.heldout_items(3) == from_template.heldout_items(3)


def test_gsm8k_bad_sources_are_one_line_errors(tmp_path):
    with pytest.raises(UserError, match="dataset.path"):
        get_task({"name": "gsm8k"}, {**GSM, "path": str(DATA / "train.jsonl")}).train_items()
    (tmp_path / "train.jsonl").write_text((DATA / "train.jsonl").read_text())
    with pytest.raises(UserError, match="no file for split 'test'"):
        get_task({"name": "gsm8k"}, {**GSM, "path": str(tmp_path)}).train_items()
    with pytest.raises(UserError, match="dataset.revision"):
        get_task({"name": "gsm8k"}, {**GSM, "path": None}).train_items()
    (tmp_path / "test.jsonl").write_text('{"question": "q", "answer": "no marker"}\n')
    with pytest.raises(UserError, match="row 0"):
        get_task({"name": "gsm8k"}, {**GSM, "path": str(tmp_path)}).train_items()


def test_task_base_is_abstract_enough():
    with pytest.raises(NotImplementedError):
        Task({"name": "t"}, {}).train_items()


def test_readme_task_example_runs(tmp_path, monkeypatch):
    """The "Writing a task" example in runner/tasks/README.md is real code."""
    readme = (Path(__file__).parents[1] / "runner" / "tasks" / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "readme_capitals_task.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    task = get_task({"name": "readme_capitals_task:make", "reward": "exact_city"},
                    {"name": "capitals", "revision": None, "train_split": "train", "heldout_split": "test",
                     "heldout_n": 1})
    item = task.heldout_items(1)[0]
    assert item["prompt"] == "The capital of Peru is"
    assert task.correct(" thinking...\nLima", item) and task.reward("Paris", item) == 0.0
    assert "readme_capitals_task" in task.source_fingerprint()["modules"]


def test_gsm8k_train_n_names_the_split():
    full = get_task({"name": "gsm8k"}, GSM).train_items()
    assert get_task({"name": "gsm8k"}, {**GSM, "train_n": 2}).train_items() == full[:2]
    with pytest.raises(UserError, match=r"dataset.train_n: 7 requested but split 'train' has 6 training items"):
        get_task({"name": "gsm8k"}, {**GSM, "train_n": 7}).train_items()


# -- the task and dataset blocks, parsed once -------------------------------------------------
def test_a_task_reads_its_blocks_as_the_typed_studys_values():
    """The task block and the dataset block are parsed once into prereg.study's frozen TaskSpec /
    DatasetSpec (the values the rest of the code reads from ``lock.study``); built from the dicts or
    from the typed values, a task gives the same items and the same manifest parts."""
    from prereg.study import DatasetSpec, TaskSpec

    block = {"name": "arith", "options": {"max_answer": 5}}
    ds = {**ARITH, "train_n": 10}
    from_dicts, from_typed = get_task(block, ds), get_task(block, DatasetSpec.of(ds))
    typed_task = type(from_dicts)(TaskSpec.of(block), DatasetSpec.of(ds))
    assert from_dicts.locked_dataset == DatasetSpec.of(ds) and from_dicts.locked_task == TaskSpec.of(block)
    for other in (from_typed, typed_task):
        assert other.dataset_fingerprint() == from_dicts.dataset_fingerprint()
        assert other.manifest_record() == from_dicts.manifest_record()
        assert other.train_items(3) == from_dicts.train_items(3) and len(from_dicts.train_items()) == 10
    assert dict(typed_task.task_spec) == block and typed_task.options["max_answer"] == 5
    with pytest.raises(TypeError):
        from_dicts.task_spec["options"] = {}  # read-only: the locked block is not edited in place
    # a changed block is a changed task: train_n is read from the typed value
    assert len(get_task(block, {**ds, "train_n": 4}).train_items()) == 4
