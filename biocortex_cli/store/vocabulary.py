"""The vault's own vocabulary: ``vocabulary.md`` at the vault's root (docs/vault-format.md).

A note people read and edit in Obsidian and review as a diff. Every list item is one synonym
group; everything else (headings, prose, HTML comments, code blocks, frontmatter) is left alone::

    - doublet | multiplet                 # the same thing, both ways
    - cardiotoxic | QT prolongation -> hERG   # a question saying one of these also looks for hERG
    - [[KCNH2]] | hERG                    # a wikilink counts as its name

Text after `` # `` is a comment. Each term is one to three words once tokenised (recall matches
uni-, bi- and trigrams). ``recall``, ``context``, the lessons part and ``fact`` names look a
question's words up here first, above the shipped vocabulary (bio/vocabulary.py).

Problems are values (:class:`~biocortex_cli.errors.DataError` with the note's path and line): a
line with one is left out and the rest is used. ``biocortex check`` reports them, with two more
that need the rest of the vault: a group whose terms are two separate entity notes (they must be
merged first: ``biocortex entity merge``), and one-way entries that form a cycle.

Recall never parses the note: it is compiled once per content into a file of the shipped
vocabulary's form, ``.biocortex/tmp/vocabulary-<crc32>-<length>-<tokeniser>.sqlite`` (git-ignored,
derived, rebuilt when missing), and only the question's n-grams are looked up in it
(:func:`local_vocabulary`; docs/performance.md has the cost).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence

from biocortex_cli.errors import DataError
from biocortex_cli.records import NamedTuple  # typing's, without importing typing
from biocortex_cli.store.files import is_file

TYPE_CHECKING = False  # `typing` and `pathlib` are not imported at run time (mypy reads the block)
if TYPE_CHECKING:
    from pathlib import Path

    from biocortex_cli.bio.vocabulary import Local
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

VOCABULARY_REL = "vocabulary.md"
COMPILED_DIR = ".biocortex/tmp"  # git-ignored
COMPILED_NAME = "vocabulary-{key}.sqlite"
EMPTY_NAME = "vocabulary-{key}.empty"  # a note without groups: nothing to open

# patterns, compiled on first use (``re``'s cache): recall imports this module and never parses the note
_ITEM = r"^\s{0,3}[-*+]\s+(?:\[[ xX]\]\s+)?(.*)$"
_COMMENT = r"\s#(?:\s|$)"
_WIKILINK = r"\[\[([^\]|#^\n]+)(?:[#^][^\]|\n]*)?(?:\|([^\]\n]*))?\]\]"
_FENCE = r"^\s{0,3}(```|~~~)"


class Group(NamedTuple):
    """One list item: ``keys`` (every term of a two-way group, or the left side of a one-way
    entry) and ``targets`` (the right side of ``->``; empty for a two-way group), as written."""

    line: int
    keys: tuple[str, ...]
    targets: tuple[str, ...] = ()
    comment: str = ""

    @property
    def terms(self) -> tuple[str, ...]:
        return self.keys + self.targets

    def text(self) -> str:
        """The group as a list item's text (without the ``- ``)."""
        out = " | ".join(self.keys) + (" -> " + " | ".join(self.targets) if self.targets else "")
        return out + (f"  # {self.comment}" if self.comment else "")


class Parsed(NamedTuple):
    groups: tuple[Group, ...]  # the usable ones: a line with a problem is left out
    problems: tuple[DataError, ...]


def parse(text: str, rel: str = VOCABULARY_REL) -> Parsed:
    """The groups of a vocabulary note and the problems of its lines (see the module docstring)."""
    from biocortex_cli.bio.vocabulary import lossy, member_keys

    groups: list[Group] = []
    problems: list[DataError] = []
    for line, item in _items(text):
        item, _sep, comment = _split_comment(item)
        item = re.sub(_WIKILINK, lambda m: (m.group(2) or m.group(1)).strip(), item)
        sides = item.split("->")
        if len(sides) > 2:
            problems.append(DataError("more than one '->' in a group", path=rel, line=line,
                                      hint="write `a | b -> c`: a or b also looks for c"))
            continue
        parts = [[_clean(t) for t in side.split("|")] for side in sides]
        bad = _term_problem([t for side in parts for t in side], member_keys, lossy)
        if bad:
            problems.append(DataError(bad[0], path=rel, line=line, hint=bad[1]))
            continue
        keys, targets = tuple(parts[0]), tuple(parts[1]) if len(parts) == 2 else ()
        if len(keys) + len(targets) < 2:
            problems.append(DataError(f"{keys[0]!r} alone is not a group", path=rel, line=line,
                                      hint="a group has two or more terms: `doublet | multiplet`"))
            continue
        distinct = {member_keys(t)[0] for t in keys + targets}
        if len(distinct) < 2:
            problems.append(DataError(
                f"{' and '.join(repr(t) for t in keys + targets)} are already one term to recall "
                f"({distinct.pop()!r})", path=rel, line=line,
                hint="remove the line: the tokeniser joins them already"))
            continue
        groups.append(Group(line, keys, targets, comment.strip()))
    return Parsed(tuple(groups), tuple(problems))


