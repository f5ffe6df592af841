"""The size limits of a vault: one definition that reads and writes share.

A read refuses a note over these limits (``check`` reports it, ``recall`` and ``episode list``
skip it), so a write refuses to commit one (:func:`check_writable`): nothing the tool writes is
invisible to the tool afterwards. docs/reliability.md ("Size limits") has the figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biocortex_cli.store.notes import Note

#: Largest note the tool will read (a hand-pasted 50 MB log is refused, not loaded) or write.
MAX_NOTE_BYTES = 8 * 1024 * 1024
#: Largest input read from stdin or a file argument (``episode import``, ``episode add
#: --from-json``, ``compress``, ``context --conversation``); more is refused after reading this much.
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: Most values (scalars, lists, mappings, counted after alias expansion) one YAML text may hold.
MAX_YAML_VALUES = 100_000
#: Deepest nesting of lists and mappings accepted in YAML (and so in a record's fields).
MAX_YAML_DEPTH = 50
#: Characters in one text field of an episode (task, plan, result).
MAX_TEXT = 100_000


def check_writable(rel: str, text: str) -> Note | None:
    """Refuse (DataError, naming the limit) a note a read would refuse: over MAX_NOTE_BYTES, or
    frontmatter nested deeper than MAX_YAML_DEPTH or holding more than MAX_YAML_VALUES values.
    The note is parsed back exactly as a read parses it; returns it (None: not a note)."""
    from biocortex_cli.errors import DataError
    from biocortex_cli.store.notes import parse_note

    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_NOTE_BYTES:
        raise DataError(f"the note would be {size / 2**20:.1f} MB, over the {MAX_NOTE_BYTES // 2**20} MB limit "
                        "every read applies; nothing was written", path=rel, line=1,
                        hint="keep large outputs outside the vault and link to them from the record")
    if not (rel.endswith(".md") and text.startswith("---")):
        return None
    try:
        return parse_note(text, rel)
    except DataError as exc:
        exc.message += " (a read would refuse this note); nothing was written"
        exc.args = (exc.message,)
        exc.hint = exc.hint or "make the record smaller or flatter"
        raise
