"""`stats render` reads analysis.json once, into the typed result (stats.result.read_analysis).

A renamed, missing or mistyped field is one line naming the file and the field (exit 2, nothing
written), never a KeyError inside a renderer; and rendering the typed result that
``stats.analyze`` returns writes the same bytes as rendering the file it writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereg.canonical import sha256_file
from prereg.errors import UserError
from stats import analyze, render
from stats.cli import main
from stats.render import fmt, latex, markdown
from stats.result import AnalysisResult, Value, read_analysis
from stats.synthetic import make_campaign, small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("typed")
    pre = small_prereg(E1, heldout_n=40, steps=4, seeds=[1, 2, 3])
    pre["analysis"]["resamples"] = 300
    pre["analysis"]["contrasts"]["item_level"] = "mcnemar"
    c = make_campaign(root, pre, effects={"gspo": 0.25})
    result = analyze(c.lock_path, c.runs_dir)
    apath = result.write(root / "file" / "analysis.json")
    return c, result, apath


def _broken(apath: Path, tmp_path: Path, edit) -> Path:
    doc = json.loads(apath.read_text())
    edit(doc)
    out = tmp_path / "analysis.json"
    out.write_text(json.dumps(doc))
    return out


def _drop(*keys):
    def edit(doc):
        for k in keys[:-1]:
            doc = doc[k]
        del doc[keys[-1]]
    return edit


def _set(value, *keys):
    def edit(doc):
        for k in keys[:-1]:
            doc = doc[k]
        doc[keys[-1]] = value
    return edit


def _rename(old, new):
    def edit(doc):
        doc[new] = doc.pop(old)
    return edit


def _first_trail_check(doc):
    del doc["verdicts"]["contrasts"]["gspo-grpo"]["trail"][0]["checks"][0]["check"]


@pytest.mark.parametrize("edit,field", [
    (_drop("arms"), "$: 'arms' is a required property"),
    (_rename("contrasts", "contrast_ids"), "$: 'contrasts' is a required property"),
    (_set("gspo", "arms"), "$.arms: 'gspo' is not of type 'array'"),
    (_drop("verdicts", "study"), "$.verdicts: 'study' is a required property"),
    (_drop("verdicts", "contrasts"), "$.verdicts: 'contrasts' is a required property"),
    (_set(7, "lock", "hash"), "$.lock.hash: 7 is not of type 'string'"),
    (_drop("values", "study.n_seeds", "unit"), "$.values.study.n_seeds: 'unit' is a required property"),
    (_set(3, "contrast_designs", "gspo-grpo", "unit"), "$.contrast_designs.gspo-grpo.unit: 3 is not of type 'string'"),
    (_first_trail_check, "$.verdicts.contrasts.gspo-grpo.trail[0].checks[0]: 'check' is a required property"),
    (_set("many", "plan", "resamples"), "$.plan.resamples: 'many' is not of type 'integer'"),
    (_drop("plan", "primary_metric"), "$.plan: 'primary_metric' is a required property"),
])
def test_malformed_analysis_is_one_line_naming_the_field(campaign, tmp_path, capsys, edit, field):
    _, _, apath = campaign
    bad = _broken(apath, tmp_path, edit)
    out = tmp_path / "report"
    assert main(["render", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: {field}") and err.count("\n") == 1, err
    assert not out.exists()  # refused before anything was written
    with pytest.raises(UserError, match="^" + str(bad)):  # the library raises; only the CLI prints
        read_analysis(bad)


def test_the_well_formed_file_reads_into_typed_values(campaign):
    _, result, apath = campaign
    r = read_analysis(apath)
    doc = json.loads(apath.read_text())
    assert r.digest == sha256_file(apath) and result.digest is None
    assert r.arms == tuple(doc["arms"]) and list(r.contrasts) == doc["contrasts"] and r.baseline == doc["baseline"]
    assert set(r.values) == set(doc["values"])
    for vid, rec in doc["values"].items():
        v = r.values[vid]
        assert isinstance(v, Value) and (v.value, v.unit, v.method) == (rec["value"], rec["unit"], rec["method"])
        assert fmt(v) == fmt(rec)  # one formatting rule, typed record or the file's
    assert r.plan.primary_metric == doc["plan"]["primary_metric"] and r.plan.resamples == 300


def test_render_of_the_typed_result_equals_render_of_the_file(campaign, tmp_path):
    c, result, apath = campaign
    typed = render(result, tmp_path / "typed", figures=False, model_cards=True, runs_root=c.runs_dir,
                   lock=c.lock_path)
    from_file = render(apath, tmp_path / "file", figures=False, model_cards=True, runs_root=c.runs_dir,
                       lock=c.lock_path)
    assert [p.relative_to(tmp_path / "typed") for p in typed] == [p.relative_to(tmp_path / "file") for p in from_file]
    assert len(typed) > 3  # report.md, results.tex, the study card and one card per run
    for a, b in zip(typed, from_file, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    # the API wrote the typed result's analysis.json: the same bytes, so the same pinned digest
    assert (tmp_path / "typed" / "analysis.json").read_bytes() == apath.read_bytes()
    md = (tmp_path / "file" / "report.md").read_text()
    assert md.splitlines()[0].startswith(f"<!-- rlprereg-analysis sha256={sha256_file(apath)} ")


def test_markdown_and_latex_read_the_typed_result_only(campaign):
    """The section writers take the typed result: the in-memory result and the file's read give one text."""
    _, result, apath = campaign
    r = read_analysis(apath)
    assert markdown(result, "d", [], []) == markdown(r, "d", [], [])
    assert latex(result, "d") == latex(r, "d")
    assert r.value("no.such.id") is None and r.unit("no.such.id", "fraction") == "fraction"


@pytest.mark.parametrize("edit,field", [
    (_drop("baseline"), "$: 'baseline' is a required property"),
    (_drop("inputs", "runs"), "$.inputs: 'runs' is a required property"),
    (_drop("verdicts", "study", "verdict"), "$.verdicts.study: 'verdict' is a required property"),
    (_set("ten", "lock", "version"), "$.lock.version: 'ten' is not of type 'integer'"),
    (_drop("plan", "rng_seed"), "$.plan: 'rng_seed' is a required property"),
])
def test_a_document_missing_what_the_readers_read_is_refused_in_memory_too(campaign, edit, field):
    """AnalysisResult.from_document is strict (not only read_analysis): a hand-built or edited document
    missing a field render or the audit reads is one line naming its source and the field."""
    _, result, apath = campaign
    doc = json.loads(apath.read_text())
    assert AnalysisResult.from_document(doc).arms == result.arms  # the well-formed document reads
    edit(doc)
    with pytest.raises(UserError) as e:
        AnalysisResult.from_document(doc, source="hand-built")
    assert str(e.value).startswith(f"hand-built: {field}") and "\n" not in str(e.value)
    with pytest.raises(UserError, match="^analysis document: "):  # named even when no source is given
        AnalysisResult.from_document(doc)
