"""Click commands for sessions: ``selfplay`` and the ``session`` group.

Thin layers over :func:`~vignette_lab.session.selfplay.run_selfplay` and
:class:`~vignette_lab.session.service.SessionService`; :mod:`vignette_lab.cli` registers
them. The database URL comes from ``ctx.obj["db_url"]``; it is closed when the command ends.
The session modules (engines, embedders, PII) are imported inside the commands, for start-up time.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from vignette_lab.cli._base import command, echo_json, group, open_db

__all__ = ["selfplay", "session"]


@command("selfplay")
@click.option("--persona", "personas", multiple=True, default=("P1",), show_default=True,
              help="Persona code; repeat for several (P1–P7).")
@click.option("--counselor", default="skilled", show_default=True,
              type=click.Choice(["skilled", "novice", "advice-jumper", "improving"]),
              help="AI counselor profile.")
@click.option("--sessions", default=1, show_default=True, type=click.IntRange(min=1),
              help="Sessions per persona.")
@click.option("--turns", default=20, show_default=True, type=click.IntRange(min=1),
              help="Counselor turns per session.")
@click.option("--seed", default=7, show_default=True, type=int, help="Same seed, same sessions (fresh DB).")
@click.option("--no-eval", is_flag=True, help="Skip the fast/deep evaluator (faster).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with every session and turn.")
@click.option("--resume", is_flag=True,
              help="Continue the latest batch of this persona/counselor/seed (a killed run) instead of a new one.")
@click.pass_context
def selfplay(ctx: click.Context, personas: tuple[str, ...], counselor: str, sessions: int, turns: int,
             seed: int, no_eval: bool, as_json: bool, resume: bool) -> None:
    """Run AI-counselor vs AI-client sessions and store them.

    The same command on a fresh database gives the same transcripts; run again in the same
    database it adds a new batch. A killed run's sessions are marked aborted (never in data sets);
    --resume finishes that batch.

    Example: vignette-lab selfplay --persona P4 --counselor skilled --sessions 50 --turns 20 --seed 7
    """
    from vignette_lab.session.selfplay import run_selfplay, sparkline

    result = run_selfplay(open_db(ctx, init=True), personas=personas, counselor=counselor, sessions=sessions,
                          turns=turns, seed=seed, progress=not as_json, evaluate=not no_eval,
                          embedder="auto", resume=resume)
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False))
        return
    for row in result.summary:
        traj = row["openness_trajectory"]
        every5 = ", ".join(f"t{i + 1}={v:.2f}" for i, v in enumerate(traj) if (i + 1) % 5 == 0)
        click.echo(f"{row['persona']} × {row['counselor']}: sessions={row['sessions']} "
                   f"reached 탐색+={row['reached_exploration_share']:.0%} "
                   f"final openness={row['mean_final_openness']:.3f} safety events={row['safety_events']}")
        click.echo(f"  openness {sparkline(traj)}  ({every5})")


@group("session")
def session() -> None:
    """Hold a counseling session from the terminal (start / send / end / review).

    After the first call on a DuckDB file these commands are answered by a warm worker process
    (`vignette-lab worker --help`; VIGNETTE_WORKER=off runs them in-process).
    """


def _service(ctx: click.Context):
    from vignette_lab.session.service import SessionService

    return SessionService(open_db(ctx, init=True), embedder="auto")


@session.command("start")
@click.argument("persona")
@click.option("--learner", default="local", show_default=True, help="Learner id.")
@click.option("--goal", "goals", multiple=True, default=("라포", "탐색"), show_default=True,
              help="Goal stage; repeat (라포, 탐색, 개입, 정리).")
@click.pass_context
def session_start(ctx: click.Context, persona: str, learner: str, goals: tuple[str, ...]) -> None:
    """Start a session and print its id.

    Example: vignette-lab session start P4 --goal 라포 --goal 탐색
    """
    info = _service(ctx).start(persona, learner_id=learner, goal_stages=goals)
    click.echo(info.session_id)


@session.command("send")
@click.argument("session_id")
@click.argument("text")
@click.pass_context
def session_send(ctx: click.Context, session_id: str, text: str) -> None:
    """Send one counselor utterance and print the client's reply.

    Example: vignette-lab session send <id> "요즘 어떻게 지내요?"
    """
    outcome = _service(ctx).send(session_id, text)
    if outcome is None:
        raise click.ClickException("빈 발화는 보낼 수 없습니다 (nothing was stored).")
    click.echo(outcome.client_text)


def _prog(ctx: click.Context) -> str:
    """The command line that reaches this database again, for the hint after a review: the
    program name plus ``--db`` unless it is the default file (a ``postgresql://`` URL is left
    out: it may hold a password, and it usually comes from ``VIGNETTE_DB``)."""
    import shlex

    from vignette_lab.config import DEFAULT_DB_PATH

    prog = ctx.find_root().info_name or "vignette-lab"
    url = str((ctx.find_object(dict) or {}).get("db_url") or "")
    if not url or url == DEFAULT_DB_PATH or url.lower().startswith(("postgresql://", "postgres://")):
        return prog
    return f"{prog} --db {shlex.quote(url)}"


@session.command("end")
@click.argument("session_id")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON (what `session review` prints).")
@click.pass_context
def session_end(ctx: click.Context, session_id: str, as_json: bool) -> None:
    """End a session (persisted first), run the deep evaluation and print a short review.

    The short review (in Korean: status, summary, most used techniques, strengths, what to
    improve) ends with the command that prints the whole review again.

    Example: vignette-lab session end <id>
    """
    review = _service(ctx).end(session_id)
    if as_json:
        echo_json(asdict(review))
        return
    from vignette_lab.cli._review_text import review_text

    click.echo(review_text(review, prog=_prog(ctx), ended=True))


@session.command("review")
@click.argument("session_id")
@click.option("--text", "as_text", is_flag=True,
              help="Print the whole review as Korean text (techniques, strengths, alternatives, checklist).")
@click.pass_context
def session_review(ctx: click.Context, session_id: str, as_text: bool) -> None:
    """Print the learner-safe review as JSON, or as Korean text with --text.

    Example: vignette-lab session review <id> --text
    """
    review = _service(ctx).review(session_id)
    if as_text:
        from vignette_lab.cli._review_text import review_text

        click.echo(review_text(review, prog=_prog(ctx), full=True))
        return
    echo_json(asdict(review))
