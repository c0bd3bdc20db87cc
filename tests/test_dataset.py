"""read_cases: JSONL lines to AgentTestCases, with file:line errors."""

from __future__ import annotations

import io
import json

import pytest

from agentmetrics import AgentTestCase, InvalidCaseError, ToolCall, read_cases
from conftest import SHARED, load_jsonl


def write(tmp_path, *lines):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_reads_names_objects_ids_and_metadata(tmp_path):
    path = write(
        tmp_path,
        json.dumps({"id": "c1", "input": "refund me", "tool_calls": ["A", {"name": "B", "arguments": {"x": 1}}],
                    "expected_tool_calls": ["A"], "metadata": {"team": "x"}}),
        "",
        json.dumps({"tool_calls": [], "expected_tool_calls": []}),
    )
    first, second = read_cases(path)
    assert first == AgentTestCase(
        input="refund me", tool_calls=[ToolCall("A"), ToolCall("B", {"x": 1})],
        expected_tool_calls=["A"], metadata={"team": "x", "id": "c1"})
    assert second.tool_calls == () and second.metadata == {}


def test_reads_open_files_lazily():
    stream = io.StringIO('{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\nnot json\n')
    cases = read_cases(stream)
    assert next(cases).tool_names == ("A",)
    with pytest.raises(InvalidCaseError, match="<stream>:2: not valid JSON"):
        next(cases)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", r"cases.jsonl:2: expected a JSON object, got list"),
        ('{"tool_call": ["A"]}', r"cases.jsonl:2: unknown keys \['tool_call'\].*Fix: rename 'tool_call' -> 'tool_calls'"),
        ('{"tool_calls": "A"}', r"cases.jsonl:2: AgentTestCase.tool_calls: expected a list"),
        ('{"tool_calls": [{"nam": "A"}]}', r"cases.jsonl:2: tool_calls\[0\]"),
        ('{"metadata": 3}', r"cases.jsonl:2: 'metadata' must be an object"),
        ('{"tool_calls": [', r"cases.jsonl:2: not valid JSON"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path, line, message):
    path = write(tmp_path, '{"tool_calls": []}', line)
    with pytest.raises(InvalidCaseError, match=message):
        list(read_cases(path))


def test_bundled_examples_are_real_tau2_runs(examples_path):
    cases = list(read_cases(examples_path))
    assert len(cases) == 50
    assert all(case.tool_calls is not None and case.expected_tool_calls is not None for case in cases)
    assert sum(len(case.tool_calls) for case in cases) > 200
    assert (examples_path.parent / "LICENSE-tau2-bench").read_text().startswith("MIT License")


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared/ is only beside the repository in CI")
def test_bundled_examples_regenerate_from_shared_data(examples_path, tmp_path, monkeypatch):
    import make_example_cases

    monkeypatch.setattr(make_example_cases, "OUT", tmp_path / "out.jsonl")
    make_example_cases.main(str(SHARED / "data" / "tau2" / "airline_claude-sonnet-4-5_trajectories.json"))
    assert load_jsonl(tmp_path / "out.jsonl") == load_jsonl(examples_path)


def test_a_reader_bug_becomes_an_error_row_not_a_lost_file(monkeypatch):
    """The safety net under the readers: whatever escapes them is one line's error."""
    import io

    from agentmetrics import UnreadableCase
    from agentmetrics._columnar import _records

    def broken(payload, format=None, *, hosted_tools=True):
        raise TypeError("unsupported operand")

    monkeypatch.setattr(_records, "tool_calls_from", broken)
    lines = io.StringIO('{"response": {}, "expected_tool_calls": []}\n'
                        '{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\n')
    bad, good = read_cases(lines, errors="record")
    assert isinstance(bad, UnreadableCase) and good.tool_names == ("A",)
    assert bad.message == ("<stream>:1: could not read the line (TypeError: unsupported operand). "
                           "This is a bug in agentmetrics; please report it with the line.")
    with pytest.raises(InvalidCaseError, match="<stream>:1: could not read the line"):
        list(read_cases(io.StringIO('{"response": {}}\n')))
