"""The small-sample correction holds the level of the whole sequential paired-t procedure.

A CI-sized version of benchmarks/sequential_sim.py: calibration and validation draws come
from different seeds, so the level is checked on studies the boundaries were not fitted to.
"""

import math

import pytest

from prereg import power as pw
from prereg.seqdesign import SequentialPlan, design
from prereg.sequential import Spec
from prereg.sequential_sim import simulate, t_boundaries

REPS = 80_000
SE = math.sqrt(0.05 * 0.95 / REPS) * math.sqrt(2)  # validation + calibration error


def _plan(looks, fn="obrien_fleming", corr="t_calibrated", futility="none", effect=None):
    return SequentialPlan(looks, Spec(fn, futility=futility), corr, REPS, "stagewise", 0.05, 2, 1, 11,
                          ("a-b",), effect, 1.0 if effect else None)


@pytest.mark.parametrize("looks,fn", [((3, 6), "pocock"), ((4, 6, 8), "obrien_fleming"),
                                      ((3, 4, 5, 6, 7, 8), "pocock")])
def test_t_calibrated_holds_the_level(looks, fn):
    d = design(_plan(looks, fn))
    r = simulate(looks, d.t_upper, d.t_futility, reps=REPS, seed=[5, 5])
    assert abs(r.reject - 0.05) < 4 * SE, r.reject


def test_normal_boundaries_and_equal_tail_conversion_do_not():
    looks = (3, 4, 5, 6, 7, 8)
    z = design(_plan(looks, "pocock", "none"))
    r = simulate(looks, z.t_upper, z.t_futility, reps=REPS, seed=[5, 5])
    assert r.reject > 0.15  # z boundaries on a t statistic with 2-7 df: the level triples
    tail = t_boundaries(z.z.upper, looks, "t_tail")
    r = simulate(looks, tail, z.t_futility, reps=REPS, seed=[5, 5])
    assert r.reject > 0.05 + 4 * SE  # equal-tail conversion: still above alpha with many looks


def test_sequential_saves_seeds_at_the_pilot_effect():
    looks = (4, 6, 8)
    d = design(_plan(looks, "pocock", futility="non_binding", effect=1.25))
    h1 = simulate(looks, d.t_upper, d.t_futility, d=1.25, reps=REPS, seed=[6, 6])
    h0 = simulate(looks, d.t_upper, d.t_futility, reps=REPS, seed=[7, 7])
    assert h1.expected_seeds < 7.0 and h0.expected_seeds < 8.0
    assert h1.reject_upper <= pw.power_paired(1.25, 1.0, 8) + 0.01  # never beats the fixed design
    assert h0.reject < 0.05 + 4 * SE  # futility stops only lower the level (non-binding)


def test_stats_coverage_sequential_reports_each_correction(capsys):
    from stats.cli import main

    assert main(["coverage", "--sequential", "--reps", "200"]) == 0
    out = capsys.readouterr().out
    assert "t_calibrated" in out and "t_tail" in out and "3, 4, 5, 6, 7, 8" in out
    rows = [line for line in out.splitlines() if "pocock" in line and "3, 6" in line]
    cells = [float(x) for x in rows[0].replace("│", " ").split()[3:]]
    assert abs(cells[0] - 0.05) < 0.01 and cells[2] > 0.15  # calibrated near alpha; normal bounds far above
