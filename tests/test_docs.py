"""The docs say what the code is: docs/architecture.md's module map and layers match the tree.

The map is the fenced block that starts with ``src/scorecard/``: a package is a line indented by
two spaces ending in ``/``, its modules are the file names that start a line indented by four
spaces (several may share a line; the description follows them). Every ``.py`` and ``.pyi`` file
of the package is listed, except each subpackage's ``__init__.py`` (its package line stands for
it).
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "src" / "scorecard"
MODULE = re.compile(r"\w+\.pyi?")


def listed_in_map(text: str) -> set[str]:
    """The packages (``name/``) and modules (``name/_module.py``) the module map lists."""
    block = text.split("```\nsrc/scorecard/\n", 1)[1].split("```", 1)[0]
    listed: set[str] = set()
    package: str | None = None
    for line in block.splitlines():
        if top := re.match(r"^  (\S+)", line):
            name = top.group(1)
            package = name.removesuffix("/") if name.endswith("/") else None
            listed.add(name)
        elif (inner := re.match(r"^    (\S.*)", line)) and package is not None:
            for word in inner.group(1).split():
                if not MODULE.fullmatch(word):
                    break
                listed.add(f"{package}/{word}")
    return listed


def in_tree(root: Path) -> set[str]:
    """The packages and modules under ``root``, named as the map names them."""
    found: set[str] = set()
    for path in root.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        name = path.relative_to(root).as_posix()
        if path.is_dir():
            found.add(f"{name}/")
        elif path.suffix in {".py", ".pyi"} and not (
            path.name == "__init__.py" and path.parent != root
        ):
            found.add(name)
    return found


def test_the_map_parser_reads_packages_modules_and_shared_lines() -> None:
    """Packages, one module per line and several modules on one line are all read; prose is not."""
    text = (
        "```\nsrc/scorecard/\n"
        "  __init__.py          the API\n"
        "  core/                PURE\n"
        "    _a.py                one\n"
        "                         a continuation naming _b.py\n"
        "    _c.py _d.pyi        two on a line\n"
        "```\n"
    )
    assert listed_in_map(text) == {
        "__init__.py",
        "core/",
        "core/_a.py",
        "core/_c.py",
        "core/_d.pyi",
    }


def test_every_module_in_the_map_exists() -> None:
    """The module map names no package or module the tree lacks."""
    missing = listed_in_map(ARCHITECTURE.read_text(encoding="utf-8")) - in_tree(PACKAGE)
    assert sorted(missing) == []


def test_every_module_in_the_tree_is_in_the_map() -> None:
    """Every package and module of src/scorecard is in the module map."""
    unlisted = in_tree(PACKAGE) - listed_in_map(ARCHITECTURE.read_text(encoding="utf-8"))
    assert sorted(unlisted) == []


def test_a_module_added_to_the_tree_fails_the_map(tmp_path: Path) -> None:
    """The comparison sees a new file: a copy of the tree with one more module differs."""
    copy = tmp_path / "scorecard"
    for name in in_tree(PACKAGE):
        target = copy / name
        if name.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    (copy / "core" / "_new.py").touch()
    listed = listed_in_map(ARCHITECTURE.read_text(encoding="utf-8"))
    assert in_tree(copy) - listed == {"core/_new.py"}


def documented_layers(text: str) -> list[str]:
    """The dependency rule's line (``cli > api > ...``), one entry per layer."""
    rule = text.split("## The dependency rule", 1)[1].split("```\n", 2)[1].strip()
    return [layer.strip() for layer in rule.split(">")]


def test_the_documented_layers_are_import_linters() -> None:
    """The dependency rule in the docs is the layers contract in pyproject.toml, in order."""
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = settings["tool"]["importlinter"]["contracts"]
    (layers,) = [contract["layers"] for contract in contracts if contract["type"] == "layers"]
    linted = [
        " | ".join(part.strip().removeprefix("scorecard.") for part in layer.split("|"))
        for layer in layers
    ]
    assert documented_layers(ARCHITECTURE.read_text(encoding="utf-8")) == linted


