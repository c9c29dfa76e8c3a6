"""``vignette-lab kb …``: sync source packs and search the knowledge base.

A thin click layer over :func:`vignette_lab.kb.index.sync_sources` and
:func:`vignette_lab.kb.retrieval.search`; :mod:`vignette_lab.cli` registers the group. The kb
modules (numpy, the embedders) are imported inside the commands, for ``--help``'s start-up time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import click

from vignette_lab.cli._base import group, json_option, open_db

__all__ = ["kb"]


@group(name="kb")
def kb() -> None:
    """Knowledge base: index source packs and search them under a role policy.

    Example: vignette-lab kb sync --dry-run
    """


@kb.command("sync")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option("--reindex", is_flag=True, help="Re-chunk and re-embed every document (after switching embedder).")
@click.option("--sources", "sources_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of *.json source packs (default: kb_sources/).")
@click.pass_context
def sync_cmd(ctx: click.Context, dry_run: bool, reindex: bool, sources_dir: Path | None) -> None:
    """Index kb_sources/ incrementally by content hash.

    Example: vignette-lab kb sync --reindex
    """
    from vignette_lab.kb.index import sync_sources

    report = sync_sources(open_db(ctx), sources_dir=sources_dir, dry_run=dry_run, reindex=reindex)
    click.echo(str(report))


@kb.command("search")
@click.argument("query")
@click.option("--role", type=click.Choice(["client", "counselor", "evaluator"]), required=True,
              help="AI role whose retrieval policy applies (seed 004 §4.3).")
@click.option("--k", "k", type=click.IntRange(1, 100), default=5, show_default=True, help="Number of hits.")
@click.option("--fusion", type=click.Choice(["rrf", "weighted"]), default="rrf", show_default=True,
              help="How dense and sparse lists are fused.")
@click.option("--external-engine", is_flag=True, help="Drop license C/D chunks (hits go to an external LLM).")
@json_option("Print hits as a JSON list.")
@click.pass_context
def search_cmd(ctx: click.Context, query: str, role: Literal["client", "counselor", "evaluator"], k: int, fusion: str, external_engine: bool,
               as_json: bool) -> None:
    """Search the knowledge base as ROLE would see it.

    Example: vignette-lab kb search "잠을 못 자요" --role client --json
    """
    from vignette_lab.kb.retrieval import search

    hits = search(open_db(ctx), query, role=role, k=k, fusion=fusion, external_engine=external_engine)
    if as_json:
        click.echo(json.dumps([{"source_id": h.source_id, "kb_kind": h.kb_kind, "sensitivity": h.sensitivity,
                                "score": h.score, "text": h.text, "heading_path": h.heading_path,
                                "chunk_id": h.chunk_id} for h in hits], ensure_ascii=False, indent=2))
        return
    if not hits:
        click.echo("no hits")
    for i, h in enumerate(hits, start=1):
        snippet = " ".join(h.text.split())
        click.echo(f"{i}. [{h.kb_kind}/{h.source_id} s{h.sensitivity}] {h.score:.4f} {h.heading_path or ''}")
        click.echo(f"   {snippet[:160]}{'…' if len(snippet) > 160 else ''}")
