"""The planted-defect corpus: a clean campaign, and functions that each break a copy in ONE way.

Each defect names the check(s) that must catch it (``DEFECTS[name] = (function, checks)``).
``tests/test_audit_defects.py`` runs every defect and also asserts that every registered
check is fired by at least one defect and by nothing in the clean campaign (README
failure 13: a check that cannot fail). The clean campaign is the synthetic generator +
``stats analyze`` + ``stats render`` + a hand-written notes report that uses table context,
percent columns and prose (conventions other than the renderer's pins).
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from prereg.canonical import sha256_json
from prereg.jsonio import read_json, write_atomic, write_json_atomic
from prereg.lock import build_lock
from prereg.records import HELDOUT_TRACE, MANIFEST, TELEMETRY, TRAIN_TRACE, artifact_digests, write_manifest
from prereg.summaries import compute_summaries

REPO = Path(__file__).resolve().parents[1]
STUDY = "e1s"
ARMS = ("grpo", "dapo", "gspo")
SEEDS = [11, 23, 37]
LOCK_REL = f"locks/{STUDY}.lock.json"


def study_prereg(*, gspo_on_policy: bool = False) -> dict:
    from stats.synthetic import small_prereg

    base = json.loads((REPO / "examples" / "e1.json").read_text())
    p = small_prereg(base, heldout_n=50, steps=12, seeds=list(SEEDS))
    p["id"] = STUDY
    p["arms"] = {k: v for k, v in p["arms"].items() if k in ARMS}
    p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] in p["arms"]]
    p["analysis"]["multiplicity"]["family"] = ["dapo-grpo", "gspo-grpo"]
    p["analysis"]["resamples"] = 1000
    if gspo_on_policy:
        ch = p["arms"]["gspo"]["changes"]
        ch.pop("num_iterations", None)
        ch.pop("steps_per_generation", None)
    return p


@dataclass
class Campaign:
    root: Path

    @property
    def lock(self) -> Path:
        return self.root / LOCK_REL

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def report(self) -> Path:
        return self.root / "report"

    def run_dir(self, arm: str, seed: int) -> Path:
        return self.runs / STUDY / arm / f"s{seed}"

    @property
    def notes(self) -> Path:
        return self.report / "notes.md"


@contextlib.contextmanager
def chdir(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def build_clean(root: Path, *, prereg: dict | None = None, figures: bool = True) -> Campaign:
    """Lock + 3 arms x 3 seeds x 50 items, analysed and rendered (with its figures unless
    ``figures=False``: a caller that replaces the rendered report), with relative paths."""
    from stats.synthetic import make_campaign

    root.mkdir(parents=True, exist_ok=True)
    with chdir(root):
        make_campaign(".", prereg or study_prereg(), effects={"dapo": 0.03, "gspo": 0.06}, rng_seed=1)
    camp = Campaign(root)
    reanalyze(camp, render=True, figures=figures)
    return camp


def reanalyze(camp: Campaign, *, render: bool = True, figures: bool = False) -> dict:
    """Recompute analysis.json (and the rendered report) from the records as they are now.

    A re-render draws no figures unless asked (``stats render --no-figures``): the audit reads
    the text, and drawing is most of a render's time; the clean campaign has its figures.
    """
    from stats.analyze import analyze, write
    from tests.report_corpus.corpus import seed_recompute

    with chdir(camp.root):
        a = analyze(LOCK_REL, "runs")
        write(a, "report/analysis.json", overwrite=True)
        seed_recompute(LOCK_REL, "runs", a)  # check 9's recomputation of these records, in a test session
        if render:
            try:
                from stats.render import render as _render
            except ImportError:
                _render = None
            if _render is not None:
                _render("report/analysis.json", "report", overwrite=True, figures=figures)
    if render:
        write_atomic(camp.notes, notes_report(a))
    return a


def _f(x: float, d: int) -> str:
    s = f"{x:.{d}f}"
    return s.replace("-", "−") if s.startswith("-") and float(s) != 0 else s.lstrip("-")


def notes_report(a: dict) -> str:
    """A hand-written report: no pins in tables, context decides (row = arm/contrast/run, column = metric)."""
    v = {k: r["value"] for k, r in a["values"].items()}
    prereg = a["plan"]
    arms = a["arms"]
    lines = ["# E1s notes (confirmatory)", "",
             f"We registered {len(arms)} arms and {len(SEEDS)} seeds; every run was evaluated on the same held-out "
             f"items with {prereg['resamples']}<!-- id:lock.analysis.resamples --> bootstrap resamples.", "",
             "| Quantity | Value |", "|---|---|",
             "| Held-out items per run | 50 |",
             f"| Seeds | {len(SEEDS)} |", "",
             "Held-out accuracy by arm (fraction of items, mean over seeds).", "",
             "| Arm | Held-out accuracy | 95% CI | SD |", "|---|---|---|---|"]
    for arm in arms:
        b = f"arms.{arm}.heldout_accuracy"
        lines.append(f"| {arm.upper()} | {_f(v[b + '.mean'], 3)} | [{_f(v[b + '.mean.ci95.low'], 3)}, "
                     f"{_f(v[b + '.mean.ci95.high'], 3)}] | {_f(v[b + '.sd'], 3)} |")
    lines += ["", "Paired contrasts in percentage points.", "",
              "| Comparison | Δ accuracy (%) | 95% CI (%) | p (adjusted) |", "|---|---|---|---|"]
    for c in a["contrasts"]:
        arm, base = c.split("-")
        pre = f"contrasts.{c}"
        lines.append(f"| {arm.upper()} − {base.upper()} | {_f(100 * v[pre + '.diff_mean'], 1)} | "
                     f"[{_f(100 * v[pre + '.ci95.low'], 1)}, {_f(100 * v[pre + '.ci95.high'], 1)}] | "
                     f"{_f(v[pre + '.p_adjusted'], 3)} |")
    lines += ["", "Per seed (percent of items correct).", "", "| Arm | Seed | Held-out accuracy (%) |", "|---|---|---|"]
    for arm in arms:
        for s in SEEDS:
            lines.append(f"| {arm} | s{s} | {_f(100 * v[f'runs.{arm}.s{s}.heldout_accuracy'], 1)} |")
    lines += ["", "Held-out items correct per seed (count, out of the 50<!-- id:lock.dataset.heldout_n --> items), and the same "
              "as a fraction (value-only numbers are errors under --strict, so the two quoted here are pinned).", "",
              "| Arm | Seed | Held-out correct (count) | Held-out accuracy (fraction) |", "|---|---|---|---|"]
    for arm in arms:
        for s in SEEDS:
            lines.append(f"| {arm} | seed {s} | {round(v[f'runs.{arm}.s{s}.heldout_correct'])} | "
                         f"{_f(v[f'runs.{arm}.s{s}.heldout_accuracy'], 3)} |")
    g = v["contrasts.gspo-grpo.diff_mean"]
    lines += ["", f"GSPO minus GRPO was {_f(100 * g, 1)}%<!-- id: contrasts.gspo-grpo.diff_mean --> "
              f"(fraction {_f(g, 4)}), with mean accuracy {_f(v['arms.gspo.heldout_accuracy.mean'], 3)} "
              f"± {_f(v['arms.gspo.heldout_accuracy.sd'], 3)} over seeds.", ""]
    return "\n".join(lines)


def copy_campaign(clean: Campaign, dest: Path) -> Campaign:
    shutil.copytree(clean.root, dest)
    return Campaign(dest)


# ----------------------------------------------------------------------------- record editing
def edit_manifest(run_dir: Path, fn, *, redigest: bool = True) -> dict:
    """Apply ``fn`` to a manifest and re-seal it (the defect is then invisible to the seal)."""
    m = read_json(run_dir / MANIFEST)
    fn(m)
    if redigest:
        m["artifacts"] = artifact_digests(run_dir)
    m.pop("seal", None)
    return write_manifest(run_dir, m)


def _rows(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


def _write_rows(p: Path, rows: list[dict]) -> None:
    write_atomic(p, "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))


def edit_rows(run_dir: Path, rel: str, fn, *, resummarize: bool = False) -> None:
    p = run_dir / rel
    rows = fn(_rows(p))
    _write_rows(p, rows)

    def upd(m):
        if resummarize:
            m["summaries"] = compute_summaries(_rows(run_dir / TELEMETRY), _rows(run_dir / HELDOUT_TRACE))

    edit_manifest(run_dir, upd)


def edit_report(camp: Campaign, old: str, new: str, path: Path | None = None) -> None:
    p = path or camp.notes
    text = p.read_text()
    assert old in text, f"{old!r} not in {p}"
    p.write_text(text.replace(old, new, 1))


def edit_analysis(camp: Campaign, fn) -> None:
    p = camp.report / "analysis.json"
    a = read_json(p)
    fn(a)
    write_json_atomic(p, a)


def _notes_row(camp: Campaign, startswith: str) -> str:
    return next(x for x in camp.notes.read_text().splitlines() if x.startswith(startswith))


# ----------------------------------------------------------------------------- defects
def report_last_digit(c: Campaign):
    row = _notes_row(c, "| GSPO |")
    cell = row.split("|")[2].strip()
    last = int(cell[-1])
    bumped = cell[:-1] + str((last + 1) % 10)
    edit_report(c, row, row.replace(f"| {cell} |", f"| {bumped} |", 1))


def report_rendered_last_digit(c: Campaign):
    p = c.report / "report.md"
    text = p.read_text()
    tag = "<!-- id:arms.gspo.heldout_accuracy.mean -->"
    i = text.index(tag)
    num = text[text.rindex("| ", 0, i) + 2:i]
    last = int(num[-1])
    p.write_text(text[:i - len(num)] + num[:-1] + str((last + 1) % 10) + text[i:])


def report_percent_as_fraction(c: Campaign):
    row = _notes_row(c, "| GSPO − GRPO |")
    cell = row.split("|")[2].strip()
    frac = f"{float(cell.replace('−', '-')) / 100:.3f}"
    edit_report(c, row, row.replace(f"| {cell} |", f"| {frac} |", 1))


def _count_row(c: Campaign) -> tuple[str, list[str]]:
    row = _notes_row(c, "| gspo | seed 37 |")
    return row, [x.strip() for x in row.split("|")]


def report_count_as_fraction(c: Campaign):
    """The count column holds heldout_correct / heldout_n."""
    row, cells = _count_row(c)
    edit_report(c, row, row.replace(f"| {cells[3]} |", f"| {cells[4]} |", 1))


def report_count_as_percent(c: Campaign):
    """The count column holds 100 x heldout_correct / heldout_n, with a % sign."""
    row, cells = _count_row(c)
    pct = f"{100 * float(cells[4]):.1f}%"
    edit_report(c, row, row.replace(f"| {cells[3]} |", f"| {pct} |", 1))


def report_fraction_as_count(c: Campaign):
    """The fraction column holds the count of correct items."""
    row, cells = _count_row(c)
    edit_report(c, row, row.replace(f"| {cells[4]} |", f"| {cells[3]} |", 1))


def report_groups_mean_as_fraction(c: Campaign):
    """Connections-style traces (groups_correct 0-4 per item); a table quotes the mean over items
    of one run as a fraction of the 4 groups where its column says "(of 4)"."""
    def f(rows):
        for i, r in enumerate(rows):
            r["groups_correct"] = 4 if r.get("correct") else (i % 3)
        return rows

    edit_rows(c.run_dir("gspo", 37), HELDOUT_TRACE, f)
    # the task records its per-item metric and its maximum in the manifest, where the audit reads it
    edit_manifest(c.run_dir("gspo", 37), lambda m: m["task"]["item_metrics"].update(
        groups_correct={"unit": "count", "max": 4}))
    reanalyze(c)
    rows = _rows(c.run_dir("gspo", 37) / HELDOUT_TRACE)
    mean = sum(r["groups_correct"] for r in rows) / len(rows)
    with open(c.notes, "a") as fh:
        fh.write("\nConnections boards solved per run.\n\n| Arm | Seed | Groups correct (of 4, mean) |\n|---|---|---|\n"
                 f"| gspo | seed 37 | {mean / 4:.4f} |\n")


def report_ci_swapped(c: Campaign):
    row = _notes_row(c, "| GRPO |")
    lo_hi = row.split("|")[3].strip()
    lo, hi = lo_hi.strip("[]").split(", ")
    edit_report(c, row, row.replace(lo_hi, f"[{hi}, {lo}]"))


def report_count_off_by_one(c: Campaign):
    edit_report(c, "| Held-out items per run | 50 |", "| Held-out items per run | 51 |")


def report_prose_count_off_by_one(c: Campaign):
    with open(c.notes, "a") as fh:
        fh.write("\nEach run was scored on 51 held-out items.\n")


def report_verdict_edited(c: Campaign):
    p = c.report / "report.md"
    text = p.read_text()
    tag = "<!-- verdict:contrasts.gspo-grpo -->"
    i = text.index(tag)
    j = text.rindex("| ", 0, i) + 2
    word = text[j:i]
    p.write_text(text[:j] + ("SURVIVES" if word != "SURVIVES" else "REVERSES") + text[i:])


def report_latex_macro_edited(c: Campaign):
    p = c.report / "results.tex"
    lines = p.read_text().splitlines()
    for i, ln in enumerate(lines):
        if ln.endswith("% id: arms.grpo.heldout_accuracy.mean"):
            lines[i] = ln.replace("{0.", "{1.", 1)
            break
    else:
        raise AssertionError("macro not found")
    p.write_text("\n".join(lines) + "\n")


def _add_run(c: Campaign, arm: str, seed: int, evidence_class: str) -> None:
    import numpy as np

    from stats.synthetic import write_run

    lock = read_json(c.lock)
    prereg = lock["preregistration"]
    with chdir(c.root):
        write_run(prereg, lock, Path("runs"), arm, seed, accuracy=0.7, difficulty=np.full(50, 0.5),
                  rng=np.random.default_rng(seed), started_at=dt.datetime(2026, 1, 3, tzinfo=dt.timezone.utc),
                  evidence_class=evidence_class, lock_path=LOCK_REL)


def report_exploratory_unlabelled(c: Campaign):
    _add_run(c, "gspo", 99, "exploratory")
    a = reanalyze(c)
    acc = read_json(c.run_dir("gspo", 99) / MANIFEST)["summaries"]["heldout_accuracy"]
    del a
    with open(c.notes, "a") as fh:
        fh.write(f"\nGSPO with seed 99 reached {acc:.2f} held-out accuracy.\n")


def dropped_seed(c: Campaign):
    shutil.rmtree(c.run_dir("gspo", 37))


def extra_seed(c: Campaign):
    _add_run(c, "gspo", 99, "confirmatory")


def exploratory_counted(c: Campaign):
    _add_run(c, "dapo", 99, "exploratory")
    m = read_json(c.run_dir("dapo", 99) / MANIFEST)
    edit_analysis(c, lambda a: a["inputs"]["runs"].append({"arm": "dapo", "seed": 99, "seal": m["seal"],
                                                           "path": "e1s/dapo/s99"}))


def treatment_reverted(c: Campaign):
    edit_manifest(c.run_dir("gspo", 11), lambda m: m["resolved_config"]["trainer"].update(importance_sampling_level="token"))


def undeclared_drift(c: Campaign):
    for s in SEEDS:
        edit_manifest(c.run_dir("dapo", s), lambda m: m["resolved_config"]["trainer"].update(warmup_ratio=0.1))


def locked_field_dropped(c: Campaign):
    edit_manifest(c.run_dir("dapo", 23), lambda m: m["resolved_config"]["trainer"].pop("loss_type"))


def gspo_on_policy(c: Campaign):
    shutil.rmtree(c.root)
    # no figures: check 4 reads the manifests' settings, and drawing is most of a build's time
    build_clean(c.root, prereg=study_prereg(gspo_on_policy=True), figures=False)


def identical_traces(c: Campaign):
    src = c.run_dir("gspo", 11) / TRAIN_TRACE
    shutil.copy(src, c.run_dir("gspo", 23) / TRAIN_TRACE)
    edit_manifest(c.run_dir("gspo", 23), lambda m: None)
    reanalyze(c)


def run_before_lock(c: Campaign):
    edit_manifest(c.run_dir("grpo", 11), lambda m: m.update(started_at="2025-12-31T12:00:00.000000Z"))


def lock_same_day(c: Campaign):
    def shift(m):
        for k in ("started_at", "ended_at"):
            t = dt.datetime.fromisoformat(m[k].replace("Z", "+00:00")) - dt.timedelta(hours=23)
            m[k] = t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    for arm in ARMS:
        for s in SEEDS:
            edit_manifest(c.run_dir(arm, s), shift)
    reanalyze(c)


def manifest_byte_flipped(c: Campaign):
    p = c.run_dir("dapo", 11) / MANIFEST
    b = bytearray(p.read_bytes())
    i = b.index(b'"heldout_correct": ') + len(b'"heldout_correct": ')
    b[i] = ord("1") if b[i] != ord("1") else ord("2")
    p.write_bytes(bytes(b))


def artifact_missing(c: Campaign):
    (c.run_dir("grpo", 23) / "adapter" / "adapter_model.safetensors").unlink()


def telemetry_line_deleted(c: Campaign):
    edit_rows(c.run_dir("dapo", 11), TELEMETRY, lambda rows: rows[:4] + rows[5:])


def summary_hand_edited(c: Campaign):
    edit_manifest(c.run_dir("grpo", 37), lambda m: m["summaries"].update(rollouts=200))


def gu_out_of_range(c: Campaign):
    def f(rows):
        rows[3]["gu"] = 3.0
        return rows

    edit_rows(c.run_dir("gspo", 23), TELEMETRY, f, resummarize=True)


def gu_not_one_minus_zvf(c: Campaign):
    def f(rows):
        rows[2]["gu"] = min(1.0, rows[2]["zvf"] + 0.25)
        rows[2]["zvf"] = max(0.0, rows[2]["zvf"] - 0.0)
        return rows

    edit_rows(c.run_dir("gspo", 11), TELEMETRY, f, resummarize=True)


def heldout_count_mismatch(c: Campaign):
    edit_rows(c.run_dir("grpo", 11), HELDOUT_TRACE, lambda rows: rows[:-1], resummarize=True)


def duplicate_item_index(c: Campaign):
    def f(rows):
        rows[3]["index"] = rows[2]["index"]
        return rows

    edit_rows(c.run_dir("dapo", 37), HELDOUT_TRACE, f)


def malformed_completion_hash(c: Campaign):
    def f(rows):
        rows[5]["completion_sha256"] = "A100"
        return rows

    edit_rows(c.run_dir("grpo", 23), HELDOUT_TRACE, f)


def non_kn_proportion(c: Campaign):
    edit_manifest(c.run_dir("gspo", 37), lambda m: m["summaries"].update(heldout_accuracy=0.6123))


def mixed_stack(c: Campaign):
    def f(m):
        m["fingerprint"]["components"]["trl"] = "1.15.0"
        m["fingerprint"]["hash"] = sha256_json(m["fingerprint"]["components"])

    edit_manifest(c.run_dir("dapo", 23), f)
    reanalyze(c)


def fingerprint_label(c: Campaign):
    def f(m):
        m["fingerprint"] = {"components": {"gpu": "A100"}, "hash": sha256_json("A100")}

    for arm in ARMS:
        for s in SEEDS:
            edit_manifest(c.run_dir(arm, s), f)
    reanalyze(c)


def task_shortcut(c: Campaign):
    """The task's shortcut probe (recorded in the fingerprint) says the answer order leaks."""
    probe = {"n_items": 50, "max_reward": 4.0, "max_fraction": 0.25,
             "policies": {"in_order": {"mean_reward": 3.6, "fraction_of_max": 0.9, "solved_rate": 0.8},
                          "random": {"mean_reward": 0.2, "fraction_of_max": 0.05, "solved_rate": 0.0}}}

    def f(m):
        m["fingerprint"]["components"]["dataset"] = {"name": "connections", "shortcut_probe": probe}
        m["fingerprint"]["hash"] = sha256_json(m["fingerprint"]["components"])

    for arm in ARMS:
        for s in SEEDS:
            edit_manifest(c.run_dir(arm, s), f)
    reanalyze(c)


