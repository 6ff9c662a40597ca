"""What the blind report set (``tests/report_corpus_blind/``) taught the audit (README failure 15).

Each fix made after the set's first run has a firing case and a clean case here, in wordings and
numbers of its own (not copied from the set's reports).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from audit.checks.analysis import _grim, grim_possible
from audit.findings import CheckResult
from audit.lockview import lock_view

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def _grim_messages(n: int, values: dict[str, float]) -> list[str]:
    prereg = json.loads(json.dumps(E1))
    prereg["dataset"]["heldout_n"] = n
    ctx = SimpleNamespace(lock_view=lock_view(prereg), analysis={"values": {k: {"value": v} for k, v in values.items()}})
    out = CheckResult("9", "analysis", "analysis")
    _grim(ctx, out, "analysis.json")
    return [f"{f.location} {f.message}" for f in out.findings]


@pytest.mark.parametrize(("v", "n", "possible"), [
    (0.3345, 1100, True),        # 368/1100 = 0.334545..., typed to 4 decimals
    (0.3347, 1100, False),       # no k/1100 rounds to 0.3347
    (368 / 1100, 1100, True),    # full precision: exact
    (0.334546, 1100, False),     # 6 decimals: 0.334545 would be the rounding
    (0.25, 64, True), (0.26, 64, False), (0.3, 64, True),
])
def test_grim_allows_the_rounding_of_a_typed_proportion(v, n, possible):
    assert grim_possible(v, n) is possible


def test_grim_on_an_imported_table_fires_on_an_impossible_value_only():
    """Check 9's GRIM step: a table's 4-decimal accuracies pass when some k/n rounds to them, and a
    value no k/n rounds to is still a finding (it used to flag every rounded value)."""
    clean = {"runs.grpo.s3.heldout_accuracy": 0.3345, "runs.dapo.s3.heldout_accuracy": 0.4355}
    assert _grim_messages(1100, clean) == []
    broken = dict(clean, **{"runs.dapo.s3.heldout_accuracy": 0.4357})
    assert _grim_messages(1100, broken) == [
        "analysis.json#$.values['runs.dapo.s3.heldout_accuracy'].value proportion impossible with n = 1100 (GRIM)"]


# ---- a pandas DataFrame exported as HTML: its index name in a header row of its own --------------------

PIVOT = """## Accuracy by seed and method

<div>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th>method</th>
      <th>gspo</th>
      <th>grpo</th>
    </tr>
    <tr>
      <th>seed</th>
      <th></th>
      <th></th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>303</th>
      <td>0.596</td>
      <td>0.5893</td>
    </tr>
  </tbody>
</table>
</div>
"""
# the paragraph before the heading states percentages: it is no caption of the table under the heading
PIVOT_AFTER_PERCENT = "Overall GSPO reached 58.6% and GRPO 58.1%.\n\n" + PIVOT


@pytest.fixture(scope="module")
def notebook_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("nb_export", tmp_path_factory.mktemp("nb"))


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize("text", [PIVOT, PIVOT_AFTER_PERCENT], ids=["pivot", "pivot-under-heading-after-percent"])
def test_pandas_pivot_cells_are_their_seeds_runs(notebook_study, tmp_path, text):
    """The first column is the index ("seed"), not "method seed": each cell is that seed's run of the
    column's arm, and a percentage in the paragraph before the heading is no caption of the table."""
    assert _findings(notebook_study, tmp_path, text) == []
    wrong = _findings(notebook_study, tmp_path / "w", text.replace("<td>0.5893</td>", "<td>0.5839</td>"))
    assert [f for f in wrong if "runs.grpo.s303.heldout_accuracy" in f[1]], wrong


# ---- adjusted p in other words; contrasts under a heading that names what they are compared with ---------

ADJ_IT_IS = "GSPO against GRPO: paired t p = 0.072; after the BH correction it is 0.145.\n"
ADJ_FOR = "- Adjusted for both comparisons (BH): p = 0.145 for GSPO vs GRPO\n"
ADJ_PAREN = "Neither holds after BH (0.145 for GSPO, 0.514 for Dr. GRPO).\n"
UNADJ = "The unadjusted p-values are 0.072 (GSPO) and 0.514 (Dr. GRPO).\n"


