"""The blind set: hand-written reports in layouts and wordings none of the five other sets has.

The corpus, review, wild, fresh and unseen sets all reached their figures after the audit was tuned
against them, so they no longer measure unseen material. This set was written, with its plants, without
reading the audit's code and before the audit was first run on it; its first-run figures are recorded in
README.md here: a Jupyter notebook exported to Markdown by nbconvert (pandas HTML tables with
``<style scoped>``, outputs as indented code blocks); a Marp slide deck (``---`` separators, one claim
per slide, speaker notes in comments); a LaTeX section with ``threeparttable``, siunitx ``S`` columns,
``\\qty``/``\\numrange`` and a ``\\newcommand`` per number, seeds as rows and arms as columns; a
leaderboard with a rank column and ties over a base model, an SFT checkpoint and three RL arms in two
evaluation sessions, percentages with one decimal and "±" half-widths; a numbered social-media thread
with the long tail of wordings ("roughly", "≈", "~", "n.s.", "p<.05", "3 of 4 seeds"). README failure 15.

Each folder holds ``study.json`` (an imported table as in the corpus, ``"generator": "campaign"``: a
runner-shaped campaign, or ``"generator": "items"``: a per-item table over reference and trained arms,
built here), the clean report, ``plants.json`` (optional ``"xfail"``: the defect that keeps a plant from
being caught; ``"strict": true``: the plant is audited with ``--strict``, e.g. a number in code) and
``clean_xfail.txt`` / ``strict_xfail.txt``.

``python -m tests.report_corpus_blind.blind [--strict] [NAME ...]`` prints, per report, the plants
caught and the findings on the clean report, and lists every miss and false alarm (with ``--strict``
the plants marked ``"strict"`` are measured too). The set is the shared scaffold
(:class:`tests.report_corpus.sets.ReportSet`) with two additions: the ``items`` study generator and
the ``"strict"`` plants.
"""

from __future__ import annotations

import copy
import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.report_corpus import corpus, sets

HERE = Path(__file__).resolve().parent

Plant = corpus.KnownPlant


def _items_prereg(spec: dict) -> dict:
    """A per-item study over a base model and an SFT checkpoint (references, evaluated once per
    session) and several trained arms over seeds: study12's plan with more trained arms."""
    sys.path.insert(0, str(corpus.REPO / "tests"))
    import study12

    p = study12.prereg()
    p["id"] = spec["id"]
    p["title"] = spec.get("title", p["title"])
    p["seeds"] = spec["seeds"]
    p["dataset"]["heldout_n"] = spec["heldout_n"]
    demo = json.loads((corpus.REPO / "examples" / "demo.json").read_text())["arms"]
    e1 = json.loads((corpus.REPO / "examples" / "e1.json").read_text())["arms"]
    for arm in spec["trained"]:
        src = copy.deepcopy(demo.get(arm) or e1[arm])
        src["labels"] = spec.get("labels", {}).get(arm, [])
        p["arms"][arm] = src
    p["arms"] = {a: p["arms"][a] for a in ["base", "sft", *spec["trained"]]}
    pairs = [{"arm": a, "baseline": "base", "hypothesis": f"H{i + 1}"} for i, a in enumerate(spec["trained"])]
    pairs += [{"arm": a, "baseline": "sft", "confirmatory": False} for a in spec["trained"]]
    p["hypotheses"] = [{"id": f"H{i + 1}", "metric": "solve_rate", "arm": a, "baseline": "base",
                        "direction": "two-sided"} for i, a in enumerate(spec["trained"])]
    p["analysis"]["contrasts"]["pairs"] = pairs
    p["analysis"]["multiplicity"]["family"] = [f"{a}-base" for a in spec["trained"]]
    corpus.apply_patch(p, spec.get("patch"))
    return p


def _items_rows(spec: dict) -> list[dict]:
    """Per-item rows: each session's arms, trained arms per seed, references once (seed empty)."""
    import numpy as np

    g = np.random.default_rng(spec.get("seed", 0))
    n = spec["heldout_n"]
    diff = g.normal(0, 1.2, n)
    seed_fx = {s: g.normal(0, 0.15) for s in spec["seeds"]}
    out = []
    for sess, arms in spec["sessions"].items():
        shift = g.normal(0, 0.1)
        for arm in arms:
            for seed in (spec["seeds"] if arm in spec["trained"] else [None]):
                theta = spec["abilities"][arm] + shift + (seed_fx[seed] if seed is not None else 0.0)
                p = 1.0 / (1.0 + np.exp(-(theta - diff)))
                for i in range(n):
                    out.append({"arm": arm, "seed": "" if seed is None else seed, "session": sess,
                                "item": f"q{i:03d}", "solve_rate": int(g.random() < p[i]),
                                "format_pct": 100 * int(g.random() < 0.92),
                                "groups_correct": int(g.binomial(4, p[i])),
                                "correct_of_32": int(g.binomial(32, 0.35 * p[i]))})
    return out


