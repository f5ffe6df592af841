"""What `recall` imports: the modules that cost its start-up most stay off its path (issue 16,
item 8; docs/architecture.md "Start-up", figures in docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import Cli
from hypothesis import given, settings
from hypothesis import strategies as st

#: dataclasses (with inspect, ast, dis, tokenize: ~43 M instructions, and ~3.5 M per class
#: defined) and the feedback records (~12 M); subprocess (~17 M), imported only when git must
#: run: the check for hand edits stats the notes of a small index itself (index/build.py
#: ``edited_in_place``), and a large one asks git only when the check is due.
OFF_RECALL_PATH = ("dataclasses", "inspect", "ast", "subprocess", "biocortex_cli.store.feedback")
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


def test_fact_verify_and_query_import_no_dataclasses_or_subprocess(vault: Path, cli: Cli, tmp_path: Path) -> None:
    assert cli("fact", "add", "TP53", "activates", "CDKN1A", "--source", "PMID:8242752").code == 0
    assert cli("fact", "add", "TP53", "inhibits", "CDKN1A", "--source", "PMID:1", "--confidence", "0.3").code == 0
    edges = tmp_path / "edges.tsv"
    edges.write_text("MYC\tCDK4\tActivation\t123\nMYC\tTP53\tRepression\t\n", encoding="utf-8")
    assert cli("dataset", "add", str(edges), "--name", "grn", "--version", "1", "--licence", "CC0", "--no-header",
               "--map", "subject=1", "--map", "object=2", "--map", "predicate=3", "--map", "publications=4",
               "--predicate-map", "Activation=activates", "--predicate-map", "Repression=inhibits").code == 0
    assert cli("fact", "query", "TP53").code == 0  # the fact index is fresh from here on
    for argv in (["fact", "verify", "TP53", "activates", "CDKN1A"], ["fact", "verify", "MYC", "activates", "CDK4",
                 "--json"], ["fact", "verify", "MYC", "activates", "TP53"], ["fact", "query", "MYC", "--json"],
                 ["fact", "query", "TP53", "--hops", "2"]):
        code, modules = _recall_modules("--vault", str(vault), *argv)
        assert code in ("0", "5", "6"), argv  # supported, contested, contradicted
        assert "biocortex_cli.facts.query" in modules
        assert not modules & set(OFF_FACTS_PATH), (argv, sorted(modules & set(OFF_FACTS_PATH)))


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
