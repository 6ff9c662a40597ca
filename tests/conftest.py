"""Suite-wide guards and shared fixtures.

The tests never touch the network: the HF offline variables are set before any test module
imports transformers/datasets/huggingface_hub, which read them at import time.

Property tests follow the hypothesis profile named by ``HYPOTHESIS_PROFILE`` (``dev`` by
default, ``ci`` under ``make test``; see ``tests/budget.py``).

``clean_campaign`` is the synthetic 3 arms x 3 seeds campaign of ``tests/audit_defects.py``,
analysed and rendered once per session and shared by every module that audits it (building it
costs seconds). Tests read it or copy it (``copy_campaign``) before editing; the fixture checks
at the end of the session that no test changed it.

The fast tier (``pytest -m "not slow"`` from the repository root, no paths named) runs on two
worker processes when pytest-xdist is installed (the ``test`` extra installs it): see
``pytest_cmdline_main`` below. The whole suite (``pytest``, CI) stays in one process unless asked
(``-n``); ``-n 0`` or ``-p no:xdist`` keeps the fast tier in one process too. Under xdist the
workers share one clean campaign, built by whichever worker asks first.
"""

from __future__ import annotations

import gc
import hashlib
import os
import sys
from pathlib import Path

import pytest

for _var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_var] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# The test processes collect the young generation every 50,000 net allocations, not 700, from
# here on (before the test modules and their imports load): imports, audits and analyses allocate
# millions of short-lived objects, and the default thresholds spent ~5-10% of the tests' CPU and
# ~2 of each worker's ~7 CPU-s of collection in collections that found little (A/B on
# tests/test_report_corpus_wild.py, test_stats_studies.py, test_stats_analyze.py and
# `--collect-only`). What a test observes does not depend on when cycles are freed; a test that
# needs it calls gc.collect().
GC_YOUNG_THRESHOLD = 50_000
gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)

