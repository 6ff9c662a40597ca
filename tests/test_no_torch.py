"""prereg, stats and audit must work on a laptop without torch (reviewers audit there).

Each CLI runs in a subprocess in which importing torch (or transformers/trl/peft) fails, as it
would where they are not installed. The fast tier's one torch-free interpreter: it also makes
the import checks that other files repeat in their own subprocess in the slow tier (lock and
verify load nothing heavy, lint within 5 CPU seconds, the Python API, the stats, audit and
runner modules that must import without torch).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A meta-path finder that refuses these packages, as an environment without them would
# (setting sys.modules[name] = None instead confuses libraries that probe sys.modules).
BLOCK = (
    "import sys\n"
    "BLOCKED = {'torch', 'transformers', 'trl', 'peft', 'datasets', 'accelerate', 'vllm'}\n"
    "class _NoTorch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in BLOCKED:\n"
    "            raise ImportError(f'{name} is blocked in this test')\n"
    "        return None\n"
    "sys.meta_path.insert(0, _NoTorch())\n"
)


HEAVY = {"torch", "transformers", "trl", "peft", "datasets", "scipy", "vllm"}


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + code], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from stats.synthetic import make_campaign, small_prereg

    root = tmp_path_factory.mktemp("notorch")
    prereg = small_prereg(json.loads((ROOT / "examples" / "e1.json").read_text()), heldout_n=40, steps=4,
                          seeds=[11, 23, 37])
    prereg["arms"] = {k: prereg["arms"][k] for k in ("grpo", "dr_grpo")}
    prereg["hypotheses"] = [h for h in prereg["hypotheses"] if h["arm"] == "dr_grpo"]
    prereg["analysis"]["multiplicity"]["family"] = ["dr_grpo-grpo"]
    prereg["analysis"]["power"].pop("pilot_sd", None)
    return root, make_campaign(root, prereg, effects={"dr_grpo": 0.05})


def test_prereg_stats_audit_clis_without_torch(campaign):
    root, camp = campaign
    code = (
        # first, before anything imports scipy: lock + verify load nothing heavy (test_prereg_lock)
        "from prereg.cli import main as p\n"
        f"assert p(['lock', {str(ROOT / 'examples' / 'e1.json')!r}, '--lock-dir', 'e1locks']) == 0\n"
        "assert p(['verify', 'e1locks/e1.lock.json']) == 0\n"
        f"assert not {HEAVY!r} & set(sys.modules), {HEAVY!r} & set(sys.modules)\n"
        # lint: every rule, exact power included, within 5 CPU seconds (test_prereg_lint_inference)
        "import json, time\n"
        "from prereg.lint import lint\n"
        f"t = time.process_time(); lint(json.load(open({str(ROOT / 'examples' / 'e1.json')!r})))\n"
        "assert time.process_time() - t < 5.0, time.process_time() - t\n"
        # the API and the modules that must import without torch (test_api, test_stats_analyze,
        # test_audit_cli, test_runner_fingerprint)
        "from prereg import lock, verify; from stats import analyze, render; from audit import check\n"
        "from runner import run_unit, run_sweep\n"
        "from prereg.lock import verify_lock; from stats.analyze import build; from stats.render import fmt\n"
        "import stats.analyze, stats.render, stats.cli, stats.coverage, stats.rliable, stats.load\n"
        "import audit.cli, audit.engine, audit.registry\n"
        "import prereg.fingerprints, runner.fingerprint, runner.tasks, runner.models\n"
        "from prereg.cli import main as p\n"
        "from stats.cli import main as s\n"
        "from audit.cli import main as a\n"
        f"assert p(['verify', {str(camp.lock_path)!r}]) == 0\n"
        f"assert s(['analyze', {str(camp.lock_path)!r}, {str(camp.runs_dir)!r}, '-o', 'report/analysis.json']) == 0\n"
        "assert s(['render', 'report/analysis.json', '-o', 'report']) == 0\n"
        "rc = a(['check', 'report', '--plain'])\n"
        "assert rc == 0, rc  # a clean synthetic campaign: every check passes without torch\n"
        "assert not BLOCKED & set(sys.modules), BLOCKED & set(sys.modules)\n"
        "print('OK', rc)\n"
    )
    proc = _run(code, root)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "OK" in proc.stdout
    assert (root / "report" / "analysis.json").exists()
    assert (root / "report" / "report.md").exists()
