"""What `recall` imports: the modules that cost its start-up most stay off its path (issue 16,
item 8; docs/architecture.md "Start-up", figures in docs/performance.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from hypothesis import given, settings
from hypothesis import strategies as st

PACKAGE = Path(__file__).resolve().parents[1] / "biocortex_cli"

#: dataclasses (with inspect, ast, dis, tokenize: ~43 M instructions, and ~3.5 M per class
#: defined) and the feedback records (~12 M); subprocess (~17 M), imported only when git must
#: run: the check for hand edits stats the notes of a small index itself (index/build.py
#: ``edited_in_place``), and a large one asks git only when the check is due.
#: signal: its enums are made at import (~3.4 M); cli/errors.py installs the handlers through
#: ``_signal`` and imports ``signal`` only to name the one that stopped a command.
OFF_RECALL_PATH = ("dataclasses", "inspect", "ast", "subprocess", "biocortex_cli.store.feedback", "signal")
#: Our modules on recall's path that still import ``typing`` (~16 M instructions) or ``pathlib``
#: (~18 M) at run time: the others import them only for type checking (records are made with
#: records.py's ``NamedTuple``; paths are str, os.path). Once none is left, the module itself is
#: off the path (docs/performance.md, "Fifth round").
STILL_IMPORTING = {
    "typing": set(),
    "pathlib": set(),
}
#: and on `fact verify` / `fact query`'s path (docs/performance.md, "Fourth round"); yaml: the
#: notes' parser, not needed while the fact index is fresh; bio/vocabulary.py: the synonyms'
#: records, not needed while the vault's vocabulary note has no group (the template's)
OFF_FACTS_PATH = ("dataclasses", "inspect", "ast", "subprocess", "yaml", "biocortex_cli.store.feedback",
                  "biocortex_cli.tokens", "biocortex_cli.bio.vocabulary")

_IMPORTED = """
import io, sys
from biocortex_cli.cli.main import main
out, sys.stdout = sys.stdout, io.StringIO()
code = main(sys.argv[1:])
sys.stdout = out
print(code, " ".join(sorted(sys.modules)))
"""


def _recall_modules(*argv: str) -> tuple[str, set[str]]:
    proc = subprocess.run([sys.executable, "-c", _IMPORTED, *argv], capture_output=True, text=True, check=True)
    code, _, modules = proc.stdout.strip().partition(" ")
    return code, set(modules.split())


def test_recall_imports_no_dataclasses_or_feedback_records(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "Doublet detection in 10x multiome with scDblFinder",
               "--tool", "scDblFinder", "--entity", "TP53", "--id", "doublets").code == 0
    assert cli("recall", "doublets").code == 0  # the index is fresh from here on
    for query in ("doublet detection in 10x multiome", "TP53 rs12345 GO:0008150 doublets"):
        code, modules = _recall_modules("--vault", str(vault), "recall", query)
        assert code == "0"
        assert "biocortex_cli.recall.engine" in modules
        assert not modules & set(OFF_RECALL_PATH), sorted(modules & set(OFF_RECALL_PATH))


def _run_time_imports(module: str) -> set[str]:
    """The top-level packages ``module`` imports when it is imported: its module-level import
    statements, but not those under ``if TYPE_CHECKING:`` nor inside functions."""
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
            elif isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                    visit(part)
            elif isinstance(node, ast.ClassDef):
                visit(node.body)

    source = PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")
    if not source.exists():
        source = source.with_suffix("") / "__init__.py"
    visit(ast.parse(source.read_text(encoding="utf-8")).body)
    return found


def test_recall_imports_typing_and_pathlib_only_where_they_still_must(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "Doublet detection in 10x multiome with scDblFinder",
               "--tool", "scDblFinder", "--entity", "TP53", "--id", "doublets").code == 0
    assert cli("recall", "doublets").code == 0
    code, modules = _recall_modules("--vault", str(vault), "recall", "doublet detection in 10x multiome")
    assert code == "0"
    ours = {m for m in modules if m.startswith("biocortex_cli")}
    assert "biocortex_cli.records" in ours
    for name, allowed in STILL_IMPORTING.items():
        importers = {m for m in ours if name in _run_time_imports(m)}
        assert importers <= allowed, (name, sorted(importers - allowed))
        if not importers:
            assert name not in modules, name


def test_records_named_tuple_is_typings() -> None:
    from biocortex_cli.records import NamedTuple

    def made(base: Any) -> Any:
        class Hit(base):  # type: ignore[misc]
            """A hit."""

            rel: str
            score: float = 0.0
            terms: tuple[str, ...] = ()

            def double(self) -> float:
                return 2 * self.score

        return Hit

    ours, theirs = made(NamedTuple), made(typing.NamedTuple)
    assert ours.__mro__[1:] == theirs.__mro__[1:] == (tuple, object)
    for attr in ("__name__", "__qualname__", "__module__", "__doc__", "_fields", "_field_defaults", "__match_args__"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert list(ours.__annotations__) == list(theirs.__annotations__)  # as written here (typing: ForwardRefs)
    a, b = ours("x", 0.5), theirs("x", 0.5)
    assert a == b == ("x", 0.5, ())
    assert repr(a) == repr(b) == "Hit(rel='x', score=0.5, terms=())"
    assert a._replace(score=1.0).double() == b._replace(score=1.0).double() == 2.0
    assert a._asdict() == b._asdict() and ours._make(["y", 1.0, ()]) == theirs._make(["y", 1.0, ()])
    assert ours._field_defaults == theirs._field_defaults == {"score": 0.0, "terms": ()}
    # made as typing's is made, argument by argument: positional, keywords, defaults, and the errors
    for args, kwargs in ((("x",), {}), (("x", 2.0), {"terms": ("a",)}), ((), {"rel": "y"}),
                         ((), {"terms": (), "rel": "z", "score": 3.0}), (("x", 1.0, ("t",)), {})):
        assert ours(*args, **kwargs) == theirs(*args, **kwargs), (args, kwargs)
        assert type(ours(*args, **kwargs)) is ours
    for args, kwargs in (((), {}), (("x",), {"rel": "y"}), (("x",), {"other": 1}), (("x", 1.0, (), 4), {})):
        with pytest.raises(TypeError):
            theirs(*args, **kwargs)
        with pytest.raises(TypeError):
            ours(*args, **kwargs)
    with pytest.raises(ValueError):
        a._replace(other=1)
    with pytest.raises(TypeError):
        ours._make(["y"])
    assert a.rel == a[0] == "x" and ours.rel.__doc__ == theirs.rel.__doc__
    assert not hasattr(a, "__dict__") and hash(a) == hash(("x", 0.5, ()))


def test_records_are_defined_without_compiling_source() -> None:
    """A record's class is made without generated source (collections.namedtuple compiles a
    ``__new__`` for each: ~0.4 M instructions a class on every start), and pickles by name."""
    code = """if True:
        import pickle, sys
        from biocortex_cli.records import NamedTuple
        from biocortex_cli.bio.vocabulary import Expansion
        compiled = []
        sys.addaudithook(lambda event, args: compiled.append(args[1]) if event == "compile" else None)
        class Row(NamedTuple):
            a: int
            b: str = ""
        assert Row(1) == (1, "") and Row(b="x", a=2) == (2, "x")
        expansion = Expansion("term", "synonym", 0.5, "lab", "lab.txt:1")
        assert pickle.loads(pickle.dumps(expansion)) == expansion
        print(compiled)
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def _facts_and_a_dataset(cli: Cli, tmp_path: Path) -> None:
    """Two facts citing PMIDs, contradicting each other, and a registered dataset of three edges."""
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752").code == 0
    assert cli("fact", "add", "TP53", "inhibits", "CDKN1A", "--source", "PMID:1", "--confidence", "0.3").code == 0
    edges = tmp_path / "edges.tsv"
    edges.write_text("MYC\tCDK4\tActivation\t123\nMYC\tTP53\tRepression\t\nMAP100\tBRCA10000\tActivation\t7\n",
                     encoding="utf-8")
    assert cli("dataset", "add", str(edges), "--name", "grn", "--version", "1", "--licence", "CC0", "--no-header",
               "--map", "subject=1", "--map", "object=2", "--map", "predicate=3", "--map", "publications=4",
               "--predicate-map", "Activation=activates", "--predicate-map", "Repression=inhibits").code == 0


