"""``biocortex vocabulary``: the vault's vocabulary learned from its own evidence, reviewed by people.

:func:`suggest` proposes synonym pairs; nothing is applied until :func:`accept` writes the chosen
ones to ``vocabulary.md`` (one commit); :func:`remove` takes one out again (one commit). Two kinds
of evidence, each counted:

* **feedback**: a recall whose feedback marks a memory *helpful* although that memory lacks some
  of the question's words. Each such word of the question (``rerun``) is paired with each word
  of the helpful episode's task that the question lacks (``redo``): the memory answered the
  question in other words. One helpful *episode* is one unit of support, however many records
  name it: a pair must come back from different memories (one memory's task pairs the missing
  word with all of its words alike).
* **alike episodes**: two episodes that share a tool and at least half of their tools and
  entities (the same analysis, most likely) and whose tasks differ by one or two words on each
  side (the same sentence with words swapped): each word only the first task has is paired with
  each word only the second has. One pair of episodes is one unit.

A pair is suggested when its support reaches ``min_support`` (2: one coincidence is not evidence),
its **association** reaches :data:`MIN_ASSOCIATION` (0.5) — the Dice coefficient of its units of
evidence, ``2 * support / (units(a) + units(b))``, where ``units(w)`` counts the helpful episodes
and alike pairs in whose evidence ``w`` took part (on either side): a word that took part with
many different words (``multiome`` in every helpful multiome episode's task) pairs with anything,
and is nobody's synonym — its two words are not two separate entity notes (``accept`` would refuse
the group: merging entities is ``biocortex entity merge``), and its two words never appear together
in one task (synonyms replace each other; words that
appear together are not alternatives). Pairs the vocabulary already joins (the vault's or the
shipped one) are left out. Words are the index's tokens (stems), shown as the word people wrote
most often. The numbers are deterministic for a vault commit.

Recall's generic words (*use*, *data*, *run*, *new*: recall/signals.py ``GENERIC_WORDS``) are never
part of a pair, and from 20 episodes on neither is a word in more than :data:`MAX_DF` of the tasks.

Of the episodes that list one tool, only the first :data:`MAX_GROUP` by id are paired (a tool every
analysis uses would otherwise mean millions of pairs).
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError, NotFoundError, UsageError
from biocortex_cli.store.vocabulary import VOCABULARY_REL, Group

if TYPE_CHECKING:
    from biocortex_cli.bio.vocabulary import Local
    from biocortex_cli.ops.check import VaultProblem
    from biocortex_cli.store.feedback import FeedbackRecord
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

MIN_SUPPORT = 2
MAX_GROUP = 60  # episodes listing one tool that are paired
ALIKE = 0.5  # share of their tools and entities two alike episodes have in common
MAX_SWAPPED = 2  # words only one of two alike tasks has, at most, on each side
MAX_DF = 0.2  # a word in more tasks than this share is too common to be a synonym of anything
MIN_ASSOCIATION = 0.5  # a pair's evidence, as a share of its words' (Dice): below, one word pairs with anything
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Suggestion:
    words: tuple[str, str]  # as people wrote them: (the question's or first task's, the other)
    keys: tuple[str, str]  # the same as recall's tokens (a phrase: tokens joined by a space)
    feedback: int  # helpful episodes that said words[1] where the question said words[0]
    alike: int  # pairs of alike episodes, one saying words[0], the other words[1]
    evidence: tuple[str, ...]  # recall ids and episode ids (the first few)
    association: float = 1.0  # Dice: 2 * the pair's units / (the units of either word) (module docstring)
    questions: int = 0  # different questions the helpful episodes were named on (one: one coincidence, maybe)

    @property
    def support(self) -> int:
        return self.feedback + self.alike

    @property
    def group(self) -> Group:
        why = []
        if self.feedback:
            why.append(f"{self.feedback} helpful episodes {self.asked()}")
        if self.alike:
            why.append(f"{self.alike} pairs of alike episodes")
        return Group(0, self.words, (), "suggested: " + ", ".join(why))

    def asked(self) -> str:
        """``for 1 question``: how many questions the feedback evidence comes from."""
        return f"for {self.questions} question{'' if self.questions == 1 else 's'}"

    def as_json(self) -> dict[str, Any]:
        return {"group": " | ".join(self.words), "words": list(self.words), "tokens": list(self.keys),
                "support": self.support, "feedback": self.feedback, "questions": self.questions,
                "alike_episodes": self.alike,
                "association": round(self.association, 3), "evidence": list(self.evidence)}


@dataclass(frozen=True)
class SuggestReport:
    suggestions: list[Suggestion]
    episodes: int
    feedback_records: int
    known: int  # pairs with enough support that the vocabulary already joins
    below_support: int  # candidate pairs with less support than asked
    min_support: int = MIN_SUPPORT
    weak: int = 0  # pairs with enough support whose association is below MIN_ASSOCIATION
    separate_entities: int = 0  # pairs that would join two entity notes (`entity merge` does that)
    removed: int = 0  # pairs `vocabulary remove` took out of the note before: a person said no

    def as_json(self) -> dict[str, Any]:
        return {"suggestions": [s.as_json() for s in self.suggestions], "episodes": self.episodes,
                "feedback_records": self.feedback_records, "already_in_vocabulary": self.known,
                "below_support": self.below_support, "weak": self.weak,
                "separate_entities": self.separate_entities, "removed_before": self.removed,
                "min_support": self.min_support}


@dataclass(frozen=True)
class AcceptReport:
    path: str
    accepted: list[Group]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (group, why): already in the note
    commit: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "accepted": [g.text() for g in self.accepted],
                "skipped": [{"group": g, "reason": why} for g, why in self.skipped], "commit": self.commit}


def show(vault: Vault, text: str | None) -> dict[str, Any]:
    """What ``text`` expands to (each synonym with its term, weight, source and group; the terms
    withheld, and why; how many the caps cut); without ``text``, the vault's groups."""
    from biocortex_cli.store.vocabulary import local_vocabulary, read

    if text is None:
        groups = read(vault.root).groups
        return {"path": VOCABULARY_REL, "groups": [{"line": g.line, "group": g.text()} for g in groups]}
    from biocortex_cli.bio.text import tokenize
    from biocortex_cli.bio.vocabulary import expand

    tokens = tokenize(text)
    found = expand(tokens, local=local_vocabulary(vault.root) if vault.config.episodic.vocabulary else None)
    return {"text": text, "tokens": tokens,
            "synonyms": [{"term": e.term, "synonym": e.synonym, "written": e.raw, "weight": e.weight,
                          "source": e.source, "group": e.group} for e in found.expansions],
            "withheld": [{"term": w.term, "reason": w.reason} for w in found.withheld], "dropped": found.dropped}


