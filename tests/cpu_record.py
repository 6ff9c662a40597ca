"""Each test's CPU seconds for the fast tier's guard (``scripts/fast_tier_budget.py``).

``tests/conftest.py`` registers :class:`CpuRecorder` where ``TESTS_CPU_RECORD`` names a file
(``make test`` does, hence CI). A test's own cost is what a new costly test would add to the fast
tier, so two one-off costs that land in whichever test comes first are recorded apart and not
charged to it: the setup of fixtures shared beyond one test (module, class or session scope: a
report set's built studies, the clean campaign), recorded per fixture; and the first import of a
module (TRL, transformers, statsmodels: each process pays it once whatever test asks first).
"""

from __future__ import annotations

import builtins
import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest


def cpu_now() -> float:
    """CPU seconds of this process and of its finished subprocesses (a test's CLI interpreters)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


class CpuRecorder:
    """Records, per test: ``cpu`` (its protocol: setup, call, teardown), ``shared`` (of it, shared
    fixtures' setup), ``imports`` (of it, first imports outside those fixtures), ``slow``, and
    ``profile_dependent`` (a property test, or any test of a module that reads ``tests/budget.py``'s
    counts: its cost follows the hypothesis profile); per shared fixture (``file::name``), its setup
    CPU and whether the test that set it up is slow. Written as JSON at the end of the session: ``PATH``, or ``PATH.gw0.json`` ... under xdist."""

    def __init__(self, path: str, profile: str):
        self.path, self.profile = path, profile
        self.rows: dict = {}
        self.fixtures: dict = {}
        self.shared = self.imports = 0.0
        self._slow = False  # the running test is slow (a fixture it sets up is judged only for a fast one)
        self._depth = 0  # inside a shared fixture's setup or a first import: nested costs count once
        self._import = builtins.__import__
        builtins.__import__ = self._timed_import

    def _timed_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level or self._depth or (name in sys.modules and not fromlist):
            # loaded already; a ``from X import Y`` is timed, since Y may be a lazy submodule (transformers)
            return self._import(name, globals, locals, fromlist, level)
        t0 = cpu_now()
        self._depth += 1
        try:
            return self._import(name, globals, locals, fromlist, level)
        finally:
            self._depth -= 1
            self.imports += cpu_now() - t0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.scope == "function" or self._depth:
            yield
            return
        t0 = cpu_now()
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            dt = cpu_now() - t0  # with the imports it made (not timed apart at this depth)
            self.shared += dt
            where = fixturedef.baseid or "session"
            self.fixtures[f"{where}::{fixturedef.argname}"] = {"cpu": round(dt, 4), "slow": self._slow}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        t0, self.shared, self.imports = cpu_now(), 0.0, 0.0
        self._slow = item.get_closest_marker("slow") is not None
        yield
        module = vars(getattr(item, "module", None) or object)
        self.rows[item.nodeid] = {
            "cpu": round(cpu_now() - t0, 4), "shared": round(self.shared, 4), "imports": round(self.imports, 4),
            "slow": self._slow,
            "profile_dependent": bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
                                      or any(callable(v) and getattr(v, "__module__", None) == "budget"
                                             for v in module.values()))}

    def pytest_sessionfinish(self, session):
        builtins.__import__ = self._import
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        path = f"{self.path}.{worker}.json" if worker else self.path
        Path(path).write_text(json.dumps({"profile": self.profile, "tests": self.rows, "fixtures": self.fixtures},
                                         indent=0))
