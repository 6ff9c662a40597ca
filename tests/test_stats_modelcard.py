"""`stats render --model-cards` / `--hub-dir`: Hugging Face cards the Hub parses and the audit verifies.

A synthetic campaign (real lock, sealed manifests, telemetry and traces; no torch) is analysed and
rendered with cards and an upload folder. The cards are read with huggingface_hub's own
``ModelCard``/``metadata_load``/``model_index_to_eval_results``; ``audit check --strict`` passes them
clean and fails when a number in a card's body or in its YAML ``model-index`` is edited.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from audit.cli import main as audit_main
from prereg.canonical import sha256_file
from prereg.jsonio import read_json
from stats.analyze import analyze, write
from stats.cli import main as stats_main
from stats.hubdir import destination
from stats.synthetic import make_campaign, small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())
PIN = re.compile(r"(?P<text>-?[0-9][0-9.e+\-]*)<!-- id:(?P<id>[A-Za-z0-9_.\-]+) -->")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("cards")
    pre = small_prereg(E1, heldout_n=20, steps=3, seeds=[1, 2, 3])
    pre["analysis"]["resamples"] = 200
    c = make_campaign(root, pre, effects={"gspo": 0.25})
    a = analyze(c.lock_path, c.runs_dir)
    apath = write(a, root / "report" / "analysis.json")
    rc = stats_main(["render", str(apath), "-o", str(root / "report"), "--model-cards", "--hub-dir",
                     str(root / "hub"), "--no-figures"])  # cards hold no figures; test_stats_render draws them
    assert rc == 0
    return {"root": root, "report": root / "report", "hub": root / "hub", "a": a, "runs": c.runs_dir}


def _cards(report: Path) -> list[Path]:
    return sorted((report / "model_cards").glob("*/README.md"))


def test_one_card_per_run_and_one_for_the_study(study):
    names = sorted(p.parent.name for p in _cards(study["report"]))
    runs = sorted(f"{r['arm']}-s{r['seed']}" for r in study["a"]["inputs"]["runs"])
    assert names == sorted([*runs, "study"])


def test_cards_parse_with_huggingface_hub_into_the_runs_eval_results(study):
    from huggingface_hub import ModelCard, metadata_load
    from huggingface_hub.repocard_data import model_index_to_eval_results

    a = study["a"]
    for r in a["inputs"]["runs"]:
        path = study["report"] / "model_cards" / f"{r['arm']}-s{r['seed']}" / "README.md"
        card = ModelCard.load(path)
        assert card.data.base_model == E1["model"]["name"] and card.data.library_name == "peft"
        assert card.data.datasets == [E1["dataset"]["name"]] and card.data.license == "other"
        meta = metadata_load(path)
        assert meta["base_model_revision"] == E1["model"]["revision"]
        assert meta["license_link"] == f"https://huggingface.co/{E1['model']['name']}"  # the adapter inherits it
        assert meta["rlprereg"]["seal"] == r["seal"] and meta["rlprereg"]["lock_hash"] == a["lock"]["hash"]
        name, results = model_index_to_eval_results(meta["model-index"])
        assert name == f"e1-{r['arm']}-s{r['seed']}"
        got = {e.metric_type: e.metric_value for e in results}
        assert set(got) == {"heldout_accuracy", "heldout_correct"}  # held-out metrics, not training summaries
        for metric, value in got.items():
            want = a["values"][f"runs.{r['arm']}.s{r['seed']}.{metric}"]["value"]
            assert value == pytest.approx(want, abs=5e-5), (r["path"], metric)
        assert all(e.dataset_split == E1["dataset"]["heldout_split"] for e in results)
        assert card.text.count("## ") >= 6 and "PeftModel.from_pretrained" in card.text
    study_card = ModelCard.load(study["report"] / "model_cards" / "study" / "README.md")
    assert "model-index" not in study_card.data.to_dict() and "rlprereg" in study_card.data.tags


def test_every_body_number_of_a_run_card_is_pinned(study):
    a = study["a"]
    text = (study["report"] / "model_cards" / "gspo-s1" / "README.md").read_text()
    body = text.split("\n---\n", 1)[1].split("```python")[0]
    pins = PIN.findall(body)
    assert {"runs.gspo.s1.heldout_accuracy", "arms.gspo.heldout_accuracy.mean", "contrasts.gspo-grpo.p_adjusted",
            "lock.training.learning_rate", "lock.arms.gspo.changes.epsilon", "lock.version"} <= {v for _, v in pins}
    unpinned = re.sub(r"<!--.*?-->|`[^`]*`|\[[^\]]*\]\([^)]*\)", "", PIN.sub("", body))
    assert not re.findall(r"(?<![A-Za-z_\-])\d+(?:\.\d+)?(?![A-Za-z_])", unpinned.replace("95%", "").replace(
        "90%", "")), "a number in the card body without a pin"
    assert f"{a['verdicts']['contrasts']['gspo-grpo']['verdict']}<!-- verdict:contrasts.gspo-grpo -->" in body


def test_audit_passes_the_clean_cards(study, tmp_path):
    out = tmp_path / "audit.json"
    assert audit_main(["check", str(study["report"]), "--strict", "--plain", "--json", str(out)]) == 0
    check10 = [c for c in read_json(out)["checks"] if c["name"] == "report"][0]
    n_runs = len(study["a"]["inputs"]["runs"])
    assert f"{2 * n_runs} model-index values of model cards compared with their runs" in check10["notes"]


def _copy_report(study, tmp_path) -> Path:
    rep = tmp_path / "report"
    shutil.copytree(study["report"], rep)
    return rep


def test_audit_fails_a_card_whose_body_number_was_edited(study, tmp_path, capsys):
    rep = _copy_report(study, tmp_path)
    card = rep / "model_cards" / "gspo-s1" / "README.md"
    text = card.read_text()
    want = study["a"]["values"]["runs.gspo.s1.heldout_accuracy"]["value"]
    old = f"| `heldout_accuracy` | {want:.4f}<!-- id:runs.gspo.s1.heldout_accuracy -->"
    assert old in text
    card.write_text(text.replace(old, f"| `heldout_accuracy` | {want + 0.1:.4f}<!-- id:runs.gspo.s1.heldout_accuracy -->"))
    assert audit_main(["check", str(rep), "--plain"]) == 1
    out = capsys.readouterr().out
    line = text[:text.index(old)].count("\n") + 1
    assert f"model_cards/gspo-s1/README.md:{line}" in out


def test_audit_fails_a_card_whose_model_index_value_was_edited(study, tmp_path, capsys):
    rep = _copy_report(study, tmp_path)
    card = rep / "model_cards" / "gspo-s1" / "README.md"
    text = card.read_text()
    m = re.search(r"- type: heldout_accuracy\n\s+name: .*\n\s+value: (\S+)", text)
    edited = f"{float(m.group(1)) + 0.05:.4f}"
    card.write_text(text[:m.start(1)] + edited + text[m.end(1):])
    assert audit_main(["check", str(rep), "--plain"]) == 1
    out = capsys.readouterr().out
    line = text[:m.start(1)].count("\n") + 1
    assert f"model_cards/gspo-s1/README.md:{line}: model-index value differs from the run's value" in out
    assert f"heldout_accuracy: {edited}" in out


def test_audit_fails_a_card_naming_another_runs_seal(study, tmp_path, capsys):
    rep = _copy_report(study, tmp_path)
    card = rep / "model_cards" / "grpo-s2" / "README.md"
    seal = read_json(study["runs"] / "e1" / "grpo" / "s2" / "manifest.json")["seal"]
    card.write_text(card.read_text().replace(f"  seal: {seal}", "  seal: " + "0" * 64))
    assert audit_main(["check", str(rep), "--plain"]) == 1
    assert "model card of grpo/s2 names another seal" in capsys.readouterr().out


def test_hub_folders_hold_what_a_user_uploads(study):
    hub, a = study["hub"], study["a"]
    index = (hub / "README.md").read_text()
    assert a["lock"]["hash"] in index and "huggingface-cli upload <namespace>/e1-gspo-s1 e1-gspo-s1 ." in index
    for r in a["inputs"]["runs"]:
        folder = hub / f"e1-{r['arm']}-s{r['seed']}"
        run_dir = study["runs"] / r["path"]
        manifest = read_json(run_dir / "manifest.json")
        assert (folder / "README.md").read_bytes() == \
            (study["report"] / "model_cards" / f"{r['arm']}-s{r['seed']}" / "README.md").read_bytes()
        assert (folder / "rlprereg" / "manifest.json").read_bytes() == (run_dir / "manifest.json").read_bytes()
        for rel, entry in manifest["artifacts"].items():
            assert sha256_file(folder / destination(rel)) == entry["sha256"], rel
        files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        assert files == {"README.md", "rlprereg/manifest.json"} | {destination(rel) for rel in manifest["artifacts"]}
        assert "adapter_model.safetensors" in files and "rlprereg/telemetry.jsonl" in files
        assert a["lock"]["hash"] in (folder / "README.md").read_text()


def test_hub_dir_refuses_a_tampered_run_and_writes_nothing(study, tmp_path, capsys):
    runs = tmp_path / "runs"
    shutil.copytree(study["runs"], runs)
    (runs / "e1" / "grpo" / "s1" / "telemetry.jsonl").write_text("{}\n")
    apath = study["report"] / "analysis.json"
    rc = stats_main(["render", str(apath), "-o", str(tmp_path / "out"), "--runs", str(runs),
                     "--hub-dir", str(tmp_path / "hub")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "telemetry.jsonl: missing or not the file its manifest digests" in err[0]
    assert not (tmp_path / "hub").exists() and not (tmp_path / "out").exists()


def test_model_cards_without_the_runs_folder_is_one_line(study, tmp_path, capsys):
    rc = stats_main(["render", str(study["report"] / "analysis.json"), "-o", str(tmp_path / "out"),
                     "--runs", str(tmp_path / "nowhere"), "--model-cards"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "nowhere" in err[0]
    assert not (tmp_path / "out").exists()


def test_model_cards_refuse_a_lock_that_is_not_the_analysed_one(study, tmp_path, capsys):
    from prereg.jsonio import write_json_atomic
    from prereg.lock import build_lock

    other = small_prereg(E1, heldout_n=21, steps=3, seeds=[1, 2, 3])
    write_json_atomic(tmp_path / "other.lock.json", build_lock(other))
    rc = stats_main(["render", str(study["report"] / "analysis.json"), "-o", str(tmp_path / "out"),
                     "--model-cards", "--lock", str(tmp_path / "other.lock.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "is not the analysed one" in err[0]


def test_card_license_is_the_users_choice():
    from stats.modelcard import license_fields

    assert license_fields("Qwen/Qwen3-8B", "apache-2.0") == {"license": "apache-2.0"}
    assert license_fields("tiny:qwen2", None) == {"license": "other", "license_name": "same-as-base-model"}


def test_model_cards_of_an_imported_table_are_refused_in_one_line(tmp_path, capsys):
    from prereg.jsonio import write_json_atomic
    from prereg.lock import build_lock

    pre = small_prereg(E1, heldout_n=20, steps=3, seeds=[1, 2, 3])
    pre["analysis"]["resamples"] = 200
    lock = tmp_path / "e1.lock.json"
    write_json_atomic(lock, build_lock(pre))
    rows = ["arm,seed,heldout_accuracy"] + [f"{arm},{s},{0.5 + 0.01 * s:.4f}" for arm in pre["arms"]
                                             for s in pre["seeds"]]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    apath = write(analyze(lock, tmp_path / "t.csv"), tmp_path / "a" / "analysis.json")
    rc = stats_main(["render", str(apath), "-o", str(tmp_path / "out"), "--model-cards"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == ["error: --model-cards: the analysis is of an imported table; cards need the run folders"]
    assert not (tmp_path / "out").exists()


def test_cards_read_the_analysis_as_typed_values(study):
    """The card renderer reads runs, contrasts, verdicts and deviations from the typed
    AnalysisResult (stats.result), the same values analysis.json holds."""
    from stats.result import AnalysisResult

    a = study["a"]
    r = AnalysisResult.from_document(a)
    assert [(x.arm, x.seed, x.seal) for x in r.runs] == [(x["arm"], x["seed"], x["seal"]) for x in a["inputs"]["runs"]]
    assert list(r.contrasts) == a["contrasts"] and r.baseline == a["baseline"]
    assert r.lock_version == a["lock"]["version"] and r.lock_path == a["lock"]["path"]
    assert [(d.kind, d.detail) for d in r.deviations] == [(d["kind"], d["detail"]) for d in a["deviations"]]
    assert {c: v.verdict for c, v in r.contrasts.items()} == {
        c: a["verdicts"]["contrasts"][c]["verdict"] for c in a["contrasts"]}
    assert r.value_ids("runs.gspo.s1.")[0].startswith("runs.gspo.s1.")
    # the parts render reads typed too: study verdict, hypothesis records, runs folder, exclusions
    assert (r.study.verdict, r.study.confirmatory) == (a["verdicts"]["study"]["verdict"],
                                                       a["verdicts"]["study"].get("confirmatory"))
    assert r.study_verdict == r.study.verdict and r.source == a["source"] == "runs"
    assert r.runs_root == a["inputs"]["root"]
    assert [(x.path, x.reason) for x in r.excluded] == [(x.get("path"), x["reason"]) for x in a["inputs"]["excluded"]]
    hyps = a["verdicts"]["hypotheses"]
    assert hyps and list(r.hypothesis_verdicts) == list(hyps)
    assert {h: (v.verdict, v.contrast, v.metric, v.confirmatory, v.scope) for h, v in r.hypothesis_verdicts.items()} \
        == {h: (v.get("verdict"), v.get("contrast"), v.get("metric"), v.get("confirmatory"), v.get("scope"))
            for h, v in hyps.items()}
    assert r.evidence_class == a["evidence_class"] and r.sessions == tuple(a.get("sessions") or ())
    assert dict(r.metric_units) == a["metric_units"]
    for kind, typed in (("contrasts", r.contrast_verdicts), ("secondary", r.secondary_verdicts)):
        assert {k: (v.verdict, v.confirmatory) for k, v in typed.items()} == {
            k: (x.get("verdict"), x.get("confirmatory")) for k, x in (a["verdicts"].get(kind) or {}).items()}
    assert {c: (x.arm, x.baseline, x.design, x.unit, x.method, x.note, x.confirmatory)
            for c, x in r.contrast_designs.items()} == {
        c: (x["arm"], x["baseline"], x["design"], x["unit"], x["method"], x.get("note"), x.get("confirmatory"))
        for c, x in a["contrast_designs"].items()}


def test_result_docstring_example_holds():
    import doctest

    import stats.result

    res = doctest.testmod(stats.result)
    assert res.attempted >= 1 and res.failed == 0
