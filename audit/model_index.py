"""Check 10, model cards: every ``model-index`` value in a card's YAML front matter equals its run's value.

A Hugging Face model card (``stats render --model-cards``) carries its results twice: pinned in
the body (traced like report.md) and as ``model-index`` metrics in the YAML front matter, which
the Hub shows as the model's scores and which carry no pin. The card names its run in the
``rlprereg`` block (``arm``, ``seed``, ``seal``); each metric ``type`` is a run value — the
analysis' ``runs.<arm>.s<seed>.<type>``, else the manifest summary ``<type>`` — and the YAML value
must equal it as rounded to the digits written. A card for a run the audit does not know, or
for another version of it (seal), is a finding too.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from audit.sources import _num


def front_matter(f) -> tuple[str, int]:
    """(YAML text, line number of its first line) of a parsed Markdown file; ("", 0) when it has none.

    Uses ``ParsedFile.front_matter`` where the parser filled it, else reads the file's lines.
    """
    lines = list(getattr(f, "lines", []) or [])
    text = getattr(f, "front_matter", "") or ""
    if not lines or lines[0].strip() != "---":
        return text, 2 if text else 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            return (text or "\n".join(lines[1:end])), 2
    return "", 0


def _get(node, key: str):
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _items(node) -> list:
    import yaml

    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _scalar(node):
    import yaml

    return node.value if isinstance(node, yaml.ScalarNode) else None


def _equal_as_written(text: str, want: float) -> bool:
    """Is ``want`` within half a unit of the last digit of ``text`` (``0.6000`` -> ±0.00005)?"""
    try:
        d = Decimal(text.strip())
    except InvalidOperation:
        return False
    if not d.is_finite():
        return False
    half = Decimal(5) * Decimal(10) ** (d.as_tuple().exponent - 1)
    return abs(Decimal(repr(float(want))) - d) <= half * (1 + Decimal("1e-9"))


def _run_of(ctx, arm, seed, seal):
    cands = [r for r in ctx.runs if r.manifest.get("arm") == arm and r.manifest.get("seed") == seed]
    exact = [r for r in cands if r.manifest.get("seal") == seal]
    return (exact or cands or [None])[0], bool(exact)


def _expected(ctx, run, arm, seed, metric: str):
    rec = (ctx.analysis.get("values") or {}).get(f"runs.{arm}.s{seed}.{metric}")
    if isinstance(rec, dict) and _num(rec.get("value")) is not None:
        return _num(rec["value"]), f"runs.{arm}.s{seed}.{metric}"
    v = _num((run.manifest.get("summaries") or {}).get(metric)) if run is not None else None
    return (v, f"manifest.{arm}.s{seed}.{metric}") if v is not None else (None, None)


def _card(f, out):
    """(YAML root node, first line) of a card with a model-index, else None (findings for broken YAML)."""
    import yaml

    text, first = front_matter(f)
    if not text or "model-index" not in text:
        return None
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        out.add(f"{f.path}:{first}", "YAML front matter", str(exc).splitlines()[0], "card front matter is not YAML")
        return None
    return (root, first) if _get(root, "model-index") is not None else None


def _titled_run(ctx, f):
    """(arm, seed) a hand-typed card's headings name ("# ... `gspo`, seed 37"), else None."""
    from audit.sources import entity_from_text
    arms = list(ctx.arms)
    for text in (scope[-1] for _line, scope in f.heading_scopes if scope):
        ent, _ = entity_from_text(text, arms)
        if ent is not None and ent[0] == "run":
            return ent[1], str(ent[2])
    return None


def _analysed_run(ctx, arm: str, seed: int) -> bool:
    prefix = f"runs.{arm}.s{seed}."
    return any(k.startswith(prefix) for k in (ctx.analysis.get("values") or {}))


def _metric_name(ctx, name: str) -> str:
    """A model-index ``type`` as the metric it names ("accuracy" -> heldout_accuracy) via declared labels."""
    vocab = ctx.report.vocab if ctx.report is not None else None
    if vocab is None:
        return name
    from prereg.declarations import normalise_label

    hit = vocab.metrics.get(normalise_label(name))
    if hit is None:   # "Mean reward, last 10 steps": the one metric the words name (a statistic word around it)
        named = {m for _, m in vocab.metrics_in(name)}
        hit = named.pop() if len(named) == 1 else None
    return hit or name


