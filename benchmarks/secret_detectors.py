"""Which secret detector biocortex uses, by measurement (issue 14): the old hand-written list,
Yelp's detect-secrets plugins, and gitleaks' rules (with biocortex's additions and biology
allow-list, ``store/secrets.py``), on the corpus of ``tests/secret_corpus.py``.

For each: shapes found (of the corpus's credential shapes), biology look-alikes refused, secrets
left after redaction, the cost of the first scan in a fresh process (import + rule load), and
scan speed on episode text (examples/sample_episodes.jsonl, decoded values).

Run: .venv/bin/python benchmarks/secret_detectors.py [--old-commit a105e02]
(detect-secrets is not a dependency: ``pip install detect-secrets`` into the venv to include it.)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402
from secret_corpus import LOOKALIKES, SHAPES  # noqa: E402

Spans = Callable[[str], list[tuple[int, int]]]


def _old(commit: str) -> Spans:
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:biocortex_cli/store/secrets.py"],
                         capture_output=True, text=True, check=True).stdout
    module = types.ModuleType("old_secrets")
    sys.modules["old_secrets"] = module
    exec(compile(src, "old_secrets.py", "exec"), module.__dict__)
    return lambda text: [(f.start, f.end) for f in module.scan(text)]


def _detect_secrets() -> Spans | None:
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def spans(text: str) -> list[tuple[int, int]]:
        """What ``detect-secrets scan`` reports for a file holding ``text`` (its file scan, with
        its filters and entropy limits; ``scan_line`` is its ad-hoc mode, which reports every word)."""
        out = []
        lines = text.split("\n")
        starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
        with default_settings():
            for found in _process_line_based_plugins(list(enumerate(lines, start=1)), "note.md"):
                line = lines[found.line_number - 1]
                secret = found.secret_value or ""
                at = line.find(secret) if secret else -1
                base = starts[found.line_number - 1]
                out.append((base + at, base + at + len(secret)) if at >= 0 else (base, base + len(line)))
        return out

    return spans


def _ours(additions: bool = True) -> Spans:
    from biocortex_cli.store import secrets

    rules = secrets._ruleset(additions)
    return lambda text: [(s, e) for s, e, _kind in secrets._spans(text, rules)]


def _leaks(spans: Spans) -> int:
    """Shapes whose secret survives when every span found is cut out."""
    left = 0
    for shape in SHAPES:
        text, pos, kept = shape.text, 0, []
        for start, end in sorted(spans(text)):
            kept.append(text[pos:start])
            pos = max(pos, end)
        kept.append(text[pos:])
        left += shape.needle in "\x00".join(kept)
    return left


def _first_scan_ms(code: str) -> float:
    runs = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); " + code
                              + "; print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
        runs.append(float(out.stdout.strip().splitlines()[-1]) * 1000)
    return statistics.median(runs)


def _speed(spans: Spans, texts: list[str]) -> float:
    size = sum(len(t.encode()) for t in texts)
    started = time.perf_counter()
    for text in texts:
        spans(text)
    return size / 2**20 / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old-commit", default="a105e02", help="a commit with the hand-written list")
    args = ap.parse_args()
    texts = []
    for line in (ROOT / "examples" / "sample_episodes.jsonl").read_text().splitlines():
        record = json.loads(line)
        texts += [v if isinstance(v, str) else json.dumps(v) for v in record.values()]
    candidates: list[tuple[str, Spans | None, str]] = [
        (f"hand-written list ({args.old_commit})", _old(args.old_commit), ""),
        ("detect-secrets (default plugins)", _detect_secrets(),
         "from detect_secrets.core.scan import _process_line_based_plugins as p\n"
         "from detect_secrets.settings import default_settings\n"
         "with default_settings(): list(p([(1, 'password = Hunter2Hunter2')], 'note.md'))"),
        ("gitleaks rules alone", _ours(additions=False), ""),
        ("gitleaks rules + additions (store/secrets.py)", _ours(),
         "from biocortex_cli.store.secrets import scan; scan('password = Hunter2Hunter2')"),
    ]
    print(f"machine: {machine()}")
    print(f"corpus: {len(SHAPES)} secret shapes, {len(LOOKALIKES)} biology look-alikes; "
          f"speed on {len(texts)} values of examples/sample_episodes.jsonl")
    print(f"{'detector':<48} {'found':>7} {'missed':>7} {'refused':>8} {'leak':>5} {'1st scan':>9} {'MB/s':>6}")
    for label, spans, code in candidates:
        if spans is None:
            print(f"{label:<48} (not installed)")
            continue
        found = [s.name for s in SHAPES if spans(s.text)]
        refused = [t for t in LOOKALIKES if spans(t)]
        first = f"{_first_scan_ms(code):7.0f}ms" if code else "      -"
        print(f"{label:<48} {len(found):>7} {len(SHAPES) - len(found):>7} {len(refused):>8} "
              f"{_leaks(spans):>5} {first:>9} {_speed(spans, texts):6.2f}")
        missed = [s.name for s in SHAPES if s.name not in found]
        if missed:
            print(f"    missed: {', '.join(missed)}")
        if refused:
            print(f"    refused: {' | '.join(t[:50] for t in refused)}")


if __name__ == "__main__":
    main()
