"""Every example in README.md, docs/ and the plugins' READMEs runs, so the docs
cannot drift from the code.

Python examples are doctests (``>>>``), run from the repository's root.
Console examples are the ``$ ...`` lines of ```console blocks, also from the
root: tests/docs_console.py parses them, runs ``agentmetrics`` and ``python``
commands and checks ``pip install`` and ``make`` ones; ``pytest`` ones run here
with pytester. A command that no runner knows fails. ``python
tests/docs_console.py --write`` rewrites the shown output from real runs.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import io
import json
import re
import subprocess
import sys
import types

# Imported here, before any pytester run: pytester's in-process runs drop the
# modules a run imported, and numpy cannot be imported twice in one process.
import numpy  # noqa: F401
import pytest

import docs_console
from agentmetrics.cli import build_parser
from conftest import REPO
from docs_console import Example, Session

DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [REPO / "README.md"]
PAGE_IDS = [str(page.relative_to(REPO)) for page in PAGES]
CONSOLE_PAGES = docs_console.pages()
CONSOLE_IDS = [str(page.relative_to(REPO)) for page in CONSOLE_PAGES]
FLAGS = doctest.ELLIPSIS


def _run_doctests(text: str, name: str) -> tuple[int, str]:
    # Each page runs as a real, importable module, so classes it defines can
    # be pickled as a user's own module's classes would.
    module_name = "docs_page_" + re.sub(r"\W", "_", name)
    module = types.ModuleType(module_name)
    sys.modules[module_name] = module
    try:
        test = doctest.DocTestParser().get_doctest(text, {}, name, name, 0)
        test.globs = module.__dict__  # get_doctest copies the globals it is given
        output = io.StringIO()
        runner = doctest.DocTestRunner(verbose=False, optionflags=FLAGS)  # not from sys.argv's -v
        runner.run(test, out=output.write, clear_globs=False)
    finally:
        del sys.modules[module_name]
    return len(test.examples), output.getvalue()


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_python_examples(page, monkeypatch):
    monkeypatch.chdir(REPO)  # paths in examples are relative to the root, as in the console ones
    with Session(page) as session:  # the page's own projects (docs/plugins.md's plugin) installed
        assert not session.problems, "\n".join(session.problems)
        count, report = _run_doctests(session.text, page.name)
    assert not report, report


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=CONSOLE_IDS)
def test_console_examples(page):
    """Every command of the page's console blocks runs as shown or passes its
    check (pytest ones: test_pytest_examples); one no runner knows fails."""
    with Session(page) as session:
        problems = list(session.problems)
        for example in session.examples:
            problems += session.check(example)
    assert not problems, "\n\n".join(problems)


def _pytest_args(example: Example) -> list[str]:
    argv = example.argv
    return argv[3:] if argv[0].startswith("python") else argv[1:]


@pytest.mark.parametrize("page", CONSOLE_PAGES, ids=CONSOLE_IDS)
def test_pytest_examples(page, pytester):
    """``$ pytest`` examples run on the page's ```LANG file=NAME files; every
    line shown must appear, in order, in the real output ("..." stands for anything)."""
    with Session(page) as session:
        docs_console.write_files(session.files, pytester.path)
        for example in session.examples:
            if example.runner != "pytest":
                continue
            assert example.expected is not None, f"{example.where}: show the output of {example.command!r}"
            result = pytester.runpytest(*_pytest_args(example))
            patterns = [
                re.sub(r"([\[\]])", r"[\1]", line.rstrip()).replace("...", "*") or "*"
                for line in example.expected.splitlines()
                if line.strip() != "..."
            ]
            result.stdout.fnmatch_lines([p for p in patterns if p != "*"], consecutive=False)
            assert result.ret == example.status, example.where


# Pages generated from elsewhere: the API reference (from docstrings, whose
# examples test_docstring_examples runs) and the benchmarks (benchmarks/README.md).
GENERATED = {DOCS / "api.md", DOCS / "benchmarks.md"}


@pytest.mark.parametrize("page", sorted(set(PAGES) - GENERATED), ids=lambda p: str(p.relative_to(REPO)))
def test_every_page_has_an_executed_example(page):
    text = page.read_text(encoding="utf-8")
    runs = [example for example in docs_console.examples(page, text)
            if example.runner in ("agentmetrics", "python", "pytest")]
    assert "\n>>> " in text or runs, f"{page} shows nothing that the tests run"


@pytest.mark.parametrize("module", ["agentmetrics", "agentmetrics.registry",
                                    "agentmetrics.cli._common", "agentmetrics.stats",
                                    "agentmetrics.functional"])
def test_docstring_examples(module):
    failures, attempted = doctest.testmod(importlib.import_module(module), optionflags=FLAGS)
    assert attempted and not failures


def test_readme_keeps_the_two_commands_at_the_top():
    head = (REPO / "README.md").read_text(encoding="utf-8")[:600]
    assert "make demo" in head and "make test" in head


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_no_python_block_goes_unrun(page):
    """A ```python block is either doctest (>>>) or a test file run by pytest."""
    for info, body in re.findall(r"```python([^\n]*)\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
        assert ">>>" in body or "file=" in info, f"{page}: a python example the suite does not run:\n{body}"


