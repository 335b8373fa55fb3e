"""The folders are layers, and the layers' import rules hold (``docs/architecture.md``).

Each package of ``bpeviz/`` may import only the layers below it: the engine nothing of
bpeviz's but itself; the file formats and the real tokenizers the engine; the records the
browser draws those three; the browser's half (``web``) the engine and the records; the
classroom none (it carries a run as JSON, never trains); the app every layer; the entry
points (``bpeviz``, ``cli``) every layer but the app and the classroom. And no module
reaches itself again through its imports, lazily or not: a cycle is a knot a reader has
to hold in their head (the classroom had one: the hub chose Redis's hub, which imported
the hub).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bpeviz"
TOP = "entry points"
MAY_IMPORT = {
    "engine": set(),
    "formats": {"engine"},
    "real": {"engine", "formats"},
    "records": {"engine", "formats", "real"},
    "web": {"engine", "records"},
    "classroom": set(),
    "app": {"engine", "formats", "real", "records", "web", "classroom"},
    TOP: {"engine", "formats", "real", "records", "web"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.glob("**/*.py"))}


def layer(module: str) -> str:
    """``bpeviz.engine.trainer`` is the engine's; the modules at the top are entry points."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (parts[1:] and parts[1] in MAY_IMPORT) else TOP


def imports(module: str) -> set[str]:
    """The bpeviz modules ``module`` imports anywhere (top level or inside a function):
    ``from bpeviz.engine import trainer`` counts as ``bpeviz.engine.trainer``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imports(module) for module in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each knot of ``graph`` (depth first; a cycle as its modules in order).

    >>> cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    [['a', 'b', 'c', 'a']]
    >>> cycles({"a": {"b"}, "b": set()})
    []
    """
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            found.append([*path[path.index(node) :], node])
            return
        if node in done:
            return
        for nxt in sorted(graph[node]):
            visit(nxt, [*path, node])
        done.add(node)

    for node in sorted(graph):
        visit(node, [])
    return found


def test_every_folder_is_a_layer_with_its_rule() -> None:
    folders = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert folders == set(MAY_IMPORT) - {TOP}
    assert layer("bpeviz.engine.trainer") == "engine"
    assert layer("bpeviz.web") == "web"
    assert layer("bpeviz.cli") == layer("bpeviz") == TOP


@pytest.mark.parametrize("name", sorted(MAY_IMPORT))
def test_a_layer_imports_only_the_layers_it_may(name: str) -> None:
    reaching = {
        module: sorted(found for found in GRAPH[module] if layer(found) not in MAY_IMPORT[name] |
        {name}) for module in MODULES
        if layer(module) == name
    }
    assert {module: found for module, found in reaching.items() if found} == {}


def test_the_rules_see_an_import_that_breaks_them() -> None:
    # the check above, on a module it knows: the engine's trainer imports the engine only
    assert GRAPH["bpeviz.engine.history"] >= {"bpeviz.engine.trainer"}
    assert layer("bpeviz.app.frame.widgets") not in MAY_IMPORT["engine"]


def test_the_import_graph_has_no_cycles() -> None:
    assert len(GRAPH) > 80
    assert cycles(GRAPH) == []


def test_every_package_says_what_it_is_and_what_it_may_import() -> None:
    missing = [
        module_name(path)
        for path in sorted(PACKAGE.glob("**/__init__.py"))
        if len(ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "") < 80
        or "TODO" in path.read_text(encoding="utf-8")
    ]
    assert missing == []
