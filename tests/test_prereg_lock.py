"""Locks: canonical hashing, tamper detection (random byte flips), amendment chains, no torch."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prereg.canonical import canonical_bytes, sha256_json
from prereg.errors import UserError
from prereg.jsonio import read_json, read_jsonl
from prereg.lock import amend_file, build_lock, lock_file, verify_lock
from prereg.signing import keygen

ROOT = Path(__file__).resolve().parents[1]
E1 = ROOT / "examples" / "e1.json"
DEMO = ROOT / "examples" / "demo.json"

# ----------------------------------------------------------------------------- random JSON
scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
json_docs = st.recursive(
    scalars,
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=8), kids, max_size=5)),
    max_leaves=25,
)


def spell(obj, rnd: random.Random, ints_as_floats: bool = True) -> str:
    """Serialize with random key order, whitespace, unicode escaping and float spelling.

    ``ints_as_floats=False`` keeps integers integral: a preregistration refuses ``2000.0``
    where an integer (a seed, a count) is required (README "Record guarantees").
    """
    ws = lambda: rnd.choice(["", " ", "\n", "\t", "  \n "])  # noqa: E731
    if isinstance(obj, dict):
        items = list(obj.items())
        rnd.shuffle(items)
        inner = ",".join(f"{ws()}{json.dumps(k, ensure_ascii=rnd.random() < 0.5)}{ws()}:{ws()}{spell(v, rnd, ints_as_floats)}{ws()}"
                         for k, v in items)
        return "{" + inner + ws() + "}"
    if isinstance(obj, list):
        return "[" + ",".join(ws() + spell(v, rnd, ints_as_floats) + ws() for v in obj) + ws() + "]"
    if isinstance(obj, bool) or obj is None:
        return json.dumps(obj)
    if isinstance(obj, float):
        choices = [repr(obj), f"{obj:.17e}", f"{obj:.17E}"]
        if not obj.is_integer() or abs(obj) < 2**53:
            # (an integral literal beyond 2**53 parses as a Python int, which RFC 8785 refuses)
            choices.append(f"{obj:.17g}")
        if obj.is_integer() and abs(obj) < 2**53:
            choices.append(str(int(obj)))  # 1.0 written as 1
        text = rnd.choice(choices)
        return text.replace("inf", "1e999") if "inf" in text else text
    if isinstance(obj, int):
        return rnd.choice([str(obj), f"{obj}.0"]) if abs(obj) < 2**52 and ints_as_floats else str(obj)
    return json.dumps(obj, ensure_ascii=rnd.random() < 0.5)


@given(doc=json_docs, seed=st.integers(0, 2**32 - 1))
@settings(max_examples=examples(ci=300, dev=40), deadline=None)
def test_hash_ignores_key_order_whitespace_unicode_and_float_spelling(doc, seed):
    text = spell(doc, random.Random(seed))
    again = json.loads(text)
    assert sha256_json(again) == sha256_json(doc)
    assert canonical_bytes(again) == canonical_bytes(json.loads(json.dumps(doc, indent=3, sort_keys=True)))


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=examples(ci=15, dev=4), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_locking_respelled_preregistration_gives_same_content_hash(tmp_path, seed):
    original = read_json(DEMO)
    ref = build_lock(original, now="2026-01-01T00:00:00Z")["content_hash"]
    src = tmp_path / f"demo-{seed}.json"
    src.write_text(spell(original, random.Random(seed), ints_as_floats=False), encoding="utf-8")
    out = lock_file(src, lock_dir=tmp_path / f"locks-{seed}")
    assert read_json(out)["content_hash"] == ref


def test_same_content_twice_same_content_hash_and_no_overwrite(tmp_path):
    a = lock_file(E1, lock_dir=tmp_path / "a")
    b = lock_file(E1, lock_dir=tmp_path / "b")
    da, db = read_json(a), read_json(b)
    assert da["content_hash"] == db["content_hash"] == sha256_json(read_json(E1))
    before = a.read_bytes()
    with pytest.raises(UserError, match="already exists"):
        lock_file(E1, lock_dir=tmp_path / "a")
    assert a.read_bytes() == before
    assert verify_lock(a).hash == da["lock_hash"]


# ----------------------------------------------------------------------------- byte flips
@pytest.fixture(scope="module")
def signed_lock(tmp_path_factory):
    d = tmp_path_factory.mktemp("flip")
    key, _ = keygen(d / "key")
    path = lock_file(DEMO, lock_dir=d / "locks", key_path=key)
    return path.read_bytes(), d


@given(data=st.data())
@settings(max_examples=examples(ci=400, dev=50), deadline=None)
def test_any_single_byte_flip_is_detected(signed_lock, data):
    raw, d = signed_lock
    pos = data.draw(st.integers(0, len(raw) - 1), label="position")
    mask = data.draw(st.integers(1, 255), label="xor")
    flipped = bytearray(raw)
    flipped[pos] ^= mask
    target = d / "flipped" / "demo.lock.json"
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(bytes(flipped))
    try:
        verify_lock(target, require_signature=True)
    except UserError:
        return  # detected: parse error, schema error, hash or signature mismatch
    # Accepted only if the flip did not change the content: whitespace in the layout, or
    # 'e' <-> 'E' in an exponent. Every value must be exactly the locked one.
    assert canonical_bytes(json.loads(bytes(flipped))) == canonical_bytes(json.loads(raw))


def test_every_content_byte_flip_of_a_small_region_is_detected(signed_lock):
    raw, d = signed_lock
    start = raw.index(b'"arms"')
    target = d / "sweep" / "demo.lock.json"
    target.parent.mkdir(exist_ok=True)
    for pos in range(start, start + 300):
        flipped = bytearray(raw)
        flipped[pos] ^= 0x01
        target.write_bytes(bytes(flipped))
        try:
            verify_lock(target)
        except UserError:
            continue
        assert canonical_bytes(json.loads(bytes(flipped))) == canonical_bytes(json.loads(raw)), pos


def test_non_canonical_base64_signature_is_rejected(tmp_path):
    key, _ = keygen(tmp_path / "k")
    path = lock_file(DEMO, lock_dir=tmp_path / "locks", key_path=key)
    data = read_json(path)
    sig = data["signature"]["value"]
    # 64-byte signature: the last data character carries 4 unused bits that decode identically
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = sig.rstrip("=")[-1]
    twin = alphabet[alphabet.index(last) ^ 1]
    data["signature"]["value"] = sig.rstrip("=")[:-1] + twin + "=="
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="signature"):
        verify_lock(path)


# ----------------------------------------------------------------------------- amendments
def _changed(tmp_path, name, **training):
    doc = read_json(DEMO)
    doc["training"].update(training)
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def test_amendment_chain_verifies_and_old_versions_stay_valid(tmp_path):
    locks = tmp_path / "locks"
    v1 = lock_file(DEMO, lock_dir=locks)
    v2 = amend_file(_changed(tmp_path, "a.json", max_steps=5), "one more step", lock_dir=locks)
    v3 = amend_file(_changed(tmp_path, "b.json", max_steps=6), "and another", lock_dir=locks)
    assert [verify_lock(p).version for p in (v1, v2, v3)] == [1, 2, 3]
    d3 = read_json(v3)
    assert d3["amends"] == {"lock_hash": read_json(v2)["lock_hash"], "version": 2, "reason": "and another"}
    with pytest.raises(UserError, match="nothing to amend"):
        amend_file(_changed(tmp_path, "c.json", max_steps=6), "same again", lock_dir=locks)
    with pytest.raises(UserError, match="reason"):
        amend_file(_changed(tmp_path, "d.json", max_steps=7), "  ", lock_dir=locks)


def test_broken_chains_are_refused(tmp_path):
    locks = tmp_path / "locks"
    v1 = lock_file(DEMO, lock_dir=locks)
    v2 = amend_file(_changed(tmp_path, "a.json", max_steps=5), "r", lock_dir=locks)
    # 1. the replaced lock is missing
    saved = v1.read_bytes()
    v1.unlink()
    with pytest.raises(UserError, match="not in"):
        verify_lock(v2)
    # 2. the replaced lock is tampered
    doc = json.loads(saved)
    doc["preregistration"]["seeds"] = [1, 2, 4]
    v1.write_text(json.dumps(doc))
    with pytest.raises(UserError, match="demo.lock.json: content_hash"):
        verify_lock(v2)
    v1.write_bytes(saved)
    assert verify_lock(v2).version == 2
    # 3. an amendment dated before the lock it replaces
    prev = read_json(v1)
    early = build_lock(read_json(_changed(tmp_path, "b.json", max_steps=9)), version=2, now="2000-01-01T00:00:00Z",
                       amends={"lock_hash": prev["lock_hash"], "version": 1, "reason": "backdated"})
    bad = locks / "demo.v2b.lock.json"
    bad.write_text(json.dumps(early))
    with pytest.raises(UserError, match="dated before"):
        verify_lock(bad)
    # 4. version numbers that skip, or a version > 1 that names nothing
    skip = build_lock(read_json(DEMO), version=3,
                      amends={"lock_hash": prev["lock_hash"], "version": 1, "reason": "skip"})
    (locks / "demo.v3.lock.json").write_text(json.dumps(skip))
    with pytest.raises(UserError, match="chain broken"):
        verify_lock(locks / "demo.v3.lock.json")
    orphan = build_lock(read_json(DEMO), version=2)
    (locks / "orphan.lock.json").write_text(json.dumps(orphan))
    with pytest.raises(UserError, match="names no earlier lock"):
        verify_lock(locks / "orphan.lock.json")


def test_invalid_calendar_time_is_a_user_error(tmp_path):
    lock = build_lock(read_json(DEMO), now="2026-13-45T00:00:00Z")
    p = tmp_path / "x.lock.json"
    p.write_text(json.dumps(lock))
    with pytest.raises(UserError, match="locked_at"):
        verify_lock(p)


# ----------------------------------------------------------------------------- no torch
HEAVY = ("torch", "transformers", "trl", "peft", "datasets", "scipy", "vllm")


@pytest.mark.slow  # subprocess; fast tier: test_no_torch checks lock + verify load nothing heavy
def test_prereg_lock_runs_without_torch_and_loads_nothing_heavy(tmp_path):
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'transformers', 'trl', 'peft', 'vllm'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from prereg.cli import main\n"
        f"rc = main(['lock', {str(E1)!r}, '--lock-dir', {str(tmp_path)!r}])\n"
        f"rc |= main(['verify', {str(tmp_path / 'e1.lock.json')!r}])\n"
        f"heavy = sorted(m for m in {HEAVY!r} if sys.modules.get(m) is not None)\n"
        "print('HEAVY', heavy)\n"
        f"rc |= main(['lint', {str(E1)!r}]) | main(['show', {str(tmp_path / 'e1.lock.json')!r}])\n"
        "sys.exit(rc)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "HEAVY []" in res.stdout  # lock + verify import neither torch nor scipy
    assert (tmp_path / "e1.lock.json").exists()


@pytest.mark.slow  # two interpreters for `python -m prereg`; the CLI's main is tested in-process
def test_python_dash_m_prereg(tmp_path):
    res = subprocess.run([sys.executable, "-m", "prereg", "lock", str(DEMO), "--lock-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "lock_hash:" in res.stdout
    res = subprocess.run([sys.executable, "-m", "prereg", "verify", str(tmp_path / "nope.lock.json")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_duplicate_keys_are_refused(tmp_path):
    text = DEMO.read_text()
    dup = text.replace('"max_steps": 4,', '"max_steps": 4, "max_steps": 400,', 1)
    assert dup != text
    p = tmp_path / "dup.json"
    p.write_text(dup)
    with pytest.raises(UserError, match="'max_steps' appears twice"):
        lock_file(p, lock_dir=tmp_path / "locks")
    lock = lock_file(DEMO, lock_dir=tmp_path / "locks")
    raw = lock.read_text()
    lock.write_text(raw.replace('"lock_format": 1,', '"lock_format": 1, "lock_format": 1,', 1))
    with pytest.raises(UserError, match="appears twice"):
        verify_lock(lock)


@given(data=st.data())
@settings(max_examples=examples(ci=60, dev=10), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_byte_flips_through_the_cli_exit_2_without_traceback(signed_lock, capsys, data):
    from prereg.cli import main

    raw, d = signed_lock
    pos = data.draw(st.integers(0, len(raw) - 1))
    flipped = bytearray(raw)
    flipped[pos] ^= data.draw(st.integers(1, 255))
    target = d / "cli" / "demo.lock.json"
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(bytes(flipped))
    capsys.readouterr()
    rc = main(["verify", str(target), "--require-signature"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    if rc == 0:
        assert canonical_bytes(json.loads(bytes(flipped))) == canonical_bytes(json.loads(raw))
    else:
        assert rc == 2 and err.startswith("error: ") and err.count("\n") == 1


def test_read_jsonl_names_the_file_for_every_bad_input(tmp_path):
    (tmp_path / "dir.jsonl").mkdir()
    (tmp_path / "list.jsonl").write_text('{"step": 1}\n[1]\n')
    (tmp_path / "latin1.jsonl").write_bytes(b'{"x": "\xe9"}\n')
    for name, pattern in (("dir.jsonl", r"dir\.jsonl: is a directory"),
                          ("list.jsonl", r"list\.jsonl:2: expected a JSON object, got list"),
                          ("latin1.jsonl", r"latin1\.jsonl: not UTF-8 text")):
        with pytest.raises(UserError, match=pattern):
            read_jsonl(tmp_path / name, "telemetry")
    (tmp_path / "ok.jsonl").write_text('{"a": 1}\n\n{"a": 2}\n')
    assert read_jsonl(tmp_path / "ok.jsonl") == [{"a": 1}, {"a": 2}]