@pytest.fixture(scope="module")
def thread_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("thread", tmp_path_factory.mktemp("thread"))


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (ADJ_IT_IS, "it is 0.145", "it is 0.072", "contrasts.gspo-grpo.p_adjusted"),
    (ADJ_FOR, "p = 0.145", "p = 0.154", "contrasts.gspo-grpo.p_adjusted"),
    (ADJ_PAREN, "(0.145 for GSPO", "(0.072 for GSPO", "contrasts.gspo-grpo.p_adjusted"),
    (UNADJ, "0.072 (GSPO)", "0.145 (GSPO)", "contrasts.gspo-grpo.p"),
], ids=["after-bh-it-is", "adjusted-for-bh-colon", "after-bh-parenthesis", "unadjusted-p-values-are"])
def test_adjusted_p_in_other_words(thread_study, tmp_path, text, find, replace, source):
    assert _findings(thread_study, tmp_path, text) == []
    wrong = _findings(thread_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


@pytest.fixture(scope="module")
def leaderboard_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("leaderboard", tmp_path_factory.mktemp("lb"))


LEAD_HEADED = """## Versus the SFT checkpoint (exploratory)

DAPO +9.3 points [0.2, 18.2], GRPO +5.8 [−3.5, 15.5].

## Gains over the base model

DAPO +18.8 points [10.0, 28.0], GSPO +18.3 [10.2, 26.7].
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("GRPO +5.8 [", "GRPO +8.5 [", "contrasts.grpo-sft.diff_mean"),
    ("[0.2, 18.2]", "[0.2, 18.9]", "contrasts.dapo-sft.ci95.high"),
    ("GSPO +18.3 [", "GSPO +13.8 [", "contrasts.gspo-base.diff_mean"),
], ids=["second-arm-against-the-heading", "interval-against-the-heading", "study-baseline-without-such-heading"])
def test_a_heading_names_the_baseline_of_the_contrasts_below_it(leaderboard_study, tmp_path, find, replace, source):
    """Under "## Versus the SFT checkpoint" each arm's difference is against SFT, in points like the first;
    under a heading that names no compared-with arm, the study's baseline (the base model) holds."""
    assert _findings(leaderboard_study, tmp_path, LEAD_HEADED) == []
    wrong = _findings(leaderboard_study, tmp_path / "w", LEAD_HEADED.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a cell written as a count k of n; siunitx ranges; t with its df as a subscript ------------------------

COUNTS = """| seed | DAPO | GRPO |
|---|---|---|
| 6 | 18/48 | 26/48 |
| 7 | 21/48 | 25/48 |
"""


@pytest.fixture(scope="module")
def campaign_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("slide_deck", tmp_path_factory.mktemp("slides"))


@pytest.mark.usefixtures("shared_recompute")
def test_a_cell_written_k_of_n_is_the_runs_count(campaign_study, tmp_path):
    """"18/48" in a seed × arm table is that run's count of correct items out of 48, not a fraction
    quoted as a count; a wrong k is an error against the run's value times n."""
    assert _findings(campaign_study, tmp_path, COUNTS) == []
    wrong = _findings(campaign_study, tmp_path / "w", COUNTS.replace("| 21/48 |", "| 23/48 |"))
    assert [f for f in wrong if f[0] == "4" and "runs.dapo.s7.heldout_accuracy" in f[1] and f[2].startswith("23")], wrong


SIUNITX = r"""\documentclass{article}
\usepackage{siunitx}
\DeclareSIUnit{\pp}{pp}
\begin{document}
AERO trails GRPO by \qty{0.68}{\pp} (95\% CI \qtyrange{-0.94}{-0.47}{\pp}; $t_4 = -4.84$).

\begin{tabular}{l c}
Contrast & 95\% CI (pp) \\
DAPO $-$ GRPO & \numrange{-0.19}{0.55} \\
\end{tabular}
\end{document}
"""


@pytest.fixture(scope="module")
def siunitx_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("tex_siunitx", tmp_path_factory.mktemp("tex"))


def _tex_findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"paper.tex": text})
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "line", "source"), [
    ("{-0.94}{-0.47}", "{-0.47}{-0.94}", "5", "swapped"),
    ("$t_4 = -4.84$", "$t_4 = -4.48$", "5", "contrasts.aero-grpo.tests.paired_t.statistic"),
    ("\\numrange{-0.19}{0.55}", "\\numrange{-0.19}{0.65}", "9", "contrasts.dapo-grpo.ci95.high"),
], ids=["qtyrange-ends", "t-with-subscript-df", "numrange-cell"])
def test_siunitx_ranges_and_a_subscript_df(siunitx_study, tmp_path, find, replace, line, source):
    """\\qtyrange{a}{b}{\\pp} and \\numrange{a}{b} are the interval [a, b] (in points, signs kept), and
    "$t_4 = ...$" is the t statistic."""
    assert _tex_findings(siunitx_study, tmp_path, SIUNITX) == []
    wrong = _tex_findings(siunitx_study, tmp_path / "w", SIUNITX.replace(find, replace))
    assert [f for f in wrong if f[0] == line and (source in f[1] or source in f[3])], wrong


