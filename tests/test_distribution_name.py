"""The distribution is ``agent-tool-metrics``: nothing here depends on, or tells
anyone to install, the bare name ``agentmetrics``.

PyPI's ``agentmetrics`` (and its ``agentmetrics-*`` family) is an unrelated
project that installs a package also called ``agentmetrics``: a dependency on
it, or an install line naming it, replaces this library with that one (the
plugin-discovery test's fresh venv did exactly that before the rename).
"""

from __future__ import annotations

import ast
import re
import sys

import pytest

from conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

OURS = "agent-tool-metrics"
PYPROJECTS = sorted([REPO / "pyproject.toml", *REPO.glob("plugins/*/pyproject.toml")])
PAGES = sorted([*REPO.glob("docs/**/*.md"), REPO / "README.md", *REPO.glob("plugins/**/README.md"),
                REPO / "docs" / "tutorial.ipynb", REPO / "Makefile", *REPO.glob("tests/peers/*.txt"),
                *REPO.glob("tests/peers/*.md"), *REPO.glob("agentmetrics/**/*.py"),
                *REPO.glob("plugins/*/*/*.py")])
PAGES = [page for page in PAGES if "_build" not in page.parts]


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"not a requirement: {requirement!r}"
    return normalize(match.group(1))


def is_theirs(name: str) -> bool:
    """The other project's name or one of its family (``agentmetrics-anthropic``, ...)."""
    return name == "agentmetrics" or name.startswith("agentmetrics-")


@pytest.mark.parametrize("path", PYPROJECTS, ids=lambda p: str(p.relative_to(REPO)))
def test_no_pyproject_names_or_depends_on_the_other_projects_name(path):
    project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    name = normalize(project["name"])
    assert name == OURS or name.startswith(OURS + "-"), f"{path}: distribution {name!r}"
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    theirs = [r for r in requirements if is_theirs(requirement_name(r))]
    assert not theirs, f"{path} depends on PyPI's unrelated agentmetrics project: {theirs}"


def test_the_plugins_depend_on_this_distribution():
    for path in PYPROJECTS[1:] if PYPROJECTS[0] == REPO / "pyproject.toml" else PYPROJECTS:
        if path == REPO / "pyproject.toml":
            continue
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        assert any(requirement_name(r) == OURS for r in project["dependencies"]), path


# Options of pip install whose next word is a file or URL, not a requirement.
_TAKES_VALUE = {"-r", "--requirement", "-c", "--constraint", "-t", "--target", "-i", "--index-url",
                "--extra-index-url", "-f", "--find-links", "--prefix", "--root", "-e", "--editable"}


def install_lines(text: str) -> list[str]:
    return re.findall(r"pip install ([^\n`\"]*)", text.replace("\\\n", " "))


def installed_names(line: str) -> list[str]:
    """The requirements a ``pip install`` line names (paths and options left out)."""
    names, skip = [], False
    for token in line.split():
        token = token.strip("'\"")
        if skip:
            skip = False
            continue
        if token in _TAKES_VALUE:
            skip = True
            continue
        if token.startswith(("-", "#")) or not token:
            if token.startswith("#"):
                break
            continue
        if token.startswith((".", "/", "~", "$")) or "/" in token or "{" in token:
            continue  # a path (./plugins/..., path/to/clone) or a placeholder ($(PLUGIN), $<)
        names.append(requirement_name(token))
    return names


def test_the_install_line_parser_sees_what_it_must():
    """The checker itself: it finds the bare name in every spelling a page could use."""
    assert installed_names("-U 'agentmetrics[pandas]'") == ["agentmetrics"]
    assert installed_names("--quiet agentmetrics>=0.1 numpy") == ["agentmetrics", "numpy"]
    assert installed_names("-e . -e ./plugins/agent-tool-metrics-judge") == []
    assert installed_names("-r requirements.txt Agent_Tool.Metrics") == ["agent-tool-metrics"]
    assert is_theirs("agentmetrics-langchain") and not is_theirs(OURS)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_page_or_hint_installs_the_other_projects_name(path):
    text = path.read_text(encoding="utf-8")
    for line in install_lines(text):
        theirs = [name for name in installed_names(line) if is_theirs(name)]
        assert not theirs, f"{path.relative_to(REPO)}: 'pip install {line}' installs PyPI's unrelated {theirs}"
    # A dependency written out in a page's example (pyproject.toml, requirements).
    quoted = re.findall(r"""["'](agentmetrics(?:[-_.][A-Za-z0-9]+)*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~]=?[^"']*)?["']""",
                        text)
    dependency = [q for q in quoted if re.search(rf"""["']{re.escape(q)}\s*(\[|[<>=!~])""", text)]
    assert not dependency, f"{path.relative_to(REPO)} writes a dependency on {dependency}"


def test_every_extra_a_missing_dependency_hint_names_exists():
    """``require(module, extra)`` hints say ``pip install 'agent-tool-metrics[extra]'``:
    each extra they can name is one pyproject.toml defines."""
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
                 ["project"]["optional-dependencies"])
    named = set()
    for source in REPO.glob("agentmetrics/**/*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "require"
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)):
                named.add(node.args[1].value)
        named.update(re.findall(r"agent-tool-metrics\[(\w+)\]", source.read_text(encoding="utf-8")))
    assert named and named <= extras, named - extras


def test_the_hint_a_user_sees_names_this_distribution():
    from agentmetrics._base._optional import require
    from agentmetrics.errors import MissingDependencyError

    with pytest.raises(MissingDependencyError) as info:
        require("a_module_that_is_not_installed_anywhere", "pandas")
    assert "pip install 'agent-tool-metrics[pandas]'" in str(info.value)
    assert "'agentmetrics[" not in str(info.value)


def test_the_readme_says_near_the_top_that_pypis_agentmetrics_is_another_project():
    head = (REPO / "README.md").read_text(encoding="utf-8")[:1500]
    assert "`agent-tool-metrics`" in head and "unrelated" in head