def suggest(vault: Vault, *, min_support: int = MIN_SUPPORT, limit: int | None = 20) -> SuggestReport:
    """Synonym pairs mined from the vault's feedback and alike episodes (module docstring)."""
    from biocortex_cli.index.build import refresh

    conn, _report = refresh(vault, vault.config.tokenizer.encoding)
    try:
        tasks, attrs = _episodes(conn)
    finally:
        conn.close()
    surface = _Surface()
    sequences = {ident: surface.sequence(task) for ident, task in tasks.items()}
    task_words = {ident: {w for w in seq if w} for ident, seq in sequences.items()}
    in_tasks: dict[str, set[str]] = {}  # word -> the episodes whose task has it
    for ident, words in task_words.items():
        for word in words:
            in_tasks.setdefault(word, set()).add(ident)
    common = {w for w, ids in in_tasks.items() if len(tasks) >= 20 and len(ids) > MAX_DF * len(tasks)}
    from biocortex_cli.recall.signals import generic_terms

    # recall's generic words ("using", "data", "run") are never anyone's synonym, in a vault of any
    # size: below 20 episodes, where no word is too common yet, an agent's "using" paired with any
    # task's word (an agent's trial: ``using | 10x``)
    common |= generic_terms()

    helped: dict[tuple[str, str], set[str]] = {}  # pair -> the helpful episodes that support it
    units: dict[str, set[str]] = {}  # word -> the units of evidence it is part of (either side)
    alike: Counter[tuple[str, str]] = Counter()
    evidence: dict[tuple[str, str], list[str]] = {}
    questions: dict[tuple[str, str], set[frozenset[str]]] = {}  # a pair either way -> the questions behind it
    records = _feedback(vault)
    for record in records:
        asked = {w for w in surface.sequence(record.query) if w}
        for ident in dict.fromkeys(record.helpful):
            if ident not in tasks:
                continue
            lacking = asked - _all_words(task_words[ident], attrs.get(ident))
            for word in (lacking | (task_words[ident] - asked)) - common:
                units.setdefault(word, set()).add(ident)
            for pair in _pairs(lacking, task_words[ident] - asked, common):
                helped.setdefault(pair, set()).add(ident)
                evidence.setdefault(pair, []).append(record.recall_id)
                questions.setdefault((min(pair), max(pair)), set()).add(frozenset(asked))
    feedback = Counter({pair: len(episodes) for pair, episodes in helped.items()})
    for first, second in _alike_pairs(attrs):
        a, b = task_words[first] - common, task_words[second] - common
        if not 0 < len(a - b) <= MAX_SWAPPED or not 0 < len(b - a) <= MAX_SWAPPED:
            continue  # tasks that say different things, not the same thing in other words
        left, right = _runs(sequences[first], a - b), _runs(sequences[second], b - a)
        for word in (left | right) - common:
            units.setdefault(word, set()).add(f"{first}+{second}")
        for pair in _pairs(left, right, common):
            alike[pair] += 1
            evidence.setdefault(pair, []).append(f"{first}+{second}")

    from biocortex_cli.store.vocabulary import local_vocabulary

    local = local_vocabulary(vault.root)
    found: list[Suggestion] = []
    known = below = 0
    for pair in sorted(feedback.keys() | alike.keys()):
        support = feedback[pair] + alike[pair]
        if support < min_support:
            below += 1
            continue
        if _together(pair, in_tasks):
            continue
        if _joined(*pair, local=local):
            known += 1
            continue
        shown = tuple(" ".join(surface.shown(w) for w in side.split(" ")) for side in pair)
        found.append(Suggestion((shown[0], shown[1]), pair, feedback[pair], alike[pair],
                                tuple(dict.fromkeys(evidence[pair]))[:5]))
    found = [replace(s, questions=len(questions.get((min(s.keys), max(s.keys)), ())))
             for s in _one_per_word_pair(found)]
    weak = 0
    strong = []
    for suggestion in found:
        share = min(1.0, 2 * suggestion.support / sum(len(units.get(key, ())) for key in suggestion.keys))
        if share < MIN_ASSOCIATION:
            weak += 1
        else:
            strong.append(replace(suggestion, association=share))
    found = strong
    separate = 0
    if found:
        from biocortex_cli.store.vocabulary import Parsed, entity_problems

        with _entity_owner(vault) as owner:  # what `accept` would refuse is not offered
            offered = [s for s in found if not entity_problems(Parsed((s.group,), ()), owner)]
        separate, found = len(found) - len(offered), offered
    refused = _removed_before(vault)
    offered = [s for s in found if _identity(s.group) not in refused]
    removed, found = len(found) - len(offered), offered
    rarity = {s.keys: sum(len(in_tasks.get(w, ())) for side in s.keys for w in side.split(" ")) for s in found}
    found.sort(key=lambda s: (-s.support, -s.feedback, rarity[s.keys], s.keys))
    return SuggestReport(found[:limit] if limit else found, len(tasks), len(records), known, below, min_support,
                         weak, separate, removed)


