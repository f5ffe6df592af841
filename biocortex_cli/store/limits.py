"""The size limits of a vault: one definition that reads and writes share.

A read refuses a note over these limits (``check`` reports it, ``recall`` and ``episode list``
skip it), so a write refuses to commit one (``store.notes.check_writable``): nothing the tool writes is
invisible to the tool afterwards. docs/reliability.md ("Size limits") has the figures.
"""

from __future__ import annotations

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

