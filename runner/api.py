"""The Python API of the second stage: run one registered unit, or every unit of a study.

Importing it does not import torch (``run_unit`` loads the training stack when called). The
``runner`` CLI is a thin layer over these functions; errors are :class:`prereg.errors.UserError`
and :class:`prereg.errors.Refusal`, which only the CLI turns into one ``error:`` line.
"""

from __future__ import annotations

from pathlib import Path

from prereg.rules import LOCK_DIR, RUNS_DIR
from runner.sweep.driver import run_sweep as _run_sweep
from runner.sweep.model import SweepOptions, SweepResult


def run_unit(lock_path: str | Path | None, arm: str, seed: int, out: str | Path = RUNS_DIR, *,
             device: str = "cpu", store_text: bool = False, exploratory: bool = False, quiet: bool = False,
             require_signature: bool = False, trusted_keys: list[str] | None = None,
             environ: dict | None = None, lock_dir: str | Path = LOCK_DIR, report_to=None,
             tensorboard_dir: str | Path | None = None, sign_key: str | Path | None = None,
             sweep_id: str | None = None, session: str | None = None) -> Path:
    """Train, evaluate and seal one registered (arm, seed) of a locked study.

    The trainer config is built only from the lock (README failure 1); anything the lock forbids
    is refused before a file is written. The run folder holds the sealed manifest, telemetry,
    training and held-out traces and the adapter.

    Args:
        lock_path: the lock file; None picks the latest lock of the only study in ``lock_dir``.
        arm: a registered, trained arm.
        seed: a registered seed.
        out: runs root; the unit is written to ``out/<study>/<arm>/s<seed>``.
        device: ``cpu`` or ``cuda``.
        store_text: keep completion texts in the traces (hashes are always kept).
        exploratory: allow what a confirmatory run refuses; the run is labelled exploratory.
        quiet: no progress lines.
        require_signature: refuse an unsigned lock.
        trusted_keys: base64 Ed25519 public keys the lock must be signed with.
        environ: environment overrides recorded in the manifest (default: this process's).
        lock_dir: where to look for the lock when ``lock_path`` is None.
        report_to: experiment trackers (``runner.trackers``), a free setting.
        tensorboard_dir: TensorBoard log folder when reporting to it.
        sign_key: Ed25519 private key (PEM) that signs every seal the run writes.
        sweep_id: the sweep that runs the unit (set by ``runner sweep``), kept in ``settings.sweep_id``.
        session: the evaluation session (batch), a free setting kept as the manifest's ``session``;
            stats forms contrasts within a session.

    Returns:
        The run folder.

    Raises:
        Refusal: the lock forbids the run (unregistered arm or seed, changed field, ...).
        UserError: bad input (missing lock, unreadable key, a folder in the way, ...).

    Example:
        >>> import shutil, tempfile
        >>> from pathlib import Path
        >>> from prereg import lock
        >>> from prereg.cli import template_bytes
        >>> from runner import run_unit
        >>> tmp = Path(tempfile.mkdtemp())
        >>> _ = (tmp / "demo.json").write_bytes(template_bytes("demo"))
        >>> path = lock(tmp / "demo.json", lock_dir=tmp / "locks")
        >>> run_unit(path, "grpo", 1, tmp / "runs").relative_to(tmp)  # doctest: +SKIP
        PosixPath('runs/demo/grpo/s1')
        >>> run_unit(path, "ppo", 1, tmp / "runs")                     # refused before any model loads
        Traceback (most recent call last):
        prereg.errors.Refusal: --arm 'ppo' is not registered in the lock (registered: bnpo, dr_grpo, grpo, gspo, high_lr)
        >>> shutil.rmtree(tmp)

        (The training call is shown, not run as a doctest: it trains the tiny model for ~20 s;
        ``tests/test_runner_run.py`` runs it.)
    """
    from runner.train import run_unit as _run_unit

    return _run_unit(lock_path, arm, seed, out, device=device, store_text=store_text, exploratory=exploratory,
                     quiet=quiet, require_signature=require_signature, trusted_keys=trusted_keys,
                     environ=environ, lock_dir=lock_dir, report_to=report_to, tensorboard_dir=tensorboard_dir,
                     sign_key=sign_key, sweep_id=sweep_id, session=session)


def evaluate_reference(lock_path: str | Path | None, arm: str, seed: int | None = None, out: str | Path = RUNS_DIR,
                       **options) -> Path:
    """Evaluate a reference arm (base model, SFT adapter, other checkpoint) without training it.

    The locked evaluation protocol on the registered held-out split; the sealed run folder
    (``manifest.kind: reference``) is ``out/<study>/<arm>/once`` (seed null) or ``.../s<seed>``
    for a reference evaluated per seed (README failure 16). See :mod:`runner.reference`.

    Args:
        lock_path: the lock file (None: the only study in ``locks/``).
        arm: a reference arm of the lock.
        seed: None for ``evaluated: once``; a registered seed for ``evaluated: per_seed``.
        out: runs root.
        **options: ``device``, ``quiet``, ``require_signature``, ``trusted_keys``, ``environ``,
            ``lock_dir``, ``sign_key``, ``session`` (as ``run_unit``).

    Returns:
        The run folder.

    Example:
        >>> from runner import evaluate_reference
        >>> evaluate_reference("locks/demo.lock.json", "base")  # doctest: +SKIP
        PosixPath('runs/demo/base/once')
    """
    from runner.reference import evaluate_reference as _evaluate

    return _evaluate(lock_path, arm, seed, out, **options)


def run_sweep(opts: SweepOptions | str | Path, console=None, **options) -> SweepResult:
    """Run every selected unit of a locked study, one after another, K at a time, or on Ray.

    Each unit is exactly a ``runner run`` in a child process; complete units are skipped,
    interrupted ones resumed, failed ones moved aside and rerun (see :mod:`runner.sweep`).

    Args:
        opts: a :class:`runner.sweep.SweepOptions`, or the lock path.
        console: a ``rich`` console for the live table and summary (default: stderr).
        **options: with a lock path, the other SweepOptions fields: ``out``, ``arms``, ``seeds``,
            ``executor``, ``max_parallel``, ``gpus_per_run``, ``retries``, ``live``, ... (a
            TypeError when given beside a SweepOptions).

    Returns:
        A :class:`runner.sweep.SweepResult`: ``ok``, ``counts()`` and one outcome per unit; a
        unit's failure is reported there, never raised.

    Raises:
        UserError: bad options or a lock that does not verify.

    Example:
        >>> import shutil, tempfile
        >>> from pathlib import Path
        >>> from prereg import lock
        >>> from prereg.cli import template_bytes
        >>> from runner import run_sweep
        >>> tmp = Path(tempfile.mkdtemp())
        >>> _ = (tmp / "demo.json").write_bytes(template_bytes("demo"))
        >>> path = lock(tmp / "demo.json", lock_dir=tmp / "locks")
        >>> run_sweep(path, out=tmp / "runs", live=False).counts()["complete"]  # doctest: +SKIP
        15
        >>> run_sweep(path, out=tmp / "runs", live=False, arms=["ppo"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        prereg.errors.UserError: --arms: 'ppo' is not registered in ...
        >>> shutil.rmtree(tmp)

        (The sweep itself is shown, not run as a doctest: it trains 15 units;
        ``tests/test_runner_sweep*.py`` run sweeps.)
    """
    if not isinstance(opts, SweepOptions):
        opts = SweepOptions(lock_path=str(opts), **options)
    elif options:
        raise TypeError("run_sweep: give options either as a SweepOptions or as keywords, not both")
    return _run_sweep(opts, console)