def accept(vault: Vault, chosen: Sequence[str], author: Author, *, min_support: int = MIN_SUPPORT) -> AcceptReport:
    """Write ``chosen`` groups to the vocabulary note in one commit: each a group as the note
    writes it (``doublet | multiplet``), or the number of a suggestion (as ``suggest`` with the
    same ``min_support`` lists them). Refused, writing nothing, when a group is malformed or
    joins two separate entity notes."""
    from biocortex_cli.store import vocabulary

    if not chosen:
        raise UsageError("name the groups to accept",
                         hint='e.g. biocortex vocabulary accept "doublet | multiplet", or the numbers of suggestions')
    numbered: list[Suggestion] | None = None
    groups: list[Group] = []
    evidence: dict[tuple[frozenset[str], frozenset[str]], str] = {}  # a suggestion's evidence, for the commit
    for item in chosen:
        if item.strip().isdigit():
            if numbered is None:
                numbered = suggest(vault, min_support=min_support, limit=None).suggestions
            n = int(item)
            if not 1 <= n <= len(numbered):
                raise UsageError(f"there is no suggestion {n} ({len(numbered)} listed)",
                                 hint="run `biocortex vocabulary suggest` to see them")
            chosen_one = numbered[n - 1]
            groups.append(chosen_one.group)
            evidence[_identity(chosen_one.group)] = (f"support {chosen_one.support}, evidence "
                                                     f"{', '.join(chosen_one.evidence)}")
            continue
        parsed = vocabulary.parse(f"- {item}\n")
        if parsed.problems:
            raise DataError(f"{item!r}: {parsed.problems[0].message}", hint=parsed.problems[0].hint)
        groups += [g._replace(comment=g.comment or "accepted") for g in parsed.groups]
    _refuse_entity_merges(vault, groups)
    present = {_identity(g) for g in vocabulary.read(vault.root).groups}
    accepted: list[Group] = []
    skipped: list[tuple[str, str]] = []
    for group in groups:
        if _identity(group) in present:
            skipped.append((group.text(), "already in vocabulary.md"))
            continue
        present.add(_identity(group))
        accepted.append(group)
    if not accepted:
        return AcceptReport(VOCABULARY_REL, [], skipped)
    summary = "; ".join(" | ".join(g.terms) for g in accepted)
    message = f"vocabulary: accept {VOCABULARY_REL} — {summary}"[:200]
    why = [f"- {g.text()}: {evidence[_identity(g)]}" for g in accepted if _identity(g) in evidence]
    vocabulary.add_groups(vault, accepted, author, message + ("\n\n" + "\n".join(why) if why else ""))
    return AcceptReport(VOCABULARY_REL, accepted, skipped, vault.head())


