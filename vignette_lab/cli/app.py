"""``vignette-lab serve`` (the Panel workbench) and ``vignette-lab users`` (its users file).

Panel and bcrypt are imported inside the commands: Panel alone takes seconds to import.
"""

from __future__ import annotations

import click

from vignette_lab.cli._base import command, group

__all__ = ["serve", "users"]


@command("serve")
@click.option("--port", type=int, default=5006, show_default=True, help="TCP port of the Panel server.")
@click.option("--address", default="127.0.0.1", show_default=True,
              help="Interface to listen on; keep 127.0.0.1 unless a users file guards the app.")
@click.option("--users", "users_file", type=click.Path(dir_okay=False), default=None,
              help="bcrypt users file (see `vignette-lab users add`); without it: single-user local mode.")
@click.option("--show/--no-show", default=False, show_default=True, help="Open a browser tab.")
@click.pass_context
def serve(ctx: click.Context, port: int, address: str, users_file: str | None, show: bool) -> None:
    """Serve the trainee, self-play, review and agreement pages.

    Example: vignette-lab serve --port 5006 --users users.json
    """
    from vignette_lab.app.serve import serve as run_server

    if address not in ("127.0.0.1", "localhost") and not users_file:
        raise click.ClickException(f"refusing to serve on {address} without --users: local mode has no login")
    db_url = (ctx.obj or {}).get("db_url")
    click.echo(f"Vignette Lab: http://{address}:{port}/ ({'login required' if users_file else 'local mode'})")
    run_server(db_url, port=port, address=address, show=show, users_file=users_file)


@group("users")
def users() -> None:
    """Manage the bcrypt users file of `vignette-lab serve --users`.

    Example: vignette-lab users add users.json kim --role trainee
    """


@users.command("add")
@click.argument("path", type=click.Path(dir_okay=False))
@click.argument("user_id")
@click.option("--role", "roles", multiple=True, default=("trainee",), show_default=True,
              type=click.Choice(["trainee", "researcher", "faculty", "admin"]), help="Role (repeatable).")
@click.option("--cohort", default=None, help="Cohort label, e.g. 2026-1.")
@click.option("--display-name", default=None, help="Name shown in the header.")
@click.password_option(help="Password (prompted when omitted; only its bcrypt hash is stored).")
def users_add(path: str, user_id: str, roles: tuple[str, ...], cohort: str | None, display_name: str | None,
              password: str) -> None:
    """Add or replace a user.

    Example: vignette-lab users add users.json prof --role faculty --role researcher
    """
    from vignette_lab.app.auth import add_user

    try:
        user = add_user(path, user_id, password, roles=list(roles), cohort=cohort, display_name=display_name)
    except ValueError as exc:  # add_user: empty password or user id
        raise click.ClickException(str(exc)) from None
    click.echo(f"saved {user.user_id} ({', '.join(sorted(user.roles))}) to {path}")

