"""The main job: the bundled demo study end to end, then two planted defects caught.

lock examples/demo.json -> runner sweep (tiny offline model, every registered unit) ->
stats analyze -> stats render -> audit check (must pass with zero findings) -> on copies,
one changed report number and one flipped manifest byte, each caught by the audit.

Everything goes under demo-out/<UTC timestamp>/ so no earlier output is ever overwritten.
Uses the four console scripts exactly as a user would type them.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def step(title: str) -> None:
    print(f"\n=== {title}", flush=True)


def sh(*args: str, expect: int | tuple[int, ...] = 0, cwd: Path) -> str:
    """Run a console script, streaming its output (indented) so long steps show progress."""
    cmd = [str(BIN / args[0]), *args[1:]]
    print("$ " + " ".join(args), flush=True)
    t0 = time.time()
    proc = subprocess.Popen(cmd, cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        print("  " + line.rstrip(), flush=True)
    rc = proc.wait()
    expected = (expect,) if isinstance(expect, int) else expect
    print(f"  -> exit {rc} in {time.time() - t0:.1f}s", flush=True)
    if rc not in expected:
        print(f"demo: step failed (expected exit {expected}, got {rc})", file=sys.stderr)
        sys.exit(1)
    return "".join(lines)


def main() -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    work = ROOT / "demo-out" / stamp
    work.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "demo.json", work / "demo.json")
    t_start = time.time()
    print(f"demo: working in {work}")

    step("1. lint and lock the preregistration")
    sh("prereg", "lint", "demo.json", cwd=work)
    sh("prereg", "lock", "demo.json", "--lock-dir", "locks", cwd=work)
    lock = next((work / "locks").glob("*.lock.json"))
    sh("prereg", "verify", str(lock.relative_to(work)), cwd=work)

    step("2. run every registered (arm, seed) on the tiny offline model")
    sh("runner", "sweep", str(lock.relative_to(work)), "--out", "runs", cwd=work)
    sh("runner", "status", str(lock.relative_to(work)), "--out", "runs", cwd=work)

    step("3. the locked analysis")
    sh("stats", "analyze", str(lock.relative_to(work)), "runs", "-o", "report/analysis.json", cwd=work)
    sh("stats", "render", "report/analysis.json", "-o", "report", cwd=work)

    step("4. audit the report against the records (must be clean)")
    sh("audit", "check", "report", "--json", "audit.json", "--html", "audit.html", cwd=work)

    step("5. plant one defect per copy and show the audit catching it")
    planted = work / "planted-report"
    shutil.copytree(work, planted, ignore=shutil.ignore_patterns("planted-*"))
    md = planted / "report" / "report.md"
    text = md.read_text()
    # a pinned number: an arm's mean held-out accuracy, changed by one unit in its last digit
    m = re.search(r"(\d+\.\d+)(<!-- id:arms\.[a-z0-9_]+\.heldout_accuracy\.mean -->)", text)
    if m is None:
        print("demo: no pinned arm mean found in report.md to perturb", file=sys.stderr)
        return 1
    old = m.group(1)
    last = int(old[-1])
    new = old[:-1] + str(last + 1 if last < 9 else last - 1)
    md.write_text(text[: m.start(1)] + new + text[m.end(1):])
    print(f"planted: report.md number {old} -> {new}")
    sh("audit", "check", "report", cwd=planted, expect=1)

    flipped = work / "planted-manifest"
    shutil.copytree(work, flipped, ignore=shutil.ignore_patterns("planted-*"))
    manifest = sorted((flipped / "runs").rglob("manifest.json"))[0]
    raw = bytearray(manifest.read_bytes())
    pos = raw.index(b'"heldout_correct"') + len(b'"heldout_correct": ')
    raw[pos] = ord("9") if raw[pos] != ord("9") else ord("8")
    manifest.write_bytes(bytes(raw))
    print(f"planted: one byte of {manifest.relative_to(flipped)} changed")
    sh("audit", "check", "report", cwd=flipped, expect=1)

    step("done")
    print(f"demo: finished in {time.time() - t_start:.0f}s")
    print(f"  lock:      {lock}")
    print(f"  runs:      {work / 'runs'}")
    print(f"  analysis:  {work / 'report' / 'analysis.json'}")
    print(f"  report:    {work / 'report'} (report.md, results.tex, figures)")
    print(f"  audit:     {work / 'audit.html'}, {work / 'audit.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