def test_fact_verify_and_query_import_no_dataclasses_or_subprocess(vault: Path, cli: Cli, tmp_path: Path) -> None:
    _facts_and_a_dataset(cli, tmp_path)
    assert cli("fact", "query", "TP53").code == 0  # the fact index is fresh from here on
    for argv in (["fact", "verify", "TP53", "activates", "CDKN1A"], ["fact", "verify", "MYC", "activates", "CDK4",
                 "--json"], ["fact", "verify", "MYC", "activates", "TP53"], ["fact", "query", "MYC", "--json"],
                 ["fact", "query", "TP53", "--hops", "2"]):
        code, modules = _recall_modules("--vault", str(vault), *argv)
        assert code in ("0", "5", "6"), argv  # supported, contested, contradicted
        assert "biocortex_cli.facts.query" in modules
        assert not modules & set(OFF_FACTS_PATH), (argv, sorted(modules & set(OFF_FACTS_PATH)))


#: ``re`` (with ``enum``, which it imports: ~15 M instructions) and ``json`` (~6 M): a plain claim
#: needs no pattern, and what verify reads back from its caches and indexes is packed
#: (biocortex_cli/packed.py), not JSON. (The console script pip writes imports ``re`` itself; a
#: host calling ``main()``, the MCP server and ``python -m`` do not.) contextlib (~3 M): the
#: context managers verify's modules define are made on first use (biocortex_cli/lazy.py).
OFF_PLAIN_VERIFY_PATH = ("re", "enum", "json", "contextlib")