def cycles(parsed: Parsed, rel: str = VOCABULARY_REL) -> list[DataError]:
    """One-way entries that lead back to where they started (``a -> b`` and ``b -> a``): reported
    at the line that closes the cycle, with the group to write instead. The entries stay in use
    (each is valid alone)."""
    from biocortex_cli.bio.vocabulary import member_keys

    edges: dict[str, list[tuple[str, int]]] = {}
    names: dict[str, str] = {}
    for group in parsed.groups:
        if not group.targets:
            continue
        for key in group.keys:
            k = member_keys(key)[0]
            names.setdefault(k, key)
            for target in group.targets:
                t = member_keys(target)[0]
                names.setdefault(t, target)
                edges.setdefault(k, []).append((t, group.line))
    found: list[DataError] = []
    reported: set[frozenset[str]] = set()
    for start in sorted(edges):
        stack: list[tuple[str, list[tuple[str, int]]]] = [(start, [])]
        while stack:
            node, path = stack.pop()
            for nxt, line in edges.get(node, []):
                step = [*path, (nxt, line)]
                if nxt == start:
                    members = frozenset([start, *(n for n, _l in step)])
                    if members not in reported:
                        reported.add(members)
                        chain = " -> ".join([names[start], *(f"{names[n]} (line {ln})" for n, ln in step)])
                        found.append(DataError(
                            f"one-way entries form a cycle: {chain}", path=rel, line=max(ln for _n, ln in step),
                            hint="write them as one group: " + " | ".join(sorted({names[n] for n in members}))))
                elif nxt not in {n for n, _l in step[:-1]} and nxt != node and len(step) < 8:
                    stack.append((nxt, step))
    return found


def entity_problems(parsed: Parsed, owner: Callable[[str], str | None],
                    rel: str = VOCABULARY_REL) -> list[DataError]:
    """Groups that would make recall treat two separate entity notes as one: ``owner`` names the
    entity note of a term (by its name or an alias), or None."""
    found = []
    for group in parsed.groups:
        reason = _conflict(group.terms, owner)
        if reason:
            found.append(DataError(reason[0], path=rel, line=group.line, hint=reason[1]))
    return found


def read(root: Path) -> Parsed:
    """The vault's vocabulary note, parsed (empty when there is none). Raises DataError when the
    file cannot be read (a link, binary, too large)."""
    from biocortex_cli.store.files import read_note_text

    path = root / VOCABULARY_REL
    if not path.is_file() and not path.is_symlink():
        return Parsed((), ())
    return parse(read_note_text(path, VOCABULARY_REL))


def note_owner(root: Path | str) -> Callable[[str], str | None]:
    """The entity note named like a term (``entities/<name>.md``, the name as written or as the
    extractor normalises it), found by a stat: what recall checks for the few groups a question
    matches. ``check`` also reads the notes' aliases."""
    from biocortex_cli.bio.entities import normalize_entity
    from biocortex_cli.store.entity_notes import entity_rel

    def owner(term: str) -> str | None:
        for name in dict.fromkeys((term, normalize_entity(term))):
            rel = entity_rel(name)
            if is_file(os.path.join(root, rel)):
                return rel
        return None

    return owner


