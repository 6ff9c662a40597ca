"""The looks log read as typed rows (prereg.looks.LookEntry, LookContrast): README failure 19.

The runner's gate, ``stats interim``, the sequential block of ``stats analyze`` and audit check 12
read an entry through one parser; an entry that is not what ``stats interim`` writes reads as
empty fields (check 12 reports it) instead of an AttributeError in whichever reader meets it first.
"""

from __future__ import annotations

from prereg.looks import CONTINUE, LookEntry, interims

STOP = "stop_efficacy"


def _interim(look: int, lock_hash: str = "h", **decisions: str) -> dict:
    """An interim entry as stats.interim writes it: one contrast per arm against grpo."""
    cs = {f"{a}-grpo": {"arm": a, "baseline": "grpo", "t": 1.5, "decision": d, "look": look,
                        "bound_efficacy": 2.5} for a, d in decisions.items()}
    go = any(d == CONTINUE for d in decisions.values())
    return {"kind": "interim", "lock_hash": lock_hash, "look": look, "n_seeds": 3, "seeds": [1, 2, 3],
            "contrasts": cs, "decision": CONTINUE if go else "stop", "created_at": "2026-01-02T00:00:00Z"}


def test_an_interim_record_reads_into_named_fields():
    e = LookEntry.of(_interim(1, gspo=STOP, dapo=CONTINUE))
    assert (e.kind, e.look, e.n_seeds, e.seeds, e.decision) == ("interim", 1, 3, [1, 2, 3], CONTINUE)
    c = e.contrasts["gspo-grpo"]
    assert (c.arm, c.baseline, c.t, c.decision, c.look, c.bound_efficacy, c.carried) == \
        ("gspo", "grpo", 1.5, STOP, 1, 2.5, False)
    assert dict(c.raw) == _interim(1, gspo=STOP, dapo=CONTINUE)["contrasts"]["gspo-grpo"]  # carried forward as written


def test_which_arms_may_run_on():
    """An arm in a stopped contrast stops; one in a continuing contrast goes on; an arm in no monitored
    contrast (the baseline here is in both) goes on while any contrast does."""
    e = LookEntry.of(_interim(1, gspo=STOP, dapo=CONTINUE))
    assert not e.continues("gspo") and e.continues("dapo") and e.continues("grpo") and e.continues("aero")
    done = LookEntry.of(_interim(1, gspo=STOP, dapo=STOP))
    assert not any(done.continues(a) for a in ("gspo", "dapo", "grpo", "aero"))


def test_interims_keep_this_locks_first_record_of_each_look():
    entries = [_interim(1, "other", gspo=STOP), {"kind": "analysis", "lock_hash": "h", "seeds_per_arm": {"grpo": 2}},
               _interim(1, gspo=CONTINUE), _interim(1, gspo=STOP), _interim(2, gspo=STOP)]
    recs = interims(entries, "h")
    assert sorted(recs) == [1, 2] and recs[1].contrasts["gspo-grpo"].decision == CONTINUE
    assert LookEntry.of(entries[1]).seeds_per_arm == {"grpo": 2}


def test_an_entry_that_is_not_what_stats_interim_writes_reads_as_empty_fields():
    """Not an object, contrasts not an object, a contrast not an object: empty fields, no exception."""
    assert LookEntry.of(["not", "an", "object"]).kind is None
    odd = LookEntry.of({"kind": "interim", "look": 1, "contrasts": ["gspo-grpo"]})
    assert odd.contrasts == {} and not odd.continues("gspo")
    c = LookEntry.of({"kind": "interim", "contrasts": {"gspo-grpo": "stop"}}).contrasts["gspo-grpo"]
    assert (c.arm, c.decision, c.carried) == (None, None, False)
