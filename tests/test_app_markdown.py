"""Markdown rendering of agent/coach messages: every MUST component of seed 002 §4.2, and safety."""

from __future__ import annotations

import random
import re

import pytest

from vignette_lab.app.markdown import close_open_blocks, render_markdown, render_partial_markdown

# An event handler or a javascript: URL inside a tag.
_UNSAFE_ATTR = re.compile(r"<[^>]*(\son\w+\s*=|javascript:)[^>]*>")


@pytest.mark.parametrize(("source", "expected"), [
    ("**굵게**", "<strong>굵게</strong>"),
    ("*기울임*", "<em>기울임</em>"),
    ("***둘 다***", "<em><strong>둘 다</strong></em>"),
    ("~~취소~~", "<s>취소</s>"),
    ("`코드 **아님**`", "<code>코드 **아님**</code>"),
    ("**굵게 `코드` 포함**", "<strong>굵게 <code>코드</code> 포함</strong>"),
    ("# 제목1", "<h1>제목1</h1>"),
    ("###### 제목6", "<h6>제목6</h6>"),
    ("> 인용\n>> 중첩", "<blockquote>"),
    ("---", "<hr>"),
    ("[링크](https://example.org)",
     '<a href="https://example.org" target="_blank" rel="noopener noreferrer">링크</a>'),
    ("줄 끝 공백 두 칸  \n다음 줄", "<br>"),
    ("\\*별표\\* \\# \\_", "<p>*별표* # _</p>"),
    ("<u>밑줄</u> <sup>위</sup> <sub>아래</sub> <mark>형광</mark> <kbd>Ctrl</kbd>",
     "<u>밑줄</u> <sup>위</sup> <sub>아래</sub> <mark>형광</mark> <kbd>Ctrl</kbd>"),
])
def test_must_components_render(source, expected):
    assert expected in render_markdown(source)


def test_nested_blockquote_has_two_levels():
    assert render_markdown("> 하나\n>> 둘").count("<blockquote>") == 2


def test_nested_mixed_lists_and_ordered_renumbering():
    html = render_markdown("1. 첫째\n   - 하위 ●\n     - 하위 ○\n1. 둘째\n7. 셋째")
    assert html.count("<ol>") == 1 and html.count("<ul>") == 2
    assert html.count("<li>") == 5
    # numbering comes from order, not from the source digits: no start attribute survives
    assert "start=" not in render_markdown("3. 셋\n4. 넷")


def test_fenced_code_keeps_text_and_language_class():
    html = render_markdown("```python\nif a < b:\n    print('**x**')\n```")
    assert '<pre><code class="language-python">' in html
    assert "if a &lt; b:" in html and "**x**" in html


def test_table_with_alignment_and_inline_markdown_in_cells():
    html = render_markdown("| 왼쪽 | 가운데 | 오른쪽 |\n|:--|:-:|--:|\n| **굵게** | `c` | 3 |")
    assert "<table>" in html and "<thead>" in html
    assert 'style="text-align:left"' in html and 'style="text-align:center"' in html
    assert 'style="text-align:right"' in html
    assert "<strong>굵게</strong>" in html


def test_task_list_checkboxes_are_read_only():
    html = render_markdown("- [x] 완료\n- [ ] 할 일")
    assert html.count('type="checkbox"') == 2
    assert html.count('disabled="disabled"') == 2
    assert 'checked="checked"' in html


@pytest.mark.parametrize("attack", [
    "<script>alert(1)</script>",
    "<iframe src='https://evil.example'></iframe>",
    "<style>body{display:none}</style>",
    "<form action='https://evil.example'><input name=x></form>",
    "<img src=x onerror=alert(1)>",
    "<a href='javascript:alert(1)'>x</a>",
    "[x](javascript:alert(1))",
    "<div onclick='alert(1)'>x</div>",
    "<svg onload=alert(1)></svg>",
    "<object data='x'></object><embed src='x'>",
    "<p style='position:fixed;top:0'>x</p>",
])
def test_forbidden_tags_and_attributes_are_removed(attack):
    html = render_markdown("앞 " + attack + " 뒤").lower()
    for bad in ("<script", "<iframe", "<style", "<form", "<svg", "<object", "<embed", "position:fixed",
                "alert(1)</"):
        assert bad not in html, (attack, html)
    # Inert text may mention "javascript:"; what must never survive is an attribute carrying it.
    assert not _UNSAFE_ATTR.search(html), (attack, html)


def test_close_open_blocks_closes_only_unterminated_fences():
    assert close_open_blocks("```py\nx = 1").endswith("\n```")
    assert close_open_blocks("```\na\n```\n") == "```\na\n```\n"
    assert close_open_blocks("~~~~\ncode ``` inside") .endswith("~~~~")


def test_partial_rendering_keeps_later_text_out_of_an_open_code_block():
    html = render_partial_markdown("설명:\n```bash\necho 안녕")
    assert html.count("<pre>") == 1 and "echo 안녕" in html


def test_every_prefix_of_a_rich_reply_renders_safely():
    reply = ("# 제목\n**굵게** 그리고 `코드`\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n```js\nalert('x')\n```\n"
             "<script>window.x=1</script><img src=x onerror=alert(1)> [l](javascript:alert(1))\n- [ ] 할 일")
    for end in range(len(reply) + 1):
        html = render_partial_markdown(reply[:end]).lower()
        assert "<script" not in html and not _UNSAFE_ATTR.search(html), (end, html)


def test_random_noise_never_raises():
    rng = random.Random(0)
    alphabet = "*_`~#>|-[]()<>!/\\ \n가나다abc=:\"'"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        html = render_partial_markdown(text)
        assert isinstance(html, str) and "<script" not in html.lower()


def test_render_markdown_rejects_non_text():
    with pytest.raises(TypeError, match="markdown text must be a str"):
        render_markdown(None)  # type: ignore[arg-type]
