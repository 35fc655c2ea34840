"""The import graph has no circles, inside packages as well as between them.

import-linter's layers contract (``dev/check.py``) keeps packages from importing upwards; this
test also catches circles among the modules of one package, which the layers cannot see.
Imports under ``TYPE_CHECKING`` are annotations only and do not count.
"""

from __future__ import annotations

import grimp

#: Edges grimp reports that are not module imports: the compiled extension is a submodule of
#: ``scorecard.fast`` that grimp cannot see, so importing it reads as importing the package.
NOT_IMPORTS = {("scorecard.fast._fastpath", "scorecard.fast")}


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iteratively)."""
    modules = sorted(graph.modules)
    edges = {
        module: sorted(
            imported
            for imported in graph.find_modules_directly_imported_by(module)
            if imported in graph.modules and (module, imported) not in NOT_IMPORTS
        )
        for module in modules
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    circles: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            module, position = work.pop()
            if position == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            children = edges[module]
            if position < len(children):
                work.append((module, position + 1))
                child = children[position]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            for child in children:
                if child in on_stack:
                    low[module] = min(low[module], low[child])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_module_imports_itself_through_others() -> None:
    """No group of scorecard modules imports each other in a circle."""
    graph = grimp.build_graph("scorecard", exclude_type_checking_imports=True)
    assert _circles(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    """The finder itself reports a planted circle (so an empty answer means something)."""
    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.c", imported="p.a")
    assert _circles(graph) == [["p.a", "p.b"]]