def run_other_lock_version(c: Campaign):
    edit_manifest(c.run_dir("gspo", 11), lambda m: m["lock"].update(version=2))


def lock_tampered(c: Campaign):
    lock = read_json(c.lock)
    lock["preregistration"]["training"]["learning_rate"] = 1e-5
    write_json_atomic(c.lock, lock)


def lock_wrong_key(c: Campaign):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from prereg.signing import sign

    lock = read_json(c.lock)
    real, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    sig = sign(other, lock["lock_hash"].encode())
    sig["public_key"] = sign(real, b"x")["public_key"]   # claims the registrant's key
    lock["signature"] = sig
    write_json_atomic(c.lock, lock)


def amendment_other_key(c: Campaign):
    """v1 signed by the registrant, v2 (an amendment) signed by someone else; runs re-pointed at v2."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from prereg.signing import sign

    v1 = read_json(c.lock)
    v1["signature"] = sign(Ed25519PrivateKey.generate(), v1["lock_hash"].encode())
    write_json_atomic(c.lock, v1)
    p2 = copy.deepcopy(v1["preregistration"])
    p2["title"] += " (amended)"
    v2 = build_lock(p2, version=2, now="2026-01-01T06:00:00.000000Z",
                    amends={"lock_hash": v1["lock_hash"], "version": 1, "reason": "typo"})
    v2["signature"] = sign(Ed25519PrivateKey.generate(), v2["lock_hash"].encode())
    write_json_atomic(c.root / "locks" / f"{STUDY}.v2.lock.json", v2)
    for arm in ARMS:
        for s in SEEDS:
            edit_manifest(c.run_dir(arm, s), lambda m: m["lock"].update(
                hash=v2["lock_hash"], version=2, locked_at=v2["locked_at"], path=f"locks/{STUDY}.v2.lock.json"))
    from stats.analyze import analyze, write

    with chdir(c.root):
        write(analyze(f"locks/{STUDY}.v2.lock.json", "runs"), "report/analysis.json", overwrite=True)


def analysis_value_edited(c: Campaign):
    edit_analysis(c, lambda a: a["values"]["contrasts.gspo-grpo.tests.welch_t.statistic"].update(value=0.9))


def analysis_rng_seed(c: Campaign):
    def f(a):
        for rec in a["values"].values():
            if rec.get("rng_seed") is not None:
                rec["rng_seed"] = 12345
    edit_analysis(c, f)


def multiplicity_not_applied(c: Campaign):
    def f(a):
        for cc in ("dapo-grpo", "gspo-grpo"):
            a["values"][f"contrasts.{cc}.p_adjusted"]["value"] = a["values"][f"contrasts.{cc}.p"]["value"]
    edit_analysis(c, f)


def power_normal_approximation(c: Campaign):
    edit_analysis(c, lambda a: a["values"]["contrasts.gspo-grpo.power_achieved"].update(
        method="power of the paired test by normal approximation"))


def analysis_stale_input(c: Campaign):
    """The records changed after the analysis (a re-sealed manifest the analysis never saw)."""
    edit_manifest(c.run_dir("grpo", 23), lambda m: m["settings"].update(note="rerun"))


def looks_log_tampered(c: Campaign):
    """A looks log entry (an interim look) edited after it was sealed (README failure 19)."""
    from prereg import looks as lk

    lk.append(c.runs, STUDY, {"kind": "analysis", "study_id": STUDY, "seeds_per_arm": {"grpo": 2}})
    path = lk.looks_dir(c.runs, STUDY) / lk.LOG
    write_atomic(path, path.read_text().replace('"grpo":2', '"grpo":3'))


# name -> (defect, checks that must fire, README failures it plants)
DEFECTS = {
    "report_last_digit": (report_last_digit, {"10"}, [10]),
    "report_rendered_last_digit": (report_rendered_last_digit, {"10"}, [10]),
    "report_percent_as_fraction": (report_percent_as_fraction, {"10"}, [10]),
    "report_ci_swapped": (report_ci_swapped, {"10"}, [10]),
    "report_count_as_fraction": (report_count_as_fraction, {"10"}, [10]),
    "report_count_as_percent": (report_count_as_percent, {"10"}, [10]),
    "report_fraction_as_count": (report_fraction_as_count, {"10"}, [10]),
    "report_groups_mean_as_fraction": (report_groups_mean_as_fraction, {"10"}, [10]),
    "report_count_off_by_one": (report_count_off_by_one, {"10"}, [10]),
    "report_prose_count_off_by_one": (report_prose_count_off_by_one, {"10"}, [10]),
    "report_latex_macro_edited": (report_latex_macro_edited, {"10"}, [10]),
    "report_verdict_edited": (report_verdict_edited, {"10"}, []),
    "report_exploratory_unlabelled": (report_exploratory_unlabelled, {"11"}, []),
    "dropped_seed": (dropped_seed, {"3"}, []),
    "extra_seed": (extra_seed, {"3"}, []),
    "exploratory_counted": (exploratory_counted, {"3"}, []),
    "treatment_reverted": (treatment_reverted, {"4"}, [2]),
    "undeclared_drift": (undeclared_drift, {"4"}, [1]),
    "locked_field_dropped": (locked_field_dropped, {"4"}, [3]),
    "gspo_on_policy": (gspo_on_policy, {"4"}, [8]),
    "identical_traces": (identical_traces, {"8"}, [7]),
    "run_before_lock": (run_before_lock, {"5"}, [11]),
    "lock_same_day": (lock_same_day, {"5"}, [11]),
    "manifest_byte_flipped": (manifest_byte_flipped, {"2"}, []),
    "artifact_missing": (artifact_missing, {"2"}, []),
    "telemetry_line_deleted": (telemetry_line_deleted, {"7"}, []),
    "summary_hand_edited": (summary_hand_edited, {"7"}, [5]),
    "gu_out_of_range": (gu_out_of_range, {"7"}, [14]),
    "gu_not_one_minus_zvf": (gu_not_one_minus_zvf, {"7"}, [6]),
    "heldout_count_mismatch": (heldout_count_mismatch, {"7"}, [10]),
    "duplicate_item_index": (duplicate_item_index, {"7"}, []),
    "malformed_completion_hash": (malformed_completion_hash, {"7"}, [5]),
    "non_kn_proportion": (non_kn_proportion, {"7"}, []),
    "mixed_stack": (mixed_stack, {"6"}, []),
    "fingerprint_label": (fingerprint_label, {"6"}, [4]),
    "run_other_lock_version": (run_other_lock_version, {"5"}, []),
    "task_shortcut": (task_shortcut, {"7"}, [12]),
    "lock_tampered": (lock_tampered, {"1"}, []),
    "lock_wrong_key": (lock_wrong_key, {"1"}, []),
    "amendment_other_key": (amendment_other_key, {"1"}, []),
    "analysis_value_edited": (analysis_value_edited, {"9"}, [10]),
    "analysis_rng_seed": (analysis_rng_seed, {"9"}, [10]),
    "multiplicity_not_applied": (multiplicity_not_applied, {"9"}, [9]),
    "power_normal_approximation": (power_normal_approximation, {"9"}, [9]),
    "analysis_stale_input": (analysis_stale_input, {"9"}, []),
    "looks_log_tampered": (looks_log_tampered, {"12"}, [19]),
}

# README failures an audit of records and report cannot see, and why (the rest are covered above).
NOT_AUDITABLE = {
    13: "a check that cannot fail: guarded by the corpus test itself (every check fires on some defect)",
}

# What the catching finding must say, so a check that fires for an incidental reason does not count.
EXPECTED_MESSAGE = {
    "report_last_digit": "rounded to the digits shown",
    "report_rendered_last_digit": "rounded to the digits shown",
    "report_percent_as_fraction": "fraction written where the column says percent",
    "report_ci_swapped": "interval with swapped ends",
    "report_count_as_fraction": "unit mix-up: count quoted as fraction",
    "report_count_as_percent": "unit mix-up: count quoted as percent",
    "report_fraction_as_count": "unit mix-up: fraction quoted as count",
    "report_groups_mean_as_fraction": "unit mix-up: count quoted as fraction",
    "report_count_off_by_one": "rounded to the digits shown",
    "report_prose_count_off_by_one": "last digits",
    "report_latex_macro_edited": "rounded to the digits shown",
    "report_verdict_edited": "verdict differs from the analysis",
    "report_exploratory_unlabelled": "not labelled as exploratory",
    "dropped_seed": "has no complete confirmatory run",
    "extra_seed": "unregistered arm or seed",
    "exploratory_counted": "counted a run it must not count",
    "treatment_reverted": "never wired",
    "undeclared_drift": "drift",
    "locked_field_dropped": "dropped",
    "gspo_on_policy": "fully on-policy",
    "identical_traces": "different seeds share one training trace",
    "run_before_lock": "started before its lock",
    "lock_same_day": "same UTC day",
    "manifest_byte_flipped": "seal does not match",
    "artifact_missing": "artifact listed in the manifest is missing",
    "telemetry_line_deleted": "not contiguous",
    "summary_hand_edited": "differs from its recomputation",
    "gu_out_of_range": "GU outside its range",
    "gu_not_one_minus_zvf": "GU differs from 1 - ZVF",
    "heldout_count_mismatch": "held-out count differs from the lock",
    "duplicate_item_index": "duplicated held-out item index",
    "malformed_completion_hash": "malformed completion hash",
    "non_kn_proportion": "GRIM",
    "mixed_stack": "mixed stack: trl",
    "fingerprint_label": "not the hash of its components",
    "task_shortcut": "trivial policy",
    "run_other_lock_version": "claims lock version 2",
    "lock_tampered": "does not verify",
    "lock_wrong_key": "does not verify",
    "amendment_other_key": "different keys",
    "analysis_value_edited": "differs from its recomputation",
    "analysis_rng_seed": "RNG seed other than the plan's",
    "multiplicity_not_applied": "correction not applied",
    "power_normal_approximation": "another method than planned",
    "analysis_stale_input": "not the current manifest",
    "looks_log_tampered": "looks log chain broken",
}
