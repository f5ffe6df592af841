"""``biocortex check``: validate every note and report each problem as a value.

One broken note never stops the run: each problem becomes a :class:`VaultProblem` with the
file, the line in the file and a hint, like ``bean-check``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from biocortex_cli.errors import DataError
from biocortex_cli.store.episode import zoneless
from biocortex_cli.store.episodes import FIELD_ORDER, ID_RE, check_fields, likely_field, parse_created
from biocortex_cli.store.files import read_note_text, read_regular
from biocortex_cli.store.git import conflict_markers
from biocortex_cli.store.notes import Note, parse_note, read_note
from biocortex_cli.store.vault import Vault
from biocortex_cli.store.walk import MEMORY_DIRS

if TYPE_CHECKING:
    from biocortex_cli.facts.query import Contest

_LINK = re.compile(r"\[\[([^\]|#^\n]+)(?:[#^][^\]|\n]*)?(?:\|[^\]\n]*)?\]\]")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


@dataclass(frozen=True)
class VaultProblem:
    path: str
    line: int
    message: str
    hint: str = ""
    severity: str = "error"  # or "warning": reported, but the vault still passes

    def __str__(self) -> str:
        kind = "warning: " if self.severity == "warning" else ""
        return f"{self.path}:{self.line}: {kind}{self.message}"

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "severity": self.severity, "message": self.message,
                "hint": self.hint}


@dataclass(frozen=True)
class CheckReport:
    notes: int
    problems: list[VaultProblem]

    @property
    def errors(self) -> list[VaultProblem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_json(self) -> dict[str, object]:
        return {"notes": self.notes, "ok": self.ok, "problems": [p.as_json() for p in self.problems]}


def _problem(exc: DataError, rel: str) -> VaultProblem:
    return VaultProblem(exc.path or rel, exc.line or 1, exc.message, exc.hint or "")


def iter_note_paths(vault: Vault) -> Iterator[str]:
    """Every note and every stray file of the memory folders (store/walk.py says which is which),
    folder by folder, in name order."""
    from biocortex_cli.store.walk import walk

    for folder in walk(vault.root):
        yield from sorted([*folder.notes, *folder.strays])


def _check_episode(note: Note) -> list[VaultProblem]:
    out = [_problem(e, note.rel) for e in check_fields(note.meta, note.rel, 1, note.key_lines)]
    for key in note.meta:  # a misspelt or singular field is kept but never searched: say so
        guess = None if key in FIELD_ORDER else likely_field(str(key))
        if guess is not None:
            out.append(VaultProblem(note.rel, note.line_of(str(key)), f"unknown field {key!r}: did you mean {guess!r}?",
                                    f"rename it to {guess} (recall searches {guess}, not {key})", "warning"))
    return out


def _check_fact(note: Note) -> list[VaultProblem]:
    out = []
    for key in ("subject", "predicate", "object"):
        if not isinstance(note.meta.get(key), str) or not str(note.meta.get(key)).strip():
            out.append(VaultProblem(note.rel, note.line_of(key), f"{key} is required text",
                                    f"write {key}: ..."))
    conf = note.meta.get("confidence")
    if conf is not None and (isinstance(conf, bool) or not isinstance(conf, int | float)
                             or not 0 <= conf <= 1):
        out.append(VaultProblem(note.rel, note.line_of("confidence"),
                                f"confidence must be a number from 0 to 1, not {conf!r}",
                                "write confidence: 0.9"))
    return out


def _check_entity(note: Note) -> list[VaultProblem]:
    aliases = note.meta.get("aliases")
    if aliases is not None and not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
        return [VaultProblem(note.rel, note.line_of("aliases"), "aliases must be a list of names",
                             "write aliases: [TP53, p53]")]
    return []


def _check_lesson(note: Note) -> list[VaultProblem]:
    from biocortex_cli.lessons.notes import lesson_problems

    return [_problem(e, note.rel) for e in lesson_problems(note.meta, note)]


def _check_dataset(note: Note) -> list[VaultProblem]:
    from biocortex_cli.facts.datasets import dataset_problems

    return [_problem(e, note.rel) for e in dataset_problems(note)]


CHECKS: dict[str, Callable[[Note], list[VaultProblem]]] = {
    "episode": _check_episode,
    "fact": _check_fact,
    "entity": _check_entity,
    "lesson": _check_lesson,
    "dataset": _check_dataset,
}


CONFLICT_HINT = ("keep what both sides meant, take out the lines <<<<<<<, ======= and >>>>>>>, "
                 "and commit it (docs/teams.md, 'When sync stops')")


def check_vault(vault: Vault) -> CheckReport:
    problems: list[VaultProblem] = []
    try:  # the config too: a bad setting stops every command that reads it (install trial)
        vault.config  # noqa: B018 - loading is the check
    except DataError as exc:
        from biocortex_cli.store.config import CONFIG_REL

        problems.append(_problem(exc, CONFIG_REL))
    notes: list[Note] = []
    paths = list(iter_note_paths(vault))
    problems.extend(_check_case(paths))
    for rel in paths:
        if not rel.endswith(".md"):
            problems.append(VaultProblem(rel, 1, "not a markdown note",
                                         "keep only .md notes in the memory folders"))
            continue
        markers: list[int] = []
        try:
            text = read_note_text(vault.root / rel, rel)
            markers = conflict_markers(text)
            if markers:  # a conflict solved with plain git and committed as git left it: say that, not YAML
                problems.append(VaultProblem(rel, markers[0], "a git conflict marker (<<<<<<< … >>>>>>>): both "
                                             "versions of the note are still in it, unmerged", CONFLICT_HINT))
            notes.append(parse_note(text, rel))
        except DataError as exc:
            if not markers:
                problems.append(_problem(exc, rel))
    ids: dict[tuple[str, str], str] = {}
    for note in notes:
        kind = note.meta.get("type")
        if kind == "readme":
            continue
        ident = note.meta.get("id")
        if not isinstance(ident, str) or not ID_RE.fullmatch(ident):
            problems.append(VaultProblem(note.rel, note.line_of("id"), f"invalid or missing id {ident!r}",
                                         _id_hint(ident, note.rel, kind)))
        else:
            first = ids.setdefault((str(kind), ident), note.rel)
            if first != note.rel:
                problems.append(VaultProblem(note.rel, note.line_of("id"),
                                             f"duplicate id {ident!r} (also in {first})",
                                             "give one of the two notes a new id"))
            if kind == "episode" and note.rel.rsplit("/", 1)[-1] != f"{ident}.md":
                problems.append(VaultProblem(
                    note.rel, note.line_of("id"), f"the file name is not the id {ident!r} (renamed by hand?)",
                    f"rename the file to {ident}.md: `episode add --id`, `restore` and `feedback --helpful` "
                    "look an episode up by its file name", "warning"))
        if kind not in CHECKS:
            problems.append(VaultProblem(note.rel, note.line_of("type"), f"unknown type {kind!r}",
                                         f"type is one of: {', '.join(CHECKS)}"))
            continue
        try:
            parse_created(note.meta.get("created"), path=note.rel, line=note.line_of("created"))
        except DataError as exc:
            problems.append(_problem(exc, note.rel))
        else:
            problems.extend(_zoneless(note))
        if not note.meta.get("author"):
            problems.append(VaultProblem(note.rel, note.line_of("author") if "author" in note.key_lines else 2,
                                         "author is missing", "write author: Name <email>"))
        problems.extend(CHECKS[str(kind)](note))
    problems.extend(_check_links(vault, notes))
    problems.extend(_check_secrets(notes))
    problems.extend(_check_aliases(notes))
    problems.extend(_check_identifiers(notes))
    problems.extend(_check_feedback(vault))
    problems.extend(_check_vocabulary(vault, notes))
    problems.extend(check_links(vault))
    problems.extend(_check_dataset_files(vault, notes))
    problems.sort(key=lambda p: (p.path, p.line, p.message))
    return CheckReport(notes=len(notes), problems=problems)


#: the tool's own files and folders: a symbolic link there is a problem even if not committed
OWN_PATHS = (".biocortex", ".biocortex/config.yaml", ".biocortex/tmp", ".biocortex/logs", ".biocortex/index.sqlite",
             ".biocortex/write.lock", ".biocortex/sync.lock",
             "AGENTS.md", "Home.md", "vocabulary.md", "templates", *MEMORY_DIRS, "feedback")


def check_links(vault: Vault) -> list[VaultProblem]:
    """Symbolic links git holds in the vault, and any at the tool's own paths. biocortex never
    follows one (a committed ``AGENTS.md -> ~/.ssh/id_rsa`` would put a key into an agent's
    prompt; a committed ``.biocortex/logs -> /elsewhere`` would write outside the vault), and
    ``sync`` refuses to bring one in: each is a problem to remove."""
    from biocortex_cli.store import git

    prefix = vault.root.resolve().relative_to(vault.git_root.resolve()).as_posix()
    listed = git.run(vault.git_root, "ls-files", "-s", "-z", "--", "." if prefix == "." else prefix, check=False)
    found = {}
    for item in listed.split("\0"):
        meta, _tab, name = item.partition("\t")
        if name and meta.startswith("120000 "):
            rel = name if prefix == "." else name.removeprefix(prefix + "/")
            found[rel] = "committed "
    for rel in OWN_PATHS:
        if os.path.islink(vault.root / rel):
            found.setdefault(rel, "")
    out = []
    for rel, committed in sorted(found.items()):
        try:
            target = os.readlink(vault.root / rel)
        except OSError:
            target = "?"
        out.append(VaultProblem(rel, 1, f"{committed}symbolic link (-> {target}): biocortex never follows it",
                                f"replace it by a real file or folder: git rm --cached {rel}, then commit"
                                if committed else f"replace it by a real file or folder: rm {rel}"))
    return out


def _zoneless(note: Note) -> list[VaultProblem]:
    """A warning for a ``created`` with a time and no zone: biocortex reads it as UTC, and
    Obsidian's date-time picker writes the person's local time that way (obsidian trial)."""
    created = note.meta.get("created")
    if not zoneless(created):
        return []
    return [VaultProblem(note.rel, note.line_of("created"), f"created {created} has no time zone: it is read as UTC",
                         "add Z if it is UTC, else its offset (+01:00): Obsidian's date-time picker writes "
                         "local time without one", "warning")]


def _id_hint(ident: object, rel: str, kind: object) -> str:
    """What to write instead of an invalid id: the id (else the file name) spelled in ASCII when
    that makes a valid one (Obsidian's template fills ``id`` with the note's title, and a title may
    have accents or spaces: ``2026-10-03-hépatocytes kupffer`` → ``2026-10-03-hepatocytes-kupffer``)."""
    import unicodedata

    rule = "ids are ASCII letters, digits, '.', '_' or '-' (1-128), starting with a letter or digit"
    base = ident if isinstance(ident, str) and ident.strip() else rel.rsplit("/", 1)[-1].removesuffix(".md")
    plain = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode()
    suggestion = re.sub(r"[^A-Za-z0-9._-]+", "-", plain).strip("-._")[:128].rstrip("-._")
    if not ID_RE.fullmatch(suggestion):
        return rule
    rename = f", and the note renamed {suggestion}.md" if kind == "episode" else ""
    return f"{rule}: e.g. id: {suggestion}{rename}"


def _check_secrets(notes: list[Note]) -> list[VaultProblem]:
    """Credentials and personal data in notes: a write through biocortex refuses them
    (store/secrets.py), a note edited by hand is scanned here. The secret itself is never printed."""
    from biocortex_cli.store.secrets import note_findings

    return [VaultProblem(note.rel, f.line, f"{f.kind} in {'the body' if f.field == 'body' else f'field {f.field!r}'}",
                         "remove it from the note (the rest stays as it is); if it was committed or synced it "
                         "is in git history: revoke or change it")
            for note in notes for f in note_findings(note)]


def _check_case(paths: list[str]) -> list[VaultProblem]:
    """Files whose paths differ only in case (``entities/TOX.md``, ``entities/Tox.md``): one file
    on macOS and Windows, where a clone silently loses one of them."""
    groups: dict[str, list[str]] = {}
    for rel in paths:
        groups.setdefault(rel.casefold(), []).append(rel)
    out = []
    for group in groups.values():
        for rel in group if len(group) > 1 else ():
            others = ", ".join(r for r in group if r != rel)
            out.append(VaultProblem(rel, 1, f"file name differs only in case from {others}: one file on macOS "
                                            "and Windows",
                                    "merge them into one note, or rename one to a distinct name "
                                    "(e.g. 'Tox (mouse).md', keeping 'Tox' in its aliases)"))
    return out


def _check_aliases(notes: list[Note]) -> list[VaultProblem]:
    """A name or alias that two entity notes claim (a hand-made alias loop: TP53 lists MDM2 and
    MDM2 lists TP53): which entity it means is not decidable, so it is a problem to fix. Facts
    resolve a name to the note whose own name it is, never silently to the other."""
    claims: dict[str, dict[str, str]] = {}
    for note in notes:
        if note.meta.get("type") != "entity" or note.meta.get("merged_into"):
            continue  # a merged note's names belong to the note it was merged into
        name = note.meta.get("name")
        own = name if isinstance(name, str) and name.strip() else Path(note.rel).stem
        listed = note.meta.get("aliases")
        for alias in {own, *(a for a in listed if isinstance(a, str))} if isinstance(listed, list) else {own}:
            claims.setdefault(alias.casefold(), {})[note.rel] = own
    out = []
    for key, by in sorted(claims.items()):
        if len(by) < 2 or len({rel.casefold() for rel in by}) == 1:
            continue  # one name, or files differing only in case (_check_case)
        names = ", ".join(f"{own} ({rel})" for rel, own in sorted(by.items()))
        for rel in sorted(by):
            out.append(VaultProblem(rel, 1, f"{key!r} is claimed by {len(by)} entity notes: {names}",
                                    "keep each name in one note: remove it from the aliases of the others"))
    return out


def _check_identifiers(notes: list[Note]) -> list[VaultProblem]:
    """A stable identifier (``HGNC:11998``) that two entity notes carry: one gene, two notes —
    two nodes in the graph, its facts split between them (``p53.md`` beside ``TP53.md``, as facts
    and episodes naming an HGNC alias made them before the facts trial). A warning: ``entity
    merge`` joins them."""
    carried: dict[str, dict[str, tuple[str, int]]] = {}
    for note in notes:
        if note.meta.get("type") != "entity" or note.meta.get("merged_into"):
            continue
        name = note.meta.get("name")
        own = name if isinstance(name, str) and name.strip() else Path(note.rel).stem
        listed = note.meta.get("identifiers")
        for ident in listed if isinstance(listed, list) else []:
            if isinstance(ident, str) and ident.strip():
                carried.setdefault(ident.strip().casefold(), {})[note.rel] = (own, note.line_of("identifiers"))
    out = []
    for _key, by in sorted(carried.items()):
        if len({rel.casefold() for rel in by}) < 2:
            continue
        ident = next(i for n in notes if n.rel in by for i in n.meta.get("identifiers") or []
                     if isinstance(i, str) and i.strip().casefold() == _key)
        owners = sorted(by.items(), key=lambda item: (not _is_symbol(item[1][0]), item[0]))
        keep = owners[0][1][0]
        names = ", ".join(f"{own} ({rel})" for rel, (own, _line) in sorted(by.items()))
        for rel, (own, line) in sorted(by.items()):
            out.append(VaultProblem(
                rel, line, f"{ident} is carried by {len(by)} entity notes: {names}",
                f"one entity, {len(by)} notes: biocortex entity merge {keep} {own}" if own != keep else
                f"one entity, {len(by)} notes: merge the others into {keep} (biocortex entity merge {keep} NAME)",
                "warning"))
    return out


def _is_symbol(name: str) -> bool:
    """Whether ``name`` is the approved symbol of the HGNC gene it names (the note to keep)."""
    from biocortex_cli.bio.vocabulary import genes

    try:
        found, _why = genes(name)
    except (OSError, RuntimeError):
        return False
    return len(found) == 1 and found[0].symbol == name


def _check_vocabulary(vault: Vault, notes: list[Note]) -> list[VaultProblem]:
    """The vocabulary note, with entity notes' names and aliases read from ``notes``."""
    owners: dict[str, str] = {}
    for note in notes:
        if note.meta.get("type") != "entity":
            continue
        name = note.meta.get("name")
        listed = note.meta.get("aliases")
        for alias in (name, *(listed if isinstance(listed, list) else ())):
            if isinstance(alias, str) and alias.strip():
                owners.setdefault(alias.strip().casefold(), note.rel)
        owners.setdefault(Path(note.rel).stem.casefold(), note.rel)
    return check_vocabulary(vault, lambda term: owners.get(term.strip().casefold()))


