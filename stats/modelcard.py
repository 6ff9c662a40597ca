"""Hugging Face model cards from analysis.json, the run manifests and the lock (``stats render --model-cards``).

Both studies this toolkit was built from shipped their results as hand-typed model cards; here
the card is rendered like report.md: every number in its body is written as
``TEXT<!-- id:VALUE_ID -->`` (the ids ``stats render`` and the audit use: ``runs.<arm>.s<seed>.*``,
``arms.*``, ``contrasts.*`` from analysis.json, ``lock.*`` from the lock), so ``audit check``
verifies a card as it verifies report.md. The YAML front matter carries a ``model-index`` with
the run's held-out metrics (checked by ``audit/model_index.py`` against the run's values) and an
``rlprereg`` block naming the study, run, lock hash and seal the card describes.

Nothing here computes a statistic: values are formatted from analysis.json (``stats.render.fmt``)
and settings read from the sealed manifest's resolved config. The analysis is read as a typed
:class:`stats.result.AnalysisResult` (its runs, contrasts, verdicts and deviations), the lock as
a :class:`prereg.study.Study` (model, dataset, task, arms, the analysis plan) and each run as a
:class:`CardRun`; value records are read by their id, which is also the pin the card writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prereg.errors import UserError
from prereg.fields import resolved_path
from prereg.study import Study
from stats.result import AnalysisResult, Value

CARD_DIR = "model_cards"
STUDY_CARD = "study"
HEADER = "rlprereg-model-card"


@dataclass(frozen=True)
class CardRun:
    """One analysed run as a card needs it, read from its seal-checked manifest."""

    arm: str
    seed: int
    path: Path
    seal: str
    evidence_class: str
    algorithm: str | None                 # the manifest's ``algorithm`` (absent: None)
    declared_changes: tuple[str, ...]     # the arm's changed settings, sorted
    resolved_config: Mapping[str, Any]    # what the trainer was built with
    artifacts: Mapping[str, Any]          # file -> {sha256, bytes}

    @property
    def name(self) -> str:
        """The run's card name, ``<arm>-s<seed>``."""
        return f"{self.arm}-s{self.seed}"

    @classmethod
    def of(cls, arm: str, seed: int, path: Path, manifest: dict) -> CardRun:
        """Read the fields a card needs from a seal-checked manifest, once."""
        return cls(arm, seed, path, manifest["seal"], manifest["evidence_class"], manifest.get("algorithm"),
                   tuple(sorted(manifest.get("declared_changes") or {})), manifest.get("resolved_config") or {},
                   manifest.get("artifacts") or {})


def card_runs(result: AnalysisResult, root: Path) -> list[CardRun]:
    """The analysed runs with their manifests; a manifest whose seal is not the analysed one is refused.

    Args:
        result: the analysis (its ``runs`` name the runs and their seals).
        root: the runs folder the analysis read.

    Returns:
        One :class:`CardRun` per analysed trained run, in the analysis' order (reference
        evaluations produced no model and get no card; the study card reports them).

    Example:
        >>> [r.name for r in card_runs(result, Path("runs"))][:1]  # doctest: +SKIP
        ['aero-s1']
    """
    from prereg.records import is_reference_run, read_run

    out = []
    for r in result.runs:
        run = read_run(root / r.path)
        if run.manifest.get("seal") != r.seal or not run.seal_ok():
            raise UserError(f"{run.path / 'manifest.json'}: seal differs from the analysed run's; "
                            "re-run `stats analyze` before rendering model cards")
        if is_reference_run(run.manifest):  # a reference evaluation (runner evaluate) made no model to card
            continue
        out.append(CardRun.of(r.arm, r.seed, run.path, run.manifest))
    return out


