"""What query-side synonyms cost recall (docs/performance.md, docs/vocabulary.md).

Run: .venv/bin/python benchmarks/synonyms.py [--size 10000] [--runs 20]

1. in process, on the cached synthetic vault (benchmarks/synthetic.py): episodic ``search`` of
   recall_ab.py's questions with synonyms on and off (``episodic.vocabulary``), interleaved, so the
   difference is what expansion costs the engine (expand + the synonyms' posting lists);
2. a vault vocabulary of 10,000 lines: compiling it (once per content: parse, tokenise, write),
   then what every later recall pays to find the compiled file (read + CRC of the note, a stat),
   and ``expand`` with it;
3. a fresh process: ``import Stemmer`` (PyStemmer) against a bare interpreter, interleaved.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from common import machine, summary, time_process  # noqa: E402
from recall_ab import QUERIES  # noqa: E402
from synthetic import ensure_vault  # noqa: E402


def engine(size: int, runs: int) -> None:
    from biocortex_cli.index.build import refresh
    from biocortex_cli.index.store import get_meta
    from biocortex_cli.recall.engine import search
    from biocortex_cli.recall.service import options_from_config
    from biocortex_cli.store.vault import Vault

    with tempfile.TemporaryDirectory() as tmp:
        vault_root = Path(tmp) / "vault"
        subprocess.run(["git", "clone", "-q", str(ensure_vault(size, quiet=True)), str(vault_root)], check=True)
        vault = Vault(vault_root)
        conn, _report = refresh(vault, vault.config.tokenizer.encoding)
        meta = get_meta(conn)
        times: dict[bool, list[float]] = {True: [], False: []}
        for query in QUERIES:  # warm: the index pages, the vocabulary file
            for on in (True, False):
                search(conn, meta, options_from_config(vault, query)._replace(vocabulary=on))
        for _ in range(runs):
            for query in QUERIES:
                for on in (True, False):
                    opts = options_from_config(vault, query)._replace(vocabulary=on)
                    started = time.perf_counter()
                    search(conn, meta, opts)
                    times[on].append(time.perf_counter() - started)
        conn.close()
    on_ms, off_ms = statistics.median(times[True]) * 1000, statistics.median(times[False]) * 1000
    print(f"search at {size} episodes, {len(times[True])} calls each: synonyms on median {on_ms:.2f} ms, "
          f"off {off_ms:.2f} ms (+{on_ms - off_ms:.2f} ms)")


def vault_vocabulary(runs: int) -> None:
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.bio.vocabulary import expand
    from biocortex_cli.store.vocabulary import VOCABULARY_REL, local_vocabulary

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".biocortex").mkdir()
        lines = [f"- term{i} word | synonym{i} phrase | other{i}  # entry {i}" for i in range(10_000)]
        note = root / VOCABULARY_REL
        note.write_text("# Vocabulary\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
        started = time.perf_counter()
        local = local_vocabulary(root)
        compile_s = time.perf_counter() - started
        hits: list[float] = []
        expands: list[float] = []
        for _ in range(runs):
            started = time.perf_counter()
            local = local_vocabulary(root)
            hits.append(time.perf_counter() - started)
            tokens = tokenize("term512 word with doublets in single-cell data")
            started = time.perf_counter()
            expand(tokens, local=local)
            expands.append(time.perf_counter() - started)
        size = note.stat().st_size
    print(f"vault vocabulary of 10,000 lines ({size / 1e3:.0f} kB): compile {compile_s * 1000:.0f} ms once; "
          f"then each recall: find the compiled file {statistics.median(hits) * 1000:.2f} ms, "
          f"expand {statistics.median(expands) * 1000:.2f} ms (medians of {runs})")


def stemmer_import(runs: int) -> None:
    bare: list[float] = []
    loaded: list[float] = []
    for _ in range(runs):
        bare += time_process([sys.executable, "-c", "pass"], 1, warmup=0)
        loaded += time_process([sys.executable, "-c", "import Stemmer; Stemmer.Stemmer('english')"], 1, warmup=0)
    diffs = sorted(b - a for a, b in zip(bare, loaded, strict=True))
    print(f"process, bare              {summary(bare)}")
    print(f"process, import Stemmer    {summary(loaded)}")
    print(f"  paired difference: median {statistics.median(diffs) * 1000:.2f} ms; "
          f"difference of minima {(min(loaded) - min(bare)) * 1000:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    engine(args.size, args.runs)
    vault_vocabulary(args.runs)
    stemmer_import(args.runs)


if __name__ == "__main__":
    main()