def check_vocabulary(vault: Vault, owner: Callable[[str], str | None]) -> list[VaultProblem]:
    """The vault's vocabulary note (store/vocabulary.py): its malformed lines, cycles of one-way
    entries, and groups whose terms are separate entity notes (``owner`` names a term's note)."""
    from biocortex_cli.store import vocabulary

    try:
        parsed = vocabulary.read(vault.root)
    except DataError as exc:  # a symbolic link is reported by check_links
        linked = os.path.islink(vault.root / vocabulary.VOCABULARY_REL)
        return [] if linked else [_problem(exc, vocabulary.VOCABULARY_REL)]
    found = [*parsed.problems, *vocabulary.cycles(parsed), *vocabulary.entity_problems(parsed, owner)]
    out = [_problem(exc, vocabulary.VOCABULARY_REL) for exc in found]
    try:  # both sides' groups read as groups: only the markers say the note was committed unmerged
        markers = conflict_markers((read_regular(vault.root / vocabulary.VOCABULARY_REL) or b"").decode("utf-8",
                                                                                                      "replace"))
    except DataError:
        markers = []
    if markers:
        out.append(VaultProblem(vocabulary.VOCABULARY_REL, markers[0], "a git conflict marker (<<<<<<< … >>>>>>>): "
                                "both versions of the vocabulary are still in it, unmerged", CONFLICT_HINT))
    return sorted(out, key=lambda p: (p.line, p.message))


