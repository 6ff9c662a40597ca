"""One scaffold for every set of hand-written reports after the corpus (review, wild, fresh, unseen, ...).

Why: each set used to carry its own copy of the same module (names, build, plants, known defects,
the measuring loop) and of the same pytest module around it; the copies had started to differ in
small ways (one caught a plant by a finding its clean report already had). A set is now a folder
of reports and one line, ``SET = sets.ReportSet(HERE)``; its test module is
``globals().update(set_tests.tests(SET, "<label>", fast))`` (:mod:`tests.report_corpus.set_tests`).
README failure 15.

A set folder holds one folder per report, with

- ``study.txt``: the study the report is about, a ``tests/report_corpus/`` study (its fixture is
  reused as is) or ``campaign`` (the runner-shaped campaign of ``tests/audit_defects.py``: sealed
  manifests, traces, telemetry); or
- ``study.json``: the report's own study, in the corpus's study format (:func:`corpus.build`),
  ``{"generator": "study12", ...}`` (:func:`corpus._study12`) or ``{"generator": "campaign", ...}``
  (a runner-shaped campaign from :func:`stats.synthetic.make_campaign`, see :func:`spec_campaign`);
- the report files (:data:`corpus.REPORT_SUFFIXES`; files of formats the audit does not read,
  :data:`OTHER_SUFFIXES`, travel with them so that the audit sees what the author wrote);
- ``plants.json``: the corpus's plant format plus an optional ``"xfail"``, the defect that keeps
  the plant from being caught; ``clean_xfail.txt`` / ``strict_xfail.txt``: a defect that keeps the
  clean report from auditing clean.

``python -m tests.report_corpus_<set>.<set> [--strict] [NAME ...]`` prints, per report, every
plant missed and every finding on the clean report, then the table of figures (:func:`run_set`).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.report_corpus import corpus

CAMPAIGN = "campaign"
# Report files in formats other than Markdown (reStructuredText, read by audit/rst_doc.py; org-mode,
# which the audit does not read) travel with the study too, so that the audit sees what the author wrote.
OTHER_SUFFIXES = (".rst", ".org")


def runner_campaign(root: Path) -> Path:
    """The runner-shaped campaign of ``tests/audit_defects.py`` under ``root``, its report folder
    holding the analysis and no rendered report (a set's report takes the rendered one's place)."""
    from tests import audit_defects

    corpus.built_once("sets.runner_campaign", root, lambda dst: audit_defects.build_clean(dst, figures=False))
    report = audit_defects.Campaign(root).report
    for f in report.iterdir():  # its rendered report: a set's report takes its place
        if f.suffix in corpus.REPORT_SUFFIXES:
            f.unlink()
    return report


def spec_campaign(spec: dict, root: Path) -> Path:
    """A runner-shaped campaign (sealed manifests, traces, telemetry) for a ``study.json`` with
    ``"generator": "campaign"``: examples/e1.json narrowed to ``spec``'s arms, seeds and held-out n;
    its report folder holds the analysis and no rendered report."""
    from stats.analyze import analyze, write
    from stats.synthetic import make_campaign, small_prereg
    from tests.audit_defects import chdir

    p = small_prereg(json.loads((corpus.REPO / "examples" / "e1.json").read_text()),
                     heldout_n=spec["heldout_n"], steps=spec.get("steps", 12), seeds=spec["seeds"])
    p["id"] = spec["id"]
    p["arms"] = {k: v for k, v in p["arms"].items() if k in spec["arms"]}
    p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] in p["arms"]]
    p["analysis"]["multiplicity"]["family"] = [f"{a}-grpo" for a in spec["arms"] if a != "grpo"]
    p["analysis"]["resamples"] = spec.get("resamples", 1000)

    def make(dst: Path) -> None:
        dst.mkdir(parents=True, exist_ok=True)
        with chdir(dst):
            make_campaign(".", p, effects=spec.get("effects"), base_accuracy=spec.get("base_accuracy", 0.5),
                          rng_seed=spec.get("rng_seed", 0))
            a = analyze(f"locks/{p['id']}.lock.json", "runs")
            write(a, "report/analysis.json", overwrite=True)
            corpus.seed_recompute(f"locks/{p['id']}.lock.json", "runs", a)

    corpus.built_once("sets.spec_campaign\0" + json.dumps(spec, sort_keys=True), root, make)
    return root / "report"


def caught(findings, clean_findings, plant: corpus.Plant, line: int) -> list:
    """Findings that catch ``plant`` (its check, at its line, with its message) and that the clean
    report does not have already: a false alarm on the planted line does not count as a catch."""
    before = {(f.check, f.location.rsplit("/", 1)[-1], f.message) for f in clean_findings}
    return [f for f in corpus.caught(findings, plant, line)
            if (f.check, f.location.rsplit("/", 1)[-1], f.message) not in before]


@dataclass(frozen=True)
class Result:
    """One report's measurement: plants caught, plants planted, findings on the clean report."""

    caught: int
    planted: int
    alarms: int
    missed: tuple[str, ...]
    alarm_lines: tuple[str, ...]


