"""The vault's tunables: ``.biocortex/config.yaml``, read into NamedTuples.

The NamedTuples below are the config model: defaults, types and help text (:data:`HELP`) live
here once. NamedTuples, not frozen dataclasses, because every command defines them: a frozen
dataclass costs ~3.5 M instructions to define, a NamedTuple a fifth of that (docs/performance.md).
Their dict and list defaults are shared by every instance: never change them in place.
``vault_template/.biocortex/config.yaml`` mirrors them with comments, and
``docs/configuration.md`` is generated from them (a test fails when either drifts).

One reader, :func:`load_config` (``Vault.config``), with a cache that pays: the settings as
parsed from the YAML are kept in ``.biocortex/tmp/config.cache`` (``packed.py``: JSON's data in
marshal's encoding, read without importing ``json``), keyed by the CRC-32 and length of the file's
text. A hit costs a read of both files and a validation (~0.7 ms); a miss imports PyYAML and
parses, which made a ``recall`` 33 ms slower at best and 64 ms at the median on the loaded 2-core
reference machine (``benchmarks/config_cache.py``, docs/architecture.md). The
validation runs on every read, so a change to the model (a new default, a removed setting)
applies to a cached file too.
"""

# No ``from __future__ import annotations``: the sections' field types are objects, not strings,
# read as they are on every config read (:func:`_section`); names imported only for type
# checking are quoted.
import os

from biocortex_cli.errors import DataError
from biocortex_cli.records import NamedTuple

TYPE_CHECKING = False  # mypy takes it as True; `typing` (~16 M instructions) stays off recall's path
if TYPE_CHECKING:  # pathlib (~18 M) too: the config is read by a str path
    from typing import Any, TypeVar

    _T = TypeVar("_T")

CONFIG_REL = ".biocortex/config.yaml"
CACHE_REL = ".biocortex/tmp/config.cache"  # git-ignored, derived, rebuilt when missing


#: section class -> setting -> its help, in the order of the fields (docs/configuration.md)
HELP: dict[type, dict[str, str]] = {}
_pending: list[str] = []  # the help of the fields of the class being defined, in order


def _f(default: "_T", help: str) -> "_T":
    """A setting's default, its help kept for :func:`_helped` (the class is not made yet)."""
    _pending.append(help)
    return default


def _helped(cls: "type[_T]") -> "type[_T]":
    """Files the help of ``cls``'s settings under :data:`HELP`, by field."""
    HELP[cls] = dict(zip(cls._fields, _pending, strict=True))  # type: ignore[attr-defined]
    _pending.clear()
    return cls


@_helped
class TokenizerConfig(NamedTuple):
    """Token counting (recall budgets, compress, context)."""

    encoding: str = _f("cl100k_base", "tiktoken encoding used for every token count "
                       "(cl100k_base or o200k_base; both ship with biocortex, nothing is downloaded)")


@_helped
class EpisodicConfig(NamedTuple):
    """Episodic memory: recall of past analyses (docs/recall.md)."""

    top_k: int = _f(5, "how many past analyses recall returns at most")
    min_relevance: float = _f(0.2, "fused score (0-1) below which a hit is dropped by the gate")
    token_budget: int = _f(2000, "default token budget of recall's printed context")
    success_only: bool = _f(False, "recall only successful episodes unless asked otherwise")
    compact: bool = _f(False, "print each past analysis without its note's path (its id finds it: "
                       "`biocortex episode show ID`), as `recall --compact` does; fewer tokens")
    weights: dict[str, float] = _f(
        {"text": 0.5, "entities": 0.2, "tools": 0.15, "domains": 0.15, "outcome": 0.15, "utility": 0.2,
         "kin": 0.5},
        "fusion weights of the per-signal scores; a signal the query does not use is left out "
        "and the remaining weights are renormalised (outcome: used only when the question asks "
        "what went wrong, or what worked; utility: moves a relevant episode's score by "
        "weight * (utility - 0.5), from feedback given on similar questions, docs/learning.md; "
        "kin: an analysis of the same kind as one of the two best hits, sharing most of its "
        "tools and domains, joins the results scored weight * that hit's score * what it shares, "
        "docs/recall.md; 0 turns it off)")
    ngram_weights: dict[str, float] = _f(
        {"1": 1.0, "2": 0.5, "3": 0.5},
        "weight of unigram, bigram and trigram fingerprints in the text signal (phrases add to "
        "their words; heavier phrase weights let common-word phrases outrank rare words)")
    max_df: float = _f(0.5, "fingerprints present in more than this share of episodes are "
                       "dropped from the text signal (too common to tell episodes apart)")
    half_life_days: float = _f(0.0, "recency decay: a relevant episode's score is multiplied by "
                               "2^(-age/half_life_days), age counted back from the newest episode "
                               "(not the clock); 0 = off (docs/learning.md)")
    vocabulary: bool = _f(True, "expand questions with synonyms: the vault's vocabulary.md, then the "
                          "shipped biology vocabulary, each below the question's own words "
                          "(docs/vocabulary.md)")


