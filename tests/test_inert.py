"""User text in Markdown is inert (:mod:`bpeviz.app.frame.inert`), and the pages hand Streamlit's
Markdown nothing else (issue 29).

The expected strings are worked by hand from CommonMark's rules (every ASCII punctuation mark
may be backslash-escaped) and from what Chromium showed for Streamlit 1.67's Markdown: GitHub's
autolinks are found after escapes are undone (``www\\.x\\.org`` still became a link), and a
word joiner before the dot or the scheme's colon stopped them. The browser side is
``tests/browser/test_markdown_inert.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bpeviz.app.frame.inert import WORD_JOINER, escape_markdown, lesson_markdown, visible_bidi

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "bpeviz" / "app"
WJ = WORD_JOINER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("plain words", "plain words", id="plain"),
        pytest.param("**b** _i_", r"\*\*b\*\* \_i\_", id="emphasis"),
        pytest.param("![x](p.png)", r"\!\[x\]\(p\.png\)", id="image"),
        pytest.param("<img src=x>", r"\<img src\=x\>", id="html"),
        pytest.param("[a](javascript:go)", rf"\[a\]\(javascript{WJ}\:go\)", id="js-link"),
        pytest.param("www.example.com", rf"www{WJ}\.example\.com", id="www"),
        pytest.param("http://h/p", rf"http{WJ}\:\/\/h\/p", id="http"),
        pytest.param("HTTPS://h", rf"HTTPS{WJ}\:\/\/h", id="https-upper"),
        pytest.param("a@b.org", rf"a{WJ}\@b\.org", id="email"),
        pytest.param("size: 10 @ 2", r"size\: 10 \@ 2", id="colon-and-at-before-a-space"),
        pytest.param(":smile: $x$ &amp;", r"\:smile\: \$x\$ \&amp\;", id="streamlit-and-entity"),
        pytest.param("a\u202eb\u2066c", r"a\\u202eb\\u2066c", id="bidi"),
        pytest.param("日本語 ␣the", "日本語 ␣the", id="not-ascii"),
    ],
)
def test_escape_markdown(text: str, expected: str) -> None:
    assert escape_markdown(text) == expected


def test_visible_bidi_leaves_other_text_alone() -> None:
    assert visible_bidi("\u202aa\u202c b\u2069") == "\\u202aa\\u202c b\\u2069"
    assert visible_bidi("שלום abc") == "שלום abc"


def test_lesson_notes_keep_emphasis_lists_and_code() -> None:
    notes = "# Say\n\n*Look* at **this**:\n\n- one\n- two\n\n1. first"
    assert lesson_markdown(notes) == notes.replace(":", "\\:")


def test_lesson_notes_show_links_and_images_as_written() -> None:
    notes = "See [the docs](http://x.org) and ![p](http://x.org/p.png) or <http://x.org>"
    assert lesson_markdown(notes) == (
        rf"See \[the docs\]\(http{WJ}\://x.org\) and \!\[p\]\(http{WJ}\://x.org/p.png\) "
        rf"or \<http{WJ}\://x.org\>"
    )
    assert lesson_markdown("go to www.x.org") == f"go to www{WJ}.x.org"


def test_lesson_notes_leave_code_as_written() -> None:
    notes = "Run `a[0](b)` then ``x `y` z``:\n\n```python\nprint('[a](b)')\n```\nafter ![i](j)"
    expected = (
        "Run `a[0](b)` then ``x `y` z``\\:\n\n```python\nprint('[a](b)')\n```\n"
        "after \\!\\[i\\]\\(j\\)"
    )
    assert lesson_markdown(notes) == expected
    # A fence never closed runs to the end, as CommonMark reads it.
    assert lesson_markdown("```\n[a](b)") == "```\n[a](b)"


# ---- the pages hand Streamlit's Markdown only inert text ----------------------------------

# Streamlit calls whose text is Markdown: the first argument, and a radio's options/captions.
MARKDOWN_CALLS = {
    "markdown", "caption", "info", "warning", "error", "success", "toast", "write", "title",
    "header", "subheader", "table",
}  # fmt: skip
MARKDOWN_OPTIONS = {"radio", "segmented_control", "pills"}
INERT_CALLS = {"escape_markdown", "lesson_markdown", "counted", "presented"}
# Arguments that are not literals but hold only the app's own words, each with the reason.
APP_TEXT: dict[str, str] = {
    "compare.py: choices[choice]": "tokenizer_choices escapes the imported file's name",
    "compare.py: pane_title(choice)": "escapes the settings' summary and the choice's caption",
    "compare.py: library_cuts_note(tokenizer)": "escapes the file's model type",
    "compression.py: parallel.cost_sentence(row)": "bundled passages and encodings",
    "compression.py: compression_numbers(curves_key, marker, languages, _curves=curves, "
    "_references=references)": "numbers, and tokenizer names: bundled, 'yours', 'imported'",
    "compression.py: f'{parallel.sizes_sentence(texts)} The tokens each tokenizer needs for "
    "the whole passage, so the last column is the cost of saying the same thing in Japanese "
    "(`sample_texts/parallel_*.txt`, written for bpeviz).'": "bundled passages' sizes",
    "compression.py: f'The {name} sample ran out of pairs after {history.merge_count:,} merges "
    "(vocab size {history.vocab_size:,}): every piece of its text is already one token, so its "
    "curve ends there. A tokenizer this large has simply memorised a 5 KB text.'": "bundled "
    "sample names",
    "compression.py: f'WordPiece on the {name} sample starts at a vocabulary of {run.base:,} "
    "(its characters, plain and with `##`), above the {max_vocab:,} trained here: one point.'": (
        "bundled sample names and numbers"
    ),
    "compression.py: f'WordPiece on the {name} sample ran out of pairs at a vocabulary of "
    "{run.vocab_size:,}: every word of it is one token.'": "bundled sample names and numbers",
    "export.py: f'Loaded {escape_markdown(result.source)} as a {result.kind}. It is now "
    "offered on the Tokenize and Compare pages.'": "the readers' names for the file's kind",
    "frame/widgets.py: shown": "tables.presented escapes every text cell",
    "export.py: f'**{item.title}**'": "the downloads' own titles",
    "export.py: library_note(result.tokenizer)": "escapes the file's suffix and model type",
    "step.py: undo.sentence": "chart_clicks' sentence about a sample and a vocab size",
    "tokenize.py: wordpiece_trace.NOTE if wordpiece else library_note(tokenizer)": (
        "a fixed note, or one that escapes the file's suffix and model type"
    ),
    "tokenize.py: list(choices)": "option keys: fixed names, 'Imported' for the file",
    "tokenize.py: labels.__getitem__": "menu_labels escapes the imported file's name",
    "tokenize.py: list(choices.values())": "tokenizer_choices escapes the imported file's name",
    "tokenize.py: long_piece_note(len(to_bytes(word)), len(to_bytes(part)))": "two numbers",
    "two_runs.py: lesson.lesson": "the bundled comparisons' lessons",
    "two_runs.py: f'{sentence} The table of merges below marks them.'": "runs_view's sentence "
    "of counts and pre-tokenizer names",
    "two_runs.py: 'Each curve ends where its run stops. ' + ' '.join((runs_view."
    "curve_end_sentence(name, h.merge_count, chosen[name].vocab_size, h.base) for name, h in "
    "histories.items()))": "run names A and B and numbers",
    "two_runs.py: f'**Run {name}**'": "'A' or 'B'",
    "two_runs.py: f\"**{name}**: {counted(len(shown), 'token')}\"": "'A' or 'B'",
    "two_runs.py: f\"**Only in {name}**: {counted(len(only), 'merge')}\"": "'A' or 'B'",
    "two_runs.py: f\"Run {name} stopped after {counted(history.merge_count, 'merge')}.\"": "A/B",
    "two_runs.py: f'Every merge of {name} is also made by the other run.'": "'A' or 'B'",
    "two_runs/across_view.py: f\"**{name}**: {counted(tokenization.token_count, 'token')}\"": (
        "'A' or 'B'"
    ),
    "two_runs/across_view.py: f\"**Only in {name}**: {counted(len(only), 'token')}\"": "A/B",
    "two_runs/across_view.py: f'Every token {name} learned, the other run learned too.'": "A/B",
    "tokenize/chat_view.py: f'{model} uses `{encoding}`; its chat markup puts {separator} after "
    "the role ({ids_text}; ids from {chat.source}).'": (
        "a chat model from the menu and its constants"
    ),
    "tokenize/chat_view.py: {'part': [\"reply's opening\" if part.role == REPLY else part.role "
    "for part in encoded.parts], 'tokens': [part.tokens for part in encoded.parts]}": (
        "chat.ROLES only"
    ),
    "lesson/view.py: line": "the slide's and lesson's titles through escape_markdown",
    "lesson/view.py: list(lessons)": "option keys: the bundled lessons' names, never shown",
    "lesson/view.py: lambda key: escape_markdown(f'{lessons[key].title} ({lessons[key].minutes}"
    " min)')": "a bundled lesson's title, through escape_markdown",
    "frame/sidebar.py: samples[state[run_settings.KEY_SAMPLE]].description": (
        "the bundled samples' texts"
    ),
    "frame/sidebar.py: run_settings.SOURCES": "the text sources' fixed names",
    "frame/sidebar.py: _named(run_settings.KEY_SOURCE)": "SETTINGS' label, the sources' labels",
    "frame/sidebar.py: _named(run_settings.KEY_SCORE_RULE)": "SETTINGS' label, the rules' names",
}


def _inert(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):  # a module's constant: the app's own words
        return node.id.isupper()
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_inert(item) for item in node.elts)
    if isinstance(node, ast.JoinedStr):
        return all(
            isinstance(part, ast.Constant) or part.format_spec is not None or _inert(part.value)
            for part in node.values
            if isinstance(part, (ast.Constant, ast.FormattedValue))
        )
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        return name in INERT_CALLS
    if isinstance(node, ast.BinOp):
        return _inert(node.left) and _inert(node.right)
    return False


def _markdown_arguments(tree: ast.AST) -> list[ast.expr]:
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "st"):
            continue
        if node.func.attr in MARKDOWN_CALLS and node.args:
            found.append(node.args[0])
        if node.func.attr in MARKDOWN_OPTIONS:
            found.extend(node.args)
            found.extend(  # a keyword's too, and a spread of them (``**_named(key)``)
                k.value
                for k in node.keywords
                if k.arg in {None, "label", "options", "captions", "format_func"}
            )
    return found


def test_pages_give_streamlits_markdown_only_inert_text() -> None:
    """Every non-literal text a page or an app module hands Streamlit's Markdown goes through
    the helper (or is a number), or is listed in ``APP_TEXT`` with why it holds no user text."""
    sources = [REPO / "app.py", *REPO.glob("app_pages/*.py"), *REPO.glob("bpeviz/app/**/*.py")]
    unlisted, seen = [], set()
    for path in sources:
        for argument in _markdown_arguments(ast.parse(path.read_text(encoding="utf-8"))):
            if _inert(argument):
                continue
            name = path.relative_to(APP).as_posix() if APP in path.parents else path.name
            where = f"{name}: {ast.unparse(argument)}"
            seen.add(where)
            if where not in APP_TEXT:
                unlisted.append(f"{path.relative_to(REPO)}:{argument.lineno}: {where}")
    assert not unlisted, "Markdown that may hold user text:\n" + "\n".join(unlisted)
    assert not set(APP_TEXT) - seen, f"listed but gone: {set(APP_TEXT) - seen}"