@dataclass(frozen=True)
class RemoveReport:
    path: str
    removed: list[Group]
    commit: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "removed": [{"line": g.line, "group": g.text()} for g in self.removed],
                "commit": self.commit}


def remove(vault: Vault, chosen: Sequence[str], author: Author) -> RemoveReport:
    """Take ``chosen`` groups (as the note writes them, the comment left out; the terms in any
    order) out of the vocabulary note, in one commit: the undo of ``accept``. Refused, writing
    nothing, when one is not in the note."""
    from biocortex_cli.store import vocabulary

    if not chosen:
        raise UsageError("name the groups to remove", hint='e.g. biocortex vocabulary remove "multiplet | seq"')
    present = vocabulary.read(vault.root).groups
    removed: dict[int, Group] = {}
    for item in chosen:
        parsed = vocabulary.parse(f"- {item}\n")
        if parsed.problems:
            raise DataError(f"{item!r}: {parsed.problems[0].message}", hint=parsed.problems[0].hint)
        for group in parsed.groups:
            found = [g for g in present if _identity(g) == _identity(group)]
            if not found:
                raise NotFoundError(f"{group.text()!r} is not a group of {VOCABULARY_REL}", path=VOCABULARY_REL,
                                    hint="`biocortex vocabulary show` lists the groups, with their lines")
            removed.update((g.line, g) for g in found)
    groups = [removed[line] for line in sorted(removed)]
    summary = "; ".join(" | ".join(g.terms) for g in groups)
    vocabulary.remove_lines(vault, sorted(removed), author, f"vocabulary: remove {VOCABULARY_REL} — {summary}"[:200])
    return RemoveReport(VOCABULARY_REL, groups, vault.head())


# --- internals -----------------------------------------------------------------------------------


