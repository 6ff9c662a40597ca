"""The preregistrations lint's equality test runs over (tests/test_lint_typed.py): the shipped examples
and templates, every corpus set's study (built as the set's builder builds it), study12's plans, and
variants of the examples that make each rule fire, so a change in how lint reads the plan (issue 15:
the typed :class:`prereg.study.Study` instead of string keys) cannot change a finding unnoticed.

    python tests/lint_documents.py > tests/data/lint_findings.json   # re-record (only for an intended change)
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _set(p: dict, path: str, value) -> dict:
    p = copy.deepcopy(p)
    node = p
    *head, leaf = path.split(".")
    for k in head:
        node = node[int(k)] if isinstance(node, list) else node[k]
    if callable(value):
        node[leaf] = value(node[leaf])
    elif value is None:
        node.pop(leaf, None)
    else:
        node[leaf] = value
    return p


def _corpus_prereg(folder: Path, spec: dict) -> dict | None:
    from stats.synthetic import small_prereg
    from tests.report_corpus import corpus

    gen = spec.get("generator")
    if gen is None:
        return corpus.study_prereg(spec)
    if gen == "study12":
        import study12

        p = study12.prereg(**spec.get("analysis", {}))
        p["id"] = spec["id"]
        for path, value in (spec.get("patch") or {}).items():
            p = _set(p, path, value)
        return p
    if gen == "items":
        from tests.report_corpus_blind import blind

        return blind._items_prereg(spec)
    e1 = json.loads((REPO / "examples" / "e1.json").read_text())
    p = small_prereg(e1, heldout_n=spec["heldout_n"], steps=spec.get("steps", 12), seeds=spec["seeds"])
    p["arms"] = {k: v for k, v in p["arms"].items() if k in spec["arms"]}
    p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] in p["arms"]]
    p["analysis"]["multiplicity"]["family"] = [f"{a}-grpo" for a in spec["arms"] if a != "grpo"]
    return p


# (name, field path, value; None removes the field): each makes at least one rule fire or go quiet
VARIANTS = (
    ("no-loss-type", "training.loss_type", None),
    ("gspo-on-policy", "arms.gspo.changes.num_iterations", 1),
    ("dr-grpo-scaled", "arms.dr_grpo.changes.scale_rewards", "group"),
    ("dr-grpo-loss", "arms.dr_grpo.changes.loss_type", "grpo"),
    ("dapo-no-clip-higher", "arms.dapo.changes.epsilon_high", None),
    ("contrast-baseline", "analysis.contrasts.baseline", "dapo"),
    ("one-sided", "analysis.contrasts.alternative", "greater"),
    ("no-multiplicity", "analysis.multiplicity.method", "none"),
    ("bh", "analysis.multiplicity.method", "bh"),
    ("family-dup", "analysis.multiplicity.family", ["gspo-grpo", "gspo-grpo", "x-grpo"]),
    ("heldout-is-train", "dataset.heldout_split", "train"),
    ("unpinned-model", "model.revision", "main"),
    ("unpinned-data", "dataset.revision", "main"),
    ("normal-power", "analysis.power.method", "normal_approximation"),
    ("pilot-sd", "analysis.power.pilot_sd", 0.05),
    ("no-margin", "analysis.equivalence_margin", None),
    ("sampled-eval", "evaluation.decoding", "sample"),
    ("greedy-temperature", "evaluation.temperature", 0.7),
    ("short-eval", "evaluation.max_new_tokens", 8),
    ("three-seeds", "seeds", [1, 2, 3]),
    ("one-seed", "seeds", [1]),
    ("iqm", "analysis.arm_summary.statistics", ["mean", "iqm"]),
    ("item-pooled", "analysis.contrasts.item_level", "mcnemar"),
    ("unit-item", "analysis.unit", "item"),
    ("sequential-8", "analysis.sequential", {"looks": [4, 8], "spending": "obrien_fleming"}),
    ("sequential-3", "analysis.sequential", {"looks": [2, 3], "spending": "pocock"}),
    ("identical-arm", "arms.gspo.changes", {}),
    ("metric-mismatch", "hypotheses.0.metric", "nope"),
    ("range", "metrics", {"heldout_accuracy": {"unit": "fraction", "range": [0, 2]}}),
    ("noninferior", "analysis.verdicts", lambda v: [{"verdict": "NONINFERIOR", "when": [{"check": "noninferior"}]}, *v]),
    ("tost", "analysis.verdicts", lambda v: [{"verdict": "EQUIVALENT", "when": [{"check": "tost_equivalent"}]}, *v]),
    ("level", "analysis.verdicts", lambda v: [{"verdict": "BETTER", "when": [{"check": "lower_above", "level": 0.8,
                                                                              "value": 0}]}, *v]),
    ("secondary-only", "analysis.secondary_metrics", []),
)


def documents() -> dict[str, dict]:
    """Name -> preregistration, in a stable order."""
    sys.path.insert(0, str(REPO / "tests"))
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    out = {}
    for path in sorted([*(REPO / "examples").glob("*.json"), *(REPO / "prereg" / "templates").glob("*.json")]):
        out[str(path.relative_to(REPO))] = json.loads(path.read_text())
    for study in sorted(REPO.glob("tests/report_corpus*/*/study.json")):
        out[str(study.relative_to(REPO))] = _corpus_prereg(study.parent, json.loads(study.read_text()))
    for base in ("examples/e1.json", "examples/demo.json"):
        for name, path, value in VARIANTS:
            try:
                out[f"{base}+{name}"] = _set(out[base], path, value)
            except (KeyError, TypeError):
                continue  # the field's parent is not in this example
    return out


def findings() -> dict[str, list[str]]:
    """Name -> lint's finding lines (an invalid variant -> its validation error, which lint never sees)."""
    from prereg.lint import lint
    from prereg.schema import schema_errors

    out = {}
    for name, p in documents().items():
        errs = schema_errors(p, "preregistration")
        out[name] = [f"invalid: {errs[0]}"] if errs else [f.line() for f in lint(p)]
    return out


if __name__ == "__main__":
    json.dump(findings(), sys.stdout, indent=1, sort_keys=True)
    print()
