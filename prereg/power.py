"""Power, minimum detectable effect and required n for the t tests a plan may declare.

The project's single place for power math: the lint (seed count against the power target)
and the stats module (MDE and achieved power for the seeds actually present) both call
these functions, so "exact" means the same thing everywhere.

Exact functions use the noncentral t distribution (``scipy.stats.nct``): under an effect
``delta`` the t statistic follows ``nct(df, delta / sd * sqrt(n_eff))``. The normal
approximation is a separately named family because it is systematically optimistic at the
3–10 seeds typical of RL studies (it ignores the t critical value's heavy tails); a plan
that chooses it gets exactly it, and the lint notes the choice.

Conventions:
- ``sd`` is the SD of per-seed paired differences (paired) or the common within-arm SD
  (independent); ``effect`` is in metric units, so ``d = effect / sd``.
- ``n`` is the number of pairs (paired) or the size of group 1 (independent, group 2 is
  ``ratio * n``).
- ``alternative`` is ``two-sided``, ``greater`` (``larger``) or ``less`` (``smaller``). For
  one-sided tests power is computed in the stated direction; an MDE is returned as a
  positive magnitude in that direction.
"""

from __future__ import annotations

import functools
import math

from prereg.errors import UserError

ALTERNATIVES = {"two-sided": "two-sided", "greater": "greater", "larger": "greater",
                "less": "less", "smaller": "less"}
DESIGNS = ("paired", "independent")
METHODS = ("exact_noncentral_t", "normal_approximation")
_N_MAX = 1_000_000
_NC_LIMIT = 1e6


# ----------------------------------------------------------------------------- checks
def _alt(alternative: str) -> str:
    try:
        return ALTERNATIVES[alternative]
    except KeyError:
        raise UserError(f"alternative: {alternative!r} is not one of two-sided, greater, less") from None


def _check_common(sd: float, alpha: float) -> None:
    if not (isinstance(sd, (int, float)) and math.isfinite(sd) and sd > 0):
        raise UserError(f"sd: must be a positive finite number, got {sd!r}")
    if not (0 < alpha < 1):
        raise UserError(f"alpha: must lie strictly between 0 and 1, got {alpha!r}")


def _check_power(power: float) -> None:
    if not (0 < power < 1):
        raise UserError(f"power: must lie strictly between 0 and 1, got {power!r}")


def _check_n(n: float, minimum: float, what: str = "n") -> None:
    if not (isinstance(n, (int, float)) and math.isfinite(n) and n >= minimum):
        raise UserError(f"{what}: needs at least {minimum:g} for a t test, got {n!r}")


def _dims(design: str, n: float, ratio: float) -> tuple[float, float]:
    """(degrees of freedom, effective n so that nc = d * sqrt(n_eff))."""
    if design == "paired":
        _check_n(n, 2)
        return n - 1.0, float(n)
    if design == "independent":
        if not (ratio > 0):
            raise UserError(f"ratio: must be positive, got {ratio!r}")
        n2 = ratio * n
        _check_n(n, 1)
        if n + n2 < 3:
            raise UserError(f"n: groups of {n:g} and {n2:g} leave no degrees of freedom")
        return n + n2 - 2.0, n * n2 / (n + n2)
    raise UserError(f"design: {design!r} is not one of {', '.join(DESIGNS)}")


# ----------------------------------------------------------------------------- exact
def _power_exact(d: float, df: float, n_eff: float, alpha: float, alt: str) -> float:
    from scipy import stats

    from prereg.scalar_dist import nct_sf

    nc = d * math.sqrt(n_eff)

    # Both tails as upper tails (P(T < -c | nc) = P(T > c | -nc)): scipy's nct.cdf returns
    # NaN far in the lower tail (e.g. df=2, nc=17), while nct.sf stays accurate there.
    # Beyond |nc| ~ 3e9 scipy returns NaN; from |nc| = 1e6 on the tail is already 0 or 1 to
    # double precision for every df >= 1, so the limit is returned there (a tiny but non-zero SD).
    def upper(c: float, ncp: float) -> float:
        v = nct_sf(c, df, ncp)  # scipy's nct.sf bits without its per-call checks
        if not math.isfinite(v):
            if abs(ncp) >= _NC_LIMIT:
                return 1.0 if ncp > 0 else 0.0
            raise UserError(f"power: noncentral t failed numerically (df={df:g}, nc={ncp:g})")
        return v

    if alt == "two-sided":
        crit = stats.t.isf(alpha / 2, df)
        return min(1.0, upper(crit, nc) + upper(crit, -nc))
    crit = stats.t.isf(alpha, df)
    return upper(crit, nc) if alt == "greater" else upper(crit, -nc)


