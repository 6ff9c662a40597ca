"""What the eighth report set (``tests/report_corpus_eighth/``) taught the audit (README failure 15).

Each fix made after the set's first run has a firing case and a clean case here, in wordings and numbers
of its own (not copied from the set's reports), over the set's W&B study (GRPO, GSPO, AERO over seeds 21,
42, 63, 84, 105; accuracy and ZVF fractions).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def wandb_study(tmp_path_factory):
    from tests.report_corpus_eighth import eighth

    return eighth.build("wandb_export", tmp_path_factory.mktemp("eighth_wandb"))


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


# ---- a worded row label names the row beside a "seed" column; "zero-variance fraction" is the ZVF --------

POLICY_SEED = """# AERO ablation, all three policies

| Policy | seed | held-out acc. | zero-variance fraction |
|---|---|---|---|
| GSPO | 42 | 0.588 | 0.291 |
| GRPO | 63 | 0.596 | 0.308 |
| AERO | 105 | 0.592 | 0.334 |
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("| 42 | 0.588 |", "| 42 | 0.576 |", "runs.gspo.s42.heldout_accuracy"),   # GRPO's seed 42 in GSPO's row
    ("| 0.596 | 0.308 |", "| 0.596 | 0.322 |", "runs.grpo.s63.zvf_mean"),         # GRPO's seed 42 ZVF
], ids=["accuracy", "zvf"])
def test_row_label_names_the_arm_beside_a_seed_column(wandb_study, tmp_path, find, replace, source):
    """Under a heading naming AERO, the GSPO row of a table with a "seed" column is GSPO's run of that
    seed (it was AERO's: the seed column alone was the row's identity), and a "zero-variance fraction"
    column is the ZVF (it was value-only in a results table)."""
    assert _findings(wandb_study, tmp_path, POLICY_SEED) == []
    wrong = _findings(wandb_study, tmp_path / "w", POLICY_SEED.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- pandas' to_markdown() index column: its 0, 1, 2, ... are row numbers, the next column names the row --

INDEXED = """|    | policy   |   seed |   eval_acc |
|---:|:---------|-------:|-----------:|
|  1 | aero     |     63 |   0.588000 |
|  2 | aero     |     84 |   0.584000 |
|  3 | gspo     |    105 |   0.596000 |
"""


@pytest.mark.usefixtures("shared_recompute")
def test_index_column_is_row_numbers(wandb_study, tmp_path):
    """The index cells are no values (they were checked against the runs' values), and each row is the run
    its worded column and seed name (AERO's seed 84), so another seed's value there is an error."""
    assert _findings(wandb_study, tmp_path, INDEXED) == []
    wrong = _findings(wandb_study, tmp_path / "w", INDEXED.replace("|     84 |   0.584000 |", "|     84 |   0.592000 |"))
    assert [f for f in wrong if "runs.aero.s84.heldout_accuracy" in f[1]], wrong


def test_index_column_needs_consecutive_row_numbers():
    """A first column of numbers that is no 0, 1, 2, ... (or 1, 2, 3, ...) run under an empty header is
    not an index: its numbers stay values."""
    from audit.numbers import parse_markdown

    def statuses(text):
        return [(m.text, m.status_hint) for m in parse_markdown("r.md", text, "r.md").mentions if m.column == ""]

    assert statuses(INDEXED) == [("1", "label"), ("2", "label"), ("3", "label")]
    gaps = INDEXED.replace("|  2 | aero", "|  5 | aero")
    assert [h for _, h in statuses(gaps)] == ["value", "value", "value"]


# ---- a number glued to "pp", and "**+1.12** points": percentage points of a fraction metric --------------

GLUED = """- aero: 58.92% mean acc, sd 0.33pp
- gspo vs grpo: Δ = +1.12pp (90% CI 0.52 to 1.72pp)
- gspo vs grpo, again: **+1.12** points of accuracy (95% CI 0.40 to 1.84)
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("sd 0.33pp", "sd 0.93pp", "arms.aero.heldout_accuracy.sd"),           # GRPO's SD in AERO's line
    ("Δ = +1.12pp", "Δ = −1.12pp", "contrasts.gspo-grpo.diff_mean"),       # the sign flipped
    ("**+1.12** points", "**+1.21** points", "contrasts.gspo-grpo.diff_mean"),
], ids=["sd", "sign", "bold"])
def test_points_glued_or_after_emphasis(wandb_study, tmp_path, find, replace, source):
    """A number glued to "pp" ("0.33pp") is a number (it was not read at all, so a wrong SD or sign passed), and
    "**+1.12** points" is in points of the fraction metric (it and its interval were each "a percentage where the unit is a fraction")."""
    assert _findings(wandb_study, tmp_path, GLUED) == []
    wrong = _findings(wandb_study, tmp_path / "w", GLUED.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- column names: "95% CI low" / "hi95" are interval ends, "p_bh" / "p_{Bonf}" adjusted p, "acc_std" an SD -

COLUMNS = """## Held-out accuracy by policy

| policy | mean | CI lower bound | CI upper bound | acc_std |
|---|---|---|---|---|
| gspo | 0.5928 | 0.5900 | 0.5948 | 0.0030 |

| comparison | delta | lo95 | hi95 | p_raw | p_bh |
|:--|--:|--:|--:|--:|--:|
| gspo vs grpo | 0.0112 | 0.0040 | 0.0184 | 0.0284 | 0.0569 |
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("| 0.5900 | 0.5948 |", "| 0.5948 | 0.5900 |", "arms.gspo.heldout_accuracy.mean.ci95"),   # ends swapped
    ("| 0.0030 |", "| 0.0033 |", "arms.gspo.heldout_accuracy.sd"),                          # AERO's SD
    ("| 0.0040 | 0.0184 |", "| 0.0052 | 0.0184 |", "contrasts.gspo-grpo.ci95.low"),         # the 90% end
    ("| 0.0569 |", "| 0.0284 |", "contrasts.gspo-grpo.p_adjusted"),                       # the raw p as adjusted
], ids=["arm-ci", "sd", "contrast-ci", "p-bh"])
def test_interval_end_sd_and_adjusted_p_columns(wandb_study, tmp_path, find, replace, source):
    """Under a heading naming the metric, "CI lower bound" / "CI upper bound" columns hold the interval's ends
    (they were checked against the mean), "acc_std" the SD, "lo95" / "hi95" the contrast's interval ends, and
    "p_bh" the BH-adjusted p (it was checked against the unadjusted p)."""
    assert _findings(wandb_study, tmp_path, COLUMNS) == []
    wrong = _findings(wandb_study, tmp_path / "w", COLUMNS.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- LaTeX: a \caption typed over two lines states the table's unit; "\num{58.92}\,\%" is a percent ------

TEX = r"""\begin{table}[h]
  \caption{Paired differences against GRPO over five seeds,
  in accuracy points.}
  \begin{tabular}{lcc}
    \toprule
    Pair & $\Delta$ & 95\% CI \\
    \midrule
    GSPO $-$ GRPO & 1.12 & [0.40, 1.84] \\
    \bottomrule
  \end{tabular}
\end{table}

Averaged over seeds, AERO reaches \num{58.92}\,\% held-out accuracy.
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("& 1.12 &", "& 1.21 &", "contrasts.gspo-grpo.diff_mean"),
    ("\\num{58.92}", "\\num{58.29}", "arms.aero.heldout_accuracy.mean"),
], ids=["caption-points", "thin-space-percent"])
def test_two_line_caption_and_thin_space_percent(wandb_study, tmp_path, find, replace, source):
    """The caption's "in accuracy points" reaches the cells (it was lost with the caption's second line, so
    each difference was "a percentage where the unit is a fraction"), and "\\num{58.92}\\,\\%" is a percent."""
    from tests.report_corpus import corpus

    def findings(folder, text):
        folder.mkdir(parents=True, exist_ok=True)
        res = corpus.audit_written(wandb_study, folder, {"report.tex": text})
        return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]

    assert findings(tmp_path, TEX) == []
    wrong = findings(tmp_path / "w", TEX.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- statistics named in words: the bootstrap p, the TOST p before a margin, "(BH …)", "… after it", the SD
# of the paired differences ------------------------------------------------------------------------------------

STATS = """**GSPO − GRPO.** Δ = +0.0112, t(4) = 2.65, one-sided p = 0.028. The paired bootstrap p is 0.0025.

