"""No internal wording on screen: the sentences the app shows (string literals of the pages,
of ``bpeviz``, whose engine messages reach the screen too, and of the browser's scripts;
not docstrings, comments, keys or class names) never say the words the project uses among
its developers: "seed" (the design document's examples), "issue" (the tracker's), "step
bar" or "class bar" (for a row of controls)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
# "bar" as the developers say it (the step bar, the class bar), not a progress or address bar
# "seed" as in the design document's examples (a Unigram "seed size" is the algorithm's word)
INTERNAL = re.compile(
    r"\b(seed (document|doc|\d{3})|issues?|(step|class|lesson|options?) bar)\b", re.IGNORECASE
)
JS_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`')


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def python_sentences(path: Path) -> list[str]:
    """String constants with a space in them (a sentence, not a key), docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in skip and " " in node.value.strip()
    ]  # fmt: skip


def js_sentences(path: Path) -> list[str]:
    """Quoted and template strings with a space in them, comments removed first."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return [a or b for a, b in JS_STRING.findall(text) if " " in (a or b).strip()]


def test_no_internal_words_on_screen() -> None:
    sources = [*sorted((ROOT / "app_pages").glob("*.py")), ROOT / "app.py",
               *sorted((ROOT / "bpeviz").rglob("*.py"))]  # fmt: skip  # the engine's messages too
    said = [(path, text) for path in sources for text in python_sentences(path)]
    said += [(path, text) for path in sorted((ROOT / "bpeviz" / "web").glob("*.js"))
             for text in js_sentences(path)]  # fmt: skip
    found = [f"{path.relative_to(ROOT)}: {text[:80]!r}" for path, text in said
             if INTERNAL.search(text)]  # fmt: skip
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text(
        '"""The seed doc."""\nst.caption("the seed document\'s example")\nKEY = "a bar"\n'
    )
    found = sorted(python_sentences(page))
    assert found == ["a bar", "the seed document's example"]
    assert [bool(INTERNAL.search(text)) for text in found] == [False, True]
    script = tmp_path / "view.js"
    script.write_text('// the step bar\nel("p", "bpe-bar", `Next issue ${n}`);\n')
    assert js_sentences(script) == ["Next issue ${n}"]