def _power_normal(d: float, df: float, n_eff: float, alpha: float, alt: str) -> float:
    from scipy import stats

    shift = d * math.sqrt(n_eff)
    if alt == "two-sided":
        z = stats.norm.isf(alpha / 2)
        return float(stats.norm.sf(z - shift) + stats.norm.cdf(-z - shift))
    z = stats.norm.isf(alpha)
    if alt == "greater":
        return float(stats.norm.sf(z - shift))
    return float(stats.norm.cdf(-z - shift))


_POWER = {"exact_noncentral_t": _power_exact, "normal_approximation": _power_normal}


def _method(method: str):
    try:
        return _POWER[method]
    except KeyError:
        raise UserError(f"method: {method!r} is not one of {', '.join(METHODS)}") from None


# ----------------------------------------------------------------------------- generic API
def power(effect: float, sd: float, n: float, alpha: float = 0.05, alternative: str = "two-sided", *,
          design: str = "paired", ratio: float = 1.0, method: str = "exact_noncentral_t") -> float:
    """Probability that the declared test rejects when the true effect is ``effect``."""
    _check_common(sd, alpha)
    fn, alt = _method(method), _alt(alternative)
    df, n_eff = _dims(design, n, ratio)
    return fn(effect / sd, df, n_eff, alpha, alt)


def mde(sd: float, n: float, alpha: float = 0.05, power_target: float = 0.80,
        alternative: str = "two-sided", *, design: str = "paired", ratio: float = 1.0,
        method: str = "exact_noncentral_t") -> float:
    """Smallest effect magnitude (metric units) detected with probability ``power_target``."""
    _check_common(sd, alpha)
    _check_power(power_target)
    _method(method)
    alt = _alt(alternative)
    df, n_eff = _dims(design, n, ratio)
    return float(_mde_standardised(df, n_eff, alpha, power_target, alt, method, n) * sd)


@functools.lru_cache(maxsize=4096)
def _mde_standardised(df: float, n_eff: float, alpha: float, power_target: float, alt: str,
                      method: str, n: float) -> float:
    """The MDE in SD units: it depends on the design only, not on the SD, so an analysis (and
    the audit's recomputation of it, check 9) that asks again for every metric and contrast of
    the same design solves the root once. A pure function of its arguments, hence cached."""
    from scipy.optimize import brentq

    fn = _method(method)
    sign = -1.0 if alt == "less" else 1.0

    def gap(d: float) -> float:
        return fn(sign * d, df, n_eff, alpha, alt) - power_target

    if gap(0.0) >= 0:  # power target at or below alpha: any effect is "detectable"
        return 0.0
    hi = 1.0
    while gap(hi) < 0:
        hi *= 2
        if hi > 1e9:
            raise UserError(f"power: target {power_target} is not reachable with n={n}")
    return float(brentq(gap, 0.0, hi, xtol=1e-12, rtol=1e-12, maxiter=500))


def n_required(effect: float, sd: float, alpha: float = 0.05, power_target: float = 0.80,
               alternative: str = "two-sided", *, design: str = "paired", ratio: float = 1.0,
               method: str = "exact_noncentral_t") -> int:
    """Smallest whole n (pairs, or group-1 size) whose power reaches ``power_target``.

    ``effect`` is taken as a magnitude in the direction of a one-sided alternative.
    """
    _check_common(sd, alpha)
    _check_power(power_target)
    if not (isinstance(effect, (int, float)) and math.isfinite(effect) and effect != 0):
        raise UserError(f"effect: must be a non-zero finite number, got {effect!r}")
    alt = _alt(alternative)
    effect = abs(effect) * (-1.0 if alt == "less" else 1.0)
    lo = 2 if design == "paired" else max(1, math.ceil(3 / (1 + ratio)))

    def ok(n: int) -> bool:
        return power(effect, sd, n, alpha, alt, design=design, ratio=ratio, method=method) >= power_target

    return first_n(ok, lo, _N_MAX, f"power: target {power_target} needs more than {_N_MAX} units")


def first_n(ok, lo: int, cap: int, too_many: str) -> int:
    """The smallest n >= ``lo`` with ``ok(n)``, for an ``ok`` that stays true once true (power
    increases with n): doubling to bracket it, then bisection.

    Args:
        ok: the monotone predicate.
        lo: the smallest n allowed.
        cap: give up above this n ...
        too_many: ... with this UserError message.
    Returns:
        The first n that satisfies ``ok``.
    Example:
        >>> first_n(lambda n: n * n >= 50, 2, 1000, "too many")
        8
    """
    if ok(lo):
        return lo
    hi = lo * 2
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > cap:
            raise UserError(too_many)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