def test_verify_of_a_plain_claim_imports_no_re_enum_or_json(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """Facts citing PMIDs and a registered dataset: claims about names memory knows, answered from
    the notes and from the dataset, once every index and cache is fresh. (A name memory does not
    know is looked up in the vocabularies, whose tokenizer is made of patterns.)"""
    _facts_and_a_dataset(cli, tmp_path)
    claims = (["TP53", "activates", "CDKN1A"], ["MAP100", "activates", "BRCA10000"], ["MYC", "inhibits", "TP53"],
              ["MYC", "inhibits", "CDK4"])
    for claim in claims:
        assert cli("fact", "verify", *claim).code in (0, 4, 5, 6)  # indexes and caches fresh from here on
    for claim in claims:
        code, modules = _recall_modules("--vault", str(vault), "fact", "verify", *claim)
        assert code in ("0", "4", "5", "6"), claim
        assert "biocortex_cli.facts.datasets_index" in modules  # the dataset was consulted
        assert not modules & set(OFF_PLAIN_VERIFY_PATH), (claim, sorted(modules & set(OFF_PLAIN_VERIFY_PATH)))


def test_lazy_contextmanager_behaves_as_contextlibs() -> None:
    """biocortex_cli/lazy.py: entered, left, an exception thrown in (handled or not), a second use."""
    from biocortex_cli.lazy import contextmanager

    events: list[str] = []

    @contextmanager
    def guarded(name: str, swallow: bool = False) -> typing.Iterator[str]:
        """Doc."""
        events.append(f"enter {name}")
        try:
            yield name.upper()
        except KeyError:
            events.append("handled")
            if not swallow:
                raise
        finally:
            events.append(f"exit {name}")

    assert (guarded.__name__, guarded.__doc__) == ("guarded", "Doc.")
    with guarded("a") as value:
        assert value == "A"
    with guarded("b", swallow=True):
        raise KeyError("x")
    with pytest.raises(KeyError), guarded("c"):
        raise KeyError("y")
    with pytest.raises(ValueError), guarded("d"):
        raise ValueError("z")
    assert events == ["enter a", "exit a", "enter b", "handled", "exit b", "enter c", "handled", "exit c",
                      "enter d", "exit d"]


_COMPILES = """
import sys
compiled = []
def hook(event, args):
    # builtin compile() of a string: typing.ForwardRef compiles each annotation written as a
    # string (a NamedTuple's fields in a module with `from __future__ import annotations`), and
    # the first compile of a process costs ~10 M instructions. namedtuple's own generated
    # `lambda _cls, ...` (an eval) and source files (no bytecode cache yet) are not that.
    if event == "compile" and isinstance(args[0], (str, bytes)) and not str(args[1]).endswith(".py"):
        text = args[0].decode() if isinstance(args[0], bytes) else args[0]
        if not text.startswith("lambda _cls"):
            compiled.append(text)
sys.addaudithook(hook)
import io
from biocortex_cli.cli.main import main
out, sys.stdout = sys.stdout, io.StringIO()
main(sys.argv[1:])
sys.stdout = out
print(repr(compiled))
"""


def test_recall_and_verify_compile_no_annotation_string(vault: Path, cli: Cli) -> None:
    """No record on the hot paths has a field typed with a string (docs/performance.md, "Fourth
    round"): a module that defines one imports the names its fields need at run time and does
    without ``from __future__ import annotations``."""
    assert cli("episode", "add", "--task", "Doublet detection in 10x multiome with scDblFinder",
               "--tool", "scDblFinder", "--entity", "TP53", "--id", "doublets").code == 0
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752").code == 0
    for argv in (["recall", "doublet detection TP53"], ["recall", "doublets", "--json", "--explain"],
                 ["fact", "verify", "TP53", "activates", "CDKN1A", "--json"], ["fact", "query", "TP53"]):
        assert cli(*argv).code == 0  # indexes fresh
        proc = subprocess.run([sys.executable, "-c", _COMPILES, "--vault", str(vault), *argv], capture_output=True,
                              text=True, check=True)
        assert proc.stdout.strip() == "[]", (argv, proc.stdout)


#: what `episode list`, `episode show` and `log` need not import when the index answers (issue 17:
#: listings in tens of milliseconds at 100k): the note parser and the write path
#: (store/episodes.py, with dataclasses), the date grammar's calendar, typer
OFF_LISTING_PATH = ("dataclasses", "inspect", "calendar", "typer", "biocortex_cli.store.episodes",
                    "biocortex_cli.store.notes")


def test_listings_answered_from_the_index_import_no_note_parser(vault: Path, cli: Cli) -> None:
    assert cli("episode", "add", "--task", "Doublet detection in 10x multiome with scDblFinder",
               "--tool", "scDblFinder", "--id", "doublets").code == 0
    assert cli("episode", "list").code == 0  # the index is fresh from here on
    for argv in (["episode", "list", "--limit", "5"], ["episode", "list", "--tool", "scdblfinder", "--json"],
                 ["episode", "show", "doublets"], ["episode", "show", "doublets", "--json"], ["log"],
                 ["log", "--since", "1d", "--json"]):
        code, modules = _recall_modules("--vault", str(vault), *argv)
        assert code == "0", argv
        assert "biocortex_cli.index.listing" in modules
        assert not modules & set(OFF_LISTING_PATH), (argv, sorted(modules & set(OFF_LISTING_PATH)))


# The outcome patterns are compiled only for a question holding one of their words
# (recall/signals.py _INTENT_WORDS): every answer must be the one the patterns give.
INTENT_QUESTIONS = [
    "doublet detection in 10x multiome", "what went wrong with STAR alignment", "It FAILED twice",
    "pitfalls of Harmony", "problems with batch correction", "broken pipeline", "it didn't work",
    "did not work at all", "doesnt work", "things that go bad", "what worked for doublets",
    "what works well", "successful runs", "succeeded then failed", "best practice for QC",
    "workflow of CellBender", "badge", "fail-safe", "the best", "unsuccessful", "mistake",
]


def test_outcome_intent_matches_the_patterns_it_skips() -> None:
    import re

    from biocortex_cli.recall import signals

    for question in INTENT_QUESTIONS:
        low = question.lower()
        failure = re.search(signals._FAILURE_INTENT, low)
        success = re.search(signals._SUCCESS_INTENT, low)
        expected = False if failure and not success else True if success and not failure else None
        assert signals.outcome_intent(question) is expected, question


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.1, 0.5, 0.5000004, 0.5000011, 0.9999996, 1.0, -0.2, 2.3]),
                          st.floats(0, 1), st.sampled_from([None, 0.2, 0.9])), min_size=0, max_size=40),
       st.integers(1, 12))
