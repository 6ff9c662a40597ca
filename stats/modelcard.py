"""Hugging Face model cards from analysis.json, the run manifests and the lock (``stats render --model-cards``).

Both studies this toolkit was built from shipped their results as hand-typed model cards; here
the card is rendered like report.md: every number in its body is written as
``TEXT<!-- id:VALUE_ID -->`` (the ids ``stats render`` and the audit use: ``runs.<arm>.s<seed>.*``,
``arms.*``, ``contrasts.*`` from analysis.json, ``lock.*`` from the lock), so ``audit check``
verifies a card as it verifies report.md. The YAML front matter carries a ``model-index`` with
the run's held-out metrics (checked by ``audit/model_index.py`` against the run's values) and an
``rlprereg`` block naming the study, run, lock hash and seal the card describes.

Nothing here computes a statistic: values are formatted from analysis.json (``stats.render.fmt``)
and settings read from the sealed manifest's resolved config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prereg.errors import UserError
from prereg.fields import merged_fields, resolved_path

CARD_DIR = "model_cards"
STUDY_CARD = "study"
HEADER = "rlprereg-model-card"


@dataclass(frozen=True)
class CardRun:
    """One analysed run as a card needs it: its manifest (seal-checked) and where it lives."""

    arm: str
    seed: int
    path: Path
    manifest: dict

    @property
    def name(self) -> str:
        return f"{self.arm}-s{self.seed}"


def card_runs(a: dict, root: Path) -> list[CardRun]:
    """The analysed runs with their manifests; a manifest whose seal is not the analysed one is refused.

    Args:
        a: analysis.json as a dict (its ``inputs.runs`` name the runs and their seals).
        root: the runs folder the analysis read.

    Returns:
        One :class:`CardRun` per analysed trained run, in the analysis' order (reference
        evaluations produced no model and get no card; the study card reports them).

    Example:
        >>> [r.name for r in card_runs(analysis, Path("runs"))][:1]
        ['aero-s1']
    """
    from prereg.records import is_reference_run, read_run

    out = []
    for r in a["inputs"]["runs"]:
        run = read_run(root / r["path"])
        if run.manifest.get("seal") != r.get("seal") or not run.seal_ok():
            raise UserError(f"{run.path / 'manifest.json'}: seal differs from the analysed run's; "
                            "re-run `stats analyze` before rendering model cards")
        if is_reference_run(run.manifest):  # a reference evaluation (runner evaluate) made no model to card
            continue
        out.append(CardRun(r["arm"], r["seed"], run.path, run.manifest))
    return out


def _yaml(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def _task_type(prereg: dict) -> str:
    return "text-generation"


# Run summaries that describe training, not the held-out evaluation (prereg.summaries).
TRAINING_SUMMARIES = frozenset({"zvf_mean", "gu_mean", "reward_first5", "reward_last10", "rollouts", "steps"})


def run_metrics(a: dict, arm: str, seed: int, *, heldout_only: bool = False) -> list[tuple[str, str, dict]]:
    """(metric name, value id, value record) of a run's values in analysis.json, primary metric first.

    ``heldout_only`` keeps the held-out metrics (what a ``model-index`` reports): not the training
    summaries and not ``heldout_n``, the number of items.
    """
    pre = f"runs.{arm}.s{seed}."
    primary = a["plan"]["primary_metric"]
    names = sorted(k[len(pre):] for k in a["values"] if k.startswith(pre))
    if heldout_only:
        names = [n for n in names if n not in TRAINING_SUMMARIES and n != "heldout_n"]
    names.sort(key=lambda n: n != primary)
    return [(n, pre + n, a["values"][pre + n]) for n in names]


def index_value(rec: dict):
    """A model-index value: the number as the card body shows it (``stats.render.fmt``), int for counts."""
    from stats.render import fmt

    text = fmt(rec)
    return int(text) if text.lstrip("-").isdigit() else float(text)


def license_fields(base_model: str, license: str | None) -> dict:
    """``license`` (``--card-license``); without one, ``other`` pointing at the base model's terms,
    which an adapter inherits and which this toolkit cannot look up offline."""
    if license:
        return {"license": license}
    out = {"license": "other", "license_name": "same-as-base-model"}
    if "/" in base_model:
        out["license_link"] = f"https://huggingface.co/{base_model}"
    return out


def front_matter(a: dict, prereg: dict, run: CardRun | None, tags: list[str], license: str | None = None) -> dict:
    """The card's YAML metadata; a run card has a ``model-index`` of its held-out metrics."""
    model, ds = prereg["model"], prereg["dataset"]
    meta = {"base_model": model["name"]}
    if model.get("revision"):
        meta["base_model_revision"] = model["revision"]
    meta.update({"library_name": "peft", **license_fields(model["name"], license),
                 "datasets": [ds["name"]], "tags": tags, "pipeline_tag": "text-generation"})
    block = {"study": a["study_id"], "lock_hash": a["lock"]["hash"], "lock_version": a["lock"]["version"]}
    if run is not None:
        block.update(arm=run.arm, seed=run.seed, seal=run.manifest["seal"],
                     evidence_class=run.manifest["evidence_class"])
        dataset = {"name": ds["name"], "type": ds["name"], "split": ds.get("heldout_split") or "heldout"}
        dataset.update({k: ds[k] for k in ("config", "revision") if ds.get(k)})
        metrics = [{"type": n, "name": f"{n} ({rec.get('unit', 'other')})", "value": index_value(rec)}
                   for n, _, rec in run_metrics(a, run.arm, run.seed, heldout_only=True)
                   if isinstance(rec.get("value"), (int, float)) and not isinstance(rec["value"], bool)]
        meta["model-index"] = [{"name": f"{a['study_id']}-{run.name}", "results": [{
            "task": {"type": _task_type(prereg), "name": str(prereg["task"]["name"])},
            "dataset": dataset, "metrics": metrics}]}]
    meta["rlprereg"] = block
    return meta


