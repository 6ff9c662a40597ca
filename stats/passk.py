"""pass@k from per-item samples: the unbiased estimator of Chen et al. (2021), "Evaluating
Large Language Models Trained on Code", eq. (1) and its numerically stable form (Fig. 3).

With n samples of an item of which c are correct, the probability that at least one of k
samples drawn without replacement from those n is correct is

    pass@k = 1 - C(n - c, k) / C(n, k),

unbiased for the item's pass@k under sampling. The naive ``1 - (1 - c/n)^k`` is biased
(it treats the n samples as the population); it is kept here only so tests can show the
difference. A metric declared ``kind: pass_at_k`` with ``k`` and ``n_samples`` is the mean
over items of the per-item estimate.
"""

from __future__ import annotations

import math

import numpy as np


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one item (Chen et al. 2021, numerically stable product form).

    Args:
        n: samples drawn for the item (n >= k).
        c: how many of them are correct (0 <= c <= n).
        k: the k of pass@k.

    Returns:
        ``1 - C(n-c, k) / C(n, k)`` computed as ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``.

    Example:
        >>> pass_at_k(4, 1, 2)  # 1 - C(3,2)/C(4,2) = 1 - 3/6
        0.5
    """
    n, c, k = int(n), int(c), int(k)
    if not (0 <= c <= n) or not (1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def pass_at_k_exact(n: int, c: int, k: int) -> float:
    """The same estimator from binomial coefficients (the paper's eq. 1), exact in integers.

    Example:
        >>> pass_at_k_exact(4, 1, 2)
        0.5
    """
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def per_item(correct_counts, n: int, k: int) -> np.ndarray:
    """Per-item pass@k for an array of correct-sample counts (same n for every item).

    Args:
        correct_counts: c per item.
        n: samples per item.
        k: the k of pass@k.

    Returns:
        Array of per-item unbiased pass@k values.

    Example:
        >>> per_item([0, 4, 1], 4, 2).tolist()
        [0.0, 1.0, 0.5]
    """
    return np.asarray([pass_at_k(n, c, k) for c in np.asarray(correct_counts, dtype=int)], dtype=float)


def naive(n: int, c: int, k: int) -> float:
    """The biased plug-in ``1 - (1 - c/n)^k`` (for comparison only; never used in analyses)."""
    return 1.0 - (1.0 - c / n) ** k