**AERO − GRPO.** Δ = +0.0076, p = 0.111. The TOST p against the ±0.01 margin is 0.336, so equivalence is not shown.

GSPO − GRPO once more: +1.12pp, p = 0.028 (BH 0.057).

GSPO − GRPO is +0.0112, but p = 0.028 misses α = 0.05 once the BH step is taken (0.057 after it).

Over the five seeds the per-seed paired differences vary little: their SD is 0.0094 for GSPO and 0.0118 for AERO.
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("bootstrap p is 0.0025", "bootstrap p is 0.025", "contrasts.gspo-grpo.tests.paired_bootstrap.p"),
    ("margin is 0.336", "margin is 0.034", "contrasts.aero-grpo.tost_p"),
    ("(BH 0.057)", "(BH 0.028)", "contrasts.gspo-grpo.p_adjusted"),
    ("(0.057 after it)", "(0.028 after it)", "contrasts.gspo-grpo.p_adjusted"),
    ("0.0094 for GSPO", "0.0030 for GSPO", "contrasts.gspo-grpo.diff_sd"),
    ("0.0118 for AERO", "0.0033 for AERO", "contrasts.aero-grpo.diff_sd"),
], ids=["bootstrap-p", "tost-p", "bh-paren", "after-it", "diff-sd", "diff-sd-list"])
def test_statistics_named_in_words(wandb_study, tmp_path, find, replace, source):
    """Each number is checked against the statistic its words name: it was an arm's mean (the bootstrap p,
    "(BH 0.057)", "(0.057 after it)"), the equivalence margin (the TOST p) or the arm's SD (the SD of the
    paired differences)."""
    assert _findings(wandb_study, tmp_path, STATS) == []
    wrong = _findings(wandb_study, tmp_path / "w", STATS.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a header comparing with another arm makes a row's interval and p that contrast's ----------------------

VERSUS_HEADER = """| | Δ held-out acc. vs GRPO | 95% CI | p (one-sided) |
|---|---|---|---|
| GSPO | +0.0112 | [0.0040, 0.0184] | 0.028 |
| AERO | +0.0076 | [−0.0016, 0.0164] | 0.111 |
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("[0.0040, 0.0184]", "[0.0184, 0.0040]", "contrasts.gspo-grpo.ci95"),     # ends swapped
    ("| 0.111 |", "| 0.028 |", "contrasts.aero-grpo.p"),                      # GSPO's p in AERO's row
], ids=["ci", "p"])
def test_header_versus_arm_makes_the_row_a_contrast(wandb_study, tmp_path, find, replace, source):
    """The "95% CI" and "p" cells of the GSPO row are GSPO − GRPO's (they were checked against GSPO's own
    accuracy interval and, for p, against no contrast)."""
    assert _findings(wandb_study, tmp_path, VERSUS_HEADER) == []
    wrong = _findings(wandb_study, tmp_path / "w", VERSUS_HEADER.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a per-seed line: as many values as the study has seeds, joined by "·", "/" or "|", after an arm ---------

SEED_LINES = """Each line lists the five seeds in registration order:

