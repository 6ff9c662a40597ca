"""Multiplicity corrections applied over the declared family (README failure 9).

A family member with no p-value (its arm is missing, its test undefined) enters the
correction with p = 1, so a missing arm can never weaken the correction for the others.
"""

from __future__ import annotations

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


def apply_family(p_by_contrast: dict[str, float | None], family: list[str], method: str,
                 alpha: float) -> dict[str, dict]:
    """Adjusted p and reject flag for each contrast.

    Family members are adjusted together; contrasts outside the family keep their raw p
    (method 'none', reject when p < alpha).
    """
    out: dict[str, dict] = {}
    fam = [c for c in family]
    raw = [p_by_contrast.get(c) for c in fam]
    filled = [1.0 if v is None else float(v) for v in raw]
    adj = adjust(filled, method)
    for c, r, a in zip(fam, raw, adj, strict=True):
        out[c] = {"p_adjusted": a, "reject": bool(a < alpha) if r is not None else False,
                  "method": method, "family": list(fam), "alpha": alpha, "missing": r is None}
    for c, r in p_by_contrast.items():
        if c in out:
            continue
        out[c] = {"p_adjusted": r, "reject": bool(r is not None and r < alpha), "method": "none",
                  "family": [c], "alpha": alpha, "missing": r is None}
    return out
