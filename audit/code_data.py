"""Numbers in a YAML or JSON code block read by their keys (README failure 15).

A model card often repeats its results in a ```` ```yaml ```` (or ```` ```json ````) block the author
meant as data::

    solve_rate:
      base: 0.475
      grpo: {mean: 0.623, sd: 0.033}

A number in code is never traced by default ("in code", :mod:`audit.statuses`), but under
``--strict`` it is covered: here the keys above and before a number name its arm, metric and
statistic, so that a wrong value ("sft: 0.901" under "pass16:") is checked against the value its
keys name, not passed because it happens to equal some other value of the analysis. Only a number
whose keys name exactly one arm and one metric gets a reading; any other stays by value alone.
"""

from __future__ import annotations

import bisect
import re

from audit.numbers import ParsedFile
from audit.words import Reading, Vocabulary

__all__ = ["code_readings"]

# The opening fence of a data block: ```yaml, ~~~ yml, ```json
_DATA_FENCE = re.compile(r"\s{0,3}(`{3,}|~{3,})\s*(?:yaml|yml|json|jsonc)\b", re.I)
_ANY_FENCE = re.compile(r"\s{0,3}(`{3,}|~{3,})")
# A key and its colon: "solve_rate:", "  - sft:", '"grpo": {'
_KEY = re.compile(r"""["']?([A-Za-z_@][\w@.\- ]*?)["']?\s*:(?=\s|$|\{|\[)""")
_SD_KEYS = {"sd", "std", "stdev", "std_dev", "sd_across_seeds"}
_MEAN_KEYS = {"mean", "avg", "average", "value"}


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) line numbers (1-based, inside the fences) of each YAML/JSON fenced block."""
    out, i, n = [], 0, len(lines)
    while i < n:
        m = _DATA_FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence = m.group(1)
        j = i + 1
        while j < n and not lines[j].lstrip().startswith(fence[0] * len(fence)):
            j += 1
        out.append((i + 2, j))   # lines i+2 .. j (1-based) are the block's content
        i = j + 1
    return out


def _keys_before(line: str, upto: int) -> tuple[list[str], str | None]:
    """(keys of the flow mappings still open at ``upto``, the key right before ``upto``) on one line:
    in ``grpo: {mean: 0.623, sd: 0.033}`` the 0.033 is under ``grpo`` with key ``sd``."""
    stack: list[str] = []
    last = None
    pos = 0
    for m in _KEY.finditer(line, 0, upto):
        seg = line[pos:m.start()]
        for ch in seg:
            if ch == "}" and stack:
                stack.pop()
        after = line[m.end():upto].lstrip()
        last = m.group(1).strip()
        if after.startswith("{"):
            stack.append(last)
        pos = m.end()
    return stack, last


def _parents(lines: list[str], first: int, line: int) -> list[str]:
    """The block-style keys above ``line`` (1-based) that enclose it, outermost first, by indentation."""
    target = len(lines[line - 1]) - len(lines[line - 1].lstrip(" -"))
    out: list[str] = []
    for k in range(line - 1, first - 1, -1):
        text = lines[k - 1]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        indent = len(text) - len(text.lstrip(" -"))
        if indent < target:
            m = _KEY.match(text.lstrip(" -"))
            if m and not text.split(":", 1)[1].strip():
                out.append(m.group(1).strip())
                target = indent
        if target == 0:
            break
    return out[::-1]


def code_readings(file: ParsedFile, vocab: Vocabulary, lines: range | None = None) -> dict[int, Reading]:
    """Readings of the numbers of ``file``'s YAML/JSON code blocks whose keys name one arm and one
    metric, keyed by ``id(mention)`` (``lines``: only those on these lines).

    Args:
        file: a parsed Markdown file. vocab: the study's names. lines: a range of line numbers, or None.
    Returns:
        ``{id(mention): Reading}`` with ``code_key`` set (:func:`audit.trace.trace_mention` keeps it
        for a number in code).
    Example:
        >>> from audit.numbers import parse_markdown
        >>> f = parse_markdown("r.md", "```yaml\\nacc:\\n  gspo: 0.61\\n```\\n", "r.md")
        >>> v = Vocabulary({"gspo": "gspo"}, {"acc": "heldout_accuracy"}, "grpo", "heldout_accuracy")
        >>> [(r.arms, r.metric, r.role) for r in code_readings(f, v).values()]
        [(['gspo'], 'heldout_accuracy', 'mean')]
    """
    out: dict[int, Reading] = {}
    if file.path.endswith(".tex") or not any("```" in ln or "~~~" in ln for ln in file.lines):
        return out
    _seed_flags(file, out, lines)
    blocks = _blocks(file.lines)
    if not blocks:
        return out
    starts = [a for a, _ in blocks]
    seen: dict[int, int] = {}   # line -> where the next number on it is looked for
    for m in file.mentions:
        if not m.in_code or (lines is not None and m.line not in lines):
            continue
        k = bisect.bisect_right(starts, m.line) - 1
        if k < 0 or m.line > blocks[k][1]:
            continue
        text = file.lines[m.line - 1]
        at = text.find(m.text, seen.get(m.line, 0))
        if at < 0:
            continue
        seen[m.line] = at + len(m.text)
        flow, last = _keys_before(text, at)
        keys = _parents(file.lines, blocks[k][0], m.line) + flow + ([last] if last else [])
        reading = _reading(keys, vocab)
        if reading is not None:
            out[id(m)] = reading
    return out


def _reading(keys: list[str], vocab: Vocabulary) -> Reading | None:
    """The reading the keys give: one arm, one metric, and the statistic the last key names."""
    words = " ".join(k.replace("_", " ") for k in keys)
    arms = {a for _, a in vocab.arms_in(words)}
    metrics = {x for k in keys for _, x in vocab.metrics_in(k)} or {x for _, x in vocab.metrics_in(words)}
    if len(arms) != 1 or len(metrics) != 1 or not keys:
        return None
    last = keys[-1].lower()
    role = "sd" if last in _SD_KEYS else "mean" if last in _MEAN_KEYS or vocab.arms_in(keys[-1]) \
        or vocab.metrics_in(keys[-1]) else None
    if role is None:
        return None   # "seeds: [0.636, ...]", "n: 3": not a mean or an SD of the arm
    return Reading(arms=[next(iter(arms))], metric=next(iter(metrics)), role=role, code_key=True)


# A command line's seed flag and the seeds after it: "--seeds 5 6 7 8 9", "--seed=3", "--seeds 0,1,2"
_SEED_FLAG = re.compile(r"(?<![\w-])--?seeds?(?:[= ]+)((?:\d+(?:\s*,\s*|\s+(?=\d))?)+)")


def _seed_flags(file: ParsedFile, out: dict[int, Reading], lines: range | None) -> None:
    """The numbers after a seed flag in code ("runner sweep ... --seeds 5 6 7 8 9") are seeds: each is
    checked against the locked seeds under ``--strict`` (by value alone, "10" passed as some other
    value of the analysis). Any fenced or indented code: the flag says what its numbers are."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for m in file.mentions:
        if not m.in_code or m.decimals or (lines is not None and m.line not in lines) or "seed" not in m.line_text:
            continue
        if m.line not in spans:
            spans[m.line] = [(g.start(1), g.end(1)) for g in _SEED_FLAG.finditer(file.lines[m.line - 1])]
        text = file.lines[m.line - 1]
        for a, b in spans[m.line]:
            at = text.find(m.text, a, b)
            if at >= 0 and (at == a or not text[at - 1].isdigit()) and (at + len(m.text) >= b or not text[at + len(m.text)].isdigit()):
                out[id(m)] = Reading(role="seed_list", code_key=True)
                break