def _check_feedback(vault: Vault) -> list[VaultProblem]:
    """Lines of feedback files that cannot be read (recall ignores them; the others count)."""
    from biocortex_cli.store.feedback import feedback_files, parse_feedback

    out = []
    for rel in feedback_files(vault.root):
        try:
            data = read_regular(vault.root / rel) or b""
        except DataError:
            continue  # a symbolic link: check_links reports it
        _records, bad = parse_feedback(data, rel)
        out += [_problem(exc, rel) for exc in bad]
    return out


def _check_dataset_files(vault: Vault, notes: list[Note]) -> list[VaultProblem]:
    """Registered datasets whose file is missing or changed: answers leave them out until fixed."""
    if not any(n.meta.get("type") == "dataset" and n.rel.startswith("datasets/") for n in notes):
        return []
    from biocortex_cli.facts.datasets_registry import file_problems

    return [_problem(e, e.path or "datasets/") for e in file_problems(vault)]


def fact_contests(vault: Vault, notes: list[Note] | None = None) -> list[Contest]:
    """Open contradictions between current facts, weighed (`check --facts`): information about
    the evidence, not problems of the vault (docs/facts.md)."""
    from biocortex_cli.facts.model import FactRules, fact_from_note
    from biocortex_cli.facts.query import contests

    if notes is None:
        from biocortex_cli.store.walk import note_paths

        notes = []
        for rel in note_paths(vault.root, ("facts",)):
            try:
                notes.append(read_note(vault.root / rel, rel))
            except DataError:
                continue  # `check` reports it
    facts = []
    for note in notes:
        if note.meta.get("type") == "fact":
            try:
                facts.append(fact_from_note(note))
            except DataError:
                continue  # reported by the field checks
    rules = FactRules.from_config(vault)
    from biocortex_cli.store.walk import has_notes

    if has_notes(vault.root, "datasets"):  # the datasets' edges that contradict something (found in SQL)
        from biocortex_cli.facts.datasets_registry import contested_edges

        facts += contested_edges(vault, rules, facts)
    return contests(facts, rules)