def test_best_is_the_head_of_the_full_order(rows: list[tuple[float, float, float | None]], k: int) -> None:
    """recall/engine.py ``_best`` sorts only the rank scores that can reach the top ``k``: the
    same episodes, in the same order, as sorting them all (ties within the 6-place rounding
    broken by coverage, quality, id)."""
    from biocortex_cli.recall.engine import _best, _order

    passing = [(score, doc, {}) for doc, (score, _c, _q) in enumerate(rows)]
    info = {doc: {"coverage": c, "quality": q, "id": f"e{doc:03d}"} for doc, (_s, c, q) in enumerate(rows)}
    assert _best(list(passing), info, k) == sorted(passing, key=_order(info))[:k]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0.01, 5), min_size=0, max_size=6).flatmap(
    lambda ws: st.tuples(st.just(ws), st.integers(0, 2 ** len(ws) - 1),
                         st.lists(st.integers(0, 2 ** len(ws) - 1), max_size=6),
                         st.integers(0, 2 ** 6 - 1))))
def test_an_admitted_mask_holds_a_needed_concept(case: tuple[list[float], int, list[int], int]) -> None:
    """recall/engine.py ``_gate`` scores only the episodes in a posting list of a ``needed``
    concept: every mask the gate admits (an episode's: the union of its fingerprints' masks)
    holds one, so no episode that could pass is skipped."""
    from biocortex_cli.recall.engine import _Concepts

    weights, domains, fp_masks, chosen = case
    mask = 0
    for i, fp_mask in enumerate(fp_masks):
        if chosen >> i & 1:
            mask |= fp_mask
    concepts = _Concepts(tuple(f"c{i}" for i in range(len(weights))), tuple(weights),
                         {fp: m for fp, m in enumerate(fp_masks)}, domains)
    needed = concepts.needed()
    if needed is None:
        assert concepts.admits(mask)
    elif concepts.admits(mask):
        assert mask & needed