def local_vocabulary(root: Path | str) -> Local | None:
    """The vault's compiled vocabulary for ``bio.vocabulary.expand``, compiled first when the note
    changed (its problems then said once on stderr); None when the vault has none."""
    import zlib

    from biocortex_cli.bio.text import VERSION
    from biocortex_cli.store.files import read_note_text

    note = os.path.join(root, VOCABULARY_REL)  # os.path, not pathlib: recall's path
    if not is_file(note):
        return None
    try:
        text = read_note_text(note, VOCABULARY_REL)
    except DataError:
        return None  # `biocortex check` says why
    data = text.encode("utf-8", "surrogateescape")
    key = f"{zlib.crc32(data):08x}-{len(data)}-{VERSION}"
    folder = os.path.join(root, COMPILED_DIR)
    compiled = os.path.join(folder, COMPILED_NAME.format(key=key))
    if is_file(compiled) and not _sqlite_header(compiled):  # emptied or overwritten: compiled again
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(compiled)
    if not is_file(compiled):
        if is_file(os.path.join(folder, EMPTY_NAME.format(key=key))):
            return None  # the template's note: prose and a commented example, no group
        from pathlib import Path

        made = _compile(Path(root), text, key)
        if made is None:
            return None
        compiled = str(made)
    from biocortex_cli.bio.vocabulary import Local  # only here: `fact verify` on the template's note needs none

    owner = note_owner(root)

    def refuses(terms: Sequence[str]) -> str | None:
        conflict = _conflict(terms, owner)
        return conflict[0] if conflict else None

    return Local(compiled, refuses)


def add_groups(vault: Vault, groups: Sequence[Group], author: Author, message: str) -> str:
    """Append ``groups`` to the vocabulary note (made if missing), in one commit; returns its path.
    Raises DataError, writing nothing, when a group is not one the note accepts."""
    from biocortex_cli.store.files import read_note_text

    for group in groups:
        problems = parse(f"- {group.text()}\n").problems
        if problems:
            raise DataError(problems[0].message, path=VOCABULARY_REL, hint=problems[0].hint)
    path = vault.root / VOCABULARY_REL
    with vault.transaction(message, author) as txn:
        text = read_note_text(path, VOCABULARY_REL) if path.exists() else NEW_NOTE
        if text and not text.endswith("\n"):
            text += "\n"
        txn.write(VOCABULARY_REL, text + "".join(f"- {group.text()}\n" for group in groups))
    return VOCABULARY_REL


def remove_lines(vault: Vault, lines: Iterable[int], author: Author, message: str) -> str:
    """Take the list items on ``lines`` (1-based) out of the vocabulary note, in one commit (git
    keeps them in its history); returns its path."""
    from biocortex_cli.store.files import read_note_text

    gone = set(lines)
    path = vault.root / VOCABULARY_REL
    with vault.transaction(message, author) as txn:
        text = read_note_text(path, VOCABULARY_REL)
        kept = [line for number, line in enumerate(text.split("\n"), start=1) if number not in gone]
        txn.write(VOCABULARY_REL, "\n".join(kept))
    return VOCABULARY_REL


#: A vocabulary note made by ``vocabulary accept`` in a vault that has none (vaults made before
#: the note existed; new vaults get vault_template/vocabulary.md).
NEW_NOTE = """# Vocabulary

The lab's own words for the same thing: one synonym group per list item, `a | b | c` (the same,
both ways) or `a | b -> c` (a question saying a or b also looks for c). See docs/vault-format.md.

"""


# --- internals -----------------------------------------------------------------------------------


