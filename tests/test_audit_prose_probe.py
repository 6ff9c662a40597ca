"""Probing the prose reader with sentences a researcher writes about one study (README failure 10).

80 correct sentences about the five-arm study of ``tests/report_corpus/`` ("prose_results": gspo 0.650,
dapo 0.6355, grpo 0.632 (baseline), dr_grpo 0.631, aero 0.612; ZVF grpo 0.416, dapo 0.221) in the
forms of results sections, abstracts, model-card bullets and one-line summaries, each with one wrong
variant (one number or word changed).

First run (audit at dd0ea6a, before the fixes below): 20 of the 80 correct sentences raised a false
alarm, and 3 of the 80 wrong variants passed. The false alarms fell into these classes:
relative changes read as absolute ("a 2.8% relative improvement", "47% relative to GRPO", "3.2% lower
in relative terms": 5); the spread of the seeds read as the arm's mean ("Across seeds GSPO ranges from
0.644 to 0.656", "AERO's seeds span 60.4% to 62.0%": 2); a seed named later in the sentence ignored
("seed 11 scored 0.632 and seed 23 0.628", "best seed (107) reaches 0.656": 2); changes read as means
("AERO lost 2.0", "underperforms the baseline by 2 points", "2.0 points fewer than", "(−2.0 pts vs.
GRPO)", "DAPO's advantage over GRPO is 0.0035", "GSPO gains 0.018 and DAPO 0.0035", "GSPO's gain over
GRPO is 0.01775 ± 0.0046": 7); "SD is 0.004", "adjusted 1.4e-4", "t = 10.94" not read as the SD, the
adjusted p and the t statistic (3); a change written without a unit after a percent ("65.0% (+1.8 vs
GRPO)") called a unit error (1).

Three wrong variants were also found against the wrong arm ("GSPO and GRPO score 65.0% and 63.8%
respectively" checked 63.8% against GSPO; "DAPO edges out Dr. GRPO, 63.6% to 63.4%" against DAPO).

After the fixes: 0 of 80 correct sentences raise a finding; 4 of the 80 wrong variants pass, all
undecidable by design (the analysis holds neither the extremes of the seeds nor a GSPO − DAPO contrast:
they are read as undecided, never as an error). The miss of the first run, a "respectively" list with
two values swapped, is now two findings (``test_swapped_respectively_list_is_two_findings``; its row
below now changes one value). The one wrong variant that named the wrong arm ("..., to 0.668" after "GSPO
increases accuracy ... over GRPO") is read since ``tests/test_audit_known_gaps.py``: ``XFAIL`` is empty.

Each report holds all the sentences as separate paragraphs (one ``check`` for the clean set and one for
the wrong set); a finding's line says which sentence it is about.
"""

from __future__ import annotations

import pytest

from audit import check
from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

HEAD = "# Results\n\nEight seeds per arm, 500 held-out problems.\n\n"
FIRST_LINE = HEAD.count("\n") + 1

