"""Hypothesis tests for paired seed-level and item-level comparisons, and TOST.

Each returns a :class:`TestResult` whose ``p`` is never a silent NaN: undefined cases
(fewer than two pairs, zero variance) return ``p=None`` with a note, except where a
convention is stated (all differences zero -> p = 1; zero-variance TOST is decided
exactly: equivalent iff |difference| < margin). Spreads at round-off size count as zero
(``resample.snap_constant``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats as _st

from stats import resample as rs

EXACT_MAX_N = 20  # sign-flip tests enumerate all 2**n sign vectors up to this n

# Zero-variance conventions of the t-based tests (README "Degenerate data").
ZERO_DIFFS = ("all paired differences zero: t statistic undefined (0/0); p = 1 by convention "
              "(no observed difference)")
EQUAL_DIFFS = ("all paired differences equal and non-zero (SD 0): t statistic and p undefined; "
               "the exact sign-flip p (2/2^n two-sided) is defined")


@dataclass(frozen=True)
class TestResult:
    p: float | None
    statistic: float | None
    method: str
    params: dict = field(default_factory=dict)
    note: str | None = None
    rng_seed: int | None = None


def _tail(t: float, df: float, alternative: str) -> float:
    if alternative == "greater":
        return float(_st.t.sf(t, df))
    if alternative == "less":
        return float(_st.t.cdf(t, df))
    return float(min(1.0, 2 * _st.t.sf(abs(t), df)))


def paired_t(diff, alternative: str = "two-sided") -> TestResult:
    """One-sample t on per-seed differences (= scipy.stats.ttest_rel)."""
    d = np.asarray(diff, dtype=float)
    n = d.size
    params = {"n": int(n), "alternative": alternative}
    if n < 2:
        return TestResult(None, None, "paired_t", params, "fewer than two pairs: test undefined")
    d = rs.snap_constant(d)
    if np.ptp(d) == 0:
        if np.all(d == 0):
            return TestResult(1.0, None, "paired_t", params, ZERO_DIFFS)
        return TestResult(None, None, "paired_t", params, EQUAL_DIFFS)
    sd = float(np.std(d, ddof=1))
    t = float(np.mean(d) / (sd / np.sqrt(n)))
    return TestResult(_tail(t, n - 1, alternative), t, "paired_t", {**params, "df": n - 1})


def welch_t(a, b, alternative: str = "two-sided") -> TestResult:
    """Welch's unequal-variance t (= scipy.stats.ttest_ind(equal_var=False))."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    params = {"n_arm": int(a.size), "n_baseline": int(b.size), "alternative": alternative}
    if a.size < 2 or b.size < 2:
        return TestResult(None, None, "welch_t", params, "fewer than two seeds in an arm: test undefined")
    a, b = rs.snap_constant(a), rs.snap_constant(b)
    va = 0.0 if np.ptp(a) == 0 else np.var(a, ddof=1) / a.size
    vb = 0.0 if np.ptp(b) == 0 else np.var(b, ddof=1) / b.size
    if va + vb == 0:
        if abs(a.mean() - b.mean()) <= rs.ROUNDOFF_REL * max(abs(a.mean()), abs(b.mean())):
            return TestResult(1.0, None, "welch_t", params,
                              "no variance in either arm and equal means: t statistic undefined (0/0); "
                              "p = 1 by convention (no observed difference)")
        return TestResult(None, None, "welch_t", params,
                          "no variance in either arm and different means: t statistic undefined (SD 0)")
    t = float((a.mean() - b.mean()) / np.sqrt(va + vb))
    df = float((va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)))
    return TestResult(_tail(t, df, alternative), t, "welch_t", {**params, "df": df})


def _all_sign_sums(scores: np.ndarray) -> np.ndarray:
    """sum(s_i * scores_i) for every one of the 2**n sign vectors s, built one score at a time
    (2**(n+1) additions in all: ~10 ms at n = 20, where a (2**n x n) sign matrix product took
    ~0.4 s per test and made check 9 cost more at 100 runs than at 1,000). The counts compared
    against the observed sum carry a 1e-9 relative tolerance, far above the rounding of either
    summation order."""
    sums = np.zeros(1)
    for x in scores:
        sums = np.concatenate((sums + x, sums - x))
    return sums


def _sign_flip_p(scores: np.ndarray, alternative: str, rng_seed: int | None, stream: str,
                 resamples: int) -> tuple[float, dict]:
    """P-value of sum(scores) under random sign flips; exact enumeration up to EXACT_MAX_N."""
    n = scores.size
    obs = float(scores.sum())
    tol = 1e-9 * max(1.0, float(np.abs(scores).sum()))
    def count(null):
        if alternative == "greater":
            return int(np.count_nonzero(null >= obs - tol))
        if alternative == "less":
            return int(np.count_nonzero(null <= obs + tol))
        return int(np.count_nonzero(np.abs(null) >= abs(obs) - tol))

    if n <= EXACT_MAX_N:
        total = 2 ** n
        k = count(_all_sign_sums(scores))
        params = {"enumeration": "exact", "n_sign_vectors": int(total)}
        add = 0
    else:
        rng = rs.generator(rng_seed, stream)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(resamples, n))
        k = count(signs @ scores)
        total = resamples + 1
        params = {"enumeration": "monte_carlo", "resamples": int(resamples), "stream": stream}
        add = 1  # count the observed arrangement (Phipson & Smyth)
    return min(1.0, (k + add) / total), params


