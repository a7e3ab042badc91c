"""The modules of analysis/ import each other without a cycle (counting
imports inside functions too, which only defer one): each can be read,
tested and changed on top of the ones it imports."""

import ast
import unittest
from pathlib import Path

from helpers import ANALYSIS


def local_imports(path: Path, local: set[str]) -> set[str]:
    """The analysis/ modules that path imports, anywhere in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found & local


def import_graph(directory: Path) -> dict[str, set[str]]:
    modules = {p.stem: p for p in directory.glob("*.py")}
    return {name: local_imports(path, set(modules)) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as [a, b, ..., a], or [] when there is none."""
    state: dict[str, str] = {}  # "open" while on the path, "done" after

    def visit(node: str, path: list[str]) -> list[str]:
        state[node] = "open"
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                return path[path.index(dep):] + [node, dep] if dep in path else [node, dep]
            if dep not in state:
                cycle = visit(dep, path + [node])
                if cycle:
                    return cycle
        state[node] = "done"
        return []

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start, [])
            if cycle:
                return cycle
    return []


class Imports(unittest.TestCase):
    def test_no_cycle(self) -> None:
        graph = import_graph(ANALYSIS)
        self.assertIn("resultdir", graph["derive"])  # the graph is read at all
        cycle = find_cycle(graph)
        self.assertEqual(cycle, [], "import cycle: " + " -> ".join(cycle))

    def test_finds_a_cycle(self) -> None:
        """The check itself: a cycle through a function-level import is found."""
        self.assertEqual(find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}),
                         ["a", "b", "c", "a"])
        self.assertEqual(find_cycle({"a": {"b"}, "b": set()}), [])
        self.assertEqual(local_imports(Path(__file__), {"helpers", "ast"}), {"helpers", "ast"})

    def test_model_imports_no_analysis(self) -> None:
        """The results-directory model reads files only: it imports nothing
        of the analysis but the suite.conf reader."""
        self.assertEqual(import_graph(ANALYSIS)["resultdir"], {"suiteconf"})


if __name__ == "__main__":
    unittest.main()
