"""``compress`` end to end: the input's bytes, the vault's settings (if there is a vault) and the
options in, a :class:`CompressResult` out. No printing here."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, BinaryIO

from biocortex_cli.compress.engine import CompressResult, compress
from biocortex_cli.compress.formats import parse
from biocortex_cli.compress.models import resolve_budget
from biocortex_cli.compress.summarize import DEFAULT_TIMEOUT, summarizer_argv
from biocortex_cli.errors import BiocortexError, DataError, NotFoundError, UsageError
from biocortex_cli.store.config import CONFIG_REL
from biocortex_cli.store.files import read_capped

if TYPE_CHECKING:
    from biocortex_cli.store.config import WorkingMemoryConfig

STDIN = "<stdin>"


def read_input(file: str, stdin: BinaryIO, stdin_is_tty: bool) -> tuple[bytes, str]:
    """The bytes of FILE, or of stdin for "-"; and the name errors should show."""
    if file == "-":
        if stdin_is_tty:
            raise UsageError("no conversation given", hint="pass a FILE, or pipe the conversation on stdin "
                                                           "(… < chat.json)")
        return read_capped(stdin, STDIN), STDIN
    try:
        with open(file, "rb") as fh:
            return read_capped(fh, file), file
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {file}", path=file,
                            hint="check the path, or pass - to read it from stdin") from None
    except IsADirectoryError:
        raise BiocortexError(f"{file} is a folder, not a conversation file", path=file) from None
    except OSError as exc:
        raise BiocortexError(f"cannot read {file}: {exc.strerror or exc}", path=file) from None


def decode(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise DataError(f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}", path=path,
                        line=line, hint="save the conversation as UTF-8 (JSON text is UTF-8)") from None


def settings(vault_option: str | None) -> tuple[WorkingMemoryConfig, str]:
    """working_memory settings and token encoding: the vault's if one is found, else the defaults.
    A vault named explicitly (--vault, $BIOCORTEX_VAULT) must exist."""
    from biocortex_cli.store.config import TokenizerConfig, WorkingMemoryConfig
    from biocortex_cli.store.vault import VAULT_ENV, find_vault

    try:
        vault = find_vault(vault_option)
    except NotFoundError:
        if vault_option or os.environ.get(VAULT_ENV):
            raise
        return WorkingMemoryConfig(), TokenizerConfig().encoding
    config = vault.config
    return config.working_memory, config.tokenizer.encoding


def compress_input(*, raw: bytes, path: str = STDIN, budget: int | None = None, model: str | None = None,
                   keep_recent: int | None = None, summarizer: str | None = None,
                   timeout: float = DEFAULT_TIMEOUT, vault: str | None = None) -> CompressResult:
    """Compress the conversation in ``raw`` with the options, over the vault's defaults."""
    from biocortex_cli.tokens import get_counter

    if summarizer is not None:  # a mistake in the command is one even when no summary is needed today
        summarizer_argv(summarizer)
    wm, encoding = settings(vault)
    plan = resolve_budget(budget=budget, model=model, max_tokens=wm.max_tokens, config_model=wm.model,
                          fraction=wm.auto_fraction, minimum=wm.auto_min_tokens, maximum=wm.auto_max_tokens,
                          extra=wm.models)
    if keep_recent is None:
        if wm.keep_recent < -1:
            raise DataError(f"working_memory.keep_recent must be -1 (as many as fit) or >= 0, got {wm.keep_recent}",
                            path=CONFIG_REL)
        keep_recent = wm.keep_recent if wm.keep_recent >= 0 else None
    conv = parse(decode(raw, path), path)
    return compress(conv, budget=plan, counter=get_counter(encoding), keep_recent=keep_recent,
                    summarizer=summarizer, timeout=timeout, path=path)