def _items(spec: dict, root: Path) -> Path:
    """The ``items`` study of ``spec`` locked and analysed under ``root`` (once a session:
    :func:`corpus.built_once`); returns its report folder."""

    def make(dst: Path) -> None:
        dst.mkdir(parents=True, exist_ok=True)
        prereg = _items_prereg(spec)
        rows = _items_rows(spec)
        with open(dst / "results.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        corpus.lock_and_analyze(prereg, dst)

    corpus.built_once("blind.items\0" + json.dumps(spec, sort_keys=True), root, make)
    return root / "report"


def read_plants(name: str, strict: bool | None = None, folder: Path = HERE) -> list[Plant]:
    """The planted errors of report ``name`` of the set in ``folder`` (by default the blind set): all of
    them (``strict=None``), or only those audited with ``--strict`` (``strict=True``: a number in code)
    or without (``strict=False``)."""
    out = []
    for row in json.loads((folder / name / "plants.json").read_text()):
        row = dict(row)
        if strict is None or strict == bool(row.pop("strict", False)):
            row.pop("strict", None)
            out.append(Plant(report=name, **row))
    return out


@dataclass(frozen=True)
class BlindSet(sets.ReportSet):
    """The shared report-set scaffold, plus the ``items`` generator and plants audited with ``--strict``
    (``with_strict``: measure them too, as ``--strict`` does)."""

    with_strict: bool = False

    def build(self, name: str, root: Path) -> Path:
        """Build the study of blind report ``name`` under ``root`` with its report in the report folder."""
        spec = json.loads((self.folder / name / "study.json").read_text())
        if spec.get("generator") == "items":
            return corpus.put_report(_items(spec, root), self.folder / name)
        return super().build(name, root)

    def plants(self, name: str) -> list[Plant]:
        """The plants of ``name`` measured in this mode (those marked ``"strict"`` only ``with_strict``)."""
        return read_plants(name, strict=None if self.with_strict else False, folder=self.folder)

    def all_plants(self, name: str) -> list[Plant]:
        """Every plant of ``name``, those audited with ``--strict`` included (whatever ``with_strict``)."""
        return read_plants(name, folder=self.folder)

    def strict_plants(self, name: str) -> list[Plant]:
        """The plants of ``name`` that only ``--strict`` can catch (a number in code)."""
        return read_plants(name, strict=True, folder=self.folder)

    def exports(self) -> tuple:
        """What a set module offers its tests, by the names every set module uses:
        ``names, build, plants, known, all_plants, strict_plants`` (one scaffold, not a copy per set)."""
        return self.names, self.build, self.plants, self.known, self.all_plants, self.strict_plants


SET = BlindSet(HERE)
names, build, plants, known, all_plants, strict_plants = SET.exports()


def set_of(module_file: str) -> tuple[BlindSet, tuple]:
    """The scaffold over a set module's folder and its :meth:`BlindSet.exports`: a set module is its
    docstring plus ``SET, (names, build, ...) = blind.set_of(__file__)``."""
    found = BlindSet(Path(module_file).resolve().parent)
    return found, found.exports()


def exit_main(module_file: str) -> None:
    """``python -m tests.report_corpus_X.X [--strict] [NAME ...]``: measure the set beside ``module_file``."""
    sys.exit(main(Path(module_file).resolve().parent))


def main(folder: Path = HERE, argv: list[str] | None = None) -> int:
    """Measure the set in ``folder`` from the command line (``[--strict] [NAME ...]``, by default
    ``sys.argv``): every set module built on this scaffold runs ``sys.exit(blind.main(HERE))``."""
    argv = sys.argv[1:] if argv is None else argv
    return sets.run_set(argv, BlindSet(folder, with_strict="--strict" in argv))


if __name__ == "__main__":
    sys.exit(main())