@dataclass(frozen=True)
class ReportSet:
    """A folder of hand-written reports, each with its study, plants and known defects (module docstring).

    Example:
        >>> s = ReportSet(corpus.REPO / "tests" / "report_corpus_wild")
        >>> "hf_card" in s.names(), s.study("changelog")
        (True, 'campaign')
    """

    folder: Path

    def names(self) -> list[str]:
        """The set's reports, in order (one folder each, holding ``study.txt`` or ``study.json``)."""
        return sorted({p.parent.name for pat in ("*/study.txt", "*/study.json") for p in self.folder.glob(pat)})

    def study(self, name: str) -> str:
        """The study report ``name`` is about: a corpus study name, ``campaign``, or '' (its own ``study.json``)."""
        return corpus.study_of(self.folder, name) if (self.folder / name / "study.txt").is_file() else ""

    def build(self, name: str, root: Path) -> Path:
        """Build the study of report ``name`` under ``root`` with this folder's report as its only report;
        returns the report folder (next to ``analysis.json``)."""
        src = self.folder / name
        over = self.study(name)
        if over:
            report = runner_campaign(root) if over == CAMPAIGN else corpus.build(over, root)
        else:
            spec = json.loads((src / "study.json").read_text())
            report = (spec_campaign(spec, root) if spec.get("generator") == CAMPAIGN
                      else corpus.build(name, root, folder=self.folder))
        corpus.put_report(report, src)
        for f in src.iterdir():
            if f.suffix in OTHER_SUFFIXES:
                shutil.copyfile(f, report / f.name)
        return report

    def plants(self, name: str) -> list[corpus.KnownPlant]:
        """The planted errors of report ``name`` (its ``plants.json``)."""
        return corpus.known_plants(self.folder, name)

    def known(self, name: str, what: str) -> str:
        """The documented defect that keeps report ``name`` from auditing clean (``clean`` or ``strict``), or ''."""
        return corpus.known_defect(self.folder, name, what)

    def measure_one(self, name: str, tmp: Path, strict: bool = False) -> Result:
        """Audit the clean report of ``name`` and each of its plants (each on its own copy)."""
        from audit import check

        clean = self.build(name, tmp / name / "clean")
        alarms = check(clean, strict=strict).findings
        got, missed = 0, []
        for i, p in enumerate(self.plants(name)):
            rep = tmp / name / f"p{i}" / clean.name
            shutil.copytree(clean.parent, rep.parent, dirs_exist_ok=True)
            line = corpus.apply(rep, p)
            if caught(check(rep, strict=strict).findings, alarms, p, line):
                got += 1
            else:
                missed.append(f"{p.kind}: {p.find!r} -> {p.replace!r}")
            shutil.rmtree(rep.parent)
        lines = tuple(f"{f.check} {Path(f.location).name} {f.message} | {f.expected} | {f.found}" for f in alarms)
        return Result(got, len(self.plants(name)), len(alarms), tuple(missed), lines)

    def measure(self, argv: list[str]) -> dict[str, Result]:
        """Measure the reports ``argv`` names (``[--strict] [NAME ...]``; default all), printing every
        miss and false alarm as it goes."""
        import tempfile

        strict = "--strict" in argv
        res = {}
        with tempfile.TemporaryDirectory() as d:
            for name in [a for a in argv if not a.startswith("--")] or self.names():
                res[name] = r = self.measure_one(name, Path(d), strict=strict)
                for m in r.missed:
                    print(f"  missed {name}: {m}")
                for a in r.alarm_lines:
                    print(f"  false alarm {name}: {a}")
        return res


def totals(res: dict[str, Result]) -> tuple[int, int, int]:
    """(plants caught, plants planted, findings on the clean reports) over a set's results."""
    return tuple(sum(getattr(r, k) for r in res.values()) for k in ("caught", "planted", "alarms"))


def run_set(argv: list[str], report_set: ReportSet) -> int:
    """Measure a report set from the command line (``[--strict] [NAME ...]``): print every miss and
    false alarm, then a table of plants caught and clean-report findings; 0 when all are caught and
    no clean report has a finding."""
    res = report_set.measure(argv)
    print(f"\n| report | caught / planted | false alarms on the clean report |{' (--strict)' if '--strict' in argv else ''}")
    print("|---|---|---|")
    for name, r in res.items():
        print(f"| {name} | {r.caught} / {r.planted} | {r.alarms} |")
    tot = totals(res)
    print(f"| total | {tot[0]} / {tot[1]} ({100 * tot[0] / max(tot[1], 1):.0f}%) | {tot[2]} over {len(res)} clean reports |")
    return 0 if tot[0] == tot[1] and tot[2] == 0 else 1