- gspo: 0.594 / 0.588 / 0.594 / 0.592 / 0.596
- AERO 59.2 · 59.0 · 58.8 · 58.4 · 59.2
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("0.594 / 0.588 /", "0.588 / 0.594 /", "runs.gspo.s21.heldout_accuracy"),   # two seeds swapped
    ("58.8 · 58.4 ·", "58.8 · 59.2 ·", "runs.aero.s84.heldout_accuracy"),       # seed 105's value at seed 84
], ids=["slash", "middle-dot"])
def test_per_seed_line(wandb_study, tmp_path, find, replace, source):
    """Each value is its arm's run of the seed at its place (they were all checked against the arm's mean,
    so every correct line was a false alarm and a swapped pair passed unseen among them)."""
    assert _findings(wandb_study, tmp_path, SEED_LINES) == []
    wrong = _findings(wandb_study, tmp_path / "w", SEED_LINES.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- facts and per-seed claims in these wordings: "5 seeds each: …", "10k bootstrap resamples", "the same
# 5000 held-out MATH-500 problems", "the fixed 800-q held-out split", "16 optimizer steps and 256 rollouts
# each", "beats GRPO on every seed" ----------------------------------------------------------------------------

FACTS = """Two objectives against GRPO, 5 seeds each: 21, 42, 63, 84, 105; 2k bootstrap resamples.

Every checkpoint is scored on the same 500 held-out GSM-8K problems, i.e. the fixed 500-q held-out split.

GSPO beats GRPO on 4 of 5 seeds; AERO beats GRPO on 3 of 5.
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "expected"), [
    ("each: 21, 42, 63,", "each: 21, 42, 64,", "lock.seeds"),
    ("2k bootstrap", "10k bootstrap", "lock.analysis.resamples"),
    ("same 500 held-out GSM-8K", "same 5000 held-out GSM-8K", "lock.dataset.heldout_n"),
    ("fixed 500-q", "fixed 800-q", "lock.dataset.heldout_n"),
    ("GSPO beats GRPO on 4 of 5 seeds", "GSPO beats GRPO on every seed", "runs.gspo.s63.heldout_accuracy"),
], ids=["seed-list", "resamples-k", "n-dataset-name", "n-q", "beats-every-seed"])
def test_facts_and_seed_claims_in_these_wordings(wandb_study, tmp_path, find, replace, expected):
    """Each wrong fact or claim is a finding (each passed: the seed list after "seeds each:", "10k", the n
    before a hyphenated dataset name or "-q", and "beats ... on every seed" were not read)."""
    assert _findings(wandb_study, tmp_path, FACTS) == []
    wrong = _findings(wandb_study, tmp_path / "w", FACTS.replace(find, replace))
    assert [f for f in wrong if expected in f[1]], wrong


def test_steps_and_rollouts_each(tmp_path_factory, tmp_path):
    """"(12 runs, 16 optimizer steps and 256 rollouts each)" is checked against the runs' steps and rollouts
    over a runner-shaped campaign (it passed: "each" did not end with "run")."""
    from tests.report_corpus_eighth import eighth

    study = eighth.build("pandas_notebook", tmp_path_factory.mktemp("eighth_nb"))
    text = "GRPO, DAPO and GSPO (12 runs, 12 optimizer steps and 192 rollouts each) on 80 held-out problems.\n"
    assert _findings(study, tmp_path, text) == []
    wrong = _findings(study, tmp_path / "w", text.replace("12 optimizer steps and 192", "16 optimizer steps and 256"))
    assert [f for f in wrong if "arms.<arm>.steps" in f[1]] and [f for f in wrong if "arms.<arm>.rollouts" in f[1]], wrong