def test_every_layer_is_a_package_in_the_map() -> None:
    """Each package the layers name is a package of the module map, and each package is layered."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    layered = {name.strip() for layer in documented_layers(text) for name in layer.split("|")}
    packages = {name.removesuffix("/") for name in listed_in_map(text) if name.endswith("/")}
    assert layered == packages


#: The pages whose file references are checked: every doc but the generated API reference.
PAGES = sorted(
    [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "benchmarks" / "README.md"]
    + [page for page in (ROOT / "docs").glob("*.md") if page.name != "api.md"]
)
REFERENCE = re.compile(
    r"`((?:src|tests|docs|dev|benchmarks|cases|observations|notebooks|\.ci)/[\w/.-]+)`"
)


def file_references() -> list[tuple[str, str]]:
    """Each (page, path) where a page names a file or folder of the checkout in a code span."""
    return sorted(
        {
            (page.relative_to(ROOT).as_posix(), match.group(1))
            for page in PAGES
            for match in REFERENCE.finditer(page.read_text(encoding="utf-8"))
        }
    )


@pytest.mark.parametrize(("page", "reference"), file_references())
def test_files_the_docs_name_exist(page: str, reference: str) -> None:
    """Every file or folder of the checkout a doc names in a code span exists."""
    assert (ROOT / reference.rstrip("/")).exists(), f"{page} names {reference}"


#: Top-level files the README's layout table need not name: the README itself and the project's
#: own configuration.
UNLISTED_TOP_LEVEL = {"README.md", "pyproject.toml", ".gitignore"}


def test_the_readme_layout_names_every_top_level_entry() -> None:
    """Every top-level file and folder git tracks is in README's layout table (or is the README
    and the configuration)."""
    listed = git_tracked_top_level()
    if listed is None:
        pytest.skip("not a git checkout: nothing to compare the layout table with")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Layout", 1)[1].split("\n\n", 2)[1]
    named = {
        match.group(1).split("/")[0]
        for match in re.finditer(r"^\| `([^`]+)`", table, flags=re.MULTILINE)
    }
    assert sorted(listed - UNLISTED_TOP_LEVEL - named) == []


def git_tracked_top_level() -> set[str] | None:
    """The first path component of every file git tracks here (None outside a checkout)."""
    done = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return None
    return {line.split("/")[0] for line in done.stdout.splitlines() if line}


#: Where docs/architecture.md says each heavy library is imported: a package (``name/``) or a module.
IMPORTED_WHERE = {
    "pandas": {"aggregate/", "plots/", "report/_compare.py"},
    "matplotlib": {"plots/", "report/_site_data.py"},
    "duckdb": {"store/_query.py", "store/_store.py"},
    "typer": {"cli/"},
}


@functools.cache
def runtime_imports(path: Path) -> set[str]:
    """The top-level names of what ``path`` imports, leaving out ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for statement in block.body
        for node in ast.walk(statement)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def importers(library: str) -> set[str]:
    """The modules of src/scorecard that import ``library``, as package paths."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if library in runtime_imports(path)
    }


@pytest.mark.parametrize("library", sorted(IMPORTED_WHERE))
def test_heavy_libraries_are_imported_where_the_architecture_says(library: str) -> None:
    """Each module importing the library lies in a place the docs name, and each place named
    imports it; the places are spelt in the architecture's text."""
    places = IMPORTED_WHERE[library]
    found = importers(library)
    assert (
        sorted(module for module in found if not any(module.startswith(place) for place in places))
        == []
    )
    assert sorted(place for place in places if not any(m.startswith(place) for m in found)) == []
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert sorted(place for place in places if f"`{place}`" not in text) == []


def test_imports_under_type_checking_are_not_runtime_imports(tmp_path: Path) -> None:
    """The scan leaves out annotation-only imports and sees the others."""
    module = tmp_path / "module.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nimport json\n"
        "if TYPE_CHECKING:\n    import pandas\n"
        "def f():\n    from matplotlib import pyplot\n",
        encoding="utf-8",
    )
    assert runtime_imports(module) == {"typing", "json", "matplotlib"}