def _text_scores_plain(ordered: list[tuple[float, list[int], dict[int, int]]], light: set[int], seeds: set[int],
                       dls: list[int], avg_dl: float, denominator: float,
                       concepts: list[tuple[int, bool] | None] | None, masks: list[int],
                       within: set[int] | None) -> tuple[dict[int, float], dict[int, int]]:
    """recall/signals.py ``text_scores`` as it was written before its lists were added in place:
    one gain per (list, episode), summed in query order, the concepts' sums last."""
    from biocortex_cli.recall.signals import K1, B

    scoring = set(seeds)
    for i, (_w, docs, _tfs) in enumerate(ordered):
        if i not in light:
            scoring.update(docs)
    if within is not None:
        scoring &= within
    sums = dict.fromkeys(scoring, 0.0)
    covered: dict[int, int] = {}
    own: dict[int, dict[int, float]] = {}
    best: dict[int, dict[int, float]] = {}
    k1_1 = K1 + 1
    lengths = {doc: K1 * (1 - B + B * dls[doc] / avg_dl) for doc in scoring}
    at_tf1 = {doc: k1_1 / (1 + part) for doc, part in lengths.items()}
    for i, (w, docs, tfs) in enumerate(ordered):
        concept = concepts[i] if concepts is not None else None
        found = scoring.intersection(docs)
        gains = [(doc, w * (at_tf1[doc] if (tf := tfs.get(doc, 1)) == 1 else tf * k1_1 / (tf + lengths[doc])))
                 for doc in found]
        if concept is None:
            for doc, gain in gains:
                sums[doc] += gain
        elif concept[1]:
            synonym = best.setdefault(concept[0], {})
            for doc, gain in gains:
                synonym[doc] = max(synonym.get(doc, 0.0), gain)
        else:
            mine = own.setdefault(concept[0], {})
            for doc, gain in gains:
                mine[doc] = mine.get(doc, 0.0) + gain
        if masks[i]:
            for doc in found:
                covered[doc] = covered.get(doc, 0) | masks[i]
    for c in sorted(own.keys() | best.keys()):
        mine, synonym = own.get(c, {}), best.get(c, {})
        for doc in mine.keys() | synonym.keys():
            sums[doc] += max(mine.get(doc, 0.0), synonym.get(doc, 0.0))
    return {doc: s / denominator for doc, s in sums.items()}, covered


_LIST = st.tuples(st.floats(0.05, 6), st.sets(st.integers(0, 29), max_size=20),
                  st.dictionaries(st.integers(0, 29), st.integers(2, 9), max_size=6),
                  st.one_of(st.none(), st.tuples(st.integers(0, 2), st.booleans())), st.integers(0, 7))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LIST, max_size=8), st.sets(st.integers(0, 8)), st.sets(st.integers(0, 29), max_size=8),
       st.one_of(st.none(), st.sets(st.integers(0, 29))), st.lists(st.integers(1, 400), min_size=30, max_size=30),
       st.booleans())
def test_text_scores_match_one_gain_per_list(lists: list[Any], light: set[int], seeds: set[int],
                                             within: set[int] | None, dls: list[int], synonyms: bool) -> None:
    """recall/signals.py ``text_scores`` adds a list's gains straight to the sums when the list
    stands for no concept, and takes a concept's first list as its sum: the same scores, to the
    last bit, and the same coverage as one gain per (list, episode) summed in query order."""
    from array import array

    from biocortex_cli.recall.signals import text_scores

    ordered = [(w, sorted(docs), tfs) for w, docs, tfs, _c, _m in lists]
    concepts = [c for _w, _d, _t, c, _m in lists] if synonyms else None
    masks = [m for _w, _d, _t, _c, m in lists]
    expected = _text_scores_plain(ordered, light, seeds, dls, 57.5, 3.25, concepts, masks, within)
    got = text_scores([(w, array("q", docs), tfs) for w, docs, tfs in ordered], light, seeds,
                      store_dls=array("q", dls), avg_dl=57.5, denominator=3.25, concepts=concepts, masks=masks,
                      within=within)
    assert got[0] == expected[0] and got[1] == expected[1]  # floats compared exactly


