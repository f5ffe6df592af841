"""Markdown notes with YAML frontmatter: parse with line numbers, render, edit in place.

Reading splits the frontmatter ourselves and loads it with PyYAML's C safe loader (the loader
python-frontmatter itself uses) because ``frontmatter.parse`` strips the text first and so loses
the file's line numbers, which every error must carry (``path:line``). The safe loader never
constructs Python objects: a ``!!python/object`` tag is a parse error, not code.

New notes are rendered with PyYAML too (fast, and quoting consistent with the loader). Edits of an
existing note go through ruamel.yaml's round-trip mode so key order, comments and unknown keys
survive (:func:`edit_frontmatter`).
"""


import datetime as dt
import re
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from biocortex_cli.errors import DataError
from biocortex_cli.store.files import read_note_text
from biocortex_cli.store.limits import MAX_NOTE_BYTES, MAX_YAML_DEPTH, MAX_YAML_VALUES  # shared with writes


@cache
def _yaml() -> tuple[Any, type, type]:
    """PyYAML and its C safe loader/dumper, imported on first use (start-up stays lean)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml, loader, dumper

_PLAIN = (str, int, float, bool, type(None), dt.date)  # dt.datetime is a dt.date

# patterns compiled on first use (re's cache): ~1 M instructions each, and `fact verify` reads no note
_FENCE = r"(?m)^---[ \t]*$"
_KEY = r"(?m)^([A-Za-z_][\w-]*)[ \t]*:"


class Note(NamedTuple):  # not a frozen dataclass: `dataclasses` costs `fact verify` ~60 M instructions
    """A parsed note. ``key_lines`` maps each top-level frontmatter key to its line in the file."""

    rel: str
    meta: dict[str, Any]
    body: str
    body_line: int
    key_lines: dict[str, int] = {}  # noqa: RUF012 - shared default, never changed in place

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, 1)


def split_frontmatter(text: str, rel: str) -> tuple[str, str, int]:
    """Return (frontmatter text, body, line number where the body starts)."""
    if not text.startswith("---"):
        raise DataError("no YAML frontmatter (the note must start with a '---' line)", path=rel,
                        line=1, hint="start the file with '---', the fields, then '---'")
    first_nl = text.find("\n")
    if first_nl == -1 or text[:first_nl].strip() != "---":
        raise DataError("the first line must be exactly '---'", path=rel, line=1)
    end = re.compile(_FENCE).search(text, first_nl + 1)
    if end is None:
        raise DataError("frontmatter is not closed by a '---' line", path=rel, line=1,
                        hint="add a line '---' after the last field")
    fm = text[first_nl + 1 : end.start()]
    body_start = text.find("\n", end.end())
    body = "" if body_start == -1 else text[body_start + 1 :]
    body_line = text.count("\n", 0, end.end()) + 2
    return fm, body, body_line


def load_yaml(fm: str, rel: str, first_line: int = 2) -> Any:
    """Load YAML safely; errors name the line in the file (``first_line`` is fm's line 1)."""
    yaml, loader, _ = _yaml()
    try:
        data = yaml.load(fm, Loader=loader)
    except RecursionError:
        raise DataError(f"YAML nested more than {MAX_YAML_DEPTH} levels deep", path=rel, line=first_line,
                        hint="notes hold flat fields: lists and mappings a few levels deep") from None
    except (ValueError, OverflowError, TypeError, AttributeError) as exc:
        # a date like 2026-13-45; a "!!timestamp" on text that is no date (AttributeError inside PyYAML)
        raise DataError(f"invalid YAML value: {exc}", path=rel, line=first_line,
                        hint="quote the value to keep it as text: 'value'") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + mark.line if mark is not None else first_line
        problem = exc.problem or "invalid YAML"
        context = exc.context or ""
        if exc.context_mark is not None and ("flow" in context or "quoted" in context):
            # an unclosed [ { or quote: point at where it opened, not where YAML gave up
            problem = f"{context.removeprefix('while parsing ').removeprefix('while scanning ')} " \
                      f"opened here is not closed ({problem} on line {line})"
            line = first_line + exc.context_mark.line
        if isinstance(exc, yaml.constructor.ConstructorError) and "tag" in problem:
            raise DataError(f"YAML tag not allowed: {problem}", path=rel, line=line,
                            hint="remove the '!!' tag; notes hold plain data only") from None
        raise DataError(f"invalid YAML: {problem}", path=rel, line=line,
                        hint="check indentation and quote values containing ':' or '#'") from None
    except yaml.YAMLError as exc:
        raise DataError(f"invalid YAML: {exc}", path=rel, line=first_line) from None
    _check_bounded(data, rel, first_line)
    return data


def _check_bounded(data: Any, rel: str, line: int) -> None:
    """Refuse YAML that is not plain data, or that aliases expand past MAX_YAML_VALUES.

    The loader shares aliased objects, so a "billion laughs" document loads in microseconds; it
    explodes in whoever walks it (here, :func:`_plain`, JSON output). Counting stops at the limit,
    so the walk itself is bounded. ``!!binary``, ``!!set``, ``!!omap`` and the like build bytes,
    sets and tuples: not plain data, refused like any other tag."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > MAX_YAML_VALUES:
            raise DataError(f"YAML expands to more than {MAX_YAML_VALUES} values (aliases '*' repeating anchors '&'?)",
                            path=rel, line=line, hint="write the values out; notes hold small plain data")
        if depth > MAX_YAML_DEPTH:
            raise DataError(f"YAML nested more than {MAX_YAML_DEPTH} levels deep", path=rel, line=line,
                            hint="notes hold flat fields: lists and mappings a few levels deep")
        if isinstance(value, dict):
            stack.extend((k, depth + 1) for k in value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif not isinstance(value, _PLAIN):
            raise DataError(f"YAML tag not allowed: a {type(value).__name__} value "
                            "(from a tag such as !!binary or !!set)",
                            path=rel, line=line, hint="remove the '!!' tag; notes hold plain data only")


_SCALARS = frozenset({str, int, float, bool, type(None)})
_UNFIT = MAX_YAML_VALUES + 1


def _plain_size(value: Any, depth: int = 0) -> int:
    """How many values :func:`_check_bounded` counts in ``value``, or more than MAX_YAML_VALUES
    when it might refuse it (too deep, not plain data, a subclass): the same answer for a
    rendered record without its walk of a stack of pairs (a bulk import checks thousands)."""
    if depth > MAX_YAML_DEPTH:
        return _UNFIT
    kind = type(value)
    inner = depth + 1
    if kind is dict:
        items: Any = value.items()
        size = 1
        for key, item in items:
            if type(key) not in _SCALARS or inner > MAX_YAML_DEPTH:
                return _UNFIT
            size += 2 if type(item) in _SCALARS else 1 + _plain_size(item, inner)
        return size if size <= MAX_YAML_VALUES else _UNFIT
    if kind is list:
        size = 1
        for item in value:
            size += 1 if type(item) in _SCALARS and inner <= MAX_YAML_DEPTH else _plain_size(item, inner)
        return size if size <= MAX_YAML_VALUES else _UNFIT
    return 1 if kind in _SCALARS else _UNFIT


def parse_note(text: str, rel: str) -> Note:
    fm, body, body_line = split_frontmatter(text, rel)
    meta = load_yaml(fm, rel)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise DataError("frontmatter must be a mapping of fields", path=rel, line=2,
                        hint="write one 'key: value' per line")
    key_lines = {m.group(1): fm.count("\n", 0, m.start()) + 2 for m in re.finditer(_KEY, fm)}
    return Note(rel=rel, meta={str(k): _plain(v) for k, v in meta.items()}, body=body,
                body_line=body_line, key_lines=key_lines)


def read_note(path: Path, rel: str) -> Note:
    return parse_note(read_note_text(path, rel), rel)


def iso_utc(value: dt.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value.isoformat(timespec="seconds") + "Z"


def _plain(value: Any) -> Any:
    """YAML timestamps become ISO strings, so every field reads back as JSON-able data."""
    if type(value) is str:  # most values: one test, not five
        return value
    if isinstance(value, dt.datetime):
        return iso_utc(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def dump_yaml(data: dict[str, Any]) -> str:
    """``data`` as block YAML, exactly as PyYAML's dumper writes it (key order kept, width 100).
    Records of plain keys, short strings, numbers and lists/maps of them — every fact, entity
    and episode note biocortex writes, in practice — are written by :func:`_fast_yaml` (~10x
    faster: a bulk import renders thousands); anything else goes to PyYAML itself."""
    fast = _fast_yaml(data)
    if fast is not None:
        return fast
    yaml, _, dumper = _yaml()
    out: str = yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True,
                         default_flow_style=False, width=100)
    return out


_FAST_KEY = r"[A-Za-z_][A-Za-z0-9_]*"
#: strings PyYAML writes plain in block context, unless its resolver reads them as another type
#: printable ASCII starting with a letter, digit, "_" or "(": PyYAML writes it plain in block
#: context unless it holds ": " or " #", ends with ":" or reads as another type; else single-quoted
_FAST_TEXT = r"[A-Za-z0-9_(][ -~]*"
_FAST_WIDTH = 100  # PyYAML folds a scalar at a space past column 100 (width=100): longer ones go to PyYAML


#: keys seen to match _FAST_KEY (a batch repeats a few field names thousands of times)
_FAST_KEYS: set[str] = set()


class _Unfit(Exception):
    """A value :func:`_fast_yaml` leaves to PyYAML."""


def _fast_yaml(data: dict[str, Any], key_lines: dict[str, int] | None = None) -> str | None:
    """``key_lines``, when given, gets each top-level key's line in a note (the first line of
    the frontmatter is the note's line 2), as :func:`parse_note` finds them."""
    lines: list[str] = []
    try:
        _fast_map(data, "", "", lines, key_lines)
    except _Unfit:
        if key_lines is not None:
            key_lines.clear()
        return None
    return "\n".join(lines) + "\n" if lines else None


def _fast_map(data: dict[str, Any], indent: str, first: str, lines: list[str],
              key_lines: dict[str, int] | None = None) -> None:
    """``first`` prefixes the first key (``"- "`` for a map in a list), ``indent`` the others;
    ``key_lines`` (top level only) gets each key's line (:func:`_fast_yaml`)."""
    if not data:
        raise _Unfit
    for n, (key, value) in enumerate(data.items()):
        if key not in _FAST_KEYS:
            # a key YAML reads as another type (NO, on, null, 1e3) is quoted: PyYAML's to write
            if not isinstance(key, str) or not re.fullmatch(_FAST_KEY, key) or _implicit(key) is not None:
                raise _Unfit
            if len(_FAST_KEYS) > 4096:
                _FAST_KEYS.clear()
            _FAST_KEYS.add(key)
        if key_lines is not None:
            key_lines[key] = len(lines) + 2
        lead = (first if n == 0 else indent) + key + ":"
        if isinstance(value, dict):
            if not value:
                lines.append(lead + " {}")
            else:
                lines.append(lead)
                _fast_map(value, indent + "  ", indent + "  ", lines)
        elif isinstance(value, list):
            if not value:
                lines.append(lead + " []")
                continue
            lines.append(lead)
            for item in value:
                if isinstance(item, dict):
                    _fast_map(item, indent + "  ", indent + "- ", lines)
                elif isinstance(item, list):
                    raise _Unfit
                else:
                    lines.append(_fast_line(indent + "- ", item))
        else:
            lines.append(_fast_line(lead + " ", value))


def _fast_line(lead: str, value: Any) -> str:
    text = _fast_scalar(value)
    if " " in text and len(lead) + len(text) > _FAST_WIDTH:
        raise _Unfit
    return lead + text


def _fast_scalar(value: Any) -> str:
    if type(value) is str:  # most values: first
        return _fast_text(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        if not ("." in text and text.replace(".", "").replace("-", "").isdigit()):
            raise _Unfit  # 1e-05, inf, nan: PyYAML's own spelling
        return text
    if not isinstance(value, str):
        raise _Unfit
    return _fast_text(value)


@lru_cache(maxsize=1 << 16)
def _fast_text(value: str) -> str:
    """A string as PyYAML writes it (remembered: a batch of notes repeats authors, dates, names)."""
    if not re.fullmatch(_FAST_TEXT, value) or value != value.rstrip() or "  " in value:
        raise _Unfit
    if ": " in value or " #" in value or value.endswith(":") or _implicit(value) is not None:
        return "'" + value.replace("'", "''") + "'"
    return value


def _implicit(value: str) -> str | None:
    """The tag PyYAML's resolver reads ``value`` as when it is not a string (bool, int, float,
    null, timestamp, …), else None."""
    yaml, _, _ = _yaml()
    for tag, regexp in yaml.resolver.Resolver.yaml_implicit_resolvers.get(value[0], []):
        if regexp.match(value):
            return str(tag)
    return None


def render_note(meta: dict[str, Any], body: str) -> str:
    return f"---\n{dump_yaml(meta)}---\n{body}"


def edit_frontmatter(text: str, updates: dict[str, Any], rel: str) -> str:
    """Set ``updates`` in a note's frontmatter, keeping key order, comments and unknown keys."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError as RuamelError

    fm, body, _ = split_frontmatter(text, rel)
    plain = load_yaml(fm, rel)  # same errors, same lines as reading
    if plain is not None and not isinstance(plain, dict):
        raise DataError("frontmatter must be a mapping of fields", path=rel, line=2,
                        hint="write one 'key: value' per line")
    rt = YAML()
    rt.preserve_quotes = True
    rt.width = 100
    try:
        data = rt.load(fm) or {}
    except (RuamelError, ValueError, TypeError, AttributeError, RecursionError) as exc:
        # what PyYAML reads but the round-trip loader refuses, e.g. a key written twice
        problem = getattr(exc, "problem", None) or str(exc).strip() or type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        raise DataError(f"cannot edit this frontmatter: {problem}", path=rel,
                        line=2 + mark.line if mark is not None else 2,
                        hint="fix the frontmatter by hand (each key once), then retry") from None
    for key, value in updates.items():
        data[key] = _quoted(value)
    buf = io.StringIO()
    rt.dump(data, buf)
    dumped = buf.getvalue()
    kept = {key for key, value in updates.items() if isinstance(plain, dict) and key in plain
            and _plain(plain[key]) == _plain(value)}
    return f"---\n{_spliced(fm, dumped, set(updates) - kept)}---\n{body}"


#: a line that starts a top-level key of a frontmatter; anything else at column 0 but a comment,
#: a block sequence item or a blank line makes :func:`_spliced` keep the round trip's text
_TOP_KEY = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]|$)")


def _blocks(fm: str) -> dict[str | None, str] | None:
    """A frontmatter's text per top-level key (its line, the lines indented under it, the
    ``- `` items, comments and blank lines after it); None, the lines before the first key.
    None when it holds anything else at column 0 (a flow mapping, a complex key)."""
    blocks: dict[str | None, str] = {}
    key: str | None = None
    for line in fm.splitlines(keepends=True):
        start = _TOP_KEY.match(line)
        if start is not None:
            key = start.group(1)
            if key in blocks:
                return None
            blocks[key] = ""
        elif line[:1] not in ("", " ", "\t", "#", "-", "\n", "\r") or line.startswith(("---", "...")):
            return None
        blocks[key] = blocks.get(key, "") + line
    return blocks


def _spliced(fm: str, dumped: str, changed: set[str]) -> str:
    """``dumped`` (the round trip's whole frontmatter) with every key not in ``changed`` as it was
    written in ``fm``: ruamel.yaml re-folds long text at its own column and leaves a space at the
    end of a folded line, so each edit would rewrite lines it did not mean to (a reviewer reads
    them in `git log -p`). The keys it changes are its text, trailing spaces taken off where that
    reads back the same. The round trip's text when the two do not read back as one record."""
    old, new = _blocks(fm), _blocks(dumped)
    if old is None or new is None:
        return dumped
    parts = []
    for key, text in new.items():
        if key not in changed and key in old:
            parts.append(old[key])
        else:
            stripped = "".join(line.rstrip(" \t\r\n") + "\n" for line in text.splitlines())
            parts.append(stripped if text.endswith("\n") else stripped.rstrip("\n"))
    spliced = "".join(parts)
    if spliced == dumped:
        return dumped
    yaml, loader, _ = _yaml()
    try:
        same = _plain(yaml.load(spliced, Loader=loader)) == _plain(yaml.load(dumped, Loader=loader))
    except yaml.YAMLError:
        same = False
    return spliced if same else dumped


#: a value :func:`edit_rendered` writes without the round-trip loader: a word (``TP53``, ``p-170``,
#: ``HGNC:11998``) that starts with a letter and that neither YAML 1.1 nor 1.2 reads as another type
_PLAIN_WORD = r"[A-Za-z][A-Za-z0-9_.+-]{0,59}(?::[A-Za-z0-9_.+-]{1,40})?"
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def edit_rendered(note: Note, text: str, updates: dict[str, Any]) -> tuple[str, Note] | None:
    """:func:`edit_frontmatter`'s result for ``note`` (read from ``text``) without the round-trip
    loader (~4 ms a note: 10 s for the 2,300 entity notes of an alias import), when it cannot
    differ: the note is exactly what :func:`rendered_note` makes of its fields (no comment, no
    hand formatting, which the round trip would keep) and every updated value is a
    :data:`_PLAIN_WORD` or a list of them; with its :class:`Note` (:func:`rendered_note`). None
    otherwise: use :func:`edit_frontmatter`."""
    for value in updates.values():
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(v, str) and re.fullmatch(_PLAIN_WORD, v) and v.casefold() not in _YAML_WORDS
                   for v in items):
            return None
    if rendered_note(note.rel, dict(note.meta), note.body)[0] != text:
        return None
    return rendered_note(note.rel, {**note.meta, **updates}, note.body)


def checked_editor(quick: Callable[[Note, str, dict[str, Any]], tuple[str, Note] | None],
                   slow: Callable[[Note, str, dict[str, Any]], str],
                   checks: int = 2) -> Callable[[Note, str, dict[str, Any]], tuple[str, Note | None]]:
    """``edit(note, text, updates)``: ``slow`` (a round-trip edit, :func:`edit_frontmatter`) for many
    notes, through ``quick`` where it applies (not None; then with the edited note, not parsed
    again); its first ``checks`` results are compared with the round trip's, and any difference
    sends every later note through the round trip."""
    left = [checks]

    def edit(note: Note, text: str, updates: dict[str, Any]) -> tuple[str, Note | None]:
        fast = quick(note, text, updates) if left[0] >= 0 else None
        if fast is not None and left[0] == 0:
            return fast
        slow_text = slow(note, text, updates)
        if fast is not None:
            left[0] = left[0] - 1 if fast[0] == slow_text else -1
        return slow_text, None

    return edit


def _quoted(value: Any) -> Any:
    """Quote strings PyYAML (YAML 1.1) would read as another type ('no', '1e3', dates)."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

    yaml, loader, _ = _yaml()
    if isinstance(value, str):
        try:
            plain = yaml.load(value, Loader=loader) == value
        except (yaml.YAMLError, ValueError, OverflowError, RecursionError):  # '2026-13-45', '[[[...'
            plain = False
        if plain:
            return value
        # in single quotes, as a new note has them ('2026-11-24T10:42:35Z'): an edit that rewrites
        # a list of maps (a fact's evidence) leaves the items it keeps as they were
        printable = value.isprintable() and value == value.strip()
        return SingleQuotedScalarString(value) if printable else DoubleQuotedScalarString(value)
    if isinstance(value, list):
        return [_quoted(v) for v in value]
    if isinstance(value, dict):
        return {k: _quoted(v) for k, v in value.items()}
    return value


def rendered_note(rel: str, meta: dict[str, Any], body: str) -> tuple[str, Note]:
    """``render_note`` and the :class:`Note` a read of its text gives, without reading it back:
    a bulk writer hands both to ``Transaction.write`` (``parsed``), which then skips the parse."""
    key_lines: dict[str, int] = {}
    fm = _fast_yaml(meta, key_lines)
    if fm is None:
        fm = dump_yaml(meta)
        key_lines = {m.group(1): fm.count("\n", 0, m.start()) + 2 for m in re.finditer(_KEY, fm)}
    note = Note(rel=rel, meta=meta, body=body, body_line=fm.count("\n") + 3, key_lines=key_lines)
    return f"---\n{fm}---\n{body}", note


def check_writable(rel: str, text: str, parsed: Note | None = None) -> Note | None:
    """Refuse (DataError, naming the limit) a note a read would refuse: over MAX_NOTE_BYTES, or
    frontmatter nested deeper than MAX_YAML_DEPTH or holding more than MAX_YAML_VALUES values.
    The note is parsed back exactly as a read parses it, unless ``parsed`` is what
    :func:`rendered_note` made of it; returns it (None: not a note)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_NOTE_BYTES:
        raise DataError(f"the note would be {size / 2**20:.1f} MB, over the {MAX_NOTE_BYTES // 2**20} MB limit "
                        "every read applies; nothing was written", path=rel, line=1,
                        hint="keep large outputs outside the vault and link to them from the record")
    if not (rel.endswith(".md") and text.startswith("---")):
        return None
    if parsed is not None:
        if _plain_size(parsed.meta) > MAX_YAML_VALUES:
            _check_bounded(parsed.meta, rel, 2)  # says why
        return parsed
    try:
        return parse_note(text, rel)
    except DataError as exc:
        exc.message += " (a read would refuse this note); nothing was written"
        exc.args = (exc.message,)
        exc.hint = exc.hint or "make the record smaller or flatter"
        raise
