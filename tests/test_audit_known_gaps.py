"""Known open defects of the audit on hand-written reports, fixed one by one (README failure 15).

Each was a strict xfail of the older report sets (``tests/report_corpus_*/``). Each fix has here a
clean sentence that must audit with no finding and a wrong variant (one number or word changed) that
must be one check-10 finding naming the value the words name. The wordings are not the sets' own: the
point is that the reading generalises beyond the sentence that showed the gap.
"""

from __future__ import annotations

import pytest

from audit import check
from tests.report_corpus_unseen import unseen

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

HEAD = "# Results\n\nFrom the locked analysis.\n\n"
FIRST_LINE = HEAD.count("\n") + 1


def _findings(study, blocks: list[str], strict: bool = False, name: str = "report.md") -> dict[int, list[str]]:
    """Check-10 findings (message | expected) by the index of the block (paragraph, list) they are about."""
    for f in [*study.glob("*.md"), *study.glob("*.qmd")]:
        f.unlink()
    (study / name).write_text(HEAD + "\n\n".join(blocks) + "\n")
    first, line = [], FIRST_LINE
    for b in blocks:
        first.append(line)
        line += b.count("\n") + 2
    out: dict[int, list[str]] = {}
    for f in check(study, only=["10", "11"], strict=strict).findings:
        n = int(f.location.rsplit(":", 1)[1])
        out.setdefault(max(i for i, a in enumerate(first) if a <= n), []).append(f"{f.message} | {f.expected}")
    return out


def _pairs(study, pairs, strict: bool = False, name: str = "report.md"):
    """(findings on the clean blocks, findings on the wrong variants) of ``(clean, wrong, source)`` triples."""
    return (_findings(study, [c for c, _, _ in pairs], strict, name),
            _findings(study, [w for _, w, _ in pairs], strict, name))


def _assert_pairs(found, pairs):
    clean, wrong = found
    for i, (c, w, source) in enumerate(pairs):
        assert clean.get(i, []) == [], (c, clean.get(i))
        got = wrong.get(i, [])
        assert len(got) == 1 and source in got[0], (w, got)


@pytest.fixture(scope="module")
def card12(tmp_path_factory):
    """Study "model_card_yaml" (study12): base (baseline), sft, grpo over 3 seeds; well-formed answers
    (format_pct, a percent metric) base 88.9, sft 86.4, grpo 88.5; solve rate grpo 0.623."""
    report = unseen.build("model_card_yaml", tmp_path_factory.mktemp("card12") / "s")
    return report


# A percent metric named by its id's stem and a word for a share ("format rate" for format_pct), where the
# study declares only "Well-formed answers (%)": before, the value was read as the primary metric's.
RATE_NAMES = [
    ("Averaged over its seeds, GRPO keeps a format share of 88.5%.",
     "Averaged over its seeds, GRPO keeps a format share of 86.4%.",
     "arms.grpo.format_pct.mean"),
    ("The SFT checkpoint's format percentage (86.4%) is the lowest of the three.",
     "The SFT checkpoint's format percentage (88.4%) is the lowest of the three.",
     "arms.sft.format_pct.mean"),
]


def test_a_percent_metric_named_by_its_stem_and_rate(card12):
    _assert_pairs(_pairs(card12, RATE_NAMES), RATE_NAMES)