from budget import CI, PROFILE  # noqa: E402  (after the offline variables)
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", deadline=None)
settings.register_profile("dev", max_examples=10, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(PROFILE)
assert CI == (PROFILE == "ci")


FAST_TIER_WORKERS = 2  # this machine's cores; more workers only add their own imports


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Run the fast tier (``-m "not slow"`` over the default test paths) on two xdist workers.

    Runs before xdist's own hook, which turns ``numprocesses`` into workers; a file's tests stay
    together on one worker (``--dist loadgroup``), so a module's fixtures are built once. Anything
    else (the whole suite, a file named on the command line, ``-n`` given, a worker) is left as
    asked.
    """
    opt = config.option
    fast_tier = (not hasattr(config, "workerinput") and opt.markexpr.replace(" ", "") == "notslow"
                 and config.args_source == pytest.Config.ArgsSource.TESTPATHS)
    if fast_tier:
        _keep_bytecode()
    if (fast_tier and getattr(opt, "numprocesses", 0) is None and not opt.collectonly
            and (os.cpu_count() or 1) > 1 and not getattr(opt, "usepdb", False)):
        opt.numprocesses = FAST_TIER_WORKERS
        if opt.dist == "no":
            opt.dist = "loadfile"  # one file per worker; see _FileScheduling


def _keep_bytecode() -> None:
    """The fast tier writes and reads Python's bytecode cache even where ``PYTHONDONTWRITEBYTECODE``
    is set (this machine sets it): this process and the workers it starts (they inherit the
    environment) then compile the project and rewrite the test modules' asserts once, not on every
    run (~5 of each worker's ~9 CPU-s of collection). The cache goes where Python puts it:
    ``__pycache__/`` beside each source (git ignores it), or under ``PYTHONPYCACHEPREFIX`` when that
    is set. The installed packages already carry theirs, so nothing is written there. Only the fast
    tier: the whole suite (CI, a clean clone, one process) compiles each module once anyway.
    """
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


# Test files whose fast tests load TRL/PEFT/transformers (~4-7 CPU-s of imports and a first tiny
# model per process): one worker takes them all instead of both paying for the imports.
TRAINING_STACK_FILES = ("test_rules.py", "test_records_outputs.py")


def _scope(file: str) -> str:
    """The unit a worker takes whole: a test file, or all the files that load the training stack."""
    name = file.rsplit("/", 1)[-1]
    return "training-stack" if name.startswith("test_runner_") or name in TRAINING_STACK_FILES else file


# CPU seconds of the fast tier's costliest units (h-fast8's per-file CPU measure at 1b24677, under a
# load of ~20, rounded; a unit is listed where it costs over 1.4 s; test_no_torch's own interpreter
# measured apart). Only the order in which the workers take the units depends on them: longest
# first, so that the session does not end with one worker running a long unit (a subprocess, the
# training stack) while the other idles. xdist's own order (most tests first) put the one-test
# torch-free interpreter (4.5 CPU-s) last. A unit not listed is estimated from its number of tests.
# The report sets' units move by a few seconds between runs: a study is built by whichever worker
# asks first (tests/report_corpus/corpus.py::built_once).
UNIT_CPU_S = {
    "training-stack": 17.1, "tests/test_stats_studies.py": 8.7, "tests/test_sequential_looks.py": 6.6,
    "tests/test_audit_fast_paths.py": 5.6, "tests/test_stats_render.py": 5.4, "tests/test_stats_analyze.py": 5.0,
    "tests/test_no_torch.py": 3.5, "tests/test_report_corpus_wild.py": 3.5, "tests/test_audit_defects.py": 3.3,
    "tests/test_audit_cli.py": 3.2, "tests/test_report_corpus_ninth.py": 3.2, "tests/test_records_signing.py": 3.0,
    "tests/test_audit_blind_remaining.py": 2.8, "tests/test_prereg_lint.py": 2.7, "tests/test_stats_modelcard.py": 2.7,
    "tests/test_audit_parse.py": 2.6, "tests/test_schema_fast.py": 2.5, "tests/test_stats_items.py": 2.2,
    "tests/test_sequential_boundaries.py": 2.2, "tests/test_sequential_small_sample.py": 2.2,
    "tests/test_records_audit.py": 2.2, "tests/test_report_corpus_tenth.py": 2.2, "tests/test_audit_rst.py": 2.1,
    "tests/test_audit_cold_readings.py": 1.9, "tests/test_report_corpus_fresh.py": 1.8,
    "tests/test_session_declarations.py": 1.8, "tests/test_stats_sessions.py": 1.7, "tests/test_report_corpus.py": 1.6,
    "tests/test_prereg_cli.py": 1.6, "tests/test_report_corpus_eighth.py": 1.6, "tests/test_audit_report_pool.py": 1.6,
    "tests/test_records_property.py": 1.6, "tests/test_stats_secondary.py": 1.5, "tests/test_audit_prose_wild.py": 1.5,
    "tests/test_stats_methods.py": 1.5, "tests/test_api_docs.py": 1.5, "tests/test_audit_eighth_readings.py": 1.5,
}
CPU_S_PER_TEST = 0.02  # the estimate for a unit not in UNIT_CPU_S (most of them: ~10-50 ms a test)


def _unit_cost(scope: str, n_tests: int) -> float:
    """Estimated CPU seconds of a work unit (see ``UNIT_CPU_S``)."""
    return UNIT_CPU_S.get(scope, CPU_S_PER_TEST * n_tests)


class _SchedulerPlugin:
    """xdist's ``--dist loadfile`` with the training-stack files as one unit (xdist's own
    ``loadgroup`` marks do not reach the scheduler under pytest 9, which no longer has
    ``Item._nodeid``), handed out longest first (``UNIT_CPU_S``)."""

    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class _FileScheduling(LoadFileScheduling):
            _ordered = False

            def _split_scope(self, nodeid: str) -> str:
                return _scope(super()._split_scope(nodeid))

            def _assign_work_unit(self, node) -> None:
                if not self._ordered:  # the queue is complete at the first assignment: order it once
                    self._ordered = True
                    units = sorted(self.workqueue.items(), key=lambda kv: -_unit_cost(kv[0], len(kv[1])))
                    self.workqueue.clear()
                    self.workqueue.update(units)
                super()._assign_work_unit(node)

        return _FileScheduling(config, log)


def pytest_configure(config):
    """Register the scheduler above where xdist runs the session (its hook exists only then), and
    the CPU recorder below where ``TESTS_CPU_RECORD`` names its file."""
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_SchedulerPlugin(), "rlprereg-fast-tier-scheduler")
    if os.environ.get("TESTS_CPU_RECORD"):  # make test: each test's CPU, for scripts/fast_tier_budget.py
        from cpu_record import CpuRecorder

        config.pluginmanager.register(CpuRecorder(os.environ["TESTS_CPU_RECORD"], PROFILE), "rlprereg-test-cpu")


def pytest_collection_finish(session):
    """Freeze what collection imported (torch, transformers, scipy, ...) out of the collector's scans.

    Libraries call ``gc.collect()`` in their hot paths (statsmodels' holm, trainer teardown); each
    call otherwise walks every object of the session's imports. Frozen objects are never freed,
    which for module-level state is what happens anyway.
    """
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def _no_fsync():
    """``os.fsync`` is a no-op inside the test processes.

    No test can observe durability against a power cut, and on this shared disk each fsync costs
    ~5 ms of wall time (not CPU) while the fast tier writes ~4,000 files through
    ``prereg.jsonio.write_atomic``. What the tests do observe stays as it is: the temp file and
    rename, the refusal to overwrite, the one-line error on a full disk
    (``tests/test_records_strict.py`` makes fsync fail), and the CLIs run as subprocesses fsync.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "fsync", lambda fd: None)
        yield


@pytest.fixture(scope="session", autouse=True)
def _built_once(tmp_path_factory):
    """Each report set's study is built once a session and copied for every test that builds it
    (``tests/report_corpus/corpus.py::built_once``; ``tests/test_built_once.py`` checks a copy
    against a fresh build). Under xdist the workers share the folder, like the clean campaign."""
    from tests.report_corpus import corpus

    if "PYTEST_XDIST_WORKER" in os.environ:
        folder = tmp_path_factory.getbasetemp().parent / "built_once"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("built_once")
    corpus.BUILD_CACHE = folder
    yield folder
    corpus.BUILD_CACHE = None


def _tree_digest(root: Path) -> str:
    """SHA-256 over every file's relative path and bytes under ``root``."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="session")
def clean_campaign(tmp_path_factory):
    """The clean synthetic campaign (lock, runs, analysis, rendered report), built once.

    Under xdist the workers share one copy in the run's base folder: the first to ask builds it
    under a file lock, the others read it (it holds relative paths only).
    """
    from audit_defects import Campaign, build_clean

    if "PYTEST_XDIST_WORKER" not in os.environ:
        camp = build_clean(tmp_path_factory.mktemp("clean_campaign") / "c")
    else:
        from filelock import FileLock

        shared = tmp_path_factory.getbasetemp().parent / "clean_campaign"
        with FileLock(str(shared) + ".lock"):
            if (shared / "built").is_file():
                camp = Campaign(shared / "c")
            else:
                camp = build_clean(shared / "c")
                (shared / "built").write_text("")
    before = _tree_digest(camp.root)
    yield camp
    assert _tree_digest(camp.root) == before, "a test changed the shared clean campaign: copy it first"



_RECOMPUTED: dict = {}  # check 9's recomputations, by the SHA-256 of their inputs, for this process
_STUDY_CHECKED: dict = {}  # the study checks' clean results, by the SHA-256 of the study (study_checks.py)


@pytest.fixture
def shared_recompute():
    """Audit check 9's recomputation of a study's analysis is shared by every test that asks for this
    fixture (``pytestmark = pytest.mark.usefixtures("shared_recompute")``), across modules.

    For the modules that audit hand-typed reports over a built study: only the report differs from
    test to test, so check 9 would recompute the same analysis from byte-identical lock and records
    each time (half of such an audit's CPU). The recomputation is deterministic; it is kept by the
    SHA-256 of the lock's and the records' bytes and handed out as a fresh copy (unpickled), and check 9 still
    compares it with each copy's ``analysis.json`` (``tests/report_corpus/corpus.py::recompute_once``).
    The audit's other checks of the study's records (1-8, 12) are shared the same way, by the
    SHA-256 of every file of the study but the report (``tests/report_corpus/study_checks.py``).
    """
    from tests.report_corpus import corpus

    with corpus.recompute_once(_RECOMPUTED, _STUDY_CHECKED):
        yield