# (correct sentence, wrong variant, the source the one finding on the wrong variant must name; None:
# the analysis cannot decide it, so the wrong variant must pass as undecided rather than be a wrong error)
PAIRS = [
    # means in fraction / percent
    ('GSPO reaches 0.650 held-out accuracy.', 'GSPO reaches 0.660 held-out accuracy.',
     'arms.gspo.heldout_accuracy.mean'),
    ('GSPO reaches 65.0% held-out accuracy.', 'GSPO reaches 66.0% held-out accuracy.',
     'arms.gspo.heldout_accuracy.mean'),
    ('GRPO, the baseline, scores 63.2% on the 500 held-out problems.', 'GRPO, the baseline, scores 62.3% on the 500 held-out problems.',
     'arms.grpo.heldout_accuracy.mean'),
    ('AERO scores 61.2%, the lowest of the five arms.', 'AERO scores 61.8%, the lowest of the five arms.',
     'arms.aero.heldout_accuracy.mean'),
    ('DAPO averages 0.6355 accuracy over eight seeds.', 'DAPO averages 0.6455 accuracy over eight seeds.',
     'arms.dapo.heldout_accuracy.mean'),
    ('Dr. GRPO reaches 63.1% accuracy.', 'Dr. GRPO reaches 63.7% accuracy.',
     'arms.dr_grpo.heldout_accuracy.mean'),
    ('Mean held-out accuracy: GSPO 65.0%, DAPO 63.6%, GRPO 63.2%, Dr. GRPO 63.1%, AERO 61.2%.', 'Mean held-out accuracy: GSPO 65.0%, DAPO 63.6%, GRPO 63.2%, Dr. GRPO 63.1%, AERO 62.1%.',
     'arms.aero.heldout_accuracy.mean'),
    ('GSPO, DAPO and AERO reach 0.650, 0.6355 and 0.612, respectively.', 'GSPO, DAPO and AERO reach 0.650, 0.612 and 0.612, respectively.',
     'arms.dapo.heldout_accuracy.mean'),
    ('GSPO and GRPO score 65.0% and 63.2% respectively.', 'GSPO and GRPO score 65.0% and 63.8% respectively.',
     'arms.grpo.heldout_accuracy.mean'),
    # differences
    ('GSPO improves on GRPO by 0.018.', 'GSPO improves on GRPO by 0.028.',
     'contrasts.gspo-grpo.diff_mean'),
    ('GSPO improves on GRPO by 1.8 points.', 'GSPO improves on GRPO by 2.8 points.',
     'contrasts.gspo-grpo.diff_mean'),
    ('GSPO improves accuracy from 63.2% to 65.0%.', 'GSPO improves accuracy from 63.2% to 66.0%.',
     'arms.gspo.heldout_accuracy.mean'),
    ('GSPO lifts accuracy from 63.2% to 65.0%, a 1.8-point gain.', 'GSPO lifts accuracy from 63.2% to 65.0%, a 2.8-point gain.',
     'contrasts.gspo-grpo.diff_mean'),
    ('GSPO: 65.0% (up 1.8 pp over GRPO).', 'GSPO: 65.0% (up 2.8 pp over GRPO).',
     'contrasts.gspo-grpo.diff_mean'),
    ('AERO: 61.2% (−2.0 pts vs. GRPO).', 'AERO: 61.2% (−3.0 pts vs. GRPO).',
     'contrasts.aero-grpo.diff_mean'),
    ('AERO is 2.0 points below GRPO.', 'AERO is 3.0 points below GRPO.',
     'contrasts.aero-grpo.diff_mean'),
    ('AERO trails GRPO by 2.0 percentage points.', 'AERO trails GRPO by 2.5 percentage points.',
     'contrasts.aero-grpo.diff_mean'),
    ('DAPO beats GRPO by 0.35 points.', 'DAPO beats GRPO by 0.55 points.',
     'contrasts.dapo-grpo.diff_mean'),
    ("DAPO's advantage over GRPO is 0.0035 (95% CI [0.00275, 0.0045]).", "DAPO's advantage over GRPO is 0.0035 (95% CI [0.00275, 0.0055]).",
     'contrasts.dapo-grpo.ci95.high'),
    ('Dr. GRPO differs from GRPO by −0.00075 (p = 0.28).', 'Dr. GRPO differs from GRPO by −0.00175 (p = 0.28).',
     'contrasts.dr_grpo-grpo.diff_mean'),
    ('The GSPO − GRPO difference is +0.0178.', 'The GSPO − GRPO difference is +0.0128.',
     'contrasts.gspo-grpo.diff_mean'),
    ('GSPO beats GRPO by +1.8 points (95% CI [1.5, 2.1]).', 'GSPO beats GRPO by +1.8 points (95% CI [1.5, 2.6]).',
     'contrasts.gspo-grpo.ci95.high'),
    ('Compared with GRPO, GSPO gains 0.018 and DAPO 0.0035.', 'Compared with GRPO, GSPO gains 0.018 and DAPO 0.0055.',
     'contrasts.dapo-grpo.diff_mean'),
    # relative
    ('GSPO is a 2.8% relative improvement over GRPO.', 'GSPO is a 2.8% relative improvement over GRPO, with 65.9% accuracy.',
     'arms.gspo.heldout_accuracy.mean'),
    ('GSPO improves on GRPO by 1.8 points (2.8% relative).', 'GSPO improves on GRPO by 2.8 points (2.8% relative).',
     'contrasts.gspo-grpo.diff_mean'),
    ("AERO's accuracy is 3.2% lower than GRPO's in relative terms (61.2% vs 63.2%).", "AERO's accuracy is 3.2% lower than GRPO's in relative terms (61.2% vs 63.9%).",
     'arms.grpo.heldout_accuracy.mean'),
    ('DAPO cuts ZVF by 47% relative to GRPO (0.221 vs 0.416).', 'DAPO cuts ZVF by 47% relative to GRPO (0.221 vs 0.461).',
     'arms.grpo.zvf_mean'),
    # ranks
    ('GSPO is the best arm at 0.650.', 'GSPO is the best arm at 0.605.',
     'arms.gspo.heldout_accuracy.mean'),
    ('DAPO comes second with 63.6%.', 'DAPO comes second with 63.9%.',
     'arms.dapo.heldout_accuracy.mean'),
    ('The best arm, GSPO, reaches 65.0%; the worst, AERO, 61.2%.', 'The best arm, GSPO, reaches 65.0%; the worst, AERO, 60.2%.',
     'arms.aero.heldout_accuracy.mean'),
    ('AERO ranks last (0.612).', 'AERO ranks last (0.621).',
     'arms.aero.heldout_accuracy.mean'),
    # p-values, CIs
    ('GSPO beats GRPO (paired t p = 1.2e-5; BH-adjusted p = 4.7e-5).', 'GSPO beats GRPO (paired t p = 1.2e-5; BH-adjusted p = 4.7e-4).',
     'contrasts.gspo-grpo.p_adjusted'),
    ('The GSPO gain is significant (p < 0.001).', 'The GSPO gain is significant (p = 0.012).',
     'contrasts.gspo-grpo.p'),
    ('AERO is worse than GRPO (p = 6.8e-5, adjusted 1.4e-4).', 'AERO is worse than GRPO (p = 6.8e-5, adjusted 2.4e-4).',
     'contrasts.aero-grpo.p_adjusted'),
    ('Dr. GRPO is not significantly different from GRPO (p = 0.28).', 'Dr. GRPO is not significantly different from GRPO (p = 0.38).',
     'contrasts.dr_grpo-grpo.p'),
    ('Dr. GRPO vs GRPO: p = 0.285; not significant.', 'Dr. GRPO vs GRPO: p = 0.285; significant.',
     'contrasts.dr_grpo-grpo.p'),
    ("GSPO's mean is 0.650 (95% CI [0.647, 0.652]).", "GSPO's mean is 0.650 (95% CI [0.647, 0.662]).",
     'arms.gspo.heldout_accuracy.mean.ci95.high'),
    ('GRPO scores 0.632; 95% CI 0.6295–0.6345.', 'GRPO scores 0.632; 95% CI 0.6295–0.6395.',
     'arms.grpo.heldout_accuracy.mean.ci95.high'),
    ('AERO − GRPO = −0.020, 95% CI [−0.024, −0.0155].', 'AERO − GRPO = −0.020, 95% CI [−0.024, −0.0105].',
     'contrasts.aero-grpo.ci95.high'),
    ('AERO − GRPO = −0.020 (90% CI −0.0235 to −0.016).', 'AERO − GRPO = −0.020 (90% CI −0.0235 to −0.012).',
     'contrasts.aero-grpo.ci90.high'),
    ('For DAPO the paired t statistic is 7.0 (p = 0.0002).', 'For DAPO the paired t statistic is 7.5 (p = 0.0002).',
     'contrasts.dapo-grpo.tests.paired_t.statistic'),
    ('GSPO vs. GRPO: t = 10.94, p = 1.2e-5.', 'GSPO vs. GRPO: t = 10.49, p = 1.2e-5.',
     'contrasts.gspo-grpo.tests.paired_t.statistic'),
    ('DAPO vs GRPO: Δ = +0.0035, adjusted p = 0.00028.', 'DAPO vs GRPO: Δ = +0.0035, adjusted p = 0.0028.',
     'contrasts.dapo-grpo.p_adjusted'),
    ('The minimum detectable effect for GSPO against GRPO was 0.0053 at 80% power.', 'The minimum detectable effect for GSPO against GRPO was 0.0073 at 80% power.',
     'contrasts.gspo-grpo.mde'),
    # n, seeds
    ('We train n = 8 seeds per arm.', 'We train n = 6 seeds per arm.',
     'lock.seeds'),
    ('Each arm was run with 8 seeds (11, 23, 37, 53, 71, 89, 107, 131).', 'Each arm was run with 8 seeds (11, 23, 37, 53, 71, 89, 107, 137).',
     'lock.seeds'),
    ('We evaluate on 500 held-out GSM8K problems.', 'We evaluate on 600 held-out GSM8K problems.',
     'lock.dataset.heldout_n'),
    ('Seeds 11–131, eight per arm, 40 runs in all.', 'Seeds 11–131, eight per arm, 45 runs in all.',
     'study.n_runs'),
    ('All 40 adapters (5 arms × 8 seeds) were scored.', 'All 40 adapters (5 arms × 9 seeds) were scored.',
     'lock.seeds'),
    # per-seed, ranges, sd
    ('Across seeds GSPO ranges from 0.644 to 0.656.', 'Across seeds GSPO ranges from 0.644 to 0.666.',
     None),
    ('GRPO seed 11 scored 0.632 and seed 23 0.628.', 'GRPO seed 11 scored 0.632 and seed 23 0.638.',
     'runs.grpo.s23.heldout_accuracy'),
    ("GSPO's best seed (107) reaches 0.656.", "GSPO's best seed (107) reaches 0.665.",
     'runs.gspo.s107.heldout_accuracy'),
    ('Seed-to-seed SD is 0.004 for GRPO.', 'Seed-to-seed SD is 0.009 for GRPO.',
     'arms.grpo.heldout_accuracy.sd'),
    ('GSPO: 0.650 ± 0.004 (mean ± sd over 8 seeds).', 'GSPO: 0.650 ± 0.007 (mean ± sd over 8 seeds).',
     'arms.gspo.heldout_accuracy.sd'),
    ("AERO's seeds span 60.4% to 62.0%.", "AERO's seeds span 60.4% to 62.9%.",
     None),
    # ZVF
    ("DAPO's mean ZVF is 0.221, against 0.416 for GRPO.", "DAPO's mean ZVF is 0.221, against 0.426 for GRPO.",
     'arms.grpo.zvf_mean'),
    ('DAPO roughly halves the zero-variance fraction (22.1% vs 41.6%).', 'DAPO roughly halves the zero-variance fraction (22.1% vs 46.1%).',
     'arms.grpo.zvf_mean'),
    ('GSPO reaches 0.650 accuracy with a mean ZVF of 0.391.', 'GSPO reaches 0.650 accuracy with a mean ZVF of 0.319.',
     'arms.gspo.zvf_mean'),
    ('AERO has the lowest accuracy (0.612) and a ZVF of 0.301.', 'AERO has the lowest accuracy (0.612) and a ZVF of 0.310.',
     'arms.aero.zvf_mean'),
    ('ZVF: GRPO 0.416, DAPO 0.221, GSPO 0.391, AERO 0.301.', 'ZVF: GRPO 0.416, DAPO 0.221, GSPO 0.391, AERO 0.391.',
     'arms.aero.zvf_mean'),
    ("Dr. GRPO's ZVF (0.411) is close to GRPO's (0.416).", "Dr. GRPO's ZVF (0.441) is close to GRPO's (0.416).",
     'arms.dr_grpo.zvf_mean'),
    # non-baseline pairs
    ('GSPO outperforms DAPO (0.650 vs 0.6355).', 'GSPO outperforms DAPO (0.650 vs 0.6455).',
     'arms.dapo.heldout_accuracy.mean'),
    ('GSPO leads DAPO by 1.4 points.', 'GSPO leads DAPO by 2.4 points.',
     None),
    ('DAPO edges out Dr. GRPO, 63.6% to 63.1%.', 'DAPO edges out Dr. GRPO, 63.6% to 63.4%.',
     'arms.dr_grpo.heldout_accuracy.mean'),
    ('GSPO is 3.8 points ahead of AERO.', 'GSPO is 4.8 points ahead of AERO.',
     None),
    # abstracts / tweets / cards
    ('In a locked five-arm study (8 seeds, 500 problems), GSPO beat GRPO by 1.8 points (p < 0.001) while AERO lost 2.0.', 'In a locked five-arm study (8 seeds, 500 problems), GSPO beat GRPO by 1.8 points (p < 0.001) while AERO lost 3.0.',
     'contrasts.aero-grpo.diff_mean'),
    ('TL;DR: GSPO 65.0% vs GRPO 63.2% on GSM8K, +1.8 pp, 8 seeds.', 'TL;DR: GSPO 65.0% vs GRPO 63.2% on GSM8K, +2.8 pp, 8 seeds.',
     'contrasts.gspo-grpo.diff_mean'),
    ('- **Held-out accuracy:** 0.650 (GSPO), 0.632 (GRPO baseline)', '- **Held-out accuracy:** 0.650 (GSPO), 0.623 (GRPO baseline)',
     'arms.grpo.heldout_accuracy.mean'),
    ('- GSPO: 65.0% held-out accuracy (+1.8 vs GRPO)', '- GSPO: 65.0% held-out accuracy (+1.3 vs GRPO)',
     'contrasts.gspo-grpo.diff_mean'),
    ('- Baseline (GRPO): 63.2%', '- Baseline (GRPO): 63.7%',
     'arms.grpo.heldout_accuracy.mean'),
    ('GSPO wins: 65.0% vs 63.2% for GRPO, SURVIVES.', 'GSPO wins: 65.0% vs 63.2% for GRPO, DISAPPEARS.',
     'gspo-grpo is SURVIVES'),
    ('The AERO result REVERSES: 61.2% vs 63.2%.', 'The AERO result SURVIVES: 61.2% vs 63.2%.',
     'aero-grpo is REVERSES'),
    ("DAPO's gain (+0.35 points) lies inside the ±1 point equivalence margin.", "DAPO's gain (+0.55 points) lies inside the ±1 point equivalence margin.",
     'contrasts.dapo-grpo.diff_mean'),
    ('GSPO beats GRPO by 0.018 (p = 1.2 × 10⁻⁵).', 'GSPO beats GRPO by 0.018 (p = 1.2 × 10⁻⁴).',
     'contrasts.gspo-grpo.p'),
    ('GRPO and Dr. GRPO are indistinguishable (63.2% and 63.1%).', 'GRPO and Dr. GRPO are indistinguishable (63.2% and 63.9%).',
     'arms.grpo.heldout_accuracy.mean'),
    ('AERO underperforms the baseline by 2 points.', 'AERO underperforms the baseline by 3 points.',
     'contrasts.aero-grpo.diff_mean'),
    ("GSPO's gain over GRPO is 0.01775 ± 0.0046 (mean ± sd of the paired differences).", "GSPO's gain over GRPO is 0.01775 ± 0.0096 (mean ± sd of the paired differences).",
     'contrasts.gspo-grpo.diff_sd'),
    ('GSPO (65.0%) > DAPO (63.6%) > GRPO (63.2%) > Dr. GRPO (63.1%) > AERO (61.2%).', 'GSPO (65.0%) > DAPO (63.6%) > GRPO (63.2%) > Dr. GRPO (63.1%) > AERO (61.9%).',
     'arms.aero.heldout_accuracy.mean'),
    ('On 500 problems, AERO answers 61.2% correctly, 2.0 points fewer than GRPO.', 'On 500 problems, AERO answers 61.2% correctly, 2.9 points fewer than GRPO.',
     'contrasts.aero-grpo.diff_mean'),
    ('GSPO increases accuracy by 0.018 over GRPO (a 2.8% relative increase).', 'GSPO increases accuracy by 0.018 over GRPO (a 2.8% relative increase, to 0.668).',
     'arms.gspo.heldout_accuracy.mean'),
]

