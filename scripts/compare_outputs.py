"""Refactoring guard: analysis.json, report.md, results.tex and audit findings of two source trees, compared byte for byte.

A behaviour-preserving change (a function split, typed configuration instead of dict look-ups)
must leave every output identical. This script builds 21 synthetic studies covering the plan
options (e1 and demo examples; units seed/item/seed_item; tests paired_t, wilcoxon, sign_flip,
paired_bootstrap, welch_t; every item_level method; percentile, BCa, bootstrap-t and two-level
arm intervals; median/IQM; non-inferiority; exploratory; multi-task; sequential; the study12
per-item CSV and JSON-lines tables), runs ``stats analyze``, ``stats render`` and ``audit check``
with each tree's code, and diffs the outputs. Both trees write under one fixed work folder, so
paths and seals embedded in the outputs agree.

Usage (from the repository root; BASE is e.g. ``git worktree`` or ``git archive`` of main)::

    python scripts/compare_outputs.py BASE_TREE NEW_TREE [variant ...]

Exit status 0 when every output is identical, 1 otherwise (the differing files are listed).
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

WORK = Path(tempfile.gettempdir()) / "rlprereg-compare-outputs"


def _variants(root: Path):
    from stats.synthetic import make_campaign, small_prereg

    e1 = json.loads((root / "examples/e1.json").read_text())
    demo = json.loads((root / "examples/demo.json").read_text())

    def runs(src, mod=None, tasks=None):
        def build(tmp):
            p = small_prereg(src, heldout_n=24, steps=3, seeds=[1, 2, 3, 4, 5])
            p["analysis"]["resamples"] = 200
            if mod:
                mod(p)
            c = make_campaign(tmp / "c", p, effects={"dapo": 0.05, "dr_grpo": -0.04, "gspo": 0.0}, tasks=tasks,
                              rng_seed=5)
            return c.lock_path, c.runs_dir
        return build

    def plan(**kw):
        def mod(p):
            for k, v in kw.items():
                section, _, key = k.partition("__")
                if section == "contrasts":
                    p["analysis"]["contrasts"][key] = v
                elif section == "summary":
                    p["analysis"]["arm_summary"][key] = v
                elif section == "mult":
                    p["analysis"]["multiplicity"]["method"] = v
                elif section == "evidence_class":
                    p["evidence_class"] = v
                else:
                    p["analysis"][section] = v
        return mod

    def sequential(p):
        p["arms"] = {k: p["arms"][k] for k in ("grpo", "dr_grpo")}
        p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] == "dr_grpo"]
        p["analysis"]["multiplicity"]["family"] = ["dr_grpo-grpo"]
        p["analysis"]["power"].pop("pilot_sd", None)
        p["analysis"]["sequential"] = {"looks": [3, 5], "spending": "pocock", "calibration_draws": 20_000}

    def table(fmt):
        def build(tmp):
            sys.path.insert(0, str(root / "tests"))
            import study12 as s

            from prereg.jsonio import write_json_atomic
            from prereg.lock import build_lock, lock_filename

            p = s.prereg()
            p["analysis"]["resamples"] = 200
            lock = build_lock(p, now="2026-01-01T00:00:00.000000Z")
            lp = tmp / "locks" / lock_filename(p["id"], 1)
            write_json_atomic(lp, lock)
            return lp, (s.write_csv if fmt == "csv" else s.write_jsonl)(tmp / f"t.{fmt}", s.rows())
        return build

    return {
        "e1": runs(e1), "demo": runs(demo),
        "e1_item": runs(e1, plan(unit="item")), "e1_seeditem": runs(e1, plan(unit="seed_item")),
        "e1_wilcoxon": runs(e1, plan(contrasts__test="wilcoxon", contrasts__alternative="greater")),
        "e1_signflip": runs(e1, plan(contrasts__test="sign_flip", mult="holm")),
        "e1_pboot": runs(e1, plan(contrasts__test="paired_bootstrap", mult="none")),
        "e1_welch": runs(e1, plan(contrasts__test="welch_t", mult="bonferroni")),
        "e1_mcnemar": runs(e1, plan(contrasts__item_level="mcnemar")),
        "e1_ipboot": runs(e1, plan(contrasts__item_level="paired_bootstrap")),
        "e1_clustert": runs(e1, plan(contrasts__item_level="cluster_t")),
        "e1_crossed": runs(e1, plan(contrasts__item_level="crossed_bootstrap",
                                    summary__statistics=["mean", "median", "iqm"])),
        "e1_bca": runs(e1, plan(summary__interval="bca", noninferiority_margin=0.02)),
        "e1_hier": runs(e1, plan(summary__interval="hierarchical_bootstrap")),
        "e1_explor": runs(e1, plan(evidence_class="exploratory")),
        "e1_boott": runs(e1, plan(summary__interval="bootstrap_t", summary__statistics=["mean", "iqm"])),
        "demo_median": runs(demo, plan(summary__statistics=["median", "mean"])),
        "e1_tasks": runs(e1, plan(tasks=["a", "b"]), tasks=["a", "b"]),
        "e1_seq": runs(e1, sequential),
        "s12_csv": table("csv"), "s12_jsonl": table("jsonl"),
    }


def produce(root: Path, out: Path, only: list[str]) -> None:
    """Write each variant's outputs (or its error) under ``out/<variant>/`` with the code of ``root``."""
    from audit.engine import run_audit
    from stats.analyze import analyze, write
    from stats.render import render

    shutil.rmtree(out, ignore_errors=True)
    for name, build in _variants(root).items():
        if only and name not in only:
            continue
        d = out / name
        d.mkdir(parents=True)
        tmp = WORK / "work" / name
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            lock, runs = build(tmp)
            ap = write(analyze(lock, runs, log_look=False), tmp / "report" / "analysis.json", overwrite=True)
            render(ap, tmp / "report", overwrite=True)
            for fn in ("analysis.json", "report.md", "results.tex"):
                shutil.copy(tmp / "report" / fn, d / fn)
            res = run_audit(tmp / "report", lock=lock, runs=runs)
            (d / "audit.txt").write_text("".join(sorted(f"{x.check} {x.message}\n" for x in res.findings)))
        except Exception:
            (d / "error.txt").write_text(traceback.format_exc())


