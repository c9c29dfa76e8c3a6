"""What every ``vignette-lab`` command shares: the error mapping, ``open_db`` and option decorators.

Area modules (:mod:`vignette_lab.cli.kb`, ``.session``, ``.pipeline``, ``.analytics``, ``.app``)
build their commands with :func:`command` and :func:`group` from here, so a
:class:`~vignette_lab.errors.VignetteError` raised anywhere below a command becomes one
``Error: …`` line (exit code 1, no traceback) whether the command runs under ``vignette-lab``
or is invoked on its own (tests, notebooks). :func:`open_db` opens the ``--db`` database and
closes it when the command's click context ends, whatever happens.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from vignette_lab.config import resolve_db_url
from vignette_lab.errors import VignetteError

if TYPE_CHECKING:
    from vignette_lab.store import Database

__all__ = ["MappedCommand", "MappedGroup", "command", "echo_json", "group", "json_option", "one_line",
           "open_db"]

F = TypeVar("F", bound=Callable[..., Any])


def one_line(exc: BaseException) -> str:
    """The first line of an error message (the type name when it is empty)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _mapped(invoke: Callable[[click.Context], Any], ctx: click.Context) -> Any:
    try:
        return invoke(ctx)
    except VignetteError as exc:
        raise click.ClickException(one_line(exc)) from None


class MappedCommand(click.Command):
    """A click command whose :class:`VignetteError` becomes a one-line click error."""

    def invoke(self, ctx: click.Context) -> Any:
        return _mapped(super().invoke, ctx)


class MappedGroup(click.Group):
    """A click group with the same error mapping; its sub-commands and sub-groups inherit it."""

    command_class = MappedCommand

    def invoke(self, ctx: click.Context) -> Any:
        return _mapped(super().invoke, ctx)


MappedGroup.group_class = MappedGroup


def command(name: str | None = None, **attrs: Any) -> Callable[[F], MappedCommand]:
    """``@click.command`` with the error mapping."""
    return click.command(name, cls=MappedCommand, **attrs)  # type: ignore[return-value]


def group(name: str | None = None, **attrs: Any) -> Callable[[F], MappedGroup]:
    """``@click.group`` with the error mapping."""
    return click.group(name, cls=MappedGroup, **attrs)  # type: ignore[return-value]


def open_db(ctx: click.Context | None = None, *, init: bool = False) -> Database:
    """Open the database named by the group's ``--db`` option for the running command.

    The database is closed when ``ctx`` closes (the end of the command, also on errors), so
    a command never leaves a DuckDB file held; closing it earlier is harmless.

    Parameters
    ----------
    ctx : click.Context, default=None
        The current context when None.
    init : bool, default=False
        Also make sure the schema exists (``init_db`` keeps the database's own embedding
        dimension), which every command that writes rows needs.

    Returns
    -------
    Database
        Open until the command ends.
    """
    # Imported here, not at module level: duckdb and the store cost 0.2-0.4 s, and `--help`,
    # `users add` and `scheme validate` never open a database.
    from vignette_lab.store import connect, init_db

    ctx = ctx or click.get_current_context()
    obj = ctx.find_object(dict) or {}
    db = connect(obj.get("db_url") or resolve_db_url())
    ctx.call_on_close(db.close)
    if init:
        init_db(db)
    return db


def json_option(help: str = "Print the result as JSON.") -> Callable[[F], F]:
    """The ``--json`` flag (parameter ``as_json``) with a command-specific help text."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def echo_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON, Korean kept as is."""
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))