# -- the console runners themselves ----------------------------------------------


def _problems(tmp_path, block: str) -> list[str]:
    page = tmp_path / "page.md"
    page.write_text(f"# A page\n\n```console\n{block}```\n", encoding="utf-8")
    with Session(page) as session:
        return [problem for example in session.examples for problem in session.check(example)]


@pytest.mark.parametrize("block", [
    "$ cd docs\n",
    "$ agentmetrics-nope list\n",
    "$ ./run.sh\n",
    "agentmetrics-nope list\n",  # a block without prompts: every line a command
])
def test_a_command_no_runner_knows_fails(tmp_path, block):
    (problem,) = _problems(tmp_path, block)
    assert "no runner knows" in problem and "page.md:4" in problem


@pytest.mark.parametrize("block", [
    "$ agentmetrics list | head -3\n",
    "$ agentmetrics evaluate > rows.txt\n",
    "$ make demo && make test\n",
    "$ AGENTMETRICS_DISABLE_PLUGIN_AUTOLOAD=1 agentmetrics list\n",
])
def test_shell_syntax_is_refused(tmp_path, block):
    (problem,) = _problems(tmp_path, block)
    assert "shell syntax" in problem


@pytest.mark.parametrize("command, wrong", [
    ("pip install agent-tool-metrics", None),
    ("pip install 'agent-tool-metrics[pandas,arrow]'", None),
    ("pip install 'agent-tool-metrics>=0.1'", None),
    ("pip install -e .", None),
    ("pip install -e '.[test]'", None),
    ("python -m pip install --upgrade -e plugins/agent-tool-metrics-judge", None),
    ("pip install ./plugins/agent-tool-metrics-judge './plugins/agent-tool-metrics-tooluse[test]'", None),
    ("pip install agent-tool-metrics-trajectory agent_tool_metrics.Compat", None),
    ("pip install agentmetrics", "`agentmetrics` on PyPI is an unrelated project"),
    ("pip install 'agentmetrics[all]'", "unrelated project"),
    ("pip install 'agent-tool-metrics[pandsa]'", "has no extra 'pandsa'"),
    ("pip install './plugins/agent-tool-metrics-judge[pandas]'", "agent-tool-metrics-judge has no extra 'pandas'"),
    ("pip install -e plugins/agent-tool-metrics-nope", "no such directory in the repository"),
    ("pip install -e docs", "has no pyproject.toml"),
    ("pip install -e ..", "outside the repository"),
    ("pip install requests", "not one of this repository's distributions"),
    ("pip install -r requirements.txt", "pip option -r"),
    ("pip uninstall agent-tool-metrics", "only `pip install` is checked"),
])
def test_pip_install_is_checked(tmp_path, command, wrong):
    problems = _problems(tmp_path, f"$ {command}\n")
    if wrong is None:
        assert problems == []
    else:
        assert len(problems) == 1 and wrong in problems[0], problems


def test_make_targets_are_checked(tmp_path):
    assert _problems(tmp_path, "make demo   # a comment\nmake test\n# a comment line\n") == []
    (problem,) = _problems(tmp_path, "$ make demo\n$ make tset\n")
    assert "page.md:5" in problem and "no target 'tset'" in problem


def test_output_and_status_are_compared(tmp_path):
    assert _problems(tmp_path, "$ python -c \"print('hi')\"\nhi\n") == []
    (problem,) = _problems(tmp_path, "$ python -c \"print('hi')\"\nho\n")
    assert "-ho\n+hi\n" in problem
    (problem,) = _problems(tmp_path, "$ python -c 'import sys; sys.exit(3)'\n")
    assert "exits 3, the page shows 0" in problem
    (problem,) = _problems(tmp_path, "agentmetrics list\n")
    assert "shown without its output" in problem


