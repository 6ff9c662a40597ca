"""`stats render` and `stats coverage`: pinned numbers, units per column, figures, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prereg.canonical import sha256_file
from stats.analyze import analyze, write
from stats.cli import main
from stats.render import fmt, macro_name
from stats.synthetic import make_campaign, small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())
CELL = re.compile(r"(?P<text>-?[0-9][0-9.e+\-]*|n/a|true|false)<!-- id:(?P<id>[A-Za-z0-9_.\-]+) -->")
MACRO = re.compile(r"^\\newcommand\{\\(?P<name>[A-Za-z]+)\}\{(?P<text>[^}]*)\} % id: (?P<id>\S+)$")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("render")
    pre = small_prereg(E1, heldout_n=50, steps=5, seeds=[1, 2, 3, 4])
    pre["analysis"]["resamples"] = 1000
    pre["analysis"]["contrasts"]["item_level"] = "mcnemar"
    c = make_campaign(root, pre, effects={"gspo": 0.25})
    a = analyze(c.lock_path, c.runs_dir)
    apath = write(a, root / "report" / "analysis.json")
    assert main(["render", str(apath), "-o", str(root / "report")]) == 0
    return root / "report", a, apath


def test_every_markdown_number_is_pinned_and_matches(rendered):
    out, a, apath = rendered
    md = (out / "report.md").read_text()
    first = md.splitlines()[0]
    assert first == (f"<!-- rlprereg-analysis sha256={sha256_file(apath)} study=e1 lock={a['lock']['hash']} -->")
    cells = CELL.findall(md)
    assert len(cells) > 100
    for text, vid in cells:
        if vid.startswith("lock."):   # the header's resamples and RNG seed are pinned to the lock
            assert vid in ("lock.analysis.resamples", "lock.analysis.rng_seed")
            continue
        rec = a["values"][vid]
        assert text == fmt(rec), vid
        if isinstance(rec["value"], float) and "e" not in text:
            decimals = len(text.split(".")[1]) if "." in text else 0
            assert abs(float(text) - rec["value"]) <= 0.5 * 10 ** -decimals + 1e-12
    ids = {vid for _, vid in cells}
    for must in ("contrasts.gspo-grpo.p_adjusted", "contrasts.gspo-grpo.ci95.low", "runs.gspo.s3.heldout_accuracy",
                 "arms.gspo.heldout_accuracy.mean", "contrasts.gspo-grpo.item.mcnemar.p"):
        assert must in ids
    assert f"{a['verdicts']['contrasts']['gspo-grpo']['verdict']}<!-- verdict:contrasts.gspo-grpo -->" in md


def test_one_unit_per_column(rendered):
    out, a, _ = rendered
    for table in re.findall(r"((?:^\|.*\|\n)+)", (out / "report.md").read_text(), flags=re.M):
        rows = [r.strip().strip("|").split(" | ") for r in table.strip().splitlines()]
        head, body = rows[0], rows[2:]
        for j, h in enumerate(head):
            units = set()
            for r in body:
                units |= {a["values"][vid]["unit"] for _, vid in CELL.findall(r[j])}
            # difference columns hold differences of the primary metric; others exactly one unit
            assert len(units) <= 1, (h, units)
            if units:
                assert "(" in h and ")" in h, h


def test_latex_macros(rendered):
    out, a, apath = rendered
    tex = (out / "results.tex").read_text().splitlines()
    assert tex[0].startswith(f"% rlprereg-analysis sha256={sha256_file(apath)}")
    macros = {}
    for line in tex:
        m = MACRO.match(line)
        if m:
            macros[m["name"]] = (m["id"], m["text"])
    assert set(v[0] for v in macros.values()) == set(a["values"])
    for name, (vid, text) in macros.items():
        assert name == macro_name(vid) and text == fmt(a["values"][vid])
    assert macro_name("arms.gspo.heldout_accuracy.mean") == "armsGspoHeldoutAccuracyMean"
    assert macro_name("contrasts.gspo-grpo.ci95.low") == "contrastsGspoVsGrpoCiNineFiveLow"
    body = "\n".join(tex)
    assert "\\contrastsGspoVsGrpoPAdjusted" in body.split("\\begin{table}")[2]
    assert re.search(r"\\newcommand\{\\verdictGspoVsGrpo\}\{[A-Z\\_]+\} % verdict: contrasts.gspo-grpo", body)


def test_figures_are_pngs(rendered):
    out, *_ = rendered
    for name in ("forest.png", "reward_curves.png", "zvf_curves.png"):
        data = (out / "figures" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_no_figures_writes_the_same_text_and_no_png(rendered, tmp_path):
    """`--no-figures`: report.md and results.tex only; the numbers are the figure render's, the
    figures section gives way to a warning, and the audit passes the report strictly."""
    out, a, apath = rendered
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "analysis.json").write_bytes(apath.read_bytes())
    assert main(["render", str(bare / "analysis.json"), "-o", str(bare), "--no-figures"]) == 0
    assert sorted(p.name for p in bare.iterdir()) == ["analysis.json", "report.md", "results.tex"]
    assert (bare / "results.tex").read_bytes() == (out / "results.tex").read_bytes()
    md, full = (bare / "report.md").read_text(), (out / "report.md").read_text()
    assert "## Figures" in full and "## Figures" not in md and "figures: not drawn (--no-figures)" in md
    assert CELL.findall(md) == CELL.findall(full)
    head = full.split("## Warnings")[0]
    assert md.startswith(head)
    from audit.cli import main as audit_main

    assert audit_main(["check", str(bare), "--lock", a["lock"]["path"], "--runs", a["inputs"]["root"],
                       "--strict"]) == 0


def test_render_refuses_overwrite_and_bad_input(rendered, tmp_path, capsys):
    out, _, apath = rendered
    before = (out / "report.md").read_bytes()
    assert main(["render", str(apath), "-o", str(out)]) == 2
    assert (out / "report.md").read_bytes() == before
    (tmp_path / "bad.json").write_text('{"values": {}}')
    assert main(["render", str(tmp_path / "bad.json"), "-o", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("error: ") for e in err)


def test_render_imported_notes_missing_curves(tmp_path):
    from prereg.jsonio import write_json_atomic
    from prereg.lock import build_lock

    pre = small_prereg(E1, heldout_n=50, steps=5, seeds=[1, 2, 3])
    lk = build_lock(pre, now="2026-01-01T00:00:00.000000Z")
    write_json_atomic(tmp_path / "l.json", lk)
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},{0.4 + 0.05 * s}" for a in pre["arms"] for s in (1, 2, 3)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    apath = write(analyze(tmp_path / "l.json", tmp_path / "t.csv"), tmp_path / "a.json")
    assert main(["render", str(apath), "-o", str(tmp_path / "r")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert "source: **imported**" in md and "curves not drawn" in md
    assert (tmp_path / "r" / "figures" / "forest.png").exists()


def test_coverage_cli_small(tmp_path, capsys):
    js = tmp_path / "cov.json"
    assert main(["coverage", "--reps", "60", "--resamples", "200", "--seeds", "3,8", "--json", str(js),
                 "--md", str(tmp_path / "cov.md")]) == 0
    tab = json.loads(js.read_text())
    assert {r["n"] for r in tab["rows"]} == {3, 8}
    methods = {(r["dist"], r["method"]) for r in tab["rows"]}
    assert ("bounded", "hierarchical_bootstrap") in methods and ("lognormal", "bca") in methods
    t8 = {r["method"]: r["coverage"] for r in tab["rows"] if r["dist"] == "normal" and r["n"] == 8}
    assert t8["t"] > 0.85  # a t interval on normal data covers near nominal even with 60 reps
    assert "| bounded | percentile |" in (tmp_path / "cov.md").read_text()
    assert main(["coverage", "--seeds", "3,x"]) == 2
    assert "--seeds" in capsys.readouterr().err


def test_shipped_table_shows_small_n_undercoverage():
    """The shipped Monte-Carlo table (stats coverage --write-table) backs the analysis warnings."""
    from stats.coverage import load_table

    cov = {(r["dist"], r["method"], r["n"]): r["coverage"] for r in load_table()["rows"]
           if r.get("stat", "mean") == "mean" and r.get("level", 0.95) == 0.95}
    assert cov[("normal", "percentile", 3)] < 0.85 < cov[("normal", "t", 3)]
    assert cov[("normal", "t", 20)] > 0.93


def test_rendered_report_passes_the_audit_strictly(rendered):
    """Contract with the audit: every rendered number traces to analysis.json (skipped without audit)."""
    audit_cli = pytest.importorskip("audit.cli")
    out, a, _ = rendered
    lock = Path(a["lock"]["path"])
    runs = Path(a["inputs"]["root"])
    assert audit_cli.main(["check", str(out), "--lock", str(lock), "--runs", str(runs), "--strict"]) == 0


def test_manifest_that_is_not_an_object_is_a_note_not_a_traceback(tmp_path, capsys):
    pre = small_prereg(E1, heldout_n=50, steps=5, seeds=[1, 2, 3])
    pre["analysis"]["resamples"] = 200  # the note is under test, not the intervals
    c = make_campaign(tmp_path, pre)
    apath = write(analyze(c.lock_path, c.runs_dir), tmp_path / "report" / "analysis.json")
    unit = next(iter(sorted(Path(c.runs_dir).rglob("manifest.json")))).parent
    (unit / "manifest.json").write_text("[1]")  # damaged after the analysis
    assert main(["render", str(apath), "-o", str(tmp_path / "r")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert f"{unit.name}: manifest is not a JSON object; not plotted" in md


def test_output_folder_that_is_a_file_is_one_line(rendered, tmp_path, capsys):
    _, _, apath = rendered
    blocker = tmp_path / "report"
    blocker.write_text("keep me")
    assert main(["render", str(apath), "-o", str(blocker)]) == 2
    assert capsys.readouterr().err == f"error: {blocker}: is a file, expected a folder\n"
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("argv", [["bogus"], ["analyze"], ["render", "a.json", "--bogus"]])
def test_usage_errors_are_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err


def test_unreadable_analysis_is_one_line(rendered, tmp_path, capsys, monkeypatch):
    import pathlib

    _, _, apath = rendered

    def refusing(real):  # chmod 000 does not stop root; refuse reads of this one file instead
        def read(p, *a, **k):
            if p == pathlib.Path(apath):
                raise PermissionError(13, "Permission denied", str(p))
            return real(p, *a, **k)
        return read

    monkeypatch.setattr(pathlib.Path, "read_text", refusing(pathlib.Path.read_text))
    monkeypatch.setattr(pathlib.Path, "read_bytes", refusing(pathlib.Path.read_bytes))
    assert main(["render", str(apath), "-o", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == f"error: {apath}: cannot read (Permission denied)\n"


def test_one_rule_says_which_contrasts_are_exploratory(rendered):
    """AnalysisResult.exploratory_contrast is the one rule the report's row labels and the LaTeX
    verdict macro names read: a contrast declared exploratory, or any contrast of an exploratory study."""
    import copy

    from stats.render import _label_row, _verdict_tex_name
    from stats.result import AnalysisResult

    def doc(evidence_class, confirmatory):  # the rendered study's analysis with one contrast's design edited
        d = copy.deepcopy(rendered[1])
        d["evidence_class"] = evidence_class
        design = d["contrast_designs"]["gspo-grpo"]
        design.pop("confirmatory", None)
        if confirmatory is not None:
            design["confirmatory"] = confirmatory
        del d["contrast_designs"]["dapo-grpo"]
        return AnalysisResult.from_document(d)

    for ec, conf, expl, label in [("confirmatory", None, False, "`gspo-grpo`"),
                                  ("confirmatory", False, True, "`gspo-grpo` (exploratory)"),
                                  ("exploratory", None, True, "`gspo-grpo`"),   # the study banner says it
                                  ("exploratory", False, True, "`gspo-grpo`")]:
        r = doc(ec, conf)
        assert r.exploratory_contrast("gspo-grpo") is expl and _label_row(r, "gspo-grpo") == label
        assert _verdict_tex_name(r, "gspo-grpo").startswith("exploratory") is expl
    assert not doc("confirmatory", None).exploratory_contrast("dapo-grpo")  # no design recorded
