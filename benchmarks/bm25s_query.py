"""The bm25s baseline as an agent would run it: a fresh process loads a saved index and answers.

Run: .venv/bin/python benchmarks/bm25s_query.py INDEX_DIR "QUERY" [--k 5]
(``benchmarks/recall.py`` builds INDEX_DIR once per vault size and times this whole process.)
Prints the paths of the top hits, best first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("index_dir")
    parser.add_argument("query")
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    import bm25s

    folder = Path(args.index_dir)
    retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
    paths = (folder / "paths.txt").read_text(encoding="utf-8").split("\n")
    tokens = bm25s.tokenize([args.query], stopwords="en", return_ids=False, show_progress=False)
    if not tokens[0]:
        return
    k = min(args.k, len(paths))
    docs, scores = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
    for doc, score in zip(docs[0], scores[0], strict=True):
        if score > 0:
            sys.stdout.write(f"{score:.3f}\t{paths[int(doc)]}\n")


if __name__ == "__main__":
    main()
