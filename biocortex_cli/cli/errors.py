"""The one place that maps failures to exit codes and messages (SPEC §7).

0 ok · 1 bad data, not found, failed check · 2 usage · 3 internal error (one line plus where
the traceback was written; ``--debug`` prints it) · 130 interrupted. With ``--json`` errors are
``{"error": {"message", "path", "line", "hint"}}`` on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from biocortex_cli.errors import BiocortexError, error_json


class Interrupted(BaseException):
    """Raised by our SIGINT handler; a BaseException so no framework turns it into exit 1."""


def _on_sigint(signum: int, frame: object) -> None:
    raise Interrupted()


def _emit(message: str, *, path: str | None, line: int | None, hint: str | None,
          as_json: bool, prefix: str = "error") -> None:
    if as_json:
        payload = error_json(message, path=path, line=line, hint=hint)
        sys.stderr.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return
    where = f"{path}:{line}: " if path and line else (f"{path}: " if path else "")
    sys.stderr.write(f"biocortex: {prefix}: {where}{message}\n")
    if hint:
        sys.stderr.write(f"  hint: {hint}\n")


def report(exc: BiocortexError, as_json: bool) -> int:
    _emit(exc.message, path=exc.path, line=exc.line, hint=exc.hint, as_json=as_json)
    return exc.exit_code


def _crash_log(exc: BaseException) -> str:
    import tempfile
    import time
    import traceback

    folder = os.path.join(tempfile.gettempdir(), "biocortex-logs")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"crash-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"argv: {sys.argv!r}\n")
        traceback.print_exception(exc, file=fh)
    return path


def guarded(call: Callable[[], int], *, as_json: bool, debug: bool) -> int:
    """Run ``call`` and turn every failure into its exit code and one clear message."""
    import contextlib
    import signal

    with contextlib.suppress(ValueError):  # not the main thread (tests calling main() from a thread)
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        return call()
    except BiocortexError as exc:
        return report(exc, as_json)
    except (Interrupted, KeyboardInterrupt):
        sys.stderr.write("biocortex: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (`biocortex recall … | head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        if type(exc).__module__.endswith("click.exceptions"):  # typer's usage errors
            code = int(getattr(exc, "exit_code", 2))
            if code and hasattr(exc, "format_message"):
                hint = "see `biocortex --help`"
                ctx = getattr(exc, "ctx", None)
                if ctx is not None:
                    hint = f"see `{ctx.command_path} --help`"
                _emit(exc.format_message(), path=None, line=None, hint=hint, as_json=as_json)
            return code
        if debug:
            import traceback

            traceback.print_exc()
        log = _crash_log(exc)
        _emit(f"internal error ({type(exc).__name__}: {exc}); this is a bug", path=None, line=None,
              hint=f"traceback written to {log}; rerun with --debug to print it", as_json=as_json)
        return 3
