"""Entry point. Answers ``--version`` before any framework loads; hands the rest to the app.

Start-up matters (agents call biocortex hundreds of times per task): this module imports only
the standard library, and :mod:`biocortex_cli.cli.app` loads typer and the command modules,
whose core imports happen inside the commands that need them. See docs/performance.md.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from biocortex_cli import __version__

        sys.stdout.write(f"biocortex {__version__}\n")
        return 0
    bad = _unreadable_argument(args)
    if bad is not None:
        from biocortex_cli.cli.errors import report
        from biocortex_cli.errors import UsageError

        return report(UsageError(bad, hint="pass text as UTF-8, without NUL bytes"), "--json" in args)
    from biocortex_cli.cli import fast

    code = fast.run(args, whole_process=argv is None)  # None: the console script's own command line
    if code is not None:
        return code
    from biocortex_cli.cli.app import run

    return run(args)


def _unreadable_argument(args: list[str]) -> str | None:
    """Why an argument cannot be used (invalid UTF-8 from the shell arrives as lone surrogates;
    NUL bytes cannot reach a file name, git or YAML), or None."""
    for i, arg in enumerate(args, 1):
        if "\0" in arg:
            return f"argument {i} contains a NUL byte"
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"argument {i} is not valid UTF-8 (at character {exc.start + 1})"
    return None


def entry() -> None:  # console script
    raise SystemExit(main())