@_helped
class WorkingMemoryConfig(NamedTuple):
    """Working memory: `biocortex compress` (docs/compress.md)."""

    max_tokens: int = _f(-1, "token budget of `compress`; -1 = auto: auto_fraction of the "
                         "model's input context, clamped to [auto_min_tokens, auto_max_tokens]")
    model: str = _f("claude-sonnet-4-5", "model whose context window sets the auto budget")
    auto_fraction: float = _f(0.6, "share of the model's input context used when max_tokens is -1")
    auto_min_tokens: int = _f(16000, "lower clamp of the auto budget")
    auto_max_tokens: int = _f(600000, "upper clamp of the auto budget")
    keep_recent: int = _f(-1, "messages always kept verbatim at the end; -1 = as many as fit")
    models: dict[str, int] = _f({}, "extra or overriding model context windows, name -> tokens")


@_helped
class FactsConfig(NamedTuple):
    """Semantic memory: facts and their contradiction rules (docs/facts.md)."""

    default_confidence: float = _f(0.8, "confidence of a fact added without --confidence")
    single_valued: list[str] = _f(
        ["located_on_chromosome", "encoded_by", "has_taxon", "has_ensembl_id", "has_uniprot_id",
         "has_official_symbol", "has_sex", "has_genome_build", "has_molecular_weight"],
        "predicates that take one object: a second object for the same subject is a contradiction")
    opposites: dict[str, str] = _f(
        {"activates": "inhibits", "upregulates": "downregulates", "increases": "decreases",
         "positively_regulates": "negatively_regulates", "promotes": "suppresses",
         "agonist_of": "antagonist_of", "induces": "represses", "sensitises_to": "confers_resistance_to",
         "passed_qc_on": "failed_qc_on", "associated_with": "not_associated_with"},
        "pairs of predicates that contradict each other for the same subject and object")
    transitive: list[str] = _f(["is_a", "part_of", "subclass_of", "located_in"],
                               "predicates `fact verify --hops` may chain (A is_a B, B is_a C: A is_a C)")
    broader: dict[str, str] = _f(
        {"activates": "regulates", "inhibits": "regulates", "upregulates": "regulates",
         "downregulates": "regulates", "positively_regulates": "regulates",
         "negatively_regulates": "regulates", "induces": "regulates", "represses": "regulates"},
        "the predicate hierarchy, narrower -> broader: a fact with a narrower predicate answers "
        "`fact query --predicate` and supports `fact verify` of a broader one (A activates B: A "
        "regulates B); an opposite's narrower predicates oppose too")
    outweigh: float = _f(3.0, "`fact verify`: one side clearly outweighs the other when its evidence "
                         "mass (sum of -ln(1 - confidence) over independent sources) is at least this "
                         "many times the other's; else the claim is contested (docs/facts.md)")


@_helped
class ContextConfig(NamedTuple):
    """One-call planner context: `biocortex context` (docs/agents.md)."""

    budget: int = _f(4000, "default token budget of `context`: working memory, recall and facts together")
    conversation_share: float = _f(0.5, "share of the budget for the compressed conversation (when one is "
                                   "given); what it leaves unused goes to recall")
    recall_share: float = _f(0.5, "share of the budget for recall (past analyses and facts); what it "
                             "leaves unused goes to the conversation. Shares are relative: 1 and 1 = 0.5 and 0.5")
    lessons_share: float = _f(0.25, "at most this share of recall's part goes to promoted lessons that apply "
                              "(printed first); what they leave unused goes to past analyses")


