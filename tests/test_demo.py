"""``agentmetrics demo`` (what ``make demo`` runs) and the width of text output.

The demo's numbers are checked against an independent count over the bundled
cases written here; its shape against what a newcomer needs: what is scored
first, at most 100 columns, the user's own command last.
"""

from __future__ import annotations

import io
import textwrap
import re
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import example_cases
from agentmetrics.cli import main
from agentmetrics.cli._common import DEFAULT_WIDTH, print_table, wrap
from conftest import REPO


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


@pytest.fixture(scope="module")
def demo() -> list[str]:
    status, text = run("demo")
    assert status == 0
    return text.splitlines()


def _names(calls):
    return {call if isinstance(call, str) else call.name for call in calls}


def test_demo_says_first_what_it_scores_and_ends_with_the_users_command(demo):
    assert demo[0].startswith("Scoring 50 tau2-bench airline runs of one agent")
    assert "what a pass means" not in demo[0]  # said, not announced:
    assert "A run passes at 0.8 or more." in " ".join(demo[:4])
    assert demo[-1].startswith("  ") and demo[-1].endswith(" evaluate my_runs.jsonl")
    assert max(map(len, demo)) <= DEFAULT_WIDTH


def test_demo_numbers_match_an_independent_count(demo):
    cases = example_cases()
    scores = []
    for case in cases:
        called, expected = _names(case.tool_calls), _names(case.expected_tool_calls)
        union = called | expected
        scores.append(len(called & expected) / len(union) if union else 1.0)
    passed = sum(score >= 0.8 for score in scores)
    text = "\n".join(demo)
    assert f"Summary: {passed} of {len(cases)} runs pass ({passed / len(cases):.0%};" in text
    # Wilson 95% interval, by statsmodels.
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(passed, len(cases), alpha=0.05, method="wilson")
    assert f"95% CI {low:.0%} to {high:.0%}, Wilson" in text
    assert f"Mean score {sum(scores) / len(scores):.2f}" in text
    rewarded = [case.metadata["reward"] == 1.0 for case in cases]
    failing_rewarded = sum(r and s < 0.8 for r, s in zip(rewarded, scores))
    assert f"tau2-bench rewarded {sum(rewarded)} of these runs, yet {failing_rewarded} of those" in text
    # Tools most often missed: runs expecting the tool that never called it.
    missed: dict[str, int] = {}
    for case in cases:
        for tool in _names(case.expected_tool_calls) - _names(case.tool_calls):
            missed[tool] = missed.get(tool, 0) + 1
    top = sorted(missed.items(), key=lambda item: (-item[1], item[0]))[0]
    start = demo.index("Tools most often missed (runs that expected the tool but never called it):")
    assert re.match(rf"  {top[0]} +missed in {top[1]} of \d+ runs?$", demo[start + 1])


def test_demo_sample_shows_passes_and_failures_of_each_kind(demo):
    start = next(i for i, line in enumerate(demo) if line.startswith("case "))
    body = demo[start + 1:demo.index("", start)]
    results = {line.split()[2] for line in body if line.startswith("airline-")}
    assert results == {"PASS", "FAIL"}
    text = " ".join(body)
    assert "Missing expected tool" in text and "Unexpected tool" in text


@pytest.mark.parametrize("on_path", [False, True])
def test_the_demo_ends_with_a_command_that_works_from_where_it_ran(tmp_path, on_path):
    """Issue 48: after `make demo`, `agentmetrics` is not on the PATH, and the
    demo's last line named it as if it were."""
    import json
    import os
    import shlex
    import sys

    script = os.path.join(os.path.dirname(sys.executable), "agentmetrics")
    bare = os.pathsep.join(part for part in os.environ.get("PATH", "").split(os.pathsep)
                           if part and not os.path.exists(os.path.join(part, "agentmetrics")))
    path = (os.path.dirname(script) + os.pathsep + bare) if on_path else bare
    env = {**os.environ, "PATH": path}
    shown = subprocess.run([script, "demo"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    command = shlex.split(shown[-1])
    assert command[-2:] == ["evaluate", "my_runs.jsonl"]
    if on_path:
        assert command[0] == "agentmetrics" and "not on your PATH" not in shown[-2]
    else:
        hint = " ".join(shown[-4:-1])  # the hint before the command, wrapped if long
        assert command[0] == script and "not on your PATH" in hint
        assert f"source {os.path.join(os.path.dirname(script), 'activate')}" in hint
    (tmp_path / "my_runs.jsonl").write_text(json.dumps(
        {"tool_calls": ["a"], "expected_tool_calls": ["a"]}) + "\n", encoding="utf-8")
    ran = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ran.returncode == 0 and "Scored 1 cases from my_runs.jsonl" in ran.stdout, ran.stderr


def test_make_demo_runs_the_demo_command():
    dry = subprocess.run(["make", "-n", "-W", ".venv/.installed", "demo"], cwd=REPO,
                         capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert any(line.strip().endswith("bin/agentmetrics demo") for line in dry.stdout.splitlines()), dry.stdout


def test_text_tables_of_evaluate_and_list_fit_100_columns():
    for argv in (["evaluate"], ["list"], ["evaluate", "--format", "summary"]):
        status, text = run(*argv)
        assert status == 0
        assert max(map(len, text.splitlines())) <= DEFAULT_WIDTH, argv


def test_rows_without_an_id_are_labelled_by_their_1_based_line(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"tool_calls": ["a"], "expected_tool_calls": ["a"]}\n\n'
                    '{"tool_calls": 5}\n', encoding="utf-8")
    status, text = run("evaluate", str(path), "--errors", "record")
    assert status == 0
    lines = text.splitlines()
    assert lines[1].startswith("line 1 ") and lines[2].startswith("line 3 ")
    assert f"{path}:3:" in "".join(text.split())  # the same number as the message's file:line


words = st.text(alphabet="abcdefghij", min_size=1, max_size=30)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab -\t\nxé", max_size=80), st.integers(min_value=1, max_value=30))
def test_wrap_breaks_lines_as_textwrap_does(text, size):
    # The reference: the standard library's wrapper, with the options wrap documents.
    expected = textwrap.wrap(text, size, break_long_words=True, break_on_hyphens=False) or [""]
    assert wrap(text, size) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(words, st.lists(words, max_size=12)), min_size=1, max_size=6),
       st.integers(min_value=30, max_value=120))
def test_a_wrapped_last_column_keeps_every_word_and_the_width(rows, width):
    table = [[first, " ".join(rest)] for first, rest in rows]
    out = io.StringIO()
    widths = print_table(table, out, width=width)
    lines = out.getvalue().splitlines()
    start = widths[0] + 2
    # Reassemble each row: its first line, then the lines indented under the last column.
    rebuilt: list[list[str]] = []
    for line in lines:
        if line.startswith(" " * start) and rebuilt and line[:start].strip() == "":
            rebuilt[-1][1] += " " + line[start:]
        else:
            rebuilt.append([line[:widths[0]].rstrip(), line[start:]])
    # Every character of every cell, in order (a word longer than the column is
    # broken inside it, so spaces are compared apart from the characters).
    assert [[a, "".join(b.split())] for a, b in rebuilt] == [[a, "".join(b.split())] for a, b in table]
    limit = max(width, start + 20)
    assert all(len(line) <= limit for line in lines)