# --- `fact verify` at 1M edges (issue 15's start-up target; docs/performance.md "Fourth round: verify")

#: the note parser (store/notes.py: a dataset's cached record needs no Note); the entity patterns
#: (a plain symbol is resolved with bio/symbols.py)
#: (pathlib: the vault's folder, its state folder and a dataset's file as str, os.path; ~17 M instructions)
OFF_VERIFY_PATH = ("biocortex_cli.store.notes", "biocortex_cli.bio.entities", "pathlib", "typing")
#: verify's own modules import ``typing`` only for type checking (their records are records.py's
#: NamedTuples; cli/app.py gives the command module typer's ``Annotated``).
VERIFY_MODULES = ("biocortex_cli.facts.", "biocortex_cli.api.facts", "biocortex_cli.bio.symbols",
                  "biocortex_cli.store.vocabulary", "biocortex_cli.cli.fact")

_VERIFY_PATTERNS = """
import re, sys
ours = []
compile_ = re._compile
def counting(pattern, flags):
    if (type(pattern), pattern, flags) not in re._cache:
        caller = sys._getframe(1)
        while caller is not None and caller.f_code.co_filename.endswith(("re/__init__.py", "enum.py")):
            caller = caller.f_back
        where = caller.f_code.co_filename if caller is not None else ""
        if where.endswith(MINE) or "biocortex_cli/facts/" in where:
            ours.append((where.rsplit("biocortex_cli", 1)[1], str(pattern)[:40]))
    return compile_(pattern, flags)
re._compile = counting
MINE = ("bio/entities.py", "store/notes.py", "store/vocabulary.py", "api/facts.py", "cli/fact.py")
import io
from biocortex_cli.cli.main import main
out, sys.stdout = sys.stdout, io.StringIO()
code = main(sys.argv[1:])
sys.stdout = out
print(code)
print(repr(ours))
print(" ".join(sorted(sys.modules)))
"""


def test_verify_of_plain_symbols_compiles_no_pattern_of_its_own(vault: Path, cli: Cli, tmp_path: Path) -> None:
    """A claim about plain symbols, facts citing PMIDs and a registered dataset: its names are
    resolved without a regex (bio/symbols.py ``as_written``), the sources classified without
    one (facts/evidence.py), the dataset's record checked without one, and the note parser is
    not imported. (Patterns of the modules all commands share, compiled at import, are not
    counted here.)"""
    _facts_and_a_dataset(cli, tmp_path)
    for argv in (["fact", "verify", "TP53", "activates", "CDKN1A"], ["fact", "verify", "MAP100", "activates",
                                                                    "BRCA10000"]):
        assert cli(*argv).code == 0  # indexes fresh
        proc = subprocess.run([sys.executable, "-c", _VERIFY_PATTERNS, "--vault", str(vault), *argv],
                              capture_output=True, text=True, check=True)
        code, compiled, modules = proc.stdout.strip().split("\n")
        assert code == "0" and compiled == "[]", (argv, compiled)
        assert not set(modules.split()) & set(OFF_VERIFY_PATH), argv
        ours = {m for m in modules.split() if m.startswith(VERIFY_MODULES)}
        assert "biocortex_cli.facts.query" in ours  # the set is the process's, not empty
        typing_at_run_time = {m for m in ours if any(
            line.startswith(("from typing import", "import typing"))
            for line in Path(__file__).resolve().parents[1].joinpath(*m.split(".")).with_suffix(".py")
            .read_text(encoding="utf-8").splitlines())}
        assert not typing_at_run_time, sorted(typing_at_run_time)