def test_write_mode_rewrites_shown_output(tmp_path, capsys):
    """``python tests/docs_console.py --write`` puts a real run's output, and
    its [exit N] line, in place of what the page shows; then the page passes."""
    page = tmp_path / "page.md"
    page.write_text(
        "Before.\n\n```console\n"
        "$ agentmetrics evaluate docs/examples/orders.jsonl --format summary\nstale\n[exit 3]\n"
        "$ agentmetrics evaluate docs/examples/orders.jsonl --fail-under 0.5 --format summary\n"
        "$ make demo\n"
        "```\n\nAfter.\n", encoding="utf-8")
    assert docs_console.main([str(page)]) == 1
    assert docs_console.main(["--write", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("Before.\n\n```console\n$ agentmetrics evaluate docs/examples/orders.jsonl --format summary\n")
    assert text.endswith("\n[exit 1]\n$ make demo\n```\n\nAfter.\n")
    assert "stale" not in text and "[exit 3]" not in text and "Scored 3 cases from docs/examples/orders.jsonl" in text
    assert docs_console.main([str(page)]) == 0
    assert "rewrote the output of 2 example(s)" in capsys.readouterr().out


def test_the_script_runs_on_its_own(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\n$ agentmetrics describe tool_selection_acuracy\n```\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(REPO / "tests" / "docs_console.py"), str(page)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1 and "+agentmetrics: error: no metric named 'tool_selection_acuracy'" in done.stdout


def test_every_console_block_is_on_a_console_page():
    """A ```console block on a Markdown file the runners do not read would go unrun."""
    try:
        tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=REPO, capture_output=True,
                                 text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    elsewhere = [name for name in tracked if REPO / name not in CONSOLE_PAGES
                 and "```console" in (REPO / name).read_text(encoding="utf-8")]
    assert elsewhere == []


# -- what the pages say --------------------------------------------------------------


def _options_table(text: str, heading: str) -> set[str]:
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    table = section.split("\nOptions:\n", 1)[1]
    return set(re.findall(r"^\| `(-[-\w]+)", table, flags=re.M))


def test_cli_page_lists_every_option_of_evaluate():
    commands = next(action for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    options = {option for action in commands.choices["evaluate"]._actions
               for option in action.option_strings if option not in ("-h", "--help")}
    table = _options_table((DOCS / "cli.md").read_text(encoding="utf-8"), "agentmetrics evaluate")
    assert sorted(options - table) == [], "options of `agentmetrics evaluate` missing from docs/cli.md's table"
    assert sorted(table - options) == [], "docs/cli.md's table lists options `agentmetrics evaluate` does not have"


PROJECT_PAGES = [page for page in CONSOLE_PAGES if Session(page).projects]


def _tree(text: str, root: str) -> set[str]:
    """The files of the ```text block that draws the tree of ``root``/."""
    for block in re.findall(r"^```text\n(.*?)^```", text, flags=re.M | re.S):
        lines = block.splitlines()
        if lines and lines[0].strip() == f"{root}/":
            files, parents = set(), [root]
            for line in lines[1:]:
                match = re.match(r"^((?:│   |    )*)[├└]── (\S+)", line)
                assert match, f"not a line of a tree: {line!r}"
                depth = len(match.group(1)) // 4 + 1
                parents[depth:] = [match.group(2).rstrip("/")]
                if not match.group(2).endswith("/"):
                    files.add("/".join(parents))
            return files
    raise AssertionError(f"no ```text block draws the tree of {root}/")


@pytest.mark.parametrize("page", PROJECT_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_a_page_project_is_drawn_installed_and_its_metrics_found(page):
    """A project a page defines (docs/plugins.md's plugin): its tree shows
    exactly its files, a ``pip install`` on the page installs it, and once
    installed the registry reads its entry points."""
    from agentmetrics import registry

    with Session(page) as session:
        assert not session.problems, session.problems
        installs = " ".join(example.command for example in session.examples if example.runner == "pip")
        for project in session.projects:
            assert _tree(session.text, project) == {name for name in session.files
                                                    if name.startswith(project + "/")}
            assert re.search(rf"(^|\s)(\./)?{re.escape(project)}/?(\s|$)", installs), \
                f"no pip install of {project}/ on the page"
            pyproject = docs_console._read_toml(session.project_dir(project) / "pyproject.toml")
            distribution = docs_console._normalize(pyproject["project"]["name"])
            listed = {(info.name, info.distribution) for info in registry.list_metrics()}
            for name in pyproject["project"]["entry-points"]["agentmetrics.metrics"]:
                assert (name, distribution) in listed
                assert f"{distribution}/{name}" in session.text  # the spelling `agentmetrics list` prints


def test_tutorial_text_matches_its_cells():
    """What the tutorial says of tau2's rewards is what its cell shows: the
    first five runs that missed an expected action (the notebook itself
    executes in tests/test_tutorial.py and in `make docs`)."""
    pytest.importorskip("pandas")
    import agentmetrics as am

    notebook = json.loads((DOCS / "tutorial.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(cell["source"]) for cell in notebook["cells"]]
    shown = next(i for i, source in enumerate(cells) if 'frame["tau2_reward"]' in source)
    text = " ".join(cells[shown - 1].split())
    cases = am.example_cases()
    frame = am.evaluate(cases, am.ToolSelectionAccuracy(threshold=0.8)).to_pandas()
    frame["tau2_reward"] = [case.metadata["reward"] for case in cases]
    first = frame[frame["tool_selection_accuracy_reason"].str.contains("Missing expected")].head()
    rewarded = list(first[first["tau2_reward"] == 1.0]["id"])
    assert rewarded == ["airline-12"] and (first["tau2_reward"] == 0.0).sum() == 4
    assert "four have reward 0.0" in text and "airline-12" in text and "reward 1.0" in text
    assert "counted as successes although" not in text


def test_every_metric_page_is_in_the_index_toctree():
    """make docs (sphinx -W) refuses a page outside every toctree: caught here first."""
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    index = (docs / "index.md").read_text(encoding="utf-8")
    missing = [page.stem for page in sorted((docs / "metrics").glob("*.md"))
               if f"\nmetrics/{page.stem}\n" not in index]
    assert not missing, f"add to docs/index.md's toctree: {missing}"