# ---- each arm's SD in a list, the arm after its value ---------------------------------------------------------

SD_LIST = "Across seeds the SD of held-out accuracy is 0.96 points for GRPO, 0.91 for GSPO and 0.70 for Dr. GRPO.\n"
SD_PTS = "Spread over the four seeds (sd 0.96 pts for GRPO, 0.91 for GSPO, 0.70 for Dr. GRPO).\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (SD_LIST, "0.91 for GSPO", "0.96 for GSPO", "arms.gspo.heldout_accuracy.sd"),
    (SD_LIST, "0.70 for Dr. GRPO", "0.79 for Dr. GRPO", "arms.dr_grpo.heldout_accuracy.sd"),
    (SD_PTS, "(sd 0.96 pts for GRPO", "(sd 0.69 pts for GRPO", "arms.grpo.heldout_accuracy.sd"),
], ids=["sd-of-metric-is-list", "sd-list-last", "sd-pts-for-arm"])
def test_each_arms_sd_in_a_list(thread_study, tmp_path, text, find, replace, source):
    """"The SD of held-out accuracy is 0.96 points for GRPO, 0.91 for GSPO and 0.70 for Dr. GRPO": each
    value is the SD (in points) of the arm named after it, not the previous arm's or a contrast's."""
    assert _findings(thread_study, tmp_path, text) == []
    wrong = _findings(thread_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- seeds a plan names ------------------------------------------------------------------------------------

PLANS = "All results use seeds 1–4. Next up: 12 seeds for each arm. Before anyone cites this, rerun with seeds 31–36.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "found"), [
    ("use seeds 1–4", "use seeds 1–5", "seeds 1–5"),
    ("Next up: 12 seeds", "So far: 12 seeds", "12 seeds"),
], ids=["study-seed-range", "seed-count-not-a-plan"])
def test_seeds_a_plan_names_are_not_the_studys(thread_study, tmp_path, find, replace, found):
    """"Next up: 12 seeds" and "rerun with seeds 31–36" are plans; the study's own seeds and seed count
    are still checked against the lock."""
    assert _findings(thread_study, tmp_path, PLANS) == []
    wrong = _findings(thread_study, tmp_path / "w", PLANS.replace(find, replace))
    assert [f for f in wrong if f[2] == found], wrong


# ---- "≈" as the relation of an effect size -------------------------------------------------------------------

APPROX_DZ = "GSPO against GRPO: a large standardised effect, d_z ≈ 1.36, from only four seeds.\n"


@pytest.mark.usefixtures("shared_recompute")
def test_effect_size_written_with_approx(thread_study, tmp_path):
    """"d_z ≈ 1.36" is the contrast's paired effect size, as "d_z = 1.36" is."""
    assert _findings(thread_study, tmp_path, APPROX_DZ) == []
    wrong = _findings(thread_study, tmp_path / "w", APPROX_DZ.replace("≈ 1.36", "≈ 1.63"))
    assert [f for f in wrong if "contrasts.gspo-grpo.effect_size_dz" in f[1]], wrong