# ----------------------------------------------------------------------------- named forms
def power_paired(effect, sd, n, alpha=0.05, alternative="two-sided"):
    """Exact noncentral-t power of the paired t test (one-sample t on n differences)."""
    return power(effect, sd, n, alpha, alternative, design="paired")


def mde_paired(sd, n, alpha=0.05, power=0.80, alternative="two-sided"):
    """Exact noncentral-t minimum detectable effect of the paired t test."""
    return mde(sd, n, alpha, power, alternative, design="paired")


def n_required_paired(effect, sd, alpha=0.05, power=0.80, alternative="two-sided"):
    """Smallest number of pairs (seeds) for the paired t test, exact noncentral t."""
    return n_required(effect, sd, alpha, power, alternative, design="paired")


def power_independent(effect, sd, n, alpha=0.05, alternative="two-sided", ratio=1.0):
    """Exact noncentral-t power of the pooled two-sample t test, n per group (group 2 = ratio*n)."""
    return power(effect, sd, n, alpha, alternative, design="independent", ratio=ratio)


def mde_independent(sd, n, alpha=0.05, power=0.80, alternative="two-sided", ratio=1.0):
    return mde(sd, n, alpha, power, alternative, design="independent", ratio=ratio)


def n_required_independent(effect, sd, alpha=0.05, power=0.80, alternative="two-sided", ratio=1.0):
    return n_required(effect, sd, alpha, power, alternative, design="independent", ratio=ratio)


def power_paired_normal(effect, sd, n, alpha=0.05, alternative="two-sided"):
    """Normal-approximation power of the paired test (optimistic at small n)."""
    return power(effect, sd, n, alpha, alternative, design="paired", method="normal_approximation")


def mde_paired_normal(sd, n, alpha=0.05, power=0.80, alternative="two-sided"):
    return mde(sd, n, alpha, power, alternative, design="paired", method="normal_approximation")


def n_required_paired_normal(effect, sd, alpha=0.05, power=0.80, alternative="two-sided"):
    return n_required(effect, sd, alpha, power, alternative, design="paired", method="normal_approximation")


def power_independent_normal(effect, sd, n, alpha=0.05, alternative="two-sided", ratio=1.0):
    return power(effect, sd, n, alpha, alternative, design="independent", ratio=ratio,
                 method="normal_approximation")


def mde_independent_normal(sd, n, alpha=0.05, power=0.80, alternative="two-sided", ratio=1.0):
    return mde(sd, n, alpha, power, alternative, design="independent", ratio=ratio,
               method="normal_approximation")


def n_required_independent_normal(effect, sd, alpha=0.05, power=0.80, alternative="two-sided", ratio=1.0):
    return n_required(effect, sd, alpha, power, alternative, design="independent", ratio=ratio,
                      method="normal_approximation")


# ----------------------------------------------------------------------------- equivalence / non-inferiority
EQUIVALENCE_RULES = ("tost", "interval_and_mde")


def _check_margin(margin: float) -> None:
    if not (isinstance(margin, (int, float)) and math.isfinite(margin) and margin > 0):
        raise UserError(f"margin: must be a positive finite number, got {margin!r}")