def tags_for(a: dict, prereg: dict, run: CardRun | None) -> list[str]:
    tags = ["rlprereg", "trl", "grpo-family", "reinforcement-learning", f"rlprereg-study:{a['study_id']}",
            f"rlprereg-lock:{a['lock']['hash'][:16]}"]
    if run is not None:
        tags += [f"rlprereg-run:{run.arm}-s{run.seed}", f"algorithm:{run.manifest.get('algorithm', run.arm)}",
                 run.manifest["evidence_class"]]
    return tags


def _value_text(v) -> str:
    """A resolved-config value as written in the card (numbers exactly, so the audit can pin them)."""
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return f"`{json.dumps(v) if not isinstance(v, str) else v}`"


def settings_section(prereg: dict, run: CardRun) -> list[str]:
    """Every locked field of the arm with its resolved value, pinned to the lock entry it came from."""
    from prereg.fields import flatten

    flat = flatten(run.manifest.get("resolved_config") or {})
    changes = prereg["arms"].get(run.arm, {}).get("changes", {})
    L = ["## Training settings (resolved config)", "",
         f"Run with TRL's `GRPOTrainer` and a PEFT LoRA adapter, algorithm `{run.manifest.get('algorithm')}`. "
         "Each locked setting below is the value the trainer was built with (the sealed manifest's "
         "`resolved_config`), pinned to the lock entry it must equal.", "",
         "| Setting | Resolved value | Locked in |", "|---|---|---|"]
    for name in sorted(merged_fields(prereg, run.arm)):
        path = resolved_path(name)
        value = flat.get(path)
        where = f"lock.arms.{run.arm}.changes.{name}" if name in changes else f"lock.training.{name}"
        text = _value_text(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text += f"<!-- id:{where} -->"
        L.append(f"| `{path}` | {text} | {'arm change' if name in changes else 'shared'} (`{where}`) |")
    L += ["", "Every other GRPOConfig and LoraConfig field (library defaults, preset-filled and derived values) "
          "is in `manifest.json` under `resolved_config`, with where each came from under `config_sources`.", ""]
    return L


def results_section(a: dict, run: CardRun) -> list[str]:
    from stats.render import _Doc

    d = _Doc(a)
    L = [f"## Results of this run (`{run.arm}/s{run.seed}`)", "",
         "Held-out evaluation and training summaries of this run, as analysed:", "",
         "| Metric | Value | Unit |", "|---|---|---|"]
    for name, vid, rec in run_metrics(a, run.arm, run.seed):
        L.append(f"| `{name}` | {d.cell(vid)} | {rec.get('unit', '')} |")
    return L + [""]


def arm_section(a: dict, arm: str) -> list[str]:
    """The across-seed table of the arm and its contrasts, as report.md writes them."""
    from stats.render import _contrast_tags, _Doc, _level_tag

    d, plan = _Doc(a), a["plan"]
    metric = plan["primary_metric"]
    summ = plan["arm_summary"]
    s0 = summ["statistics"][0]
    unit = (a["values"].get(f"arms.{arm}.{metric}.{s0}") or {}).get("unit", "fraction")
    seeds = sorted({r["seed"] for r in a["inputs"]["runs"] if r["arm"] == arm})
    L = [f"## Across seeds: arm `{arm}`", "", f"| Seed | `{metric}` ({unit}) |", "|---|---|"]
    L += [f"| `s{s}` | {d.cell(f'runs.{arm}.s{s}.{metric}')} |" for s in seeds]
    tag = "ci" + _level_tag(summ["level"])
    base = f"arms.{arm}.{metric}.{s0}"
    L += ["", f"| Seeds (seeds) | {s0} ({unit}) | {summ['level'] * 100:g}% {summ['interval']} CI ({unit}) | "
          f"SD over seeds ({unit}) |", "|---|---|---|---|",
          f"| {d.cell(f'arms.{arm}.n_seeds')} | {d.cell(base)} | {d.interval(f'{base}.{tag}')} | "
          f"{d.cell(f'arms.{arm}.{metric}.sd')} |", ""]
    mine = [c for c in a["contrasts"] if c.startswith(arm + "-") or arm == a["baseline"]]
    if mine:
        ctags = _contrast_tags(plan)
        mp = plan["multiplicity"]
        head = ["Contrast", "Pairs (seeds)", f"Δ mean (difference, {unit})"]
        head += [f"{s['level'] * 100:g}% {s['method']} CI (difference, {unit})" for _, s in ctags]
        head += [f"p, {plan['contrasts']['test']} (probability)", f"p adjusted, {mp['method']} (probability)",
                 "Verdict"]
        L += ["### Contrasts (arm − baseline)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for c in mine:
            pre = f"contrasts.{c}"
            row = [f"`{c}`", d.cell(f"{pre}.n_pairs"), d.cell(f"{pre}.diff_mean")]
            row += [d.interval(f"{pre}.{t}") for t, _ in ctags]
            verdict = a["verdicts"]["contrasts"].get(c, {}).get("verdict") or "NONE"
            row += [d.cell(f"{pre}.p"), d.cell(f"{pre}.p_adjusted"), f"{verdict}<!-- verdict:contrasts.{c} -->"]
            L.append("| " + " | ".join(row) + " |")
        L.append("")
    return L


def evidence_section(a: dict, run: CardRun) -> list[str]:
    m = run.manifest
    cls = m["evidence_class"]
    L = ["## Evidence class", "",
         f"**{cls}**. " + ("This run is one registered (arm, seed) unit of a locked preregistration; its "
                           "result counts toward the study's confirmatory verdicts." if cls == "confirmatory" else
                           "This run was not registered as confirmatory (an exploratory or pilot run); its "
                           "numbers describe it alone and support no confirmatory claim."), "",
         f"- Study `{a['study_id']}`, lock `{a['lock']['hash']}` (version {a['lock']['version']}<!-- id:lock.version -->)",
         f"- Run manifest seal `{m['seal']}`",
         f"- Study verdict: {a['verdicts']['study']['verdict']}<!-- verdict:study -->", ""]
    return L


def limitations_section(a: dict, run: CardRun) -> list[str]:
    from stats.render import _Doc

    d = _Doc(a)
    pre = f"runs.{run.arm}.s{run.seed}"
    L = ["## Limitations", "",
         f"- One training seed of arm `{run.arm}`: seed-to-seed spread is in the across-seed table above; "
         "a single run's number is not the arm's effect.",
         f"- Evaluated on {d.cell(pre + '.heldout_n')} held-out items of one task and split only; nothing here "
         "measures safety, other tasks or other decoding settings.",
         f"- {d.cell(pre + '.steps')} optimizer steps; the adapter is specific to the base model revision named "
         "in the metadata."]
    if run.manifest["evidence_class"] != "confirmatory":
        L.append("- Exploratory: not part of the preregistered confirmatory family.")
    for dev in a.get("deviations") or []:
        L.append(f"- Deviation from the plan ({dev.get('kind')}): {dev.get('detail')}")
    return L + [""]


def load_section(prereg: dict) -> list[str]:
    model = prereg["model"]
    rev = f', revision="{model["revision"]}"' if model.get("revision") else ""
    return ["## How to load", "", "```python", "from peft import PeftModel",
            "from transformers import AutoModelForCausalLM, AutoTokenizer", "",
            f'base = AutoModelForCausalLM.from_pretrained("{model["name"]}"{rev})',
            f'tokenizer = AutoTokenizer.from_pretrained("{model["name"]}"{rev})',
            'model = PeftModel.from_pretrained(base, "<namespace>/<this-repo>")  # or a local folder', "```", "",
            "The adapter files sit next to this card; `rlprereg/` holds the sealed manifest, the per-step "
            "telemetry and the completion traces (hashes; text only if the run stored it).", ""]


def run_card(a: dict, digest: str, prereg: dict, run: CardRun, license: str | None = None) -> str:
    """The model card (README.md text) of one analysed run.

    Args:
        a: analysis.json; digest: sha256 of its bytes (named in the card's header comment).
        prereg: the locked preregistration (base model, dataset, task, locked settings).
        run: the run (its sealed manifest gives the resolved config and seal).
        license: the card's license id (``--card-license``), else ``other`` (:func:`license_fields`).

    Returns:
        The card: YAML front matter, then the pinned body.

    Example:
        >>> run_card(analysis, digest, lock.prereg, runs[0]).startswith("---\nbase_model:")
        True
    """
    meta = front_matter(a, prereg, run, tags_for(a, prereg, run), license)
    m = run.manifest
    declared = ", ".join(f"`{k}`" for k in sorted(m.get("declared_changes") or {})) or "none (the baseline)"
    L = ["---", _yaml(meta).rstrip("\n"), "---",
         f"<!-- {HEADER} sha256={digest} study={a['study_id']} lock={a['lock']['hash']} "
         f"run={run.arm}/s{run.seed} seal={m['seal']} -->",
         f"# `{a['study_id']}` · arm `{run.arm}` · `s{run.seed}`", "",
         "## What this run is", "",
         f"A LoRA adapter for `{prereg['model']['name']}`, trained with reinforcement learning "
         f"(`{m.get('algorithm')}`) as arm `{run.arm}` of the preregistered study `{a['study_id']}` "
         f"({prereg.get('title', '')}). Declared changes from the baseline arm `{a['baseline']}`: {declared}. "
         f"Task `{prereg['task']['name']}` on `{prereg['dataset']['name']}`. This card was rendered by "
         "`stats render --model-cards` from the study's analysis.json; every number carries a pin the "
         "`audit check` verifies.", ""]
    L += settings_section(prereg, run) + results_section(a, run) + arm_section(a, run.arm)
    L += evidence_section(a, run) + limitations_section(a, run) + load_section(prereg)
    return "\n".join(L)


def study_card(a: dict, digest: str, prereg: dict, runs: list[CardRun], license: str | None = None) -> str:
    """The study's card: its metadata, the list of run cards and the report body (pinned as in report.md)."""
    from stats.render import markdown

    meta = front_matter(a, prereg, None, tags_for(a, prereg, None), license)
    body = markdown(a, digest, [], []).splitlines()[1:]  # report.md without its header line
    L = ["---", _yaml(meta).rstrip("\n"), "---",
         f"<!-- {HEADER} sha256={digest} study={a['study_id']} lock={a['lock']['hash']} -->",
         f"# Study `{a['study_id']}`: {prereg.get('title', '')}", "",
         f"LoRA adapters of `{prereg['model']['name']}` trained under a locked preregistration; one model card "
         "per run:", ""]
    L += [f"- `{r.name}` ({r.manifest['evidence_class']})" for r in runs] + [""]
    return "\n".join(L + [ln.replace("# Results:", "## Results:", 1) if ln.startswith("# ") else ln for ln in body])


def card_paths(out: Path, runs: list[CardRun]) -> dict[str, Path]:
    """Where ``stats render --model-cards`` writes the cards: one README.md per folder, as the Hub expects."""
    paths = {STUDY_CARD: out / CARD_DIR / STUDY_CARD / "README.md"}
    paths.update({r.name: out / CARD_DIR / r.name / "README.md" for r in runs})
    return paths


def model_cards(a: dict, digest: str, prereg: dict, runs: list[CardRun], license: str | None = None) -> dict[str, str]:
    """Card text by name (``study`` and ``<arm>-s<seed>``).

    Example:
        >>> texts = model_cards(analysis, digest, lock.prereg, card_runs(analysis, Path("runs")))
        >>> sorted(texts)[:2]
        ['dr_grpo-s1', 'dr_grpo-s2']
    """
    out = {STUDY_CARD: study_card(a, digest, prereg, runs, license)}
    out.update({r.name: run_card(a, digest, prereg, r, license) for r in runs})
    return out


def card_lock(a: dict, analysis_path: Path, lock_path: str | Path | None):
    """The analysed lock (``--lock``, else analysis.json's ``lock.path``), verified and equal to the analysed hash."""
    from prereg.lock import verify_lock

    if lock_path is None:
        rec = Path(a["lock"].get("path") or "")
        cands = [rec, analysis_path.parent / rec] if str(rec) else []
        found = [c for c in cands if c.is_file()]
        if not found:
            raise UserError(f"--lock: analysis.json's lock path {str(rec)!r} is not a file here; pass --lock PATH")
        lock_path = found[0]
    lock = verify_lock(lock_path)
    if lock.hash != a["lock"]["hash"]:
        raise UserError(f"--lock {lock_path}: lock hash {lock.hash[:16]}… is not the analysed one "
                        f"({a['lock']['hash'][:16]}…)")
    return lock


def write_cards(out: Path, texts: dict[str, str], runs: list[CardRun], *, overwrite: bool = False) -> list[Path]:
    """Write every card (refusing to replace one unless ``overwrite``); returns the paths written."""
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
