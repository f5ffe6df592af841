"""Stemmers for recall's tokeniser (issue 13, item 1): speed, what they join, what they damage.

Run: .venv/bin/python benchmarks/stemmers.py   (needs: pip install PyStemmer snowballstemmer)

Compares ``bio.text.stem`` (a light stemmer when this was written; since issue 13 the guarded
Snowball stemmer that recall uses, so today the two mostly agree) with Snowball English (Porter2)
from PyStemmer (C) and from snowballstemmer (pure Python), and PyStemmer's original Porter:

1. import time of each (fresh processes) and time per word, on the BioRecall corpus's words;
2. the inflection sets issue 13 names, and others from analysis notes: joined or not;
3. over the corpus's vocabulary: distinct words vs distinct stems, and examples of words each one
   joins that the other does not;
4. damage if applied blindly: the corpus's entity tokens (identifiers, symbols) and the HGNC
   approved symbols of the shipped vocabulary that a stemmer changes, and pairs of different
   symbols it makes equal.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from biocortex_cli.bio.entities import entity_spans  # noqa: E402
from biocortex_cli.bio.text import QUESTION_WORDS, STOP_WORDS, stem  # noqa: E402
from biocortex_cli.bio.vocabulary import PATH as VOCABULARY  # noqa: E402

CORPUS = ROOT / "benchmarks" / "data" / "biorecall" / "corpus.jsonl"
_WORD = re.compile(r"[^\W_]+")
_DROP = STOP_WORDS | QUESTION_WORDS

SETS = [
    ("resistant", "resistance", "resist", "resistances"),
    ("filter", "filters", "filtering", "filtered"),
    ("normalise", "normalize", "normalised", "normalized", "normalisation", "normalization"),
    ("single", "singles"),
    ("multiplet", "multiplets"),
    ("doublet", "doublets"),
    ("remove", "removed", "removing", "removal"),
    ("align", "aligned", "alignment", "alignments"),
    ("sequence", "sequences", "sequenced", "sequencing"),
    ("cluster", "clusters", "clustered", "clustering"),
    ("annotate", "annotated", "annotation", "annotations"),
    ("integrate", "integrated", "integration"),
    ("inhibit", "inhibitor", "inhibitors", "inhibition"),
    ("cardiotoxic", "cardiotoxicity"),
    ("library", "libraries"),
    ("map", "maps", "mapped", "mapping"),
    ("differential", "differentially", "difference"),
    ("knockout", "knockouts"),
]


def corpus_words() -> tuple[list[str], list[str]]:
    """(plain words as the tokeniser sees them before stemming, entity tokens) of the corpus."""
    words: list[str] = []
    ents: list[str] = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        text = d["title"] + "\n" + d["text"]
        pos = 0
        for e in entity_spans(text):
            words += [w for w in _WORD.findall(text[pos:e.start].lower()) if w not in _DROP]
            ents += e.name.lower().split()
            pos = e.end
        words += [w for w in _WORD.findall(text[pos:].lower()) if w not in _DROP]
    return words, ents


def stemmers() -> dict[str, Callable[[str], str]]:
    out: dict[str, Callable[[str], str]] = {"light (bio.text.stem)": stem}
    try:
        import Stemmer  # PyStemmer

        english = Stemmer.Stemmer("english")
        porter = Stemmer.Stemmer("porter")
        out["PyStemmer english"] = english.stemWord
        out["PyStemmer porter"] = porter.stemWord
    except ImportError:
        print("PyStemmer is not installed: pip install PyStemmer")
    try:
        import snowballstemmer

        sb = snowballstemmer.stemmer("english")
        out["snowballstemmer english"] = sb.stemWord
    except ImportError:
        print("snowballstemmer is not installed: pip install snowballstemmer")
    return out


def import_ms(statement: str, runs: int = 15) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = f"import time; s = time.perf_counter(); {statement}; print((time.perf_counter() - s) * 1000)"
    samples = [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout) for _ in range(runs)]
    return statistics.median(samples)


def hgnc_symbols() -> list[str]:
    db = sqlite3.connect(f"file:{VOCABULARY}?mode=ro", uri=True)
    rows = db.execute("SELECT members FROM synonym_group WHERE source = 'hgnc'").fetchall()
    db.close()
    return [members.split("\n", 1)[0].split("\t", 1)[0].lstrip("<>") for (members,) in rows]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # no options: --help only
    words, ents = corpus_words()
    vocab = sorted(set(words))
    found = stemmers()
    print(f"corpus: {len(words)} word tokens, {len(vocab)} distinct words; {len(ents)} entity tokens\n")

    print("## import and speed")
    imports = {"light (bio.text.stem)": "from biocortex_cli.bio.text import stem",
               "PyStemmer english": "import Stemmer; Stemmer.Stemmer('english')",
               "PyStemmer porter": "import Stemmer; Stemmer.Stemmer('porter')",
               "snowballstemmer english": "import snowballstemmer; snowballstemmer.stemmer('english')"}
    for name, fn in found.items():
        fn("warm")
        started = time.perf_counter()
        for _ in range(5):
            for w in words:
                fn(w)
        per = (time.perf_counter() - started) / (5 * len(words))
        note = " (the whole tokeniser module, which recall imports anyway)" if name.startswith("light") else ""
        print(f"{name:<26} import {import_ms(imports[name]):5.1f} ms   {per * 1e9:6.0f} ns/word (uncached){note}")
    print()

    print("## inflection sets (one stem = joined)")
    for group in SETS:
        cells = []
        for name, fn in found.items():
            stems = {fn(w) for w in group}
            cells.append(f"{name.split()[0][:9]}:{'JOINED' if len(stems) == 1 else '/'.join(sorted(stems))}")
        print(f"{' '.join(group):<70} " + "  ".join(cells))
    print()

    print("## corpus vocabulary")
    classes: dict[str, dict[str, set[str]]] = {}
    for name, fn in found.items():
        groups: dict[str, set[str]] = defaultdict(set)
        for w in vocab:
            groups[fn(w)].add(w)
        classes[name] = groups
        print(f"{name:<26} {len(groups)} distinct stems for {len(vocab)} words")
    light = {w: stem(w) for w in vocab}
    for name in found:
        if name.startswith("light"):
            continue
        fn = found[name]
        extra = [sorted(g) for g in classes[name].values()
                 if len(g) > 1 and len({light[w] for w in g}) > 1]
        print(f"  joined by {name} but not by bio.text.stem: {len(extra)} groups, e.g. "
              + "; ".join("/".join(g[:4]) for g in extra[:14]))
        lost = [sorted(g) for g in classes["light (bio.text.stem)"].values()
                if len(g) > 1 and len({fn(w) for w in g}) > 1]
        print(f"  joined by bio.text.stem but not by {name}: {len(lost)} groups, e.g. "
              + "; ".join("/".join(g[:4]) for g in lost[:8]))
    print()

    print("## damage if applied to identifiers and symbols")
    symbols = hgnc_symbols()
    distinct_ents = sorted(set(ents))
    for name, fn in found.items():
        changed_ents = [e for e in distinct_ents if fn(e) != e]
        changed_sym = [s for s in symbols if fn(s.lower()) != s.lower()]
        collide: dict[str, set[str]] = defaultdict(set)
        for s in symbols:
            collide[fn(s.lower())].add(s)
        pairs = [sorted(v) for v in collide.values() if len(v) > 1]
        guarded = [s for s in changed_sym if s.isalpha() and len(s) > 4]
        print(f"{name:<26} with today's guards (no digits, more than four letters): {len(guarded)} HGNC "
              f"symbols still changed (e.g. {', '.join(guarded[:8])})")
        print(f"{name:<26} corpus entity tokens changed {len(changed_ents)}/{len(distinct_ents)} "
              f"(e.g. {', '.join(f'{e}->{fn(e)}' for e in changed_ents[:5])}); HGNC symbols changed "
              f"{len(changed_sym)}/{len(symbols)} (e.g. {', '.join(changed_sym[:6])}); "
              f"different symbols made equal: {len(pairs)} (e.g. {'; '.join('/'.join(p) for p in pairs[:5])})")


if __name__ == "__main__":
    main()