class _Surface:
    """Words of a text as recall's tokens, each remembered with the written form seen most often."""

    def __init__(self) -> None:
        self.seen: dict[str, Counter[str]] = {}
        self._token: dict[str, str | None] = {}

    def sequence(self, text: str) -> list[str | None]:
        """The text's words as tokens, in order; None for one that is no candidate (a stop word,
        a number, under three letters), which also ends a phrase."""
        from biocortex_cli.bio.text import tokenize

        out: list[str | None] = []
        for raw in _WORD.findall(text):
            if raw not in self._token:
                tokens = tokenize(raw)
                self._token[raw] = tokens[0] if len(tokens) == 1 and _word_like(tokens[0]) else None
            token = self._token[raw]
            if token is not None:
                self.seen.setdefault(token, Counter())[raw if raw.isupper() else raw.lower()] += 1
            out.append(token)
        return out

    def shown(self, token: str) -> str:
        counts = self.seen.get(token)
        return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else token


def _word_like(token: str) -> bool:
    return len(token) >= 3 and any(c.isalpha() for c in token) and not token.isdigit()


def _episodes(conn: sqlite3.Connection) -> tuple[dict[str, str], dict[str, tuple[frozenset[str], frozenset[str]]]]:
    """id -> task, and id -> (tools, entities) of every indexed episode that is not archived."""
    tasks: dict[str, str] = {}
    by_doc: dict[int, str] = {}
    for doc, ident, task in conn.execute("SELECT doc, id, task FROM docs WHERE kind = 'episode' AND NOT archived "
                                         "ORDER BY id"):
        tasks[ident] = task
        by_doc[doc] = ident
    lists: dict[str, tuple[set[str], set[str]]] = {}
    for kind, value, doc in conn.execute("SELECT kind, value, doc FROM attrs WHERE kind IN ('tool', 'entity')"):
        ident = by_doc.get(doc)
        if ident is not None:
            entry = lists.setdefault(ident, (set(), set()))
            entry[0 if kind == "tool" else 1].add(value)
    return tasks, {i: (frozenset(t), frozenset(e)) for i, (t, e) in lists.items()}


def _all_words(words: set[str], lists: tuple[frozenset[str], frozenset[str]] | None) -> set[str]:
    """The task's words and those of its tools and entities."""
    out = set(words)
    for value in (lists[0] | lists[1]) if lists else ():
        out.update(value.split())
    return out


def _runs(sequence: list[str | None], words: set[str]) -> set[str]:
    """``words`` as the phrases they form in ``sequence`` (adjacent ones joined, up to three)."""
    runs: set[str] = set()
    current: list[str] = []
    for token in [*sequence, None]:
        if token is not None and token in words:
            current.append(token)
            continue
        if current:
            if len(current) <= 3:
                runs.add(" ".join(current))
            else:
                runs.update(current)
            current = []
    return runs


def _together(pair: tuple[str, str], in_tasks: dict[str, set[str]]) -> bool:
    """Whether one task holds every word of both sides: then they are not alternatives."""
    words = [w for side in pair for w in side.split(" ")]
    shared = set(in_tasks.get(words[0], set()))
    for word in words[1:]:
        shared &= in_tasks.get(word, set())
    return bool(shared)


def _feedback(vault: Vault) -> list[FeedbackRecord]:
    """Feedback records that count, carry a question and name helpful memories, each once."""
    from biocortex_cli.store.feedback import live, read_feedback

    seen: set[tuple[Any, ...]] = set()
    out = []
    for record in live(read_feedback(vault.root)[0]):  # a retracted vote teaches no word
        if record.query and record.helpful and record.key() not in seen:
            seen.add(record.key())
            out.append(record)
    return out


def _alike_pairs(attrs: dict[str, tuple[frozenset[str], frozenset[str]]]) -> Iterable[tuple[str, str]]:
    """Pairs of alike episodes, by id: they share a tool, and at least half of their tools and
    entities together (Jaccard >= ``ALIKE``)."""
    by_tool: dict[str, list[str]] = {}
    for ident in sorted(attrs):
        for tool in attrs[ident][0]:
            by_tool.setdefault(tool, []).append(ident)
    seen: set[tuple[str, str]] = set()
    for tool in sorted(by_tool):
        members = by_tool[tool][:MAX_GROUP]
        for i, first in enumerate(members):
            for second in members[i + 1:]:
                if (first, second) in seen:
                    continue
                seen.add((first, second))
                a, b = attrs[first][0] | attrs[first][1], attrs[second][0] | attrs[second][1]
                if len(a & b) >= ALIKE * len(a | b):
                    yield first, second


