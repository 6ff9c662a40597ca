"""Each stats method against scipy/statsmodels on the same data, plus degenerate inputs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as st

from prereg.errors import UserError
from stats import intervals as iv
from stats import multiplicity, rliable
from stats import resample as rs
from stats import tests as ht

RNG = np.random.default_rng(12345)
SAMPLES = [RNG.normal(0.3, 1.0, 8), RNG.lognormal(0.0, 1.0, 5), RNG.beta(6, 4, 20)]


@pytest.mark.parametrize("x", SAMPLES)
@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
@pytest.mark.parametrize("stat", ["mean", "median"])
def test_bootstrap_matches_scipy_same_draws(x, method, scipy_method, stat):
    """Same generator and resample count -> the same resamples -> the same interval as scipy."""
    ours = iv.compute(x, stat, method, [0.95, 0.9], resamples=4000, rng_seed=11, stream="s")
    fn = np.mean if stat == "mean" else np.median
    for lv in (0.95, 0.9):
        ref = st.bootstrap((x,), fn, n_resamples=4000, confidence_level=lv, method=scipy_method,
                           rng=rs.generator(11, "s"), vectorized=True).confidence_interval
        assert ours[lv].low == pytest.approx(ref.low, rel=1e-9, abs=1e-12)
        assert ours[lv].high == pytest.approx(ref.high, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_bootstrap_agrees_with_scipy_within_mc_error(method, scipy_method):
    """Independent draws: endpoints agree within Monte-Carlo error of 10,000 resamples."""
    x = SAMPLES[0]
    ours = iv.compute(x, "mean", method, [0.95], resamples=10000, rng_seed=1, stream="a")[0.95]
    ref = st.bootstrap((x,), np.mean, n_resamples=10000, method=scipy_method, rng=np.random.default_rng(99)
                       ).confidence_interval
    se = np.std(x, ddof=1) / np.sqrt(x.size)
    assert abs(ours.low - ref.low) < 0.1 * se
    assert abs(ours.high - ref.high) < 0.1 * se


def test_t_interval_matches_scipy():
    x = SAMPLES[0]
    r = iv.compute(x, "mean", "t", [0.95, 0.9], resamples=1000, rng_seed=None, stream="t")
    for lv in (0.95, 0.9):
        lo, hi = st.t.interval(lv, x.size - 1, loc=x.mean(), scale=st.sem(x))
        assert (r[lv].low, r[lv].high) == pytest.approx((lo, hi), rel=1e-12)


def test_bootstrap_t_is_nested_and_wider_than_percentile_at_small_n():
    x = SAMPLES[1]
    bt = iv.compute(x, "mean", "bootstrap_t", [0.95, 0.9], resamples=4000, rng_seed=3, stream="b")
    pc = iv.compute(x, "mean", "percentile", [0.95], resamples=4000, rng_seed=3, stream="b")
    assert bt[0.95].low < bt[0.9].low < x.mean() < bt[0.9].high < bt[0.95].high
    assert bt[0.95].high - bt[0.95].low > pc[0.95].high - pc[0.95].low


def test_hierarchical_binomial_engine_matches_index_engine():
    """The Binomial shortcut for binary items has the distribution of explicit item resampling."""
    g = np.random.default_rng(5)
    items = (g.random((6, 200)) < g.uniform(0.3, 0.7, (6, 1))).astype(float)
    fast, how = rs.hierarchical(items, 20000, rs.generator(1, "h"))
    assert how == "binomial"
    slow, how2 = rs.hierarchical(items, 20000, rs.generator(2, "h"), engine="index")
    assert how2 == "index"
    for q in (0.025, 0.5, 0.975):
        assert np.quantile(fast, q) == pytest.approx(np.quantile(slow, q), abs=0.004)
    assert fast.std() == pytest.approx(slow.std(), rel=0.05)


def test_hierarchical_multinomial_engine_matches_index_engine():
    g = np.random.default_rng(9)
    a = (g.random((5, 120)) < 0.6).astype(float)
    b = (g.random((5, 120)) < 0.5).astype(float)
    fast, how = rs.hierarchical(a, 20000, rs.generator(1, "m"), paired_with=b)
    slow, how2 = rs.hierarchical(a, 20000, rs.generator(2, "m"), paired_with=b, engine="index")
    assert (how, how2) == ("multinomial", "index")
    for q in (0.025, 0.5, 0.975):
        assert np.quantile(fast, q) == pytest.approx(np.quantile(slow, q), abs=0.006)


def test_hierarchical_is_wider_than_seed_only_bootstrap():
    g = np.random.default_rng(8)
    items = (g.random((8, 100)) < 0.6).astype(float)
    x = items.mean(axis=1)
    h = iv.compute(x, "mean", "hierarchical_bootstrap", [0.95], resamples=5000, rng_seed=1, stream="h", items=items)
    p = iv.compute(x, "mean", "percentile", [0.95], resamples=5000, rng_seed=1, stream="h")
    assert h[0.95].high - h[0.95].low > p[0.95].high - p[0.95].low
    assert h[0.95].params["item_draw"] == "binomial"


def test_same_stream_same_draws_other_stream_differs():
    x = SAMPLES[0]
    a = iv.compute(x, "mean", "percentile", [0.95], resamples=2000, rng_seed=4, stream="v.one")[0.95]
    b = iv.compute(x, "mean", "percentile", [0.95], resamples=2000, rng_seed=4, stream="v.one")[0.95]
    c = iv.compute(x, "mean", "percentile", [0.95], resamples=2000, rng_seed=4, stream="v.two")[0.95]
    d = iv.compute(x, "mean", "percentile", [0.95], resamples=2000, rng_seed=5, stream="v.one")[0.95]
    assert (a.low, a.high) == (b.low, b.high)
    assert (a.low, a.high) != (c.low, c.high)
    assert (a.low, a.high) != (d.low, d.high)


# ----------------------------------------------------------------------------- degenerate
@pytest.mark.parametrize("method", iv.METHODS)
def test_one_seed_gives_stated_none(method):
    r = iv.compute([0.5], "mean", method, [0.95], resamples=200, rng_seed=1, stream="x",
                   items=np.ones((1, 10)))[0.95]
    assert r.low is None and r.high is None and "one seed" in r.note


@pytest.mark.parametrize("method", ["percentile", "bca", "bootstrap_t", "t", "paired_bootstrap"])
def test_all_equal_seeds_zero_width_with_note(method):
    r = iv.compute([0.4, 0.4, 0.4, 0.4], "mean", method, [0.95], resamples=200, rng_seed=1, stream="x")[0.95]
    assert r.low == r.high == 0.4 and "equal" in r.note


def test_nan_input_is_an_error():
    with pytest.raises(ValueError, match="non-finite"):
        iv.compute([0.1, float("nan"), 0.3], "mean", "percentile", [0.95], resamples=200, rng_seed=1, stream="x")


def test_degenerate_tests_never_nan():
    assert ht.paired_t([0.0, 0.0, 0.0]).p == 1.0
    r = ht.paired_t([0.1, 0.1, 0.1])
    assert r.p is None and r.statistic is None and "t statistic and p undefined" in r.note
    assert ht.paired_t([0.2]).p is None
    assert ht.wilcoxon([0.0, 0.0]).p == 1.0
    assert ht.mcnemar_exact([True, False], [True, False]).p == 1.0
    assert ht.tost_paired([0.001, 0.001, 0.001], 0.01).p == 0.0
    assert ht.tost_paired([0.05, 0.05], 0.01).p == 1.0


# Equal-by-construction arms: accuracies k/64 whose per-seed differences are 0, or a constant
# offset that floating point makes ~1e-17 apart (0.4 - 0.3 != 0.2 - 0.1).
_BASE = np.array([0.3, 0.1, 0.7, 0.5])
_CONST = np.array([0.4, 0.2, 0.8, 0.6]) - _BASE


def test_roundoff_spread_is_snapped_to_constant():
    assert np.ptp(_CONST) > 0  # the premise: raw differences are not exactly equal
    snapped = rs.snap_constant(_CONST, scale=0.8)
    assert np.ptp(snapped) == 0 and snapped[0] == pytest.approx(0.1)
    assert np.all(rs.snap_constant(np.array([1e-17, 0.0, -1e-17]), scale=0.7) == 0.0)
    real = np.array([0.1, 0.1 + 1e-6, 0.1])
    assert np.array_equal(rs.snap_constant(real), real)  # a real (if tiny) spread is kept


@pytest.mark.parametrize("d,zero", [(np.zeros(4), True), (_CONST, False)])
def test_zero_variance_differences_against_scipy(d, zero):
    import warnings

    from statsmodels.stats.weightstats import ttost_paired

    # paired t: scipy gives NaN (all zero) or a round-off t of ~1e15 (constant); ours is stated
    t = ht.paired_t(d)
    assert t.statistic is None and t.note
    assert (t.p == 1.0) if zero else (t.p is None and "undefined" in t.note)
    # the exact sign-flip test is defined: 1 with all zeros, 2/2^n with a constant offset
    ref = st.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf).pvalue
    sf = ht.sign_flip(d)
    assert sf.p == pytest.approx(ref) and sf.p == (1.0 if zero else 2 / 2 ** d.size)
    assert ht.sign_flip(d, "greater").p == (1.0 if zero else 1 / 2 ** d.size)
    # Wilcoxon: scipy defines both (p = 1 with all zeros dropped; exact 2/2^n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = st.wilcoxon(d, method="exact").pvalue if not zero else st.wilcoxon(d).pvalue
    assert ht.wilcoxon(d).p == pytest.approx(ref)
    # TOST with zero variance: equivalent iff |difference| < margin (statsmodels agrees)
    for margin in (0.01, 0.5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = ttost_paired(_BASE + d, _BASE, -margin, margin)[0]
        r = ht.tost_paired(d, margin)
        assert r.p == (0.0 if abs(d.mean()) < margin else 1.0) and "convention" in r.note
        assert r.p == pytest.approx(ref, abs=1e-12)  # statsmodels: the same up to round-off
    # every interval method degenerates to [d, d] with a note (scipy's percentile agrees)
    for m in ("percentile", "paired_bootstrap", "bca", "bootstrap_t", "t"):
        r = iv.compute(d, "mean", m, [0.95], resamples=200, rng_seed=1, stream="x")[0.95]
        assert r.low == r.high == pytest.approx(d.mean()) and "equal" in r.note
    ci = st.bootstrap((d,), np.mean, method="percentile", n_resamples=200, random_state=1).confidence_interval
    assert (ci.low, ci.high) == pytest.approx((d.mean(), d.mean()))


def test_zero_variance_welch():
    a = np.full(3, 0.5)
    assert ht.welch_t(a, a).p == 1.0 and ht.welch_t(a, a).statistic is None
    r = ht.welch_t(a + 0.1, a)
    assert r.p is None and "undefined" in r.note


def test_power_with_roundoff_sd_is_the_limit_not_an_error():
    from prereg import power as pw

    sd = float(np.std(_CONST, ddof=1))  # ~1e-17: nc ~ 1e16, where scipy's nct returns NaN
    assert 0 < sd < 1e-15
    assert pw.power_paired(0.1, sd, 4) == 1.0
    assert pw.power_paired(0.1, sd, 4, alternative="less") == 0.0
    with pytest.raises(UserError, match="sd: must be a positive"):
        pw.power_paired(0.1, 0.0, 4)  # exactly zero SD stays a stated error of the power API


def test_multiplicity_null_p_counts_as_one_like_statsmodels():
    from statsmodels.stats.multitest import multipletests

    for method, sm in (("holm", "holm"), ("bh", "fdr_bh")):
        out = multiplicity.apply_family({"a-b": 0.01, "c-b": None, "d-b": 0.03}, ["a-b", "c-b", "d-b"], method, 0.05)
        rej, adj, *_ = multipletests([0.01, 1.0, 0.03], alpha=0.05, method=sm)
        assert out["a-b"].p_adjusted == pytest.approx(adj[0]) and out["d-b"].p_adjusted == pytest.approx(adj[2])
        assert out["c-b"].missing is True and out["c-b"].reject is False
        assert out["a-b"].reject == bool(rej[0])


def test_verdict_conditions_with_null_inputs_fall_through():
    from prereg.verdicts import ContrastFacts, evaluate

    rules = [{"verdict": "SURVIVES", "when": [{"check": "lower_above", "level": 0.95, "value": 0},
                                              {"check": "multiplicity_rejects"}]},
             {"verdict": "DISAPPEARS", "when": [{"check": "interval_within_margin", "level": 0.95},
                                                {"check": "mde_at_most_margin"}]},
             {"verdict": "SIG", "when": [{"check": "p_below"}]},
             {"verdict": "EQ", "when": [{"check": "tost_equivalent"}]},
             {"verdict": "INCONCLUSIVE", "when": []}]
    f = ContrastFacts(intervals={0.95: (0.1, 0.1)}, p=None, reject=False, mde=None, tost_p=None, margin=0.01,
                      alpha=0.05, published_effect=None, mde_note="SD 0", p_note="t undefined")
    res = evaluate(rules, f)
    assert res["verdict"] == "INCONCLUSIVE" and res["rule"] == 4
    details = {c["check"]: c["detail"] for r in res["trail"] for c in r["checks"]}
    assert "p undefined (t undefined)" in details["multiplicity_rejects"]
    assert details["mde_at_most_margin"] == "MDE undefined (SD 0)"
    assert details["p_below"].startswith("p undefined") and details["tost_equivalent"] == "TOST undefined"
    f.intervals = {0.95: (None, None)}
    assert evaluate(rules, f)["trail"][0]["checks"][0]["detail"] == "the 0.95 interval is undefined"


# ----------------------------------------------------------------------------- tests
@pytest.mark.parametrize("alt", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [3, 5, 8, 14])
def test_paired_tests_match_scipy(alt, n):
    g = np.random.default_rng(n)
    a, b = g.normal(0.5, 0.1, n), g.normal(0.45, 0.1, n)
    d = a - b
    assert ht.paired_t(d, alt).p == pytest.approx(st.ttest_rel(a, b, alternative=alt).pvalue, rel=1e-10)
    assert ht.wilcoxon(d, alt).p == pytest.approx(st.wilcoxon(a, b, alternative=alt, method="exact").pvalue, rel=1e-10)
    assert ht.welch_t(a, b, alt).p == pytest.approx(
        st.ttest_ind(a, b, equal_var=False, alternative=alt).pvalue, rel=1e-10)
    ref = st.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf,
                              alternative=alt, vectorized=True).pvalue
    assert ht.sign_flip(d, alt).p == pytest.approx(ref, rel=1e-10)


def test_sign_flip_monte_carlo_beyond_exact_limit_is_seeded():
    d = np.random.default_rng(1).normal(0.1, 1, 25)
    a = ht.sign_flip(d, rng_seed=3, stream="z", resamples=4000)
    b = ht.sign_flip(d, rng_seed=3, stream="z", resamples=4000)
    assert a.p == b.p and a.params["enumeration"] == "monte_carlo" and a.rng_seed == 3
    ref = st.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=20000,
                              rng=np.random.default_rng(0), vectorized=True).pvalue
    assert abs(a.p - ref) < 0.03


def test_mcnemar_matches_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    g = np.random.default_rng(2)
    for _ in range(20):
        a = g.random(300) < 0.6
        b = g.random(300) < g.uniform(0.5, 0.7)
        table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
        assert ht.mcnemar_exact(a, b).p == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-10)


def test_tost_matches_statsmodels():
    from statsmodels.stats.weightstats import ttost_paired

    g = np.random.default_rng(4)
    a, b = g.normal(0.5, 0.02, 8), g.normal(0.5, 0.02, 8)
    ref = ttost_paired(a, b, -0.01, 0.01)[0]
    assert ht.tost_paired(a - b, 0.01).p == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize("method,sm", [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")])
def test_multiplicity_matches_statsmodels(method, sm, monkeypatch):
    import gc

    from statsmodels.stats.multitest import multipletests

    # statsmodels' holm branch ends in gc.collect(): a full collection of the whole test session's
    # heap (torch, transformers loaded) per call, 70 s for these 50 calls in a suite run. It frees
    # a temporary and changes no result, so the comparison runs without it.
    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)

    g = np.random.default_rng(6)
    for _ in range(50):
        p = g.random(g.integers(1, 10)) ** 3
        rej, adj, *_ = multipletests(p, alpha=0.05, method=sm)
        assert multiplicity.adjust(p, method) == pytest.approx(adj.tolist(), rel=1e-12)
        fam = {f"a{i}-b": float(v) for i, v in enumerate(p)}
        out = multiplicity.apply_family(fam, list(fam), method, 0.05)
        assert [out[c].reject for c in fam] == rej.tolist()


def test_missing_family_member_counts_as_p_one():
    out = multiplicity.apply_family({"a-b": 0.01, "c-b": None}, ["a-b", "c-b"], "bonferroni", 0.05)
    assert out["a-b"].p_adjusted == pytest.approx(0.02) and out["c-b"].reject is False


# ----------------------------------------------------------------------------- rliable
def test_rliable_aggregates():
    g = np.random.default_rng(7)
    s = g.random((6, 4))
    assert rliable.aggregate(s, "iqm") == pytest.approx(st.trim_mean(s.ravel(), 0.25))
    assert rliable.aggregate(s, "mean") == pytest.approx(s.mean())
    assert rliable.aggregate(s, "median") == pytest.approx(np.median(s.mean(axis=0)))
    assert rliable.aggregate(s, "optimality_gap") == pytest.approx(1 - np.minimum(s, 1).mean())
    x, y = g.random((5, 3)), g.random((4, 3))
    brute = np.mean([np.mean([(xi > yi) + 0.5 * (xi == yi) for xi in x[:, t] for yi in y[:, t]]) for t in range(3)])
    assert rliable.probability_of_improvement(x, y) == pytest.approx(brute)
    res = rliable.stratified_resample(s, 50, rs.generator(1, "r"))
    assert res.shape == (50, 6, 4)
    for t in range(4):  # runs are resampled within their own task column
        assert set(np.unique(res[:, :, t])) <= set(s[:, t])
