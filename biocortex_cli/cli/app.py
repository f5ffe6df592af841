"""The typer application: global options and the table of commands. Nothing else lives here.

Command modules do not import typer: their parameters are ``Annotated[..., typer.Option(...)]``
strings (``from __future__ import annotations``) that typer evaluates here, when the app is
built. So the hot commands in :mod:`biocortex_cli.cli.fast` can call the same functions without
paying for typer's import.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Annotated, Any

import typer
import typer.main

from biocortex_cli.cli import check as check_cmd
from biocortex_cli.cli import clone as clone_cmd
from biocortex_cli.cli import compress as compress_cmd
from biocortex_cli.cli import context as context_cmd
from biocortex_cli.cli import dataset as dataset_cmd
from biocortex_cli.cli import doctor as doctor_cmd
from biocortex_cli.cli import entity as entity_cmd
from biocortex_cli.cli import episode as episode_cmd
from biocortex_cli.cli import eval as eval_cmd
from biocortex_cli.cli import fact as fact_cmd
from biocortex_cli.cli import feedback as feedback_cmd
from biocortex_cli.cli import forget as forget_cmd
from biocortex_cli.cli import guide as guide_cmd
from biocortex_cli.cli import index as index_cmd
from biocortex_cli.cli import init as init_cmd
from biocortex_cli.cli import lessons as lessons_cmd
from biocortex_cli.cli import log as log_cmd
from biocortex_cli.cli import mcp as mcp_cmd
from biocortex_cli.cli import recall as recall_cmd
from biocortex_cli.cli import state
from biocortex_cli.cli import sync as sync_cmd
from biocortex_cli.cli import vocabulary as vocabulary_cmd
from biocortex_cli.cli.errors import guarded

COMMAND_MODULES: tuple[ModuleType, ...] = (check_cmd, clone_cmd, compress_cmd, doctor_cmd, context_cmd, dataset_cmd, entity_cmd, fact_cmd, feedback_cmd, forget_cmd, guide_cmd, episode_cmd, eval_cmd, index_cmd, init_cmd, lessons_cmd, log_cmd, mcp_cmd, recall_cmd, sync_cmd, vocabulary_cmd)
for _module in COMMAND_MODULES:
    _module.typer = typer  # type: ignore[attr-defined]  # for evaluating their annotations
    _module.Annotated = Annotated  # type: ignore[attr-defined]  # (cli/recall.py: recall's path has no `typing`)

SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

app = typer.Typer(
    name="biocortex",
    help="Shared, symbolic memory for AI agents and scientists in biological R&D.\n\n"
    "Memory is markdown in a git repository (the vault): episodes of past analyses, facts and "
    "entities, lessons. stdout carries only the requested context or JSON.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings=SETTINGS,
)


def _version(value: bool) -> None:
    if value:
        from biocortex_cli import __version__

        state.out(f"biocortex {__version__}")
        raise typer.Exit()


@app.callback()
def global_options(
    vault: str | None = typer.Option(
        None, "--vault", metavar="PATH",
        help="Vault folder (default: $BIOCORTEX_VAULT, else the nearest parent with "
             ".biocortex/config.yaml)."),
    author: str | None = typer.Option(
        None, "--author", metavar="'NAME <EMAIL>'",
        help="Author of the commits this command makes (default: $BIOCORTEX_AUTHOR, else git "
             "config, else biocortex)."),
    debug: bool = typer.Option(False, "--debug", help="Print the traceback of an internal error."),
    redact: bool = typer.Option(False, "--redact",
                                help="Replace credentials and personal data found in what is written by "
                                     "[REDACTED:kind] instead of refusing the write."),
    allow_secret: bool = typer.Option(False, "--allow-secret",
                                      help="Write credentials or personal data anyway (loud: a warning per "
                                           "finding and a Secret-Allowed trailer in the commit)."),
    version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_version,
                                 help="Print the version and exit."),
) -> None:
    if redact and allow_secret:
        raise typer.BadParameter("--redact and --allow-secret exclude each other")
    policy = "redact" if redact else "allow" if allow_secret else "refuse"
    state.OPTIONS = state.GlobalOptions(vault=vault, author=author, debug=debug, secret_policy=policy)


def _group(help_text: str) -> typer.Typer:
    return typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None, context_settings=SETTINGS)


episode_app = _group("Record and read past analyses (episodic memory).")
episode_app.command("add")(episode_cmd.add)
episode_app.command("import")(episode_cmd.import_)
episode_app.command("show")(episode_cmd.show)
episode_app.command("list")(episode_cmd.list_)
episode_app.command("related")(episode_cmd.related)

lessons_app = typer.Typer(help="Lessons abstracted from many episodes: cluster, promote, refresh.",
                          invoke_without_command=True, rich_markup_mode=None, context_settings=SETTINGS)
lessons_app.callback()(lessons_cmd.lessons)
lessons_app.command("promote")(lessons_cmd.promote)
lessons_app.command("refresh")(lessons_cmd.refresh)

fact_app = _group("Semantic memory: facts (subject, predicate, object) with sources and confidence.")
fact_app.command("add")(fact_cmd.add)
fact_app.command("query")(fact_cmd.query)
fact_app.command("list")(fact_cmd.list_)
fact_app.command("retract")(fact_cmd.retract)
fact_app.command("supersede")(fact_cmd.supersede)
fact_app.command("verify")(fact_cmd.verify)
fact_app.command("unsource")(fact_cmd.unsource)
fact_app.command("import")(fact_cmd.import_)

dataset_app = _group("Datasets as sources of record: registered by path, indexed outside git, answering beside "
                     "the notes.")
dataset_app.command("add")(dataset_cmd.add)
dataset_app.command("list")(dataset_cmd.list_)
dataset_app.command("show")(dataset_cmd.show)
dataset_app.command("refresh")(dataset_cmd.refresh)
dataset_app.command("remove")(dataset_cmd.remove)

entity_app = _group("Entity notes shared by episodes and facts: aliases, neighbourhood.")
entity_app.command("show")(entity_cmd.show)
entity_app.command("alias")(entity_cmd.alias)
entity_app.command("merge")(entity_cmd.merge)
entity_app.command("import")(entity_cmd.import_)

vocabulary_app = _group("The vault's own vocabulary (vocabulary.md): suggest, accept, remove, show, check.")
vocabulary_app.command("suggest")(vocabulary_cmd.suggest)
vocabulary_app.command("accept")(vocabulary_cmd.accept)
vocabulary_app.command("remove")(vocabulary_cmd.remove)
vocabulary_app.command("show")(vocabulary_cmd.show)
vocabulary_app.command("check")(vocabulary_cmd.check)

app.command("init")(init_cmd.init)
app.add_typer(episode_app, name="episode")
app.add_typer(fact_app, name="fact")
app.add_typer(entity_app, name="entity")
app.add_typer(dataset_app, name="dataset")
app.add_typer(lessons_app, name="lessons")
app.add_typer(vocabulary_app, name="vocabulary")
app.command("index")(index_cmd.index)
app.command("recall")(recall_cmd.recall)
app.command("eval")(eval_cmd.eval_)
app.command("check")(check_cmd.check)
app.command("doctor")(doctor_cmd.doctor)
app.command("compress")(compress_cmd.compress)
app.command("context")(context_cmd.context)
app.command("feedback")(feedback_cmd.feedback)
app.command("forget")(forget_cmd.forget)
app.command("restore")(forget_cmd.restore)
app.command("guide")(guide_cmd.guide)
app.command("mcp")(mcp_cmd.mcp)
app.command("sync")(sync_cmd.sync)
app.command("clone")(clone_cmd.clone)
app.command("log")(log_cmd.log)


@functools.cache
def command() -> Any:
    """The click command typer builds from ``app``, with the help placeholders of one convention:
    upper case, an argument's own name (``QUERY``, ``[FILE]`` when optional), ``N`` for a whole
    number, ``X`` for a number with a fraction, else the option's name (``--task TASK``) unless
    the option names a better word itself (``FILE|-``, ``SECONDS``, ``WHEN``).

    Built once per process: building it costs ~30 ms (every command's signature evaluated), more
    than a whole refused write, and an MCP server or a test suite runs many commands in one
    process."""
    root = typer.main.get_command(app)
    _placeholders(root)
    return root


class _Argument(typer.core.TyperArgument):
    """An argument shown as ``QUERY`` (required) or ``[FILE]`` (optional) in the usage line;
    typer writes ``{query}``."""

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:
        var = super().make_metavar(ctx, usage=False)
        return f"[{var}]" if usage and not self.required else var


def _placeholders(cmd: Any) -> None:
    for param in cmd.params:
        if param.param_type_name == "argument":
            param.metavar = param.metavar or (param.name or "").rstrip("_").upper()
            param.__class__ = _Argument
        elif param.metavar is None and not (param.is_flag or param.count):
            kind = str(getattr(param.type, "name", ""))
            param.metavar = ("N" if kind.startswith("int") else "X" if kind.startswith("float")
                             else param.opts[0].lstrip("-").replace("-", "_").upper())
    for sub in getattr(cmd, "commands", {}).values():
        _placeholders(sub)


def _redacting(argv: list[str]) -> bool:
    """Whether ``--redact`` is among the global options (before the command)."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "--redact":
            return True
        i += 2 if argv[i] in ("--vault", "--author") else 1
    return False


def run(argv: list[str]) -> int:
    if _redacting(argv):  # every text given on the command line, before any command sees it
        from biocortex_cli.store.secrets import scrub_input

        argv = scrub_input(argv, "the command line")

    def call() -> int:
        try:
            result = command().main(args=argv, prog_name="biocortex", standalone_mode=False)
        except SystemExit as exc:  # typer's --install-completion / --show-completion and shell completion
            return exc.code if isinstance(exc.code, int) else 0
        return result if isinstance(result, int) else 0

    return guarded(call, as_json="--json" in argv, debug="--debug" in argv)
