"""What the learning loop buys: feedback on one set of questions, then recall of *other* questions.

Issue 13 asks recall to find the past in other words. Shipped vocabulary covers what public
sources know (HGNC, EDAM, a lab list); what only a lab says ("water stress" for drought, "the
child and both parents" for a trio) can only be learned — from feedback, through `vocabulary
suggest` and a person accepting, and through question-dependent utility (docs/learning.md). This
script measures that loop without letting a test question teach itself:

1. The corpus (shared by both sets) is imported into a throwaway vault, as `biocortex eval` does.
2. The *test* questions are recalled with the default gate and scored (NDCG@10 etc.): *before*.
3. Every judged *train* question is recalled through the library API (`api.recall`, top_k and
   budget from the config, as an agent gets it) and answered with `api.feedback`, simulating an
   agent that says which injected memories helped:
   - ``--mode injected`` (the default, conservative): helpful = the injected episodes the train
     set judges relevant (grade >= 2), unhelpful = the injected episodes it judges irrelevant;
     outcome success when something helped. Nothing recall did not show is ever named.
   - ``--mode pointed``: as above, plus the train set's grade-3 episodes recall did not inject
     (a person pointed the agent to the analysis it missed — `feedback` accepts any memory id).
4. The test questions are scored again: *after feedback* (question-dependent utility only).
5. `vocabulary suggest` (``--min-support``, default 2) is run and **every** suggestion accepted
   with `vocabulary accept` (a reviewer who accepts everything: the worst case for noise); the
   test questions are scored a third time: *after feedback and vocabulary*.

Run both directions (train on the paraphrase split, test on the main set, and the reverse): the
two sets share the corpus but not their questions. The test set's qrels are read only to score.

    .venv/bin/python benchmarks/learning.py --train benchmarks/data/biorecall-paraphrase \\
        --test benchmarks/data/biorecall [--mode injected|pointed] [--min-support 2] [--json]

Nothing here is tuned on the test questions; the suggestions accepted are listed with --json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from biocortex_cli.evaluate.dataset import BeirSet, Query, load_beir  # noqa: E402
from biocortex_cli.evaluate.metrics import mean, metric_names, score_query  # noqa: E402

AUTHOR = "biocortex learning benchmark <learning@localhost>"
K = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", type=Path, required=True, help="BEIR set whose questions get feedback")
    parser.add_argument("--test", type=Path, required=True, help="BEIR set whose questions are scored")
    parser.add_argument("--mode", choices=("injected", "pointed"), default="injected")
    parser.add_argument("--min-support", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    parser.add_argument("--keep", type=Path, help="build the vault here (a new folder) and keep it")
    args = parser.parse_args(argv)

    train, test = load_beir(args.train), load_beir(args.test)
    if [d.id for d in train.corpus] != [d.id for d in test.corpus]:
        parser.error("the two sets must share one corpus")
    report = run(train, test, mode=args.mode, min_support=args.min_support, keep=args.keep)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0


def run(train: BeirSet, test: BeirSet, *, mode: str, min_support: int, keep: Path | None = None) -> dict[str, Any]:
    from biocortex_cli.api import recall as api_recall
    from biocortex_cli.api import vocabulary as api_vocabulary
    from biocortex_cli.store.episodes import import_episodes
    from biocortex_cli.store.git import parse_author
    from biocortex_cli.store.vault import Vault, init_vault

    author = parse_author(AUTHOR)
    corpus_id = {d.vault_id: d.id for d in test.corpus}
    vault_id = {d.id: d.vault_id for d in test.corpus}
    with tempfile.TemporaryDirectory(prefix="biocortex-learning-") as tmp:
        root = keep if keep is not None else Path(tmp) / "vault"
        init_vault(root, author=AUTHOR)
        vault = Vault(root.resolve())
        lines = (json.dumps({**d.episode, "id": d.vault_id}, ensure_ascii=False) for d in test.corpus)
        import_episodes(vault, "\n".join(lines), str(test.root / "corpus.jsonl"), author)

        def score(label: str) -> dict[str, Any]:
            return _score(label, Vault(root.resolve()), test, corpus_id)

        stages = [score("before")]
        votes = {"recalls": 0, "helpful": 0, "unhelpful": 0, "pointed": 0}
        for q in train.judged(1):
            grades = train.qrels[q.id]
            result = api_recall.recall(Vault(root.resolve()), query=q.text).result
            shown = [corpus_id[h.id] for h in result.results if h.id in corpus_id]
            helpful = [d for d in shown if grades.get(d, 0) >= 2]
            unhelpful = [d for d in shown if grades.get(d, 0) == 0]
            if mode == "pointed":
                missed = [d for d, g in sorted(grades.items()) if g >= 3 and d not in shown]
                votes["pointed"] += len(missed)
                helpful += missed
            votes["recalls"] += 1
            if not helpful and not unhelpful:
                continue
            votes["helpful"] += len(helpful)
            votes["unhelpful"] += len(unhelpful)
            api_recall.feedback(Vault(root.resolve()), recall_id=result.recall_id,
                         outcome="success" if helpful else "failure",
                         helpful=[vault_id[d] for d in helpful], unhelpful=[vault_id[d] for d in unhelpful],
                         author=author)
        stages.append(score("after feedback"))
        suggest = api_vocabulary.vocabulary_suggest
        suggested = suggest(Vault(root.resolve()), min_support=min_support, limit=0).suggestions
        if suggested:
            api_vocabulary.vocabulary_accept(Vault(root.resolve()), groups=[s.group.text() for s in suggested],
                                  author=author, min_support=min_support)
        stages.append(score("after feedback and vocabulary"))
    return {"train": str(train.root), "test": str(test.root), "mode": mode, "min_support": min_support,
            "feedback": votes, "accepted": [s.as_json() for s in suggested], "stages": stages}


def _score(label: str, vault: Any, test: BeirSet, corpus_id: dict[str, str]) -> dict[str, Any]:
    """The test questions through recall with the config's gate, top_k K, no budget cut (as `eval`)."""
    from biocortex_cli.evaluate.run import UNLIMITED_BUDGET
    from biocortex_cli.index.build import refresh
    from biocortex_cli.index.store import get_meta
    from biocortex_cli.recall.engine import recall
    from biocortex_cli.recall.service import options_from_config
    from biocortex_cli.store.vocabulary import local_vocabulary

    judged: list[Query] = test.judged(1)
    conn, _report = refresh(vault, vault.config.tokenizer.encoding)
    try:
        meta = get_meta(conn)
        vocabulary = local_vocabulary(vault.root)  # as `recall` does (recall/service.py)
        per_query = {}
        for q in judged:
            opts = options_from_config(vault, q.text, top_k=K, budget=UNLIMITED_BUDGET)
            ranked = [corpus_id[h.id] for h in recall(conn, meta, opts, vocabulary).results if h.id in corpus_id]
            per_query[q.id] = score_query(ranked[:K], test.qrels[q.id], K, 1)
    finally:
        conn.close()
    names = metric_names(K)
    groups: dict[str, list[dict[str, float]]] = {}
    for q in judged:
        groups.setdefault(q.category or "(none)", []).append(per_query[q.id])
    return {"label": label, "metrics": {k: round(v, 4) for k, v in mean(list(per_query.values()), names).items()},
            "by_category": {c: round(mean(rows, names)[f"NDCG@{K}"], 4) for c, rows in sorted(groups.items())},
            "per_query": {q: round(m[f"NDCG@{K}"], 4) for q, m in per_query.items()}}


def print_table(report: dict[str, Any]) -> None:
    print(f"train {report['train']} -> test {report['test']} (mode {report['mode']}, "
          f"min support {report['min_support']})")
    v = report["feedback"]
    print(f"feedback: {v['recalls']} recalls, {v['helpful']} helpful and {v['unhelpful']} unhelpful votes"
          + (f" ({v['pointed']} pointed to)" if report["mode"] == "pointed" else ""))
    print(f"accepted {len(report['accepted'])} suggested groups: "
          + "; ".join(" | ".join(s["words"]) for s in report["accepted"][:40])
          + (" …" if len(report["accepted"]) > 40 else ""))
    cats = list(report["stages"][0]["by_category"])
    print(f"{'':32} {'NDCG@10':>8} " + " ".join(f"{c[:10]:>10}" for c in cats))
    for s in report["stages"]:
        print(f"{s['label']:32} {s['metrics'][f'NDCG@{K}']:8.3f} "
              + " ".join(f"{s['by_category'][c]:10.3f}" for c in cats))


if __name__ == "__main__":
    raise SystemExit(main())