#: names `fact` commands resolve: symbols, ids that are spelled otherwise, lower case, variants
TRICKY_NAMES = [
    "TP53", "MAP100", "BRCA10000", "CDKN1A", "p53", "Tp53", "tp53", " TP53 ", "MAX", "hERG", "Kcnh2", "IL-6",
    "HLA-DRB1", "CD4-CD8", "H3K27ac", "P04637", "P04637-2", "V600E", "p.V600E", "KRAS G12C", "KRAS\tG12C",
    "KRAS  G12C", "BRAF p.V600E", "HGNC:11998", "hgnc:11998", "HGNC_11998", "ENSG00000141510",
    "ensg00000141510.12", "ENSMUSG00000059552", "rs12345", "RS12345", "GSE123456", "gse123456", "SRR1234567",
    "E-MTAB-1234", "CHEMBL25", "chembl25", "R-HSA-123456", "phs000001.v1.p1", "PMID:123", "pmid 123",
    "doi:10.1038/NATURE12373", "10.1038/ABC", "GO:0008150", "go_0008150", "NM_000546.6", "NM_000546.6:c.215C>G",
    "c.1799T>A", "MDR1", "HEK293", "PC1", "CD8A", "S100A8", "", "  ", "TP53 MDM2", "Δ53", "TP５３", "ꞵ2M",
    "MYCN", "NCBITaxon:9606", "UBERON:0002048", "EFO_0000400", "A1", "B1", "SLC0", "DRD2", "ERBB2", "SAMN12345678",
]


def _normalized_by_patterns(name: str) -> str:
    """normalize_entity's answer for a name as a whole, from the patterns alone (the slow path)."""
    from biocortex_cli.bio.entities import extract_entities

    name = name.strip()
    whole = [e for e in extract_entities(name) if e.start == 0 and e.end == len(name)]
    return whole[-1].name if whole else name


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.sampled_from(TRICKY_NAMES),
                 st.text(alphabet="ACDEGHKLMNPRSTVabdegimnprs0123456789:_-. \tſKİı", max_size=14)))
def test_a_plain_symbol_is_normalized_as_the_patterns_would(name: str) -> None:
    """bio/entities.py ``normalize_entity`` answers a plain symbol without a regex
    (bio/symbols.py ``as_written``): the same name the patterns give, for symbols, identifiers, lower case,
    variants after their gene and the letters case-insensitive matching folds (ſ, K, İ)."""
    from biocortex_cli.bio.entities import _ID_PATTERNS, normalize_entity
    from biocortex_cli.bio.symbols import ID_KINDS

    assert normalize_entity(name) == _normalized_by_patterns(name)
    assert set(ID_KINDS) == {kind for kind, _pattern in _ID_PATTERNS}


# facts/evidence.py's classifier before it tried a pattern only where it can match (the reference)
_REFERENCE = {
    "pmid": r"(?i)(?:pmid|pubmed)\s*:?\s*(\d{1,9})",
    "pubmed_url": r"(?i)https?://(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov/pubmed)/(\d{1,9})/?",
    "pmc": r"(?i)(?:pmcid\s*:\s*)?pmc(\d{1,9})", "doi": r"(?i)(?:doi\s*:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)",
    "agent": r"(?i)agent:(\S.*)", "dataset": r"(?i)dataset:([A-Za-z0-9][A-Za-z0-9._-]*)(?:@(\S+))?",
    "url": r"(?i)https?://\S+", "curie": r"([A-Za-z][A-Za-z0-9._-]*):(\S+)", "episode": r"(?i)episode:(\S+)",
}


def _classified_by_patterns(raw: str) -> tuple[str, str, str] | str | None:
    import re

    from biocortex_cli.facts.evidence import PATH_EXTENSIONS

    p = {k: re.compile(v) for k, v in _REFERENCE.items()}
    if raw == "unsourced":
        return (raw, "unsourced", raw)
    m = p["pubmed_url"].fullmatch(raw) or p["pmid"].fullmatch(raw)
    if m:
        return (f"PMID:{int(m.group(1))}", "pmid", f"PMID:{int(m.group(1))}")
    if re.match(r"(?i)(pmid|pubmed)\b", raw):
        return "error"
    m = p["pmc"].fullmatch(raw)
    if m:
        return (f"PMC{int(m.group(1))}", "pmcid", f"PMC{int(m.group(1))}")
    m = p["doi"].fullmatch(raw)
    if m:
        doi = m.group(1).rstrip(".")
        return (f"DOI:{doi}", "doi", f"DOI:{doi.lower()}")
    if re.match(r"(?i)doi\s*:", raw):
        return "error"
    m = p["episode"].fullmatch(raw)
    if m:
        return (m.group(1), "episode", f"episode:{m.group(1)}")
    m = p["agent"].fullmatch(raw)
    if m:
        return (raw, "agent", f"agent:{m.group(1).casefold()}")
    m = p["dataset"].fullmatch(raw)
    if m:
        return (raw, "dataset", f"dataset:{m.group(1).casefold()}")
    if raw.casefold().startswith("dataset:"):
        return "error"
    if p["url"].fullmatch(raw):
        scheme, rest = raw.split("://", 1)
        return (raw, "url", f"{scheme.lower()}://{rest.rstrip('/')}")
    if " " not in raw and not raw.startswith("/") and ".." not in raw.split("/"):
        ext = raw.rsplit(".", 1)[-1].casefold() if "." in raw.rsplit("/", 1)[-1] else ""
        if ("/" in raw and ":" not in raw) or ext in PATH_EXTENSIONS:
            return (raw, "path", f"path:{raw}")
    m = p["curie"].fullmatch(raw)
    if m and not raw[0].isdigit():
        return (raw, "curie", f"{m.group(1).upper()}:{m.group(2)}")
    return None