def _pairs(left: set[str], right: set[str], common: set[str]) -> Iterable[tuple[str, str]]:
    for a in sorted(left - common):
        for b in sorted(right - common):
            if a != b:
                yield (a, b)


def _joined(a: str, b: str, *, local: Local | None) -> bool:
    """Whether the vocabulary (the vault's, the shipped one) already expands one to the other."""
    from biocortex_cli.bio.vocabulary import expand

    return (b in expand(a.split(" "), local=local).synonyms
            or a in expand(b.split(" "), local=local).synonyms)


def _one_per_word_pair(found: list[Suggestion]) -> list[Suggestion]:
    """(a, b) and (b, a) are one suggestion: their support and evidence are added."""
    merged: dict[tuple[str, str], Suggestion] = {}
    for s in found:
        key = (min(s.keys), max(s.keys))
        other = merged.get(key)
        if other is None:
            merged[key] = s
        else:
            merged[key] = Suggestion(other.words, other.keys, other.feedback + s.feedback, other.alike + s.alike,
                                     tuple(dict.fromkeys([*other.evidence, *s.evidence]))[:5])
    return list(merged.values())


def check_note(vault: Vault) -> list[VaultProblem]:
    """The vocabulary note's problems alone (``biocortex check`` reports them among the rest)."""
    from biocortex_cli.ops.check import check_vocabulary

    with _entity_owner(vault) as owner:
        return check_vocabulary(vault, owner)


def _refuse_entity_merges(vault: Vault, groups: Sequence[Group]) -> None:
    """DataError for the first group whose terms are two separate entity notes."""
    from biocortex_cli.store.vocabulary import Parsed, entity_problems

    with _entity_owner(vault) as owner:
        for group in groups:
            conflict = entity_problems(Parsed((group,), ()), owner)
            if conflict:
                raise DataError(conflict[0].message, path=VOCABULARY_REL, hint=conflict[0].hint)


@contextlib.contextmanager
def _entity_owner(vault: Vault) -> Iterator[Callable[[str], str | None]]:
    """The entity note a term names (by name or alias, through the index; by the note's file name
    for a term the index does not know), while the index is open."""
    from biocortex_cli.facts.index import open_facts
    from biocortex_cli.store.entity_notes import entity_rel
    from biocortex_cli.store.vocabulary import note_owner

    by_stat = note_owner(vault.root)
    conn, source, _problems = open_facts(vault)
    with contextlib.closing(conn):
        def owner(term: str) -> str | None:
            name = source.alias_owner(term)
            return entity_rel(name) if name is not None else by_stat(term)

        yield owner


def _removed_before(vault: Vault) -> set[tuple[frozenset[str], frozenset[str]]]:
    """The groups ``vocabulary remove`` took out of the note (its commits' removed lines), that
    the note does not hold again: a person's no, which suggest does not ask again."""
    from biocortex_cli.store import git, vocabulary

    prefix = vault.git_prefix()
    rel = VOCABULARY_REL if prefix == "." else f"{prefix}/{VOCABULARY_REL}"
    out = git.run(vault.git_root, "log", "--format=", "-p", "--no-color", "--no-ext-diff", "--no-renames",
                  "--grep", f"^vocabulary: remove {VOCABULARY_REL} ", "--", rel, check=False)
    lines = [line[1:] for line in out.splitlines() if line.startswith("-") and not line.startswith("---")]
    gone = {_identity(g) for g in vocabulary.parse("\n".join(lines)).groups}
    return gone - {_identity(g) for g in vocabulary.read(vault.root).groups}


def _identity(group: Group) -> tuple[frozenset[str], frozenset[str]]:
    from biocortex_cli.bio.vocabulary import member_keys

    def keys(terms: Iterable[str]) -> frozenset[str]:
        return frozenset(k for t in terms for k in member_keys(t)[:1])

    return keys(group.keys), keys(group.targets)
