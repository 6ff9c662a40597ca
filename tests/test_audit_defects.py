"""Every planted defect is caught by its check; the clean campaign passes; no check is idle."""

from __future__ import annotations

import pytest
from audit_defects import DEFECTS, EXPECTED_MESSAGE, NOT_AUDITABLE, copy_campaign

from audit.engine import run_audit
from audit.registry import CHECKS
from tests.report_corpus import corpus


@pytest.fixture(scope="session")
def clean_result(clean_campaign):
    return run_audit(clean_campaign.report)


def _fast_defects() -> list[str]:
    """The fast tier's defects: the first defect (in ``DEFECTS`` order) of each check and of each README
    failure, so every check still fires and every audited failure is still caught without ``slow``."""
    checks, failures, fast = set(), set(), []
    for name, (_fn, chk, fails) in DEFECTS.items():
        if not (chk <= checks and set(fails) <= failures):
            fast.append(name)
            checks |= chk
            failures |= set(fails)
    return fast


FAST_DEFECTS = _fast_defects()


@pytest.fixture(scope="session")
def defect_results(clean_campaign, tmp_path_factory, request):
    """Each selected defect planted in its own copy and audited: the fast ones and those whose
    ``test_planted_defect_is_caught`` runs (every defect in the whole suite). A defect that leaves the
    lock and runs as they are (a report or analysis edit) shares check 9's recomputation
    (``corpus.recompute_once``)."""
    wanted = set(FAST_DEFECTS) | {it.callspec.params["name"] for it in request.session.items
                                  if it.originalname == "test_planted_defect_is_caught"}
    out = {}
    base = tmp_path_factory.mktemp("audit_defects")
    with corpus.recompute_once():
        for name, (fn, _checks, _failures) in DEFECTS.items():
            if name not in wanted:
                continue
            camp = copy_campaign(clean_campaign, base / name)
            fn(camp)
            out[name] = run_audit(camp.report)
    return out


def _fired(result) -> set[str]:
    return {r.check for r in result.results if r.findings}


def test_clean_campaign_has_zero_findings(clean_result):
    assert [f"{f.check} {f.location}: {f.message} (expected {f.expected}, found {f.found})"
            for f in clean_result.findings] == []
    assert clean_result.exit_code == 0
    assert clean_result.traced_count > 100


def test_clean_campaign_has_no_untraced_numbers(clean_campaign):
    strict = run_audit(clean_campaign.report, strict=True)
    assert [u for u in strict.untraced] == []


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in FAST_DEFECTS else pytest.mark.slow)
                                  for n in sorted(DEFECTS)])
def test_planted_defect_is_caught(name, defect_results):
    _fn, checks, _failures = DEFECTS[name]
    fired = _fired(defect_results[name])
    assert checks <= fired, f"{name}: expected checks {sorted(checks)} to fire, fired {sorted(fired)}"
    said = [f.message for f in defect_results[name].findings if f.check in checks]
    assert any(EXPECTED_MESSAGE[name] in m for m in said), f"{name}: no finding says {EXPECTED_MESSAGE[name]!r}: {said}"


def test_every_defect_names_its_message():
    assert set(EXPECTED_MESSAGE) == set(DEFECTS)


def test_every_check_can_fail_and_passes_clean(defect_results, clean_result):
    """README failure 13: a registered check with no defect that fires it is a check that cannot fail.
    The fast tier audits ``FAST_DEFECTS``, which hold a defect of every check; the whole suite all."""
    clean_fired = _fired(clean_result)
    for check in CHECKS:
        catching = [n for n, r in defect_results.items() if check.id in _fired(r) and check.id in DEFECTS[n][1]]
        assert catching, f"check {check.id} ({check.name}) is fired by no planted defect"
        assert check.id not in clean_fired


def test_corpus_covers_every_auditable_design_failure():
    covered = {f for _fn, _c, fs in DEFECTS.values() for f in fs}
    assert set(range(1, 15)) - covered - set(NOT_AUDITABLE) == set()
