"""Every example in README.md and docs/ runs, so the docs cannot drift from the code.

Python examples are doctests (``>>>``); console examples are ``$ agentmetrics ...``
lines in ```console blocks, run in docs/ against the CLI, with the expected
output below them and an optional ``[exit N]`` line.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import re
import shlex
import sys
import types

import pytest

from agentmetrics.cli import main
from conftest import REPO

DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [REPO / "README.md"]
PAGE_IDS = [str(page.relative_to(REPO)) for page in PAGES]
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


def _console_examples(text: str, program: str = "agentmetrics") -> list[tuple[str, str, int]]:
    examples = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
            if not chunk.startswith(f"$ {program} "):
                continue
            command, _, expected = chunk.partition("\n")
            status = 0
            match = re.search(r"^\[exit (\d+)\]\n?\Z", expected, flags=re.M)
            if match:
                status = int(match.group(1))
                expected = expected[: match.start()]
            examples.append((command[2:], expected, status))
    return examples


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_python_examples(page, monkeypatch):
    monkeypatch.chdir(DOCS)  # paths in examples are relative to docs/, as in the console ones
    count, report = _run_doctests(page.read_text(encoding="utf-8"), page.name)
    assert not report, report


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_console_examples(page, monkeypatch):
    monkeypatch.chdir(DOCS)
    for command, expected, status in _console_examples(page.read_text(encoding="utf-8")):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            actual_status = main(shlex.split(command)[1:])
        assert (command, buffer.getvalue()) == (command, expected)
        assert actual_status == status, command


def _test_files(text: str) -> dict[str, str]:
    """```python file=NAME blocks: test files that the page's pytest runs use."""
    return dict(re.findall(r"```python file=(\S+)\n(.*?)```", text, flags=re.S))


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_pytest_examples(page, pytester):
    """``$ pytest`` examples run on the page's test files; every line shown
    must appear, in order, in the real output ("..." stands for anything)."""
    text = page.read_text(encoding="utf-8")
    for name, source in _test_files(text).items():
        (pytester.path / name).write_text(source, encoding="utf-8")
    for command, expected, status in _console_examples(text, program="pytest"):
        result = pytester.runpytest(*shlex.split(command)[1:])
        patterns = [
            re.sub(r"([\[\]])", r"[\1]", line.rstrip()).replace("...", "*") or "*"
            for line in expected.splitlines()
            if line.strip() != "..."
        ]
        result.stdout.fnmatch_lines([p for p in patterns if p != "*"], consecutive=False)
        assert result.ret == status, command


# Pages generated from elsewhere: the API reference (from docstrings, whose
# examples test_docstring_examples runs) and the benchmarks (benchmarks/README.md).
GENERATED = {DOCS / "api.md", DOCS / "benchmarks.md"}


@pytest.mark.parametrize("page", sorted(set(PAGES) - GENERATED), ids=lambda p: str(p.relative_to(REPO)))
def test_every_page_has_an_executed_example(page):
    text = page.read_text(encoding="utf-8")
    runs = _console_examples(text) or _console_examples(text, program="pytest")
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
