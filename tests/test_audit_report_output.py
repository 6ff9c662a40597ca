"""What `audit check` says about report numbers and about findings that follow from others:
one status per number with counts (traced, value-only, label, error, untraced, in code, comment,
front matter), a traceability table in --json/--html, and root causes first (README failure 10)."""

from __future__ import annotations

import json

import pytest
from audit_defects import copy_campaign

from audit.cli import main
from audit.engine import run_audit
from audit.output import plain_text


@pytest.fixture(scope="module")
def clean(clean_campaign):
    return clean_campaign


def _flip_one_byte(camp, arm="gspo", seed=37):
    """Change one digit of one summary in one manifest (still valid JSON; the seal no longer holds)."""
    p = camp.run_dir(arm, seed) / "manifest.json"
    s = p.read_text()
    i = s.index('"heldout_correct"')
    j = i + s[i:].index(":") + 2
    p.write_text(s[:j] + ("3" if s[j] != "3" else "2") + s[j + 1:])


def test_one_flipped_byte_leads_with_its_root_cause_and_counts_consequences(clean, tmp_path, capsys):
    camp = copy_campaign(clean, tmp_path / "flip")
    _flip_one_byte(camp)
    res = run_audit(camp.report)
    roots = res.root_causes
    assert len(roots) == 1
    root, n = roots[0]
    assert root.check == "2" and "seal does not match" in root.message and "gspo/s37" in root.location
    top = [f for f in res.errors if not f.cause]
    assert n >= 50 and len(top) == 1 and n + 1 == len(res.errors)   # the seal, and everything that follows from it
    assert {f.check for f in res.consequences} <= {"3", "7", "9"}
    text = plain_text(res)
    assert text.startswith("root causes (1;") and f"-> {n} consequence(s)" in text
    assert "listed with --all" in text and text.count("    error: ") == 1
    assert plain_text(res, show_all=True, max_per_check=10**6).count("    error: ") == len(res.errors)
    j = tmp_path / "a.json"
    assert main(["check", str(camp.report), "--json", str(j), "--all", "--plain"]) == 1
    d = json.loads(j.read_text())
    assert d["root_causes"][0]["consequences"] == n
    assert sum(1 for c in d["checks"] for f in c["findings"] if f["cause"]) == n


def test_an_analysis_edit_beside_a_broken_run_stays_a_root_of_its_own(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "two")
    _flip_one_byte(camp)
    a = json.loads((camp.report / "analysis.json").read_text())
    vid = next(k for k, v in a["values"].items() if k.startswith("arms.dapo.") and v.get("inputs")
               and isinstance(v.get("value"), float))
    a["values"][vid]["value"] += 0.125
    (camp.report / "analysis.json").write_text(json.dumps(a, indent=2))
    res = run_audit(camp.report, only=["2", "9"])
    top = [f for f in res.errors if not f.cause]
    assert any(vid in f.location for f in top), [f.location for f in top]


def test_clean_campaign_counts_every_number_and_lists_each_in_json_and_html(clean, tmp_path, capsys):
    j, h = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["check", str(clean.report), "--json", str(j), "--html", str(h), "--plain"]) == 0
    out = capsys.readouterr().out
    d = json.loads(j.read_text())
    c = d["numbers"]
    assert c["seen"] == len(d["traceability"]) > 300 and c["error"] == 0 and c["untraced"] == 0
    assert c["seen"] == sum(c[k] for k in ("traced", "value-only", "label", "error", "untraced", "in code",
                                          "comment", "front matter"))
    assert f"numbers: {c['seen']} seen: {c['traced']} traced" in out
    row = next(r for r in d["traceability"] if r["status"] == "traced" and r["source"].startswith("arms."))
    assert set(row) >= {"location", "text", "status", "source", "source_value", "rule"} and row["rule"]
    page = h.read_text()
    assert page.split("<h2>Every number in the report</h2>")[1].count("<tr><td>") == c["seen"]


def test_code_comments_and_front_matter_are_counted_and_strict_covers_code(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "card")
    (camp.report / "card.md").write_text(
        "---\nlicense: apache-2.0\nnote: 0.9 of an epoch\n---\n# Card\n\n"
        "```note``` numbers below come from the run\n\n"
        "Run with `lr = 0.12345` and:\n\n```bash\npython train.py --beta 0.04\n```\n\n<!-- draft: 0.777 -->\n")
    base = run_audit(clean.report).number_counts
    res = run_audit(camp.report)
    c = res.number_counts
    assert (c["in code"] - base["in code"], c["comment"] - base["comment"],
            c["front matter"] - base["front matter"]) == (2, 1, 1)
    assert [f for f in res.findings if f.check == "10" and "card.md" in f.location] == []
    strict = run_audit(camp.report, strict=True)
    said = [(f.found, f.message) for f in strict.findings if f.check == "10"]
    assert ("0.12345", "number in code untraced (--strict)") in said
    assert all(found not in ("0.777", "0.9") for found, _ in said)
