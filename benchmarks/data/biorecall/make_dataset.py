"""Generate BioRecall: corpus.jsonl, queries.jsonl and qrels.tsv in this folder (see README.md).

    .venv/bin/python benchmarks/data/biorecall/make_dataset.py [OUT_DIR]

Deterministic: the same script writes the same bytes. Episodes are composed from hand-written
building blocks (``blocks.py``): per family of analyses, the datasets it ran on, the methods
(tools with parameters) and the outcomes (results with numbers, lessons; failures say what went
wrong). Numbers in the templates are drawn from hand-set ranges with a seeded generator. Every
question is hand-written with its judgements: patterns over (family, dataset, method, outcome)
that name which episodes answer it (grade 3), are closely related (2) or partially useful (1).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2]))

from blocks import FAMILIES, QUERIES, Family  # noqa: E402

from biocortex_cli.evaluate.dataset import episode_text  # noqa: E402

SEED = "biorecall-v1"
START = dt.datetime(2024, 1, 8, tzinfo=dt.timezone.utc)
DAYS = 1026  # up to 2026-10-30
AUTHORS = [
    "Priya Raman <praman@lab.example>", "Mateo Lindqvist <mlindqvist@lab.example>",
    "Amara Nwosu <anwosu@lab.example>", "Jonas Weber <jweber@lab.example>",
    "Hana Sato <hsato@lab.example>", "Lucía Ferreira <lferreira@lab.example>",
    "agent:planner-7 <agents@lab.example>", "agent:analyst-2 <agents@lab.example>",
]
_NUMBER = re.compile(r"\[\[(\w+)(?::(-?[\d.]+)-(-?[\d.]+)(?::(\d))?)?\]\]")


def fill(template: str, slots: dict[str, Any], numbers: dict[str, str], rng: random.Random) -> str:
    """``{slot}`` from the dataset and method; ``[[name:lo-hi(:decimals)]]`` a drawn number,
    ``[[name]]`` the same number again."""

    def number(m: re.Match[str]) -> str:
        name, lo, hi, decimals = m.groups()
        if lo is None:
            return numbers[name]
        if decimals is None:
            value = rng.randint(int(lo), int(hi))
            text = f"{value:,}" if value >= 10000 else str(value)
        else:
            text = f"{rng.uniform(float(lo), float(hi)):.{int(decimals)}f}"
        numbers[name] = text
        return text

    return _NUMBER.sub(number, template).format_map(slots)


def episode(fam: Family, index: int, spec: str) -> tuple[dict[str, Any], dict[str, str]]:
    data_key, method_key, outcome_key = spec.split(":")
    data, method, outcome = fam.data[data_key], fam.methods[method_key], fam.outcomes[outcome_key]
    rng = random.Random(f"{SEED}/{fam.key}/{index}")
    slots = {"data": data.name, "short": data.short, "tool": method.tools[0], **data.slots, **method.slots}
    numbers: dict[str, str] = {}
    task = fill(fam.tasks[index % len(fam.tasks)], slots, numbers, rng)
    plan = fill(method.plan, slots, numbers, rng)
    result = fill(outcome.result, slots, numbers, rng)
    lessons = [fill(x, slots, numbers, rng) for x in (*outcome.lessons, *method.lessons[:1])]
    entities: list[str] = []
    for name in (*data.entities, *method.entities, *outcome.entities):
        if name not in entities:
            entities.append(name)
    lo, hi = outcome.quality or ((0.65, 0.95) if outcome.success else (0.15, 0.5))
    created = START + dt.timedelta(days=rng.randrange(DAYS), hours=rng.randint(8, 19), minutes=rng.randrange(60))
    ident = f"{fam.key}-{index + 1:02d}"
    record: dict[str, Any] = {
        "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"), "author": rng.choice(AUTHORS), "task": task,
        "plan": plan, "tools": list(dict.fromkeys((*method.tools, *outcome.tools))),
        "domains": list(fam.domains), "result": result, "success": outcome.success,
        "quality": round(rng.uniform(lo, hi), 2), "lessons": list(dict.fromkeys(lessons)),
        "entities": entities,
        "provenance": {"code_commit": hashlib.sha1(ident.encode()).hexdigest()[:7],
                       "notebook": f"notebooks/{fam.key}/{ident}.ipynb"},
    }
    facets = {"family": fam.key, "data": data_key, "method": method_key, "outcome": outcome_key,
              "success": "+" if outcome.success else "-"}
    return {"_id": ident, **record}, facets


def matches(pattern: str, facets: dict[str, str]) -> bool:
    parts = pattern.split(":")
    keys = ("family", "data", "method", "outcome")
    for key, want in zip(keys, parts, strict=False):
        if want == "*":
            continue
        if key == "outcome" and want in "+-":
            if facets["success"] != want:
                return False
            continue
        if facets[key] not in want.split("|"):
            return False
    return True


def main(out: Path = HERE) -> None:
    corpus: list[dict[str, Any]] = []
    facets: dict[str, dict[str, str]] = {}
    for fam in FAMILIES:
        for i, spec in enumerate(fam.episodes):
            record, f = episode(fam, i, spec)
            corpus.append(record)
            facets[record["_id"]] = f
    qrels: list[tuple[str, str, int]] = []
    queries: list[dict[str, Any]] = []
    problems: list[str] = []
    for n, q in enumerate(QUERIES, start=1):
        qid = f"q{n:03d}"
        grades: dict[str, int] = {}
        for grade, patterns in q.judgements.items():
            for pattern in patterns:
                hits = [i for i, f in facets.items() if matches(pattern, f)]
                if not hits:
                    problems.append(f"{qid}: pattern {pattern!r} matches no episode")
                for ident in hits:
                    grades[ident] = max(grades.get(ident, 0), grade)
        if 3 not in grades.values():
            problems.append(f"{qid}: no episode answers it (grade 3)")
        queries.append({"_id": qid, "text": q.text, "metadata": {"category": q.category}})
        qrels += [(qid, ident, g) for ident, g in sorted(grades.items())]
    if problems:
        raise SystemExit("\n".join(problems))
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for record in corpus:
            ident = record.pop("_id")
            meta = {**record}
            line = {"_id": ident, "title": record["task"], "text": episode_text(record), "metadata": meta}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as fh:
        for query in queries:
            fh.write(json.dumps(query, ensure_ascii=False) + "\n")
    with open(out / "qrels.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, ident, grade in qrels:
            fh.write(f"{qid}\t{ident}\t{grade}\n")
    per_query = Counter(q for q, _i, _g in qrels)
    cats = Counter(q["metadata"]["category"] for q in queries)
    fails = sum(1 for r in corpus if not r["success"])
    print(f"{len(corpus)} episodes ({fails} failures, {len(FAMILIES)} families), {len(queries)} queries "
          f"{dict(sorted(cats.items()))}, {len(qrels)} judgements "
          f"(grades {dict(sorted(Counter(g for _q, _i, g in qrels).items()))}; "
          f"per query min {min(per_query.values())}, max {max(per_query.values())})", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