@functools.lru_cache(maxsize=4096, typed=True)
def power_equivalence(margin: float, sd: float, n: float, alpha: float = 0.05, true_diff: float = 0.0, *,
                      rule: str = "tost", level: float | None = None, power_target: float = 0.80) -> float:
    """Exact probability that a paired equivalence verdict is reached (README failure 18).

    A pure function of its arguments, hence cached (by value and type, so 8 and 8.0 are asked
    apart): lint, ``prereg design`` and the analysis ask it again for the same study, and each
    answer is a numerical integral over a thousand scipy evaluations.

    TOST at ``alpha`` (= the 1 - 2 alpha t interval inside (-margin, margin)) declares
    equivalence iff ``|m - 0| < margin - t_{1-alpha, n-1} s / sqrt(n)``. With the mean m
    normal and s^2 a scaled chi-square independent of it, the probability is one integral
    over the chi-square of the SD (Owen's Q form), done by ``scipy.integrate.quad``.
    ``rule="interval_and_mde"`` is the older ad hoc verdict: the ``level`` t interval
    within the margin *and* the MDE at the observed SD (paired two-sided t, ``alpha``,
    ``power_target``) at most the margin, which cuts the chi-square range further.

    Args:
        margin: equivalence margin (metric units, > 0).
        sd: SD of the per-seed paired differences (a pilot's).
        n: number of seeds (pairs).
        alpha: each one-sided test's level.
        true_diff: the true mean difference (0: power; +-margin: the false-equivalence rate).
        rule: ``tost`` or ``interval_and_mde``.
        level: interval level of ``interval_and_mde`` (default 1 - 2 alpha).
        power_target: the MDE's power target for ``interval_and_mde``.

    Returns:
        The probability of an equivalence verdict.

    Example:
        >>> round(power_equivalence(1.0, 1.0, 20), 3)
        0.992
    """
    from scipy import integrate, stats

    from prereg.scalar_dist import chi2_pdf, norm_cdf

    _check_margin(margin)
    _check_common(sd, alpha)
    _check_n(n, 2)
    if rule not in EQUIVALENCE_RULES:
        raise UserError(f"rule: {rule!r} is not one of {', '.join(EQUIVALENCE_RULES)}")
    df = n - 1.0
    level = 1 - 2 * alpha if level is None else level
    q = float(stats.t.ppf(0.5 + level / 2, df)) if rule == "interval_and_mde" else float(stats.t.isf(alpha, df))
    k = math.sqrt(n) / sd  # standardises the mean
    vmax = df * (margin * math.sqrt(n) / (q * sd)) ** 2  # s beyond this leaves an empty acceptance region
    if rule == "interval_and_mde":
        d_mde = mde(1.0, n, alpha, power_target, "two-sided", design="paired")
        vmax = min(vmax, df * (margin / (d_mde * sd)) ** 2)

    def inner(v: float) -> float:
        a = margin * k - q * math.sqrt(v / df)
        if a <= 0:
            return 0.0
        shift = true_diff * k
        # scipy's norm.cdf and chi2.pdf bits without their per-call checks (quad calls this ~1,000 times)
        return (norm_cdf(a - shift) - norm_cdf(-a - shift)) * chi2_pdf(v, df)

    val, _ = integrate.quad(inner, 0.0, vmax, limit=200, epsabs=1e-12, epsrel=1e-10)
    return float(min(1.0, max(0.0, val)))


def n_required_equivalence(margin: float, sd: float, alpha: float = 0.05, power_target: float = 0.80,
                           true_diff: float = 0.0, *, rule: str = "tost") -> int:
    """Smallest number of seeds whose equivalence verdict (TOST by default) reaches ``power_target``.

    Args:
        margin, sd, alpha, true_diff, rule: as :func:`power_equivalence`.
        power_target: the power wanted.

    Returns:
        The number of seeds (pairs).

    Example:
        >>> n_required_equivalence(1.0, 1.0)
        11
    """
    _check_power(power_target)
    if abs(true_diff) >= margin:
        raise UserError(f"true_diff: {true_diff:g} is not inside the margin {margin:g}; equivalence cannot be powered")

    def ok(n: int) -> bool:
        return power_equivalence(margin, sd, n, alpha, true_diff, rule=rule, power_target=power_target) >= power_target

    return first_n(ok, 2, 100_000, f"power: equivalence target {power_target} needs more than 100000 seeds")


def power_noninferiority(margin: float, sd: float, n: float, alpha: float = 0.05, true_diff: float = 0.0) -> float:
    """Exact power of the paired non-inferiority t test (H0: diff <= -margin, one-sided alpha).

    The test rejects when ``(m + margin) / (s / sqrt(n)) > t_{1-alpha, n-1}``: a one-sided
    paired t test at effect ``true_diff + margin`` (noncentral t; = statsmodels
    ``TTestPower().power(effect_size=(true_diff + margin) / sd, nobs=n, alternative="larger")``).

    Args:
        margin: non-inferiority margin (> 0; the arm may be at most this much worse).
        sd, n, alpha: as :func:`power`.
        true_diff: the true mean difference arm - baseline.

    Returns:
        Probability of declaring non-inferiority.

    Example:
        >>> round(power_noninferiority(1.0, 1.0, 8), 3)
        0.815
    """
    _check_margin(margin)
    return power(true_diff + margin, sd, n, alpha, "greater", design="paired")


def n_required_noninferiority(margin: float, sd: float, alpha: float = 0.05, power_target: float = 0.80,
                              true_diff: float = 0.0) -> int:
    """Smallest number of seeds for the non-inferiority test to reach ``power_target``.

    Example:
        >>> n_required_noninferiority(1.0, 1.0)
        8
    """
    _check_margin(margin)
    if true_diff + margin <= 0:
        raise UserError(f"true_diff: {true_diff:g} is at or below -margin; non-inferiority cannot be powered")
    return n_required(true_diff + margin, sd, alpha, power_target, "greater", design="paired")
