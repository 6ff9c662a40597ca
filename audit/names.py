"""Which declared arm a run of words names: the longest declared name or label always wins.

One rule for table cells, headings, macro names and sentences (``audit.sources.find_arms`` and
``audit.words.Vocabulary.arms_in`` both use it): words are folded (lower case, letters and digits
only, as :func:`prereg.declarations.normalise_label` folds) and joined, and at each word the
longest run of words whose joined fold is a declared name is taken, however many words it spans.
So ``grpo_lr_1e-5_warmup`` (six words) is arm ``grpo_lr_1e5_warmup`` and never ``grpo`` followed by a learning rate,
``Dr. GRPO`` is ``dr_grpo`` and not ``grpo``, and no synonym of a word (``lr`` -> learning) is applied
before the match: synonyms are for the metric and statistic words left over (README failure 15).

The scan is linear in the number of words times the length of the longest name, in characters.
"""

from __future__ import annotations

from collections.abc import Mapping


def name_prefixes(names: Mapping[str, str]) -> frozenset[str]:
    """Every prefix of every folded name: a run of words whose fold is no prefix starts no name."""
    return frozenset(k[:i] for k in names for i in range(1, len(k) + 1))


def longest_names(words: list[str], names: Mapping[str, str],
                  prefixes: frozenset[str] | None = None) -> list[tuple[int, int, str]]:
    """(first word, end word, arm) of every declared name in ``words``, longest match first.

    Args:
        words: the words of a text in order, already folded (lower-case letters and digits).
        names: folded display name -> arm (an arm's own name and its declared labels).
        prefixes: ``name_prefixes(names)``, when the caller looks up many texts: a run stops growing
            as soon as it is no prefix of a name (the same result; README failure 10: one word
            looked at once, not once per character of the longest name).

    Returns:
        Non-overlapping ``(i, j, arm)``: ``words[i:j]`` joined is a key of ``names``; scanning left
        to right, at each word the longest such run wins.

    Example:
        >>> names = {"grpo": "grpo", "grpolr100x": "grpo_lr100x", "drgrpo": "dr_grpo"}
        >>> longest_names(["grpo", "lr", "100", "x", "vs", "dr", "grpo"], names)
        [(0, 4, 'grpo_lr100x'), (5, 7, 'dr_grpo')]
    """
    if not names:
        return []
    longest = max(len(k) for k in names)
    if prefixes is not None:
        return _longest_from(words, names, prefixes, longest)
    out, i, n = [], 0, len(words)
    while i < n:
        cat, best = "", None
        for j in range(i, n):
            cat += words[j]
            if len(cat) > longest or (prefixes is not None and cat not in prefixes):
                break
            if cat in names:
                best = (j + 1, names[cat])
        if best is None:
            i += 1
            continue
        out.append((i, best[0], best[1]))
        i = best[0]
    return out


def _longest_from(words: list[str], names: Mapping[str, str], prefixes: frozenset[str],
                  longest: int) -> list[tuple[int, int, str]]:
    """:func:`longest_names` with ``prefixes``: only a word that is itself a prefix of a name can
    start one, so the scan visits those words alone (the same matches; a sentence of 30,000
    numbers has a few hundred such words)."""
    out, nxt, n = [], 0, len(words)
    for i in [i for i, w in enumerate(words) if w in prefixes]:
        if i < nxt:
            continue   # inside the name just taken
        cat, best = "", None
        for j in range(i, n):
            cat += words[j]
            if len(cat) > longest or cat not in prefixes:
                break
            if cat in names:
                best = (j + 1, names[cat])
        if best is not None:
            out.append((i, best[0], best[1]))
            nxt = best[0]
    return out