def check_card(ctx, out, f) -> int:
    """Check one card's model-index values; returns how many values were compared."""
    card = _card(f, out)
    if card is None:
        return 0
    root, first = card
    block = _get(root, "rlprereg")
    arm, seed, seal = (_scalar(_get(block, k)) for k in ("arm", "seed", "seal"))
    where = f"{f.path}:{first + (root.start_mark.line if root is not None else 0)}"
    if arm is None or seed is None or not str(seed).isdigit():
        arm, seed = _titled_run(ctx, f) or (arm, seed)
    if (arm is None or seed is None or not str(seed).isdigit()) and _titled_arm(ctx, f, root) is not None:
        return _check_arm_card(ctx, out, f, first, root, _titled_arm(ctx, f, root))
    if arm is None or seed is None or not str(seed).isdigit():
        out.add(where, "an rlprereg block naming the card's arm and seed", "none",
                "model-index without the run it reports (rlprereg.arm/seed, or a title naming arm and seed)")
        return 0
    run, same_seal = _run_of(ctx, arm, int(seed), seal)
    if run is None and _analysed_run(ctx, arm, int(seed)):
        run, same_seal = None, True    # an imported study: the analysis holds the run's values, no folder
    elif run is None:
        out.add(where, f"a run {arm}/s{seed} among the audited runs", "none", "model card of an unknown run")
        return 0
    if not same_seal and run is not None:
        out.add(where, run.manifest.get("seal"), seal, f"model card of {arm}/s{seed} names another seal")
    n = 0
    for model in _items(_get(root, "model-index")):
        for result in _items(_get(model, "results")):
            for metric in _items(_get(result, "metrics")):
                n += _check_metric(ctx, out, f, first, run, arm, int(seed), metric)
    return n


def _titled_arm(ctx, f, root) -> str | None:
    """The one arm a card reports the mean over seeds of: named, with no seed, by its model-index
    ``name`` ("puzzle-solver-grpo") or its title; None when they name a run, a pair or no arm."""
    from audit.sources import entity_from_text

    arms = list(ctx.arms)
    names = [_scalar(_get(m, "name")) for m in _items(_get(root, "model-index"))]
    titles = [scope[-1] for _line, scope in f.heading_scopes[:1] if scope]
    for text in [*(str(n) for n in names if n is not None), *titles]:
        ent, _ = entity_from_text(text, arms)
        if ent is not None:
            return ent[1] if ent[0] == "arm" else None
    return None


def _arm_value(ctx, arm: str, metric: str):
    """(value, id) of the arm's mean of ``metric`` in the analysis, else (None, None)."""
    values = ctx.analysis.get("values") or {}
    for key in (f"arms.{arm}.{metric}.mean", f"arms.{arm}.{metric}"):
        rec = values.get(key)
        if isinstance(rec, dict) and _num(rec.get("value")) is not None:
            return _num(rec["value"]), key
    return None, None


def _check_arm_card(ctx, out, f, first: int, root, arm: str) -> int:
    """A card of an arm over its seeds ("puzzle-solver-grpo", the mean of three seeds): each model-index
    value against the arm's mean (it asked for a run the card never claimed to be; README failure 15)."""
    n = 0
    for model in _items(_get(root, "model-index")):
        for result in _items(_get(model, "results")):
            for metric in _items(_get(result, "metrics")):
                name, label, node = (_scalar(_get(metric, k)) for k in ("type", "name", "value"))
                loc = f"{f.path}:{first + (_get(metric, 'value') or metric).start_mark.line}"
                want, vid = next(((w, v) for w, v in (_arm_value(ctx, arm, str(t)) for t in
                                  (name, _metric_name(ctx, str(name)), _metric_name(ctx, str(label))) if t)
                                  if w is not None), (None, None))
                if want is None:
                    out.add(loc, f"a value of arm {arm}", f"{name}: {node}", "model-index metric names no value of its arm")
                    continue
                n += 1
                if node is None or not _equal_as_written(node, want):
                    out.add(loc, f"{want!r} ({vid})", f"{name}: {node}", "model-index value differs from the arm's mean")
    return n


def _check_metric(ctx, out, f, first: int, run, arm: str, seed: int, metric) -> int:
    name, node = _scalar(_get(metric, "type")), _get(metric, "value")
    text = _scalar(node)
    loc = f"{f.path}:{first + (node or metric).start_mark.line}"
    want, vid = _expected(ctx, run, arm, seed, str(name))
    if want is None:
        want, vid = _expected(ctx, run, arm, seed, _metric_name(ctx, str(name)))
    label = _scalar(_get(metric, "name"))
    if want is None and label is not None:   # "type: well_formed_pct" with "name: Well-formed answers (%)"
        want, vid = _expected(ctx, run, arm, seed, _metric_name(ctx, str(label)))
    if want is None:
        out.add(loc, f"a value of run {arm}/s{seed}", f"{name}: {text}", "model-index metric names no value of its run")
        return 0
    if text is None or not _equal_as_written(text, want):
        out.add(loc, f"{want!r} ({vid})", f"{name}: {text}", "model-index value differs from the run's value")
    return 1


def run(ctx, out, files) -> None:
    """Check every Markdown file with a model-index (called from check 10)."""
    n = sum(check_card(ctx, out, f) for f in files if not str(f.path).endswith(".tex"))
    if n:
        out.notes.append(f"{n} model-index values of model cards compared with their runs")