def _check_links(vault: Vault, notes: list[Note]) -> list[VaultProblem]:
    targets: set[str] = set()
    for dirpath, dirs, names in os.walk(vault.root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            stem = name[:-3] if name.endswith(".md") else name
            targets.add(stem.casefold())
            rel = f"{vault.rel(Path(dirpath))}/{stem}" if dirpath != str(vault.root) else stem
            targets.add(rel.casefold())
    out = []
    named: dict[str, str] | None = None
    for note in notes:
        body = _CODE.sub(lambda m: "\n" * m.group(0).count("\n"), note.body)
        for match in _LINK.finditer(body):
            target = match.group(1).strip()
            if target.casefold() not in targets and target.removesuffix(".md").casefold() not in targets:
                if named is None:
                    named = _entity_names(notes)
                line = note.body_line + body.count("\n", 0, match.start())
                out.append(VaultProblem(note.rel, line, f"link [[{target}]] points to no note",
                                        _link_hint(target, targets, named)))
    return out


def _entity_names(notes: list[Note]) -> dict[str, str]:
    """Each entity's name and aliases, casefolded -> the file name (stem) of its note."""
    named: dict[str, str] = {}
    for note in notes:
        if note.meta.get("type") == "entity" and note.rel.startswith("entities/"):
            stem = note.rel.removeprefix("entities/").removesuffix(".md")
            for name in [note.meta.get("name"), *(note.meta.get("aliases") or [])]:
                if isinstance(name, str):
                    named.setdefault(name.casefold(), stem)
    return named


def _link_hint(target: str, targets: set[str], named: dict[str, str]) -> str:
    """What to write instead: Obsidian resolves a link by file name only, so a link to an entity's
    real name (``[[GO:0008150]]``, whose file is ``GO_0008150.md``) or to one of its ``aliases``
    (``[[p53]]``) stays unresolved; ``[[GO_0008150|GO:0008150]]`` and ``[[TP53|p53]]`` work."""
    from biocortex_cli.store.entity_notes import file_stem

    stem = named.get(target.casefold())
    if stem is None and file_stem(target).casefold() in targets:
        stem = file_stem(target)
    if stem is not None and stem.casefold() != target.casefold():
        return f"the note is {stem}.md (Obsidian links by file name): write [[{stem}|{target}]]"
    return f"create {file_stem(target)}.md or fix the link"