def _items(text: str) -> Iterable[tuple[int, str]]:
    """(line number, text) of every list item outside frontmatter, code blocks and HTML comments."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        start = end + 1 if end is not None else 0
    fence = ""
    in_comment = False
    for number in range(start, len(lines)):
        line = lines[number]
        if in_comment:
            if "-->" not in line:
                continue
            line = line.split("-->", 1)[1]
            in_comment = False
        if fence:
            if line.lstrip().startswith(fence):
                fence = ""
            continue
        m = re.match(_FENCE, line)
        if m:
            fence = m.group(1)
            continue
        while "<!--" in line:
            before, after = line.split("<!--", 1)
            if "-->" in after:
                line = before + after.split("-->", 1)[1]
            else:
                line, in_comment = before, True
        item = re.match(_ITEM, line)
        if item and item.group(1).strip():
            yield number + 1, item.group(1)


def _split_comment(item: str) -> tuple[str, str, str]:
    m = re.search(_COMMENT, item)
    return (item[:m.start()], "#", item[m.end():]) if m else (item, "", "")


def _clean(term: str) -> str:
    return term.strip().strip("`").strip()


def _term_problem(terms: list[str], member_keys: Callable[[str], tuple[str, ...]],
                  lossy: Callable[[str], bool]) -> tuple[str, str] | None:
    from biocortex_cli.bio.text import tokenize

    for term in terms:
        if not term:
            return "an empty term (two '|' in a row, or one at an end)", "write `a | b`"
        if not member_keys(term):
            tokens = tokenize(term)
            if not tokens:
                return (f"{term!r} has no word recall searches (only stop words or punctuation)",
                        "use the words a question would contain")
            return (f"{term!r} is {len(tokens)} words once tokenised ({' '.join(tokens)}); recall matches "
                    "phrases of one to three", "shorten it to its three telling words")
        if lossy(term):
            return (f"{term!r} loses a stop word when tokenised (recall reads {member_keys(term)[0]!r})",
                    "leave the term out or reword it: recall drops words such as 'a', 't', 'in'")
    return None


def _conflict(terms: Iterable[str], owner: Callable[[str], str | None]) -> tuple[str, str] | None:
    notes: dict[str, str] = {}
    for term in terms:
        rel = owner(term)
        if rel is not None:
            notes.setdefault(rel, term)
    if len(notes) < 2:
        return None
    (a_rel, a), (b_rel, b) = sorted(notes.items())[:2]
    return (f"{a!r} and {b!r} are separate entities ({a_rel}, {b_rel}): a synonym group would make recall "
            "treat them as one while their facts and episodes stay apart",
            f"merge them first (`biocortex entity merge {a} {b}`: facts and episodes follow, one commit), "
            "or remove the line")


def compiled_files(root: Path | str) -> list[str]:
    """The compiled vocabularies in the vault's ``.biocortex/tmp`` (derived: compiled again when missing)."""
    folder = os.path.join(root, COMPILED_DIR)
    prefix, suffix = COMPILED_NAME.split("{key}")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if n.startswith(prefix) and n.endswith(suffix)]


def forget_compiled() -> None:
    """Close what this process opened of compiled vocabularies (after one was removed as damaged)."""
    from biocortex_cli.bio.vocabulary import _connect_local

    _connect_local.cache_clear()


def _sqlite_header(path: str) -> bool:
    """Whether ``path`` starts as an SQLite file does (16 bytes read): an empty or overwritten
    compiled vocabulary is compiled again rather than opened."""
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _compile(root: Path, text: str, key: str) -> Path | None:
    """Write the compiled form of ``text`` under ``key`` (or, in a vault that cannot be written,
    to the system's temporary folder), remove older ones, and say the note's problems once. None
    (and a marker saying so) when the note has no group."""
    import contextlib
    import tempfile
    from pathlib import Path

    from biocortex_cli.bio.vocabulary import write

    parsed = parse(text)
    problems = [*parsed.problems, *cycles(parsed)]
    if problems:
        first = problems[0]
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        print(f"biocortex: warning: {first.path}:{first.line}: {first.message}{more} "
              "(lines with a problem are not used; run `biocortex check`)", file=sys.stderr)
    rows = []
    for group in parsed.groups:
        role = "key" if group.targets else "both"
        members = [(role, t, _keys(t)) for t in group.keys] + [("target", t, _keys(t)) for t in group.targets]
        rows.append(("vault", f"{VOCABULARY_REL}:{group.line}", members))
    folder = root / COMPILED_DIR
    compiled = folder / (COMPILED_NAME if rows else EMPTY_NAME).format(key=key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if rows:
            write(compiled, rows, {}, {"source": VOCABULARY_REL}, vacuum=False)
        else:
            compiled.touch()
    except OSError:  # a read-only vault: compiled where this user may write, keyed the same way
        if not rows:
            return None
        compiled = Path(tempfile.gettempdir()) / f"biocortex-{os.getuid()}-{compiled.name}"
        if not compiled.is_file():
            write(compiled, rows, {}, {"source": VOCABULARY_REL}, vacuum=False)
        return compiled
    for pattern in (COMPILED_NAME, EMPTY_NAME):
        for old in folder.glob(pattern.format(key="*")):
            if old != compiled:
                with contextlib.suppress(OSError):
                    old.unlink()
    return compiled if rows else None


def _keys(term: str) -> tuple[str, ...]:
    from biocortex_cli.bio.vocabulary import member_keys

    return member_keys(term)