class Config(NamedTuple):
    tokenizer: TokenizerConfig = TokenizerConfig()
    episodic: EpisodicConfig = EpisodicConfig()
    working_memory: WorkingMemoryConfig = WorkingMemoryConfig()
    facts: FactsConfig = FactsConfig()
    context: ContextConfig = ContextConfig()
    extra: "dict[str, Any]" = {}  # sections of later features, kept as given


SECTIONS: dict[str, type] = {
    "tokenizer": TokenizerConfig,
    "episodic": EpisodicConfig,
    "working_memory": WorkingMemoryConfig,
    "facts": FactsConfig,
    "context": ContextConfig,
}


def load_config(root: "str | os.PathLike[str]") -> Config:
    """The vault's config, validated (see the module docstring for the cache)."""
    import zlib

    from biocortex_cli.packed import pack, unpack
    from biocortex_cli.store.files import read_note_text

    text = read_note_text(os.path.join(root, CONFIG_REL), CONFIG_REL)
    key = f"{zlib.crc32(text.encode('utf-8', 'surrogateescape')):08x}-{len(text)}"
    try:
        with open(os.path.join(root, CACHE_REL), "rb") as fh:
            cached = unpack(fh.read())
        if isinstance(cached, dict) and cached.get("key") == key:
            return parse_config(cached["data"])
    except (OSError, ValueError, KeyError):
        pass  # no cache, or one from another file: parse the YAML
    from biocortex_cli.store.notes import load_yaml

    data = load_yaml(text, CONFIG_REL, first_line=1) or {}
    config = parse_config(data)
    if _plain(data):
        import contextlib
        from pathlib import Path

        from biocortex_cli.store.files import atomic_write

        with contextlib.suppress(OSError):  # a read-only vault: parsed again next time
            atomic_write(Path(root, CACHE_REL), pack({"key": key, "data": data}), fsync=False)
    return config


def _plain(value: "Any") -> bool:
    """Whether ``value`` survives a JSON round trip unchanged (YAML can also hold dates, int keys)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def parse_config(data: "Any") -> Config:
    if not isinstance(data, dict):
        raise DataError("config must be a mapping of sections", path=CONFIG_REL, line=1)
    sections: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for name, value in data.items():
        cls = SECTIONS.get(name)
        if cls is None:
            extra[name] = value  # sections of later features, kept as given
            continue
        if not isinstance(value, dict):
            raise DataError(f"section '{name}' must be a mapping", path=CONFIG_REL)
        sections[name] = _section(cls, name, value)
    return Config(**sections, extra=extra)


def _section(cls: type, name: str, values: "dict[str, Any]") -> "Any":
    hints = cls.__annotations__  # objects (see the top), as typing.get_type_hints would give them
    known = HELP[cls]
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise DataError(f"unknown setting {name}.{key}", path=CONFIG_REL,
                            hint=f"known settings of '{name}': {', '.join(sorted(known))}")
        kwargs[key] = _check_type(f"{name}.{key}", hints[key], value)
    if name == "tokenizer" and kwargs.get("encoding", "cl100k_base") != "cl100k_base":
        _check_encoding(kwargs["encoding"])
    return cls(**kwargs)


def _check_encoding(value: str) -> None:
    """An encoding the counter does not know is the config's error, said where it is (not at the first count)."""
    from biocortex_cli.tokens import SUPPORTED_ENCODINGS  # only for a setting that is not the default

    if value not in SUPPORTED_ENCODINGS:
        raise DataError(f"setting tokenizer.encoding must be one of {', '.join(SUPPORTED_ENCODINGS)}, not {value!r}",
                        path=CONFIG_REL, hint="cl100k_base and o200k_base ship with biocortex; nothing is downloaded")


def _check_type(key: str, hint: "Any", value: "Any") -> "Any":
    origin = getattr(hint, "__origin__", None)
    ok: bool
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif hint is str:
        ok = isinstance(value, str)
    elif origin is dict and hint.__args__[1] is str:
        ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        value = {str(k): v for k, v in value.items()} if ok else value
    elif origin is dict:
        ok = isinstance(value, dict) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value.values())
        value = {str(k): v for k, v in value.items()} if ok else value
    elif origin is list:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    else:  # pragma: no cover - every field type is listed above
        ok = True
    if not ok:
        tname = getattr(hint, "__name__", str(hint))
        raise DataError(f"setting {key} must be {tname}, not {value!r}", path=CONFIG_REL,
                        hint="see docs/configuration.md for every setting and its type")
    return value
