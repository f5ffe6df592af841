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
5. plain words are reduced by the Snowball English stemmer (Porter2, PyStemmer's C
   implementation) so that inflections meet: "removed", "remove", "removal" → ``remov``;
   "resistant", "resistance" → ``resist``; "filtering", "filtered" → ``filter``;
   "doublets" → ``doublet``. Never stemmed: words with digits (``10x``, ``g12c``), words of four
   letters or fewer (``kras``, ``nras``, ``mito``), entity tokens (step 2), and the lower-case
   form of an HGNC approved symbol that the stemmer would change (``KEPT``: ``cenpe``,
   ``eomes``, ``hells``; typed in lower case a symbol is a plain word, and must meet the entity
   token of a note that wrote it in capitals). Snowball keeps British -ise and American -ize
   apart (``normalis`` / ``normal``): the lab list of the shipped vocabulary joins them.

Why Snowball (docs/vocabulary.md, ``benchmarks/stemmers.py``): it joins what analysis notes
write both ways (resistant/resistance, align/alignment, remove/removal, cardiotoxic/
cardiotoxicity) where the light suffix stripper used before did not; PyStemmer costs ~1.5 ms to
import and less per word than that stripper; Porter (original) damages short symbols. Index and
query must stem alike, so it is a dependency, not an option with a fallback; a stemmer change
changes every fingerprint (``index/store.py`` ``SCHEMA_VERSION``) and the shipped vocabulary's
keys (``scripts/build_vocabulary.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["KEPT", "QUESTION_WORDS", "STOP_WORDS", "VERSION", "stem", "tokenize"]

#: Changes whenever ``tokenize`` gives other tokens for the same text: what was compiled with an
#: older tokeniser (a vault's vocabulary, store/vocabulary.py) is compiled again. (The index has
#: its own schema version, index/store.py, bumped with it.)
VERSION = 2  # 2: Snowball stems

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
        from unicodedata import normalize  # here: ASCII text, most of it, needs none

        text = normalize("NFKC", text)
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


#: Lower-case HGNC approved symbols of five or more letters that Snowball would change (``acads``
#: → ``acad``): never stemmed. Written by ``scripts/build_vocabulary.py``, which fails when this
#: list is stale (all 64 of HGNC's 2024-02-04 approved symbols, any locus type).
KEPT = frozenset("""
    acads adprs amely astilcs bspry cadps catspere cebpe cebpzos cenpe cenps coasy coprs crygs
    ddias dglucy ecpas elane enemal engase eomes fance firre fraxe gabre galns gapdhs haglros
    hells igfals ikbke inhbe itgae lerfs luaris macoris marcks mcidas mepce mideas mocos mycnos
    myhas myocos nelfe nihcole npepps paics pcolce pikfyve poted potee prins prory ralgds
    selenos sepsecs smantis stimate themis tilrls topors txlngy tymsos
""".split())


def stem(word: str) -> str:
    """A plain lower-case word's Snowball English stem, with the guards of the module docstring."""
    if len(word) <= 4 or not word.isalpha() or word in KEPT:
        return word
    return _snowball()(word)


_SNOWBALL: list[Callable[[str], str]] = []


def _snowball() -> Callable[[str], str]:
    """PyStemmer's English stemmer's ``stemWord``, made on first use (its import costs ~1.5 ms)."""
    if not _SNOWBALL:
        import Stemmer

        _SNOWBALL.append(Stemmer.Stemmer("english").stemWord)
    return _SNOWBALL[0]