def sign_flip(diff, alternative: str = "two-sided", *, rng_seed: int | None = None, stream: str = "",
              resamples: int = 10000) -> TestResult:
    """Exact sign-flip permutation test of the mean paired difference."""
    d = np.asarray(diff, dtype=float)
    params = {"n": int(d.size), "alternative": alternative}
    if d.size == 0:
        return TestResult(None, None, "sign_flip", params, "no pairs: test undefined")
    p, extra = _sign_flip_p(d, alternative, rng_seed, stream, resamples)
    used_rng = rng_seed if extra["enumeration"] == "monte_carlo" else None
    note = f"smallest attainable p is {2.0 ** (1 - d.size):.4g}" if d.size <= 6 and alternative == "two-sided" else None
    return TestResult(p, float(d.mean()), "sign_flip", {**params, **extra}, note, used_rng)


def wilcoxon(diff, alternative: str = "two-sided", *, rng_seed: int | None = None, stream: str = "",
             resamples: int = 10000) -> TestResult:
    """Wilcoxon signed-rank test, exact by enumeration of signs (zeros dropped, ties mid-ranked).

    With no ties and no zeros this is scipy.stats.wilcoxon(method='exact'); statistic is W+,
    the sum of ranks of positive differences.
    """
    d = np.asarray(diff, dtype=float)
    d = d[d != 0]
    params = {"n_nonzero": int(d.size), "alternative": alternative, "zero_method": "wilcox"}
    if d.size == 0:
        return TestResult(1.0, 0.0, "wilcoxon", params, "all differences zero")
    ranks = _st.rankdata(np.abs(d))
    signed = np.sign(d) * ranks
    w_plus = float(ranks[d > 0].sum())
    p, extra = _sign_flip_p(signed, alternative, rng_seed, stream, resamples)
    used_rng = rng_seed if extra["enumeration"] == "monte_carlo" else None
    return TestResult(p, w_plus, "wilcoxon", {**params, **extra}, None, used_rng)


def bootstrap_p(dist: np.ndarray, alternative: str = "two-sided") -> float:
    """P-value by inverting the percentile interval of the bootstrap distribution of the mean difference."""
    b = dist.size
    le = (np.count_nonzero(dist <= 0) + 1) / (b + 1)
    ge = (np.count_nonzero(dist >= 0) + 1) / (b + 1)
    if alternative == "greater":
        return float(le)
    if alternative == "less":
        return float(ge)
    return float(min(1.0, 2 * min(le, ge)))


def mcnemar_exact(arm_correct, base_correct) -> TestResult:
    """Exact McNemar on paired binary outcomes (= statsmodels mcnemar(exact=True))."""
    a = np.asarray(arm_correct, dtype=bool)
    b = np.asarray(base_correct, dtype=bool)
    n01 = int(np.count_nonzero(a & ~b))  # arm right, baseline wrong
    n10 = int(np.count_nonzero(~a & b))
    params = {"arm_only": n01, "baseline_only": n10, "pairs": int(a.size)}
    if n01 + n10 == 0:
        return TestResult(1.0, 0.0, "mcnemar_exact", params, "no discordant pairs")
    p = float(min(1.0, 2 * _st.binom.cdf(min(n01, n10), n01 + n10, 0.5)))
    return TestResult(p, float(min(n01, n10)), "mcnemar_exact", params)


def tost_paired(diff, margin: float) -> TestResult:
    """Two one-sided t tests of |mean difference| < margin (= statsmodels ttost_paired)."""
    d = np.asarray(diff, dtype=float)
    n = d.size
    params = {"n": int(n), "margin": float(margin), "bounds": [-float(margin), float(margin)]}
    if n < 2:
        return TestResult(None, None, "tost_paired_t", params, "fewer than two pairs: TOST undefined")
    d = rs.snap_constant(d)
    m = float(d.mean())
    if np.ptp(d) == 0:
        p = 0.0 if abs(m) < margin else 1.0
        return TestResult(p, None, "tost_paired_t", params,
                          "all paired differences equal (SD 0): t undefined, equivalence decided exactly by "
                          f"convention: |difference| {abs(m):.6g} {'<' if p == 0 else '>='} margin {margin:g} "
                          f"-> p = {p:g}")
    sd = float(np.std(d, ddof=1))
    se = sd / np.sqrt(n)
    p_lower = float(_st.t.sf((m + margin) / se, n - 1))
    p_upper = float(_st.t.cdf((m - margin) / se, n - 1))
    return TestResult(max(p_lower, p_upper), None, "tost_paired_t",
                      {**params, "p_lower": p_lower, "p_upper": p_upper, "df": n - 1})


def noninferiority_paired(diff, margin: float) -> TestResult:
    """One-sided paired t test of H0: mean difference <= -margin (= scipy ttest_1samp(d + margin, 'greater')).

    Args:
        diff: per-seed paired differences (arm - baseline; higher is better).
        margin: the declared non-inferiority margin (> 0).

    Returns:
        A ``TestResult``; with zero variance decided exactly (p 0 if the difference exceeds -margin, else 1).

    Example:
        >>> round(noninferiority_paired([0.1, -0.2, 0.05, 0.0], 0.5).p, 4)
        0.0025
    """
    d = np.asarray(diff, dtype=float)
    n = d.size
    params = {"n": int(n), "margin": float(margin), "null": f"difference <= -{margin:g}", "alternative": "greater"}
    if n < 2:
        return TestResult(None, None, "noninferiority_paired_t", params, "fewer than two pairs: test undefined")
    d = rs.snap_constant(d)
    if np.ptp(d) == 0:
        p = 0.0 if d.mean() > -margin else 1.0
        return TestResult(p, None, "noninferiority_paired_t", params,
                          f"all paired differences equal (SD 0): decided exactly, p = {p:g}")
    se = float(np.std(d, ddof=1)) / np.sqrt(n)
    t = float((d.mean() + margin) / se)
    return TestResult(_tail(t, n - 1, "greater"), t, "noninferiority_paired_t", {**params, "df": n - 1})