TRICKY_SOURCES = [
    "PMID:8319905", "PMID:0001", "PMID:1234567890", "PMID:", "PMID:12a", "PMID:１２", "pmid:8319905", "PMID 8319905",
    "pubmed:1", "PubMed 77", "ſmid:1", "pmid", "PMIDx", "https://pubmed.ncbi.nlm.nih.gov/8319905/",
    "HTTP://WWW.NCBI.NLM.NIH.GOV/pubmed/12", "PMC1234567", "pmcid: PMC12", "PMC", "DOI:10.1038/nature12373",
    "doi: 10.1038/x.", "https://doi.org/10.1/x", "https://dx.doi.org/10.1234/abc", "10.1038/nature12373",
    "DOI:abc", "Doi:", "episode:2026-01-01-x", "EPISODE:abc", "agent:Claude", "AGENT:x y", "dataset:trrust@2",
    "DATASET:synth", "dataset:", "dataset:-x", "ꓓataset:x",
    "dataset:a@b@c", "dataset:x@", "dataset:a_b.c-d@2.0", "https://example.org/a/", "http://x", "notebooks/qc.ipynb",
    "qc.py", "GEO:GSE12345", "geo:gse1", "1abc:x", "k:v", "Kelvin:1", "unsourced", "2026-11-10", "free text here",
    "İD:1", "a/b:c", "../x.py", "/abs/path.py", "",
]


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.sampled_from(TRICKY_SOURCES),
                 st.text(alphabet="PMIDpmidCcoODdhtps:/.0123456789 aAgentEeſKkİı@-_x", max_size=16)))
def test_sources_are_classified_as_the_patterns_would(raw: str) -> None:
    """facts/evidence.py ``_classify`` tries a pattern only when the text's first character can
    begin it, and reads ``PMID:<digits>`` without one: the same source, kind and key (or the same
    refusal) as every pattern tried in turn."""
    from biocortex_cli.errors import UsageError
    from biocortex_cli.facts.evidence import _classify

    raw = " ".join(raw.split())
    try:
        found = _classify(raw)
        got: tuple[str, str, str] | str | None = None if found is None else (found.text, found.kind, found.key)
    except UsageError:
        got = "error"
    assert got == _classified_by_patterns(raw)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from(["activates", "is_a", "_x_", "___", "regulates", "Regulates", "failed QC on",
                                  "up-regulates", "a" * 500, "a" * 501, "", " ", "[[x]]", "ﬁnds", "is\u00a0a"]),
                 st.text(alphabet="abz019_-AZ ſ\tK.[]", max_size=12)))
def test_a_predicate_written_as_stored_is_normalized_as_before(value: str) -> None:
    """facts/model.py ``normalize_predicate`` returns a predicate of ``[a-z0-9_]`` as it is: the
    same answer (or the same refusal) as cleaning the text, case-folding it and replacing runs of
    whitespace and hyphens."""
    import re

    from biocortex_cli.errors import UsageError
    from biocortex_cli.facts.model import clean_text, normalize_predicate

    def cleaned(text: str) -> str:
        return re.sub(r"[\s\-]+", "_", clean_text(text, "predicate").casefold()).strip("_") or "_"

    try:
        expected: str | None = cleaned(value)
    except UsageError:
        expected = None
    try:
        got: str | None = normalize_predicate(value)
    except UsageError:
        got = None
    assert got == expected