def _differences(a: Path, b: Path) -> list[str]:
    cmp = filecmp.dircmp(a, b)
    out = [f"{a / n}: only in {a.name}" for n in cmp.left_only] + [f"{b / n}: only in {b.name}" for n in cmp.right_only]
    out += [f"{a / n} != {b / n}" for n in cmp.diff_files]
    for sub in cmp.common_dirs:
        out += _differences(a / sub, b / sub)
    return out


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "--produce":  # child: one tree's outputs
        root = Path(os.environ["COMPARE_SRC"])
        sys.path.insert(0, str(root))
        produce(root, Path(argv[1]), argv[2:])
        return 0
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0] + "\nusage: compare_outputs.py BASE_TREE NEW_TREE [variant ...]",
              file=sys.stderr)
        return 2
    trees = [Path(t).resolve() for t in argv[:2]]
    for label, tree in zip(("base", "new"), trees, strict=True):
        env = {**os.environ, "COMPARE_SRC": str(tree), "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1"}
        WORK.mkdir(parents=True, exist_ok=True)  # outside any git repository: locks record no git state
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--produce", str(WORK / label), *argv[2:]],
                       env=env, check=True, cwd=WORK)
    diffs = _differences(WORK / "base", WORK / "new")
    errors = sorted(str(p) for p in (WORK / "new").glob("*/error.txt"))
    for line in diffs + [f"{e}: the variant failed" for e in errors]:
        print(line)
    n = len(list((WORK / "new").iterdir()))
    print(f"{'IDENTICAL' if not diffs and not errors else 'DIFFERENT'}: {n} variants")
    return 0 if not diffs and not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