# Known weaknesses (strict: a fix turns these into passes and must then move them out of here).
XFAIL: dict[str, str] = {}   # the last one ("..., to 0.668") is read since tests/test_audit_known_gaps.py


def _findings(study, sentences: list[str]) -> dict[int, list[str]]:
    """Check-10 messages by the index of the sentence (paragraph) they are about."""
    (study / "report.md").write_text(HEAD + "\n\n".join(sentences) + "\n")
    out: dict[int, list[str]] = {}
    for f in check(study).findings:
        if f.check == "10":
            out.setdefault((int(f.location.rsplit(":", 1)[1]) - FIRST_LINE) // 2, []).append(f.message)
    return out


@pytest.fixture(scope="module")
def five_arms(tmp_path_factory):
    report = corpus.build("prose_results", tmp_path_factory.mktemp("probe") / "s")
    for f in report.glob("*.md"):
        f.unlink()
    return report


@pytest.fixture(scope="module")
def clean_findings(five_arms):
    return _findings(five_arms, [c for c, _, _ in PAIRS])


@pytest.fixture(scope="module")
def wrong_findings(five_arms):
    return _findings(five_arms, [w for _, w, _ in PAIRS])


@pytest.mark.parametrize("i", range(len(PAIRS)), ids=[c[:48] for c, _, _ in PAIRS])
def test_correct_sentence_is_clean(clean_findings, i):
    assert clean_findings.get(i, []) == [], PAIRS[i][0]


def _wrong_params():
    for i, (_, w, source) in enumerate(PAIRS):
        if source is not None:
            marks = [pytest.mark.xfail(strict=True, reason=XFAIL[w])] if w in XFAIL else []
            yield pytest.param(i, source, marks=marks, id=w[:48])


@pytest.mark.parametrize("i, source", list(_wrong_params()))
def test_wrong_variant_is_one_finding_naming_its_source(wrong_findings, i, source):
    errors = wrong_findings.get(i, [])
    assert len(errors) == 1 and source in errors[0], (PAIRS[i][1], errors)


@pytest.mark.parametrize("i", [i for i, p in enumerate(PAIRS) if p[2] is None],
                         ids=[w[:48] for _, w, s in PAIRS if s is None])
def test_undecidable_wrong_variant_is_never_a_wrong_error(wrong_findings, i):
    """The analysis holds no min/max over seeds and no GSPO − DAPO contrast: left undecided."""
    assert wrong_findings.get(i, []) == [], PAIRS[i][1]


@pytest.mark.parametrize("sentence, sources", [
    ("GSPO, DAPO and AERO reach 0.650, 0.612 and 0.6355, respectively.",
     ("arms.dapo.heldout_accuracy.mean", "arms.aero.heldout_accuracy.mean")),
    ("GSPO and GRPO score 63.2% and 65.0% respectively.",
     ("arms.gspo.heldout_accuracy.mean", "arms.grpo.heldout_accuracy.mean")),
    ("DAPO and GRPO have mean ZVF 0.416 and 0.221, respectively.", ("arms.dapo.zvf_mean", "arms.grpo.zvf_mean")),
])
def test_swapped_respectively_list_is_two_findings(five_arms, sentence, sources):
    """"A, B and C reach x, y and z, respectively": the values are the arms' in the order written, so two
    swapped values are two errors (before, each was checked against whichever arm it equals and passed)."""
    errors = _findings(five_arms, [sentence]).get(0, [])
    assert len(errors) == 2 and all(any(s in e for e in errors) for s in sources), errors


def test_respectively_list_in_order_is_clean(five_arms):
    assert _findings(five_arms, ["DAPO and GRPO have mean ZVF 0.221 and 0.416, respectively.",
                                 "DAPO edges out Dr. GRPO, 63.6% to 63.1%."]) == {}


# Second round, written after the fixes above (first run on it: 5 of 25 correct sentences raised a false
# alarm, 0 wrong variants passed; "the 63.2% baseline" and "Differences from GRPO: GSPO +0.018" fixed, two
# classes left as strict xfails in ROUND2_XFAIL; "All four contrasts but Dr. GRPO's" is read since
# tests/test_audit_known_gaps.py, the secondary-metric change since audit.trace._metric_difference).
ROUND2 = [
    ('GSPO achieves the highest accuracy (65.0%), followed by DAPO (63.6%).',
     'GSPO achieves the highest accuracy (65.0%), followed by DAPO (64.6%).',
     'arms.dapo.heldout_accuracy.mean'),
    ('Relative to the GRPO baseline (0.632), GSPO adds 0.018.',
     'Relative to the GRPO baseline (0.632), GSPO adds 0.028.',
     'contrasts.gspo-grpo.diff_mean'),
    ('GSPO: +1.8 pp (95% CI +1.5 to +2.1 pp).',
     'GSPO: +1.8 pp (95% CI +1.5 to +2.6 pp).',
     'contrasts.gspo-grpo.ci95.high'),
    ('AERO hurts: −2.0 pp (p < 0.001).',
     'AERO hurts: −2.5 pp (p < 0.001).',
     'contrasts.aero-grpo.diff_mean'),
    ('The gain from GSPO, 1.8 points, is statistically significant (adjusted p = 4.7e-5).',
     'The gain from GSPO, 2.8 points, is statistically significant (adjusted p = 4.7e-5).',
     'contrasts.gspo-grpo.diff_mean'),
    ('We observe 65.0% for GSPO versus 63.2% for GRPO.',
     'We observe 65.0% for GSPO versus 63.9% for GRPO.',
     'arms.grpo.heldout_accuracy.mean'),
    ("GRPO's accuracy (63.2%) is essentially matched by Dr. GRPO (63.1%).",
     "GRPO's accuracy (63.2%) is essentially matched by Dr. GRPO (63.9%).",
     'arms.dr_grpo.heldout_accuracy.mean'),
    ('Over eight seeds, GSPO averages 65.0% ± 0.4.',
     'Over eight seeds, GSPO averages 65.0% ± 0.9.',
     'arms.gspo.heldout_accuracy.sd'),
    ('AERO drops to 61.2%, 2 points below the 63.2% baseline.',
     'AERO drops to 61.2%, 3 points below the 63.2% baseline.',
     'contrasts.aero-grpo.diff_mean'),
    ("DAPO's dynamic sampling cuts ZVF from 0.416 to 0.221.",
     "DAPO's dynamic sampling cuts ZVF from 0.416 to 0.251.",
     'arms.dapo.zvf_mean'),
    ('ZVF falls by 0.195 under DAPO.',
     'ZVF falls by 0.295 under DAPO.',
     'arms.dapo.zvf_mean'),
    ('The AERO effect is large (d_z = −2.96).',
     'The AERO effect is large (d_z = −1.96).',
     'contrasts.aero-grpo.effect_size_dz'),
    ('GSPO improves accuracy by about 1.8 percentage points over GRPO, from 63.2% to 65.0%.',
     'GSPO improves accuracy by about 1.8 percentage points over GRPO, from 63.2% to 65.8%.',
     'arms.gspo.heldout_accuracy.mean'),
    ('Our best model (GSPO, 65.0%) beats the baseline by 1.8 points.',
     'Our best model (GSPO, 65.0%) beats the baseline by 2.1 points.',
     'contrasts.gspo-grpo.diff_mean'),
    ('GSPO > GRPO by 0.018 (t(7) = 10.94, p < 0.001).',
     'GSPO > GRPO by 0.018 (t(7) = 9.94, p < 0.001).',
     'contrasts.gspo-grpo.tests.paired_t.statistic'),
    ('Dr. GRPO: 0.631 (Δ −0.001 vs GRPO, n.s.).',
     'Dr. GRPO: 0.631 (Δ −0.011 vs GRPO, n.s.).',
     'contrasts.dr_grpo-grpo.diff_mean'),
    ('Differences from GRPO: GSPO +0.018, DAPO +0.0035, Dr. GRPO −0.00075, AERO −0.020.',
     'Differences from GRPO: GSPO +0.018, DAPO +0.0035, Dr. GRPO −0.00075, AERO −0.030.',
     'contrasts.aero-grpo.diff_mean'),
    ("All four contrasts but Dr. GRPO's are significant after BH correction (Dr. GRPO p = 0.28).",
     "All four contrasts but Dr. GRPO's are significant after BH correction (Dr. GRPO p = 0.18).",
     'contrasts.dr_grpo-grpo.p'),
    ("GSPO's 95% CI for the mean, [64.7%, 65.2%], excludes GRPO's 63.2%.",
     "GSPO's 95% CI for the mean, [64.7%, 66.2%], excludes GRPO's 63.2%.",
     'arms.gspo.heldout_accuracy.mean.ci95.high'),
    ('At 0.650, GSPO is 1.8 points clear of GRPO.',
     'At 0.650, GSPO is 2.8 points clear of GRPO.',
     'contrasts.gspo-grpo.diff_mean'),
    ('AERO lowers ZVF to 0.301 but also lowers accuracy to 0.612.',
     'AERO lowers ZVF to 0.301 but also lowers accuracy to 0.621.',
     'arms.aero.heldout_accuracy.mean'),
    ('GSPO scored 0.650 on average (SD 0.004).',
     'GSPO scored 0.650 on average (SD 0.006).',
     'arms.gspo.heldout_accuracy.sd'),
    ('The baseline reaches 0.632 ± 0.004.',
     'The baseline reaches 0.632 ± 0.007.',
     'arms.grpo.heldout_accuracy.sd'),
    ('DAPO is only 0.35 pp better than GRPO and within the 1-point margin.',
     'DAPO is only 0.85 pp better than GRPO and within the 1-point margin.',
     'contrasts.dapo-grpo.diff_mean'),
    ('GSPO beats GRPO on 8 of 8 seeds.',
     'GSPO beats GRPO on 8 of 8 seeds, by 1.2 points on average.',
     'contrasts.gspo-grpo.diff_mean'),
]
# Empty since audit.trace._metric_difference: "ZVF falls by 0.195 under DAPO" (a change of a metric with no contrast
# of its own) is the two arms' means of it subtracted, offered before the other metric's contrast.
ROUND2_XFAIL: dict[int, str] = {}


@pytest.fixture(scope="module")
def round2(five_arms):
    return (_findings(five_arms, [c for c, _, _ in ROUND2]), _findings(five_arms, [w for _, w, _ in ROUND2]))


def _round2_params():
    for i, (c, _, _) in enumerate(ROUND2):
        marks = [pytest.mark.xfail(strict=True, reason=ROUND2_XFAIL[i])] if i in ROUND2_XFAIL else []
        yield pytest.param(i, marks=marks, id=c[:48])


@pytest.mark.parametrize("i", list(_round2_params()))
def test_round2_correct_sentence_is_clean(round2, i):
    assert round2[0].get(i, []) == [], ROUND2[i][0]


@pytest.mark.parametrize("i", list(_round2_params()))
def test_round2_wrong_variant_is_one_finding_naming_its_source(round2, i):
    errors = round2[1].get(i, [])
    assert len(errors) == 1 and ROUND2[i][2] in errors[0], (ROUND2[i][1], errors)
