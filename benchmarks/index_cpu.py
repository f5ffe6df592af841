"""CPU per note of the episode index: where a rebuild's time goes, on a shared machine too.

Wall time on a machine shared with other jobs says little; CPU time does. This script:

1. rebuilds the episode index of a synthetic vault in this process (``index.build.rebuild``,
   the same function ``index --rebuild`` calls) and reports wall time and the CPU time of this
   process (loading SQLite) and of its worker processes (reading and tokenising notes), from
   ``getrusage``;
2. with ``--stages K``, times each step of indexing one note (``build_row``) over K notes in
   this process with ``time.process_time``.

Run:
    .venv/bin/python benchmarks/index_cpu.py --size 10000 --stages 3000
    .venv/bin/python benchmarks/index_cpu.py --size 100000
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import machine
from synthetic import ensure_vault


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def rebuild_cpu(vault: Path) -> str:
    from biocortex_cli.index.build import rebuild
    from biocortex_cli.store.vault import find_vault

    v = find_vault(str(vault))
    before, started = _cpu(), time.perf_counter()
    report = rebuild(v, v.config.tokenizer.encoding, "benchmark")
    wall = time.perf_counter() - started
    after = _cpu()
    main, workers, n = after[0] - before[0], after[1] - before[1], max(report.total, 1)
    return (f"episode index of {report.total} notes: wall {wall:.1f} s; CPU main {main:.1f} s "
            f"({main / n * 1000:.3f} ms/note), workers {workers:.1f} s ({workers / n * 1000:.3f} ms/note), "
            f"total {(main + workers) / n * 1000:.3f} ms/note")


def stages(vault: Path, k: int) -> str:
    """CPU ms per note of each step of ``build_row``, over the first ``k`` notes."""
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.index import store
    from biocortex_cli.index.build import full_scan
    from biocortex_cli.index.fingerprints import field_fingerprints
    from biocortex_cli.render.blocks import count_sections, episode_sections
    from biocortex_cli.store.episodes import check_fields, episode_from_note
    from biocortex_cli.store.files import read_note_text
    from biocortex_cli.store.notes import parse_note
    from biocortex_cli.tokens import get_counter

    scan = full_scan(vault)
    todo = sorted(scan.files)[:k]
    counter = get_counter("cl100k_base")
    spent: dict[str, float] = {}
    clock = time.process_time

    def tick(step: str, since: float) -> float:
        now = clock()
        spent[step] = spent.get(step, 0.0) + now - since
        return now

    for rel in todo:
        t = clock()
        text = read_note_text(vault / rel, rel)
        t = tick("read", t)
        note = parse_note(text, rel)
        t = tick("frontmatter (YAML)", t)
        check_fields(note.meta, rel, 1, note.key_lines)
        ep = episode_from_note(note)
        t = tick("validate", t)
        fields = [tokenize(ep.task), tokenize(ep.text("plan")), tokenize(ep.text("result"))]
        fields += [tokenize(lesson) for lesson in ep.strings("lessons")]
        t = tick("tokenise", t)
        sections = episode_sections(note.meta, rel)
        t = tick("render sections", t)
        rows = count_sections(sections, counter.encoding, counter.count)
        t = tick("count tokens", t)
        field_fingerprints(fields)
        t = tick("fingerprints", t)
        store.pack_tokens(fields)
        store.pack_sections(rows)
        tick("compress", t)
    n = max(len(todo), 1)
    lines = [f"{step:<20} {secs / n * 1000:.3f} ms" for step, secs in spent.items()]
    return "\n".join([f"per note, CPU, over {len(todo)} notes:", *lines,
                      f"{'sum':<20} {sum(spent.values()) / n * 1000:.3f} ms"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", type=int, default=10000, help="episodes in the synthetic vault")
    parser.add_argument("--stages", type=int, default=0, metavar="K",
                        help="also time each step of indexing a note over K notes")
    args = parser.parse_args()
    vault = ensure_vault(args.size)
    print(f"machine: {machine()}")
    print(rebuild_cpu(vault))
    if args.stages:
        print(stages(vault, args.stages))


if __name__ == "__main__":
    main()
