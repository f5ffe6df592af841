"""The recall tokeniser: the same function reads episodes at index time and queries at recall time.

``tokenize(text)``:

1. Unicode NFKC (full-width letters, ligatures and compatibility forms become plain ones);
2. biological entities (see :mod:`biocortex_cli.bio.entities`) are found in the original case
   and each becomes one token, its normalised name lower-cased: ``GO:0008150`` → ``go:0008150``,
   ``ENSG00000141510.12`` → ``ensg00000141510``, ``HLA-DRB1`` → ``hla-drb1``,
   ``c.1799T>A`` → ``c.1799t>a``; a variant written with its gene (``BRAF V600E``) gives the two
   tokens ``braf`` ``v600e``;
3. the rest is lower-cased and split into runs of letters and digits: punctuation goes, digits
   stay (``10x``, ``2000``, ``0.5`` → ``0`` ``5``);
4. English stop words are removed (``STOP_WORDS``; negations such as "not" and "no" are kept,
   they matter for lessons such as "do not regress out cell cycle"), as are the words people use
   to ask about the past rather than about the science (``QUESTION_WORDS``: "last time",
   "previously", "went", …);
5. plain words are reduced by a light suffix stemmer (``stem``) so that "removed", "remove" and
   "removing", or "doublet" and "doublets", meet: plural -s/-es/-ies, -ed, -ing, a final -e
   and a final consonant -y. Words with digits, words of four letters or fewer (``kras``,
   ``nras``) and entity tokens are never stemmed.

Why not a library stemmer: snowballstemmer's English stemmer is better linguistics, but
importing it costs 14 ms (its package loads all ~30 languages), a fifth of recall's whole budget;
the five rules above cover the inflections that decide matches in analysis notes.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["QUESTION_WORDS", "STOP_WORDS", "stem", "tokenize"]

STOP_WORDS = frozenset("""
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can could couldn d did didn do does doesn doing don down
    during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just ll m ma me might mightn
    more most must mustn my myself now o of off on once only or other our ours ourselves out
    over own re s same shan she should shouldn so some such t than that the their theirs them
    themselves then there these they this those through to too under until up ve very was wasn
    we were weren what when where which while who whom why will with won would wouldn y you your
    yours yourself yourselves also us let lets whats
""".split())

# Asked-about-the-past scaffolding: never what an analysis is about.
QUESTION_WORDS = frozenset("""
    last time times previous previously earlier ago before went go going happened happen remind
    tell show find recall remember past ever anyone someone somebody thing things way ways tried
    try wrong
""".split())

_DROP = STOP_WORDS | QUESTION_WORDS
_WORD = re.compile(r"[^\W_]+")
_FAST_ASCII = re.compile(r"[a-z0-9\s,;!?()'\"]*")


def tokenize(text: str) -> list[str]:
    """Lower-case content tokens of ``text`` with biological identifiers kept whole."""
    from biocortex_cli.bio.entities import entity_spans

    if not text:
        return []
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    if _FAST_ASCII.fullmatch(text):  # all lower-case, no identifiers possible: skip the scan
        return _words(text)
    tokens: list[str] = []
    pos = 0
    for entity in entity_spans(text):
        tokens.extend(_words(text[pos:entity.start]))
        tokens.extend(entity.name.lower().split())
        pos = entity.end
    tokens.extend(_words(text[pos:]))
    return tokens


def _words(chunk: str) -> list[str]:
    out = []
    for word in _WORD.findall(chunk.lower()):
        if word in _DROP:
            continue
        stemmed = _STEMS.get(word)
        if stemmed is None:
            stemmed = stem(word)
            if len(_STEMS) < _STEMS_MAX:
                _STEMS[word] = stemmed
        out.append(stemmed)
    return out


#: Stems already computed: words follow Zipf's law, so an index rebuild stems each one ~50 times.
_STEMS: dict[str, str] = {}
_STEMS_MAX = 200_000


_VOWELS = frozenset("aeiouy")


def stem(word: str) -> str:
    """Light English suffix stripping (see the module docstring)."""
    n = len(word)
    if n <= 4 or not word.isalpha():
        return word
    if word.endswith("ies"):
        word = word[:-3] + "i"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if len(base) >= 3 and any(c in _VOWELS for c in base):
                if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "lsz" + "aeiou":
                    base = base[:-1]
                word = base
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    elif len(word) > 3 and word.endswith("y") and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    return word
