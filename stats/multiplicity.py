"""Multiplicity corrections applied over the declared family (README failure 9).

A family member with no p-value (its arm is missing, its test undefined) enters the
correction with p = 1, so a missing arm can never weaken the correction for the others.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

METHODS = ("holm", "bh", "bonferroni", "none")


def adjust(pvalues: list[float], method: str) -> list[float]:
    """Adjusted p-values (= statsmodels multipletests: holm, fdr_bh, bonferroni)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return []
    if method == "none":
        return p.tolist()
    if method == "bonferroni":
        return np.minimum(1.0, p * m).tolist()
    order = np.argsort(p, kind="stable")
    ps = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ps))
    elif method == "bh":
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * ps[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    else:
        raise ValueError(f"unknown multiplicity method {method!r}")
    out = np.empty(m)
    out[order] = adj
    return out.tolist()


@dataclass(frozen=True)
class Adjusted:
    """One contrast after the correction over its family: what ``contrasts.<c>.p_adjusted`` and
    ``contrasts.<c>.reject`` record, and the family and method that decided them."""

    p_adjusted: float | None   # None only outside the family, for a contrast whose p is undefined
    reject: bool               # adjusted p < alpha (never for a member whose p is undefined)
    method: str                # the plan's method for a family member; "none" outside the family
    family: tuple[str, ...]    # the family adjusted together (the contrast alone outside it)
    alpha: float
    missing: bool              # its p is undefined (counted with p = 1 in the family)


def apply_family(p_by_contrast: dict[str, float | None], family: list[str], method: str,
                 alpha: float) -> dict[str, Adjusted]:
    """Adjusted p and reject flag for each contrast.

    Family members are adjusted together; contrasts outside the family keep their raw p
    (method 'none', reject when p < alpha).

    Args:
        p_by_contrast: every contrast's planned p (None: undefined).
        family: the declared family (``analysis.multiplicity.family``).
        method: ``holm``, ``bh``, ``bonferroni`` or ``none``.
        alpha: the family's alpha.

    Returns:
        Contrast id -> :class:`Adjusted`, family members first.

    Example:
        >>> a = apply_family({"a-b": 0.01, "c-b": 0.04}, ["a-b", "c-b"], "holm", 0.05)
        >>> a["a-b"].p_adjusted, a["c-b"].reject
        (0.02, True)
    """
    out: dict[str, Adjusted] = {}
    fam = tuple(family)
    raw = [p_by_contrast.get(c) for c in fam]
    filled = [1.0 if v is None else float(v) for v in raw]
    adj = adjust(filled, method)
    for c, r, a in zip(fam, raw, adj, strict=True):
        out[c] = Adjusted(a, bool(a < alpha) if r is not None else False, method, fam, alpha, r is None)
    for c, r in p_by_contrast.items():
        if c in out:
            continue
        out[c] = Adjusted(r, bool(r is not None and r < alpha), "none", (c,), alpha, r is None)
    return out
