"""Markdown → safe HTML for agent and coach messages (seed 002 §4.2).

Agent text is rendered with markdown-it-py (CommonMark + GFM tables, strikethrough, task
lists) and then passed through an nh3 allowlist. Raw HTML in the source is allowed into the
parser only so that the safe inline tags of seed 002 (``<u> <sup> <sub> <mark> <kbd> <br>``)
work; everything else (``<script>``, ``<iframe>``, ``<style>``, ``<form>``, event-handler
attributes, ``javascript:`` URLs) is removed by the sanitiser, which always runs last.

While a reply is still streaming the text can stop anywhere — inside a code fence, a table
or a tag. :func:`render_partial_markdown` closes what would otherwise swallow the rest of the
page (an open code fence) and renders the rest as it stands; it never raises.

Examples
--------
>>> render_markdown("**굵게** 와 `코드`")
'<p><strong>굵게</strong> 와 <code>코드</code></p>'
>>> "script" in render_markdown("<script>alert(1)</script>안녕")
False
"""

from __future__ import annotations

import logging
import re

import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin

log = logging.getLogger(__name__)

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_TAGS",
    "close_open_blocks",
    "render_markdown",
    "render_partial_markdown",
    "sanitize_html",
]

ALLOWED_TAGS: frozenset[str] = frozenset({
    "p", "br", "hr", "strong", "em", "b", "i", "del", "s", "code", "pre", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "a", "img",
    "table", "thead", "tbody", "tr", "th", "td",
    "u", "sup", "sub", "mark", "kbd", "input", "span",
})

ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "th": {"style"},
    "td": {"style"},
    "code": {"class"},
    "ul": {"class"},
    "li": {"class"},
    # Task-list checkboxes; the sanitiser forces them read-only below.
    "input": {"type", "checked", "class"},
}

_URL_SCHEMES = {"http", "https", "mailto"}

_md = (
    MarkdownIt("commonmark", {"html": True, "breaks": False, "typographer": False})
    .enable("table")
    .enable("strikethrough")
    .use(tasklists_plugin, enabled=False)
)

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


def sanitize_html(html: str) -> str:
    """Reduce HTML to the chat allowlist.

    Parameters
    ----------
    html : str
        Untrusted HTML (the markdown renderer's output or raw agent text).

    Returns
    -------
    str
        HTML holding only :data:`ALLOWED_TAGS` with :data:`ALLOWED_ATTRIBUTES`; links open in a
        new tab with ``rel="noopener noreferrer"``; only ``text-align`` survives in ``style``.

    Examples
    --------
    >>> sanitize_html('<a href="javascript:alert(1)" onclick="x()">링크</a>')
    '<a target="_blank" rel="noopener noreferrer">링크</a>'
    """
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        # script/style bodies are dropped with the tag, not kept as text.
        clean_content_tags={"script", "style", "iframe", "form", "object", "embed",
                            "textarea", "select", "noscript", "template"},
        attributes={k: set(v) for k, v in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(_URL_SCHEMES),
        link_rel="noopener noreferrer",
        set_tag_attribute_values={"a": {"target": "_blank"},
                                  "input": {"disabled": "disabled"}},
        filter_style_properties={"text-align"},
        strip_comments=True,
    )


def render_markdown(text: str) -> str:
    """Render agent markdown to sanitised HTML.

    Ordered lists are always numbered from their real position (``start`` is dropped),
    as seed 002 asks; table column alignment survives as ``text-align``.

    Parameters
    ----------
    text : str
        Markdown source from an agent or the live coach.

    Returns
    -------
    str
        Safe HTML fragment (no trailing newline).

    Examples
    --------
    >>> render_markdown("| a | b |\\n|:-|-:|\\n| 1 | 2 |").count("text-align")
    4
    """
    if not isinstance(text, str):
        raise TypeError(f"markdown text must be a str, got {type(text).__name__}")
    return sanitize_html(_md.render(text)).strip()


def close_open_blocks(text: str) -> str:
    """Close constructs a half-streamed text leaves open.

    An unclosed code fence would turn everything after it into code, so a matching closing
    fence is appended. Inline markers need nothing: CommonMark shows an unmatched ``**`` as
    text, and an unfinished tag such as ``<scr`` is plain text that the sanitiser escapes.

    Parameters
    ----------
    text : str
        Markdown received so far.

    Returns
    -------
    str
        Markdown safe to render as a snapshot.
    """
    open_fence: str | None = None
    for match in _FENCE_RE.finditer(text):
        marker = match.group(1)
        if open_fence is None:
            open_fence = marker
        elif marker[0] == open_fence[0] and len(marker) >= len(open_fence):
            line_end = text.find("\n", match.end())
            rest = text[match.end(): None if line_end < 0 else line_end]
            if not rest.strip():  # a closing fence has nothing after it
                open_fence = None
    if open_fence is not None:
        return text + ("" if text.endswith("\n") else "\n") + open_fence
    return text


def render_partial_markdown(text: str) -> str:
    """Render a snapshot of a streaming reply; never raises and never emits unsafe HTML.

    Parameters
    ----------
    text : str
        Markdown received so far (may end anywhere).

    Returns
    -------
    str
        Safe HTML fragment.
    """
    try:
        return render_markdown(close_open_blocks(text or ""))
    except Exception as exc:  # noqa: BLE001 - a broken snapshot must not break the page
        log.warning("markdown rendering failed, showing the escaped text: %s", exc)
        return sanitize_html("<p>" + nh3.clean_text(text or "") + "</p>")