def _yaml(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


# Run summaries that describe training, not the held-out evaluation (prereg.summaries).
TRAINING_SUMMARIES = frozenset({"zvf_mean", "gu_mean", "reward_first5", "reward_last10", "rollouts", "steps"})


def _run_metrics(result: AnalysisResult, primary: str, arm: str, seed: int, *,
                heldout_only: bool = False) -> list[tuple[str, str, Value]]:
    """(metric name, value id, value record) of a run's values in analysis.json, ``primary`` first.

    ``heldout_only`` keeps the held-out metrics (what a ``model-index`` reports): not the training
    summaries and not ``heldout_n``, the number of items.
    """
    pre = f"runs.{arm}.s{seed}."
    names = [vid[len(pre):] for vid in result.value_ids(pre)]
    if heldout_only:
        names = [n for n in names if n not in TRAINING_SUMMARIES and n != "heldout_n"]
    names.sort(key=lambda n: n != primary)
    return [(n, pre + n, result.record(pre + n)) for n in names]


def _index_value(rec: Value):
    """A model-index value: the number as the card body shows it (``stats.render.fmt``), int for counts."""
    from stats.render import fmt

    text = fmt(rec)
    return int(text) if text.lstrip("-").isdigit() else float(text)


def license_fields(base_model: str, license: str | None) -> dict:
    """``license`` (``--card-license``); without one, ``other`` pointing at the base model's terms,
    which an adapter inherits and which this toolkit cannot look up offline.

    Args:
        base_model: the locked base model's name (a Hub id links to its page).
        license: the card's license id, or None.

    Returns:
        The front-matter license fields.

    Example:
        >>> license_fields("Qwen/Qwen2.5-0.5B-Instruct", None)["license_link"]
        'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct'
        >>> license_fields("tiny", "apache-2.0")
        {'license': 'apache-2.0'}
    """
    if license:
        return {"license": license}
    out = {"license": "other", "license_name": "same-as-base-model"}
    if "/" in base_model:
        out["license_link"] = f"https://huggingface.co/{base_model}"
    return out


def _front_matter(result: AnalysisResult, study: Study, run: CardRun | None, tags: list[str],
                 license: str | None = None) -> dict:
    """The card's YAML metadata; a run card has a ``model-index`` of its held-out metrics."""
    model = study.model
    meta = {"base_model": model.name}
    if model.revision:
        meta["base_model_revision"] = model.revision
    meta.update({"library_name": "peft", **license_fields(model.name, license),
                 "datasets": [study.dataset.name], "tags": tags, "pipeline_tag": "text-generation"})
    block = {"study": result.study_id, "lock_hash": result.lock_hash, "lock_version": result.lock_version}
    if run is not None:
        block.update(arm=run.arm, seed=run.seed, seal=run.seal, evidence_class=run.evidence_class)
        meta["model-index"] = [_model_index(result, study, run)]
    meta["rlprereg"] = block
    return meta


def _model_index(result: AnalysisResult, study: Study, run: CardRun) -> dict:
    """The run's ``model-index`` entry: its held-out metrics on the locked dataset's held-out split."""
    ds = study.dataset
    dataset = {"name": ds.name, "type": ds.name, "split": ds.heldout_split or "heldout"}
    dataset.update({k: v for k, v in (("config", ds.config), ("revision", ds.revision)) if v})
    metrics = [{"type": n, "name": f"{n} ({rec.unit})", "value": _index_value(rec)}
               for n, _, rec in _run_metrics(result, study.analysis.primary_metric, run.arm, run.seed,
                                            heldout_only=True)
               if isinstance(rec.value, (int, float)) and not isinstance(rec.value, bool)]
    return {"name": f"{result.study_id}-{run.name}", "results": [{
        "task": {"type": "text-generation", "name": str(study.task.name)},
        "dataset": dataset, "metrics": metrics}]}


def _tags_for(result: AnalysisResult, run: CardRun | None) -> list[str]:
    """The card's Hub tags: the toolkit, the study and lock, and for a run card its unit and algorithm."""
    tags = ["rlprereg", "trl", "grpo-family", "reinforcement-learning", f"rlprereg-study:{result.study_id}",
            f"rlprereg-lock:{result.lock_hash[:16]}"]
    if run is not None:
        algorithm = run.algorithm if run.algorithm is not None else run.arm
        tags += [f"rlprereg-run:{run.arm}-s{run.seed}", f"algorithm:{algorithm}", run.evidence_class]
    return tags


def _value_text(v) -> str:
    """A resolved-config value as written in the card (numbers exactly, so the audit can pin them)."""
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return f"`{json.dumps(v) if not isinstance(v, str) else v}`"


def _settings_section(study: Study, run: CardRun) -> list[str]:
    """Every locked field of the arm with its resolved value, pinned to the lock entry it came from."""
    from prereg.fields import flatten

    flat = flatten(dict(run.resolved_config))
    arm = study.arms[run.arm]
    L = ["## Training settings (resolved config)", "",
         f"Run with TRL's `GRPOTrainer` and a PEFT LoRA adapter, algorithm `{run.algorithm}`. "
         "Each locked setting below is the value the trainer was built with (the sealed manifest's "
         "`resolved_config`), pinned to the lock entry it must equal.", "",
         "| Setting | Resolved value | Locked in |", "|---|---|---|"]
    for name in sorted(arm.training.fields):
        path = resolved_path(name)
        value = flat.get(path)
        where = f"lock.arms.{run.arm}.changes.{name}" if name in arm.changes else f"lock.training.{name}"
        text = _value_text(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text += f"<!-- id:{where} -->"
        L.append(f"| `{path}` | {text} | {'arm change' if name in arm.changes else 'shared'} (`{where}`) |")
    L += ["", "Every other GRPOConfig and LoraConfig field (library defaults, preset-filled and derived values) "
          "is in `manifest.json` under `resolved_config`, with where each came from under `config_sources`.", ""]
    return L


def _results_section(result: AnalysisResult, study: Study, run: CardRun) -> list[str]:
    """The run's own values (held-out metrics and training summaries), each pinned to its id."""
    from stats.render import _Doc

    d = _Doc(result)
    L = [f"## Results of this run (`{run.arm}/s{run.seed}`)", "",
         "Held-out evaluation and training summaries of this run, as analysed:", "",
         "| Metric | Value | Unit |", "|---|---|---|"]
    for name, vid, rec in _run_metrics(result, study.analysis.primary_metric, run.arm, run.seed):
        L.append(f"| `{name}` | {d.cell(vid)} | {rec.unit} |")
    return L + [""]


def _arm_section(result: AnalysisResult, study: Study, arm: str) -> list[str]:
    """The across-seed table of the arm and its contrasts, as report.md writes them."""
    from stats.render import _Doc

    d, plan = _Doc(result), study.analysis
    metric, summ = plan.primary_metric, plan.arm_summary
    s0 = summ.statistics[0]
    unit = result.unit(f"arms.{arm}.{metric}.{s0}", "fraction")
    seeds = sorted({r.seed for r in result.runs if r.arm == arm})
    L = [f"## Across seeds: arm `{arm}`", "", f"| Seed | `{metric}` ({unit}) |", "|---|---|"]
    L += [f"| `s{s}` | {d.cell(f'runs.{arm}.s{s}.{metric}')} |" for s in seeds]
    base = f"arms.{arm}.{metric}.{s0}"
    L += ["", f"| Seeds (seeds) | {s0} ({unit}) | {summ.level * 100:g}% {summ.interval} CI ({unit}) | "
          f"SD over seeds ({unit}) |", "|---|---|---|---|",
          f"| {d.cell(f'arms.{arm}.n_seeds')} | {d.cell(base)} | {d.interval(f'{base}.{result.arm_interval_tag}')} | "
          f"{d.cell(f'arms.{arm}.{metric}.sd')} |", ""]
    mine = [c for c in result.contrasts.values() if c.name.startswith(arm + "-") or arm == result.baseline]
    return L + (_contrast_table(result, plan, unit, mine) if mine else [])


def _contrast_table(result: AnalysisResult, plan, unit: str, contrasts: list) -> list[str]:
    """The arm's contrasts (arm − baseline) with the planned intervals, p, adjusted p and verdict."""
    from stats.render import _Doc

    d = _Doc(result)
    ctags = result.interval_tags
    head = ["Contrast", "Pairs (seeds)", f"Δ mean (difference, {unit})"]
    head += [f"{s.level * 100:g}% {s.method} CI (difference, {unit})" for _, s in ctags]
    head += [f"p, {plan.test} (probability)", f"p adjusted, {plan.multiplicity.method} (probability)", "Verdict"]
    L = ["### Contrasts (arm − baseline)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in contrasts:
        pre = f"contrasts.{c.name}"
        row = [f"`{c.name}`", d.cell(f"{pre}.n_pairs"), d.cell(f"{pre}.diff_mean")]
        row += [d.interval(f"{pre}.{t}") for t, _ in ctags]
        row += [d.cell(f"{pre}.p"), d.cell(f"{pre}.p_adjusted"),
                f"{c.verdict or 'NONE'}<!-- verdict:contrasts.{c.name} -->"]
        L.append("| " + " | ".join(row) + " |")
    return L + [""]


def _evidence_section(result: AnalysisResult, run: CardRun) -> list[str]:
    """What the run's evidence class licenses, with the lock, seal and study verdict it belongs to."""
    cls = run.evidence_class
    L = ["## Evidence class", "",
         f"**{cls}**. " + ("This run is one registered (arm, seed) unit of a locked preregistration; its "
                           "result counts toward the study's confirmatory verdicts." if cls == "confirmatory" else
                           "This run was not registered as confirmatory (an exploratory or pilot run); its "
                           "numbers describe it alone and support no confirmatory claim."), "",
         f"- Study `{result.study_id}`, lock `{result.lock_hash}` (version {result.lock_version}<!-- id:lock.version -->)",
         f"- Run manifest seal `{run.seal}`",
         f"- Study verdict: {result.study_verdict}<!-- verdict:study -->", ""]
    return L


def _limitations_section(result: AnalysisResult, run: CardRun) -> list[str]:
    """What one run's card cannot claim: one seed, one task and split, and the study's deviations."""
    from stats.render import _Doc

    d = _Doc(result)
    pre = f"runs.{run.arm}.s{run.seed}"
    L = ["## Limitations", "",
         f"- One training seed of arm `{run.arm}`: seed-to-seed spread is in the across-seed table above; "
         "a single run's number is not the arm's effect.",
         f"- Evaluated on {d.cell(pre + '.heldout_n')} held-out items of one task and split only; nothing here "
         "measures safety, other tasks or other decoding settings.",
         f"- {d.cell(pre + '.steps')} optimizer steps; the adapter is specific to the base model revision named "
         "in the metadata."]
    if run.evidence_class != "confirmatory":
        L.append("- Exploratory: not part of the preregistered confirmatory family.")
    for dev in result.deviations:
        L.append(f"- Deviation from the plan ({dev.kind}): {dev.detail}")
    return L + [""]


def _load_section(study: Study) -> list[str]:
    """How to load the adapter on its locked base model (the code a Hub reader copies)."""
    model = study.model
    rev = f', revision="{model.revision}"' if model.revision else ""
    return ["## How to load", "", "```python", "from peft import PeftModel",
            "from transformers import AutoModelForCausalLM, AutoTokenizer", "",
            f'base = AutoModelForCausalLM.from_pretrained("{model.name}"{rev})',
            f'tokenizer = AutoTokenizer.from_pretrained("{model.name}"{rev})',
            'model = PeftModel.from_pretrained(base, "<namespace>/<this-repo>")  # or a local folder', "```", "",
            "The adapter files sit next to this card; `rlprereg/` holds the sealed manifest, the per-step "
            "telemetry and the completion traces (hashes; text only if the run stored it).", ""]


def run_card(result: AnalysisResult, digest: str, study: Study, run: CardRun, license: str | None = None) -> str:
    """The model card (README.md text) of one analysed run.

    Args:
        result: the analysis; digest: sha256 of its analysis.json bytes (named in the card's header comment).
        study: the locked preregistration (base model, dataset, task, locked settings, plan).
        run: the run (its sealed manifest gives the resolved config and seal).
        license: the card's license id (``--card-license``), else ``other`` (:func:`license_fields`).

    Returns:
        The card: YAML front matter, then the pinned body.

    Example:
        >>> run_card(result, digest, lock.study, runs[0]).startswith("---\\nbase_model:")  # doctest: +SKIP
        True
    """
    meta = _front_matter(result, study, run, _tags_for(result, run), license)
    declared = ", ".join(f"`{k}`" for k in run.declared_changes) or "none (the baseline)"
    L = ["---", _yaml(meta).rstrip("\n"), "---",
         f"<!-- {HEADER} sha256={digest} study={result.study_id} lock={result.lock_hash} "
         f"run={run.arm}/s{run.seed} seal={run.seal} -->",
         f"# `{result.study_id}` · arm `{run.arm}` · `s{run.seed}`", "",
         "## What this run is", "",
         f"A LoRA adapter for `{study.model.name}`, trained with reinforcement learning "
         f"(`{run.algorithm}`) as arm `{run.arm}` of the preregistered study `{result.study_id}` "
         f"({study.title}). Declared changes from the baseline arm `{result.baseline}`: {declared}. "
         f"Task `{study.task.name}` on `{study.dataset.name}`. This card was rendered by "
         "`stats render --model-cards` from the study's analysis.json; every number carries a pin the "
         "`audit check` verifies.", ""]
    L += _settings_section(study, run) + _results_section(result, study, run) + _arm_section(result, study, run.arm)
    L += _evidence_section(result, run) + _limitations_section(result, run) + _load_section(study)
    return "\n".join(L)


def study_card(result: AnalysisResult, digest: str, study: Study, runs: list[CardRun],
               license: str | None = None) -> str:
    """The study's card: its metadata, the list of run cards and the report body (pinned as in report.md).

    Args:
        result: the analysis; digest: sha256 of its analysis.json bytes.
        study: the locked preregistration; runs: the carded runs (:func:`card_runs`).
        license: the card's license id (:func:`license_fields`).

    Returns:
        The card text: YAML front matter, the run list, then report.md's body.

    Example:
        >>> study_card(result, digest, lock.study, runs).startswith("---")  # doctest: +SKIP
        True
    """
    from stats.render import markdown

    meta = _front_matter(result, study, None, _tags_for(result, None), license)
    body = markdown(result, digest, [], []).splitlines()[1:]  # report.md without its header line
    L = ["---", _yaml(meta).rstrip("\n"), "---",
         f"<!-- {HEADER} sha256={digest} study={result.study_id} lock={result.lock_hash} -->",
         f"# Study `{result.study_id}`: {study.title}", "",
         f"LoRA adapters of `{study.model.name}` trained under a locked preregistration; one model card "
         "per run:", ""]
    L += [f"- `{r.name}` ({r.evidence_class})" for r in runs] + [""]
    return "\n".join(L + [ln.replace("# Results:", "## Results:", 1) if ln.startswith("# ") else ln for ln in body])


def card_paths(out: Path, runs: list[CardRun]) -> dict[str, Path]:
    """Where ``stats render --model-cards`` writes the cards: one README.md per folder, as the Hub expects.

    Args:
        out: the report folder; runs: the carded runs (their ``name``).

    Returns:
        Card name (``study``, ``<arm>-s<seed>``) -> path.

    Example:
        >>> from types import SimpleNamespace
        >>> sorted(str(p) for p in card_paths(Path("report"), [SimpleNamespace(name="gspo-s1")]).values())
        ['report/model_cards/gspo-s1/README.md', 'report/model_cards/study/README.md']
    """
    paths = {STUDY_CARD: out / CARD_DIR / STUDY_CARD / "README.md"}
    paths.update({r.name: out / CARD_DIR / r.name / "README.md" for r in runs})
    return paths


def model_cards(result: AnalysisResult, digest: str, study: Study, runs: list[CardRun],
                license: str | None = None) -> dict[str, str]:
    """Card text by name (``study`` and ``<arm>-s<seed>``).

    Args:
        result: the analysis; digest: sha256 of its analysis.json bytes.
        study: the locked preregistration; runs: the carded runs (:func:`card_runs`).
        license: the cards' license id (:func:`license_fields`).

    Returns:
        Card name -> text, the study card first.

    Example:
        >>> texts = model_cards(result, digest, lock.study, card_runs(result, Path("runs")))  # doctest: +SKIP
        >>> sorted(texts)[:2]  # doctest: +SKIP
        ['dr_grpo-s1', 'dr_grpo-s2']
    """
    out = {STUDY_CARD: study_card(result, digest, study, runs, license)}
    out.update({r.name: run_card(result, digest, study, r, license) for r in runs})
    return out


def card_lock(result: AnalysisResult, analysis_path: Path, lock_path: str | Path | None):
    """The analysed lock (``--lock``, else analysis.json's ``lock.path``), verified and equal to the analysed hash.

    Why: a card states the locked settings; a lock other than the analysed one would state settings
    the runs were not checked against.

    Args:
        result: the analysis; analysis_path: its file (a relative ``lock.path`` is tried next to it).
        lock_path: ``--lock``, or None.

    Returns:
        The verified :class:`prereg.lock.Lock`.

    Raises:
        UserError: no lock found, a lock that does not verify, or another lock than the analysed one.

    Example:
        >>> card_lock(result, Path("report/analysis.json"), None).hash == result.lock_hash  # doctest: +SKIP
        True
    """
    from prereg.lock import verify_lock

    if lock_path is None:
        rec = Path(result.lock_path or "")
        cands = [rec, analysis_path.parent / rec] if str(rec) else []
        found = [c for c in cands if c.is_file()]
        if not found:
            raise UserError(f"--lock: analysis.json's lock path {str(rec)!r} is not a file here; pass --lock PATH")
        lock_path = found[0]
    lock = verify_lock(lock_path)
    if lock.hash != result.lock_hash:
        raise UserError(f"--lock {lock_path}: lock hash {lock.hash[:16]}… is not the analysed one "
                        f"({result.lock_hash[:16]}…)")
    return lock


def write_cards(out: Path, texts: dict[str, str], runs: list[CardRun], *, overwrite: bool = False) -> list[Path]:
    """Write every card (refusing to replace one unless ``overwrite``).

    Args:
        out: the report folder; texts: :func:`model_cards`; runs: the carded runs.
        overwrite: replace cards an earlier render wrote.

    Returns:
        The paths written, the study card first.

    Example:
        >>> write_cards(Path("report"), texts, runs)[0]  # doctest: +SKIP
        PosixPath('report/model_cards/study/README.md')
    """
    from prereg.jsonio import make_dirs, write_atomic

    paths = card_paths(out, runs)
    if not overwrite:
        for p in paths.values():
            if p.exists():
                raise UserError(f"{p}: already exists; refusing to overwrite (choose another -o)")
    for name, p in paths.items():
        make_dirs(p.parent)
        write_atomic(p, texts[name], overwrite=overwrite)
    return list(paths.values())
