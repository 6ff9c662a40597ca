"""``prereg design``: the boundaries and what the sequential design costs and saves, as a table.

Thin over :mod:`prereg.seqdesign`: nothing here computes a boundary.
"""

from __future__ import annotations

import math
import sys

from prereg.seqdesign import Design, Operating


def _b(x: float) -> str:
    return "—" if not math.isfinite(x) else f"{x:.3f}"


def design_dict(d: Design, oc: Operating) -> dict:
    """The design as JSON-ready data (``prereg design --json``)."""
    p = d.plan
    return {"looks": list(p.looks), "fractions": list(d.z.t), "alpha_per_contrast": p.alpha, "sides": p.sides,
            "spending": p.spec.spending, "futility": p.spec.futility, "small_sample": p.small_sample,
            "contrasts": list(p.contrasts),
            "z_upper": [x if math.isfinite(x) else None for x in d.z.upper],
            "z_futility": [x if math.isfinite(x) else None for x in d.z.futility],
            "t_upper": [x if math.isfinite(x) else None for x in d.t_upper],
            "t_futility": [x if math.isfinite(x) else None for x in d.t_futility],
            "alpha_spent": list(d.z.alpha_spent), "simulated_studies": oc.reps, "level": oc.level,
            "stop_h0": list(oc.stop_h0), "expected_seeds_h0": oc.seeds_h0, "power": oc.power,
            "power_normal_theory": oc.power_normal, "stop_h1": list(oc.stop_h1) if oc.stop_h1 else None,
            "expected_seeds_h1": oc.seeds_h1, "fixed_power": oc.fixed_power, "max_seeds": p.looks[-1]}


def print_design(d: Design, oc: Operating, title: str) -> None:
    """Rich table: per look the boundaries and stopping probabilities, then the summary rows."""
    from rich.console import Console
    from rich.table import Table

    p = d.plan
    con = Console(file=sys.stdout, highlight=False, soft_wrap=False, width=max(110, Console().width))
    tab = Table(title=f"{title}: {p.spec.spending} spending, futility {p.spec.futility}, "
                      f"{'two' if p.sides == 2 else 'one'}-sided alpha {p.alpha:.4g} per contrast "
                      f"({len(p.contrasts)} monitored), correction {p.small_sample}")
    for col in ("look", "seeds/arm", "info fraction", "z bound", "t bound", "t futility", "alpha spent", "P(stop) H0",
                "P(stop) pilot"):
        tab.add_column(col, justify="right")
    for k, n in enumerate(p.looks):
        tab.add_row(str(k + 1), str(n), f"{d.z.t[k]:.3f}", _b(d.z.upper[k]), _b(d.t_upper[k]),
                    _b(d.t_futility[k]) if p.spec.futility != "none" else "—", f"{d.z.alpha_spent[k]:.5f}",
                    f"{oc.stop_h0[k]:.3f}", f"{oc.stop_h1[k]:.3f}" if oc.stop_h1 else "—")
    con.print(tab)
    summ = Table(title=f"sequential vs fixed design ({oc.reps} simulated paired-t studies per row)")
    for col in ("", "sequential", f"fixed ({p.looks[-1]} seeds)"):
        summ.add_column(col, justify="right")
    summ.add_row("max seeds per arm", str(p.looks[-1]), str(p.looks[-1]))
    summ.add_row("expected seeds, H0", f"{oc.seeds_h0:.2f}", str(p.looks[-1]))
    summ.add_row("type I error (simulated)", f"{oc.level:.4f}", f"{p.alpha:.4f}")
    if oc.power is not None:
        es = f"effect {p.effect:g}, pilot SD {p.sd:g}"
        summ.add_row(f"expected seeds, pilot ({es})", f"{oc.seeds_h1:.2f}", str(p.looks[-1]))
        summ.add_row("power at the pilot effect", f"{oc.power:.3f} (normal theory {oc.power_normal:.3f})",
                     f"{oc.fixed_power:.3f} (exact noncentral t)")
    else:
        summ.add_row("power", "— (no analysis.power.pilot_sd and effect)", "—")
    con.print(summ)
