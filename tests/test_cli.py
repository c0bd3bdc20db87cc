"""The agentmetrics command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentmetrics import InvalidParameterError
from agentmetrics.cli import main, parse_metric_spec
from conftest import TESTS


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


CONFORMANCE = TESTS / "data" / "tool_selection_accuracy.jsonl"
#: The summary's title line: which intervals it shows.
TITLE = "Summary (95% CI: mean by t interval, pass rate by Wilson)\n"


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(
        '{"id": "good", "tool_calls": ["A", "B"], "expected_tool_calls": ["A", "B"]}\n'
        '{"id": "bad", "tool_calls": ["B", "A", "C"], "expected_tool_calls": ["A", "B"]}\n'
        '{"tool_calls": [], "expected_tool_calls": ["A"]}\n',
        encoding="utf-8",
    )
    return path


def test_evaluate_prints_a_row_per_case_and_a_summary(capsys, cases_file):
    status, out, err = run(capsys, "evaluate", str(cases_file))
    assert status == 0 and err == ""
    lines = out.splitlines()
    rows = [line.split(None, 4) for line in lines[1:3]]
    assert lines[0].split() == ["case", "metric", "value", "result", "reason"]
    assert rows == [
        ["good", "tool_selection_accuracy", "1.00", "PASS", "All expected tools called: A, B"],
        ["bad", "tool_selection_accuracy", "0.67", "FAIL", "Unexpected tool: C"],
    ]
    # A row without an id is named by its line in the file, 1-based as in error messages.
    assert lines[3].split(None, 5) == ["line", "3", "tool_selection_accuracy", "0.00", "FAIL",
                                       "Missing expected tool: A"]
    assert f"Scored 3 cases from {cases_file}" in out
    summary = out.split(TITLE)[1].splitlines()
    # The summary's columns that fit in 100 (--format json has them all), under their names.
    assert summary[0].split() == ["metric", "n", "mean", "mean_low", "mean_high", "pass_rate",
                                  "pass_low", "pass_high", "errors"]
    assert summary[1].split() == [
        "tool_selection_accuracy", "3", "0.556", "0.000", "1.000", "0.333", "0.061", "0.792", "0"]
    # Each label, then the configuration it stands for.
    assert summary[2] == "tool_selection_accuracy:  ToolSelectionAccuracy(threshold=0.8, order_matters=False)"


def test_machine_formats_carry_every_row(capsys, cases_file):
    status, out, err = run(capsys, "evaluate", str(cases_file), "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["case"], r["id"], r["passed"]) for r in records] == [(0, "good", True), (1, "bad", False), (2, None, False)]
    assert records[1]["value"] == 2 / 3 and records[1]["reason"] == "Unexpected tool: C"
    assert err.startswith(TITLE)  # stdout stays pure data
    status, out, _ = run(capsys, "evaluate", str(cases_file), "--format", "json")
    document = json.loads(out)
    assert len(document["results"]) == 3 and document["summary"][0]["n"] == 3
    assert document["summary"][0]["pass_rate"] == 1 / 3
    status, out, _ = run(capsys, "evaluate", str(cases_file), "--format", "csv")
    import csv
    import io

    table = list(csv.DictReader(io.StringIO(out)))
    assert [row["id"] for row in table] == ["good", "bad", ""]
    assert table[0]["reason"] == "All expected tools called: A, B"


def test_chunked_streaming_gives_the_same_output(capsys, cases_file):
    whole = run(capsys, "evaluate", str(cases_file), "--format", "jsonl")[1]
    assert run(capsys, "evaluate", str(cases_file), "--format", "jsonl", "--chunk-size", "1")[1] == whole


def test_errors_record_keeps_bad_lines_as_rows(capsys, tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"id": "ok", "tool_calls": ["A"], "expected_tool_calls": ["A"]}\n'
        'not json\n'
        '{"id": "no-gold", "tool_calls": ["A"]}\n'
        '{"id": "typo", "tool_call": ["A"], "expected_tool_calls": ["A"]}\n', encoding="utf-8")
    status, out, err = run(capsys, "evaluate", str(path))
    assert status == 2 and f"{path}:2: not valid JSON" in err
    status, out, err = run(capsys, "evaluate", str(path), "--errors", "record", "--format", "jsonl")
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["case"] for r in records] == [0, 1, 2, 3]
    assert records[0]["value"] == 1.0 and records[0]["error"] is None
    assert records[1]["value"] is None and records[1]["error"].startswith(f"{path}:2: not valid JSON")
    assert "requires the test case field 'expected_tool_calls'" in records[2]["error"]
    assert "unknown keys ['tool_call']" in records[3]["error"]
    head, row = err.splitlines()[1:3]  # the summary counts the three errors
    assert head.split()[-1] == "errors" and row.split()[-1] == "3"


def test_provider_payloads_in_lines(capsys, tmp_path):
    path = tmp_path / "responses.jsonl"
    anthropic = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "GetOrder", "input": {}}]}
    openai = {"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "GetOrder", "arguments": "{}"}}]}}]}
    path.write_text("\n".join(json.dumps(line) for line in [
        {"id": "claude", "response": anthropic, "expected_tool_calls": ["GetOrder"]},
        {"id": "gpt", "response": openai, "format": "openai_chat", "expected_tool_calls": ["GetOrder", "Refund"]},
    ]) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "evaluate", str(path), "--format", "jsonl")
    assert [json.loads(line)["value"] for line in out.splitlines()] == [1.0, 0.5]


def test_several_metrics_with_parameters(capsys, cases_file):
    status, out, _ = run(capsys, "evaluate", str(cases_file),
                         "--metric", "tool_selection_accuracy",
                         "--metric", "tool_selection_accuracy:order_matters=true,threshold=0.5")
    assert status == 0
    # Rows whose reason wraps continue on lines that start blank: join them back.
    rows: list[str] = []
    for line in out.split("\n\nScored")[0].splitlines():
        if line.startswith(" ") and rows:
            rows[-1] += " " + line.strip()
        else:
            rows.append(line)
    bad_rows = [row for row in rows if row.startswith("bad ")]
    import re

    assert [re.search(r" (\d\.\d\d)  (PASS|FAIL) ", row).group(1) for row in bad_rows] == ["0.67", "0.33"]
    assert "tool_selection_accuracy(threshold=0.5, order_matters=True)" in bad_rows[1]
    assert "Out of expected order: expected A -> B, called B -> A" in bad_rows[1]


def test_fail_under_sets_the_exit_status(capsys, cases_file):
    assert run(capsys, "evaluate", str(cases_file), "--fail-under", "0.3")[0] == 0
    status, out, _ = run(capsys, "evaluate", str(cases_file), "--fail-under", "0.5")
    assert status == 1 and ("FAILED: tool_selection_accuracy passed 1 of 3 cases (0.3333), below "
                            "--fail-under 0.5") in out
    # At exactly the rate, nothing fails: the comparison is exact.
    assert run(capsys, "evaluate", str(cases_file), "--fail-under", str(1 / 3))[0] == 0


def test_evaluate_reads_stdin(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO('{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\n'))
    status, out, _ = run(capsys, "evaluate", "-")
    assert status == 0 and "Scored 1 cases from <stdin>" in out


def test_evaluate_without_a_file_scores_the_bundled_example(capsys):
    status, out, _ = run(capsys, "evaluate")
    assert status == 0
    assert "Scored 50 cases from bundled example: tau2_airline.jsonl" in out
    assert "airline-39" in out and "50" in out.split(TITLE)[1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "missing.jsonl"], "No such file"),
        (["evaluate", "--metric", "tool_selection_acuracy"], "Did you mean 'tool_selection_accuracy'"),
        (["evaluate", "--metric", "tool_selection_accuracy:threshold=80"], "between 0 and 1"),
        (["evaluate", "--metric", "tool_selection_accuracy:oops"], "expected key=value"),
    ],
)
def test_bad_input_exits_2_with_a_message(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("agentmetrics: error: ") and message in err


def test_a_case_without_a_required_field_is_named(capsys, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "x", "tool_calls": ["A"], "expected_tool_calls": []}\n{"id": "y", "tool_calls": ["A"]}\n')
    status, _, err = run(capsys, "evaluate", str(path))
    assert status == 2
    # Named by file and line, not by a 0-based count of the cases read.
    assert err.startswith(f"agentmetrics: error: {path}:2 (id 'y'): could not be scored by "
                          "'tool_selection_accuracy': metric 'tool_selection_accuracy' requires "
                          "the test case field 'expected_tool_calls'")
    assert err.endswith("Fix the case, or pass --errors record to score the rest and report it.\n")


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["evaluate", "--fail-under", "2"])
    assert info.value.code == 2
    assert "expected a number between 0 and 1" in capsys.readouterr().err


def test_parse_metric_spec():
    assert parse_metric_spec("m") == ("m", {})
    assert parse_metric_spec("m:mode=strict, n=3") == ("m", {"mode": "strict", "n": 3})
    with pytest.raises(InvalidParameterError):
        parse_metric_spec("m:=3")


def test_list_shows_every_metric_with_its_metadata(capsys):
    status, out, _ = run(capsys, "list")
    lines = out.splitlines()
    # Grouped by distribution, this library's own first; each metric on its own line
    # (a long description wraps, indented under itself), within 100 columns.
    assert lines[0] == "agent-tool-metrics 0.1.0"
    at = next(i for i, line in enumerate(lines) if line.startswith("  tool_selection_accuracy "))
    assert lines[at].split(None, 1)[1] + " " + lines[at + 1].strip() == (
        "Intersection over union of tool names called and expected, optionally order-aware.")
    assert max(map(len, lines)) <= 100
    assert lines[-1] == "'agentmetrics list --json' lists everything."
    status, out, _ = run(capsys, "list", "--json")
    records = {record["name"]: record for record in json.loads(out)}
    assert records["tool_selection_accuracy"] == {
        "name": "tool_selection_accuracy", "class": "ToolSelectionAccuracy",
        "target": "agentmetrics.metrics._tool_selection:ToolSelectionAccuracy",
        "distribution": "agent-tool-metrics", "version": "0.1.0", "requires_llm_judge": False,
        "higher_is_better": True, "required_fields": ["tool_calls", "expected_tool_calls"],
        "default_threshold": 0.8, "value_range": [0.0, 1.0], "unit": None,
        "parameters": {"threshold": 0.8, "order_matters": False},
        "parameter_details": [
            {"name": "threshold", "type": "float | None", "default": 0.8, "required": False,
             "secret": False, "doc": "a case passes at or above it (None: the default threshold)"},
            {"name": "order_matters", "type": "bool", "default": False, "required": False,
             "secret": False, "doc": ""}],
        "metric_version": "1",
        "inputs": [{"name": "tool_calls", "kind": "calls", "doc": ""},
                   {"name": "expected_tool_calls", "kind": "calls", "doc": ""}],
        "aggregates": [],
        "description": "Intersection over union of tool names called and expected, optionally order-aware.",
        "needs": [], "shadows": None, "shadowed_by": None, "error": None}


def test_describe_a_metric(capsys):
    status, out, _ = run(capsys, "describe", "ToolSelectionAccuracy")
    assert status == 0
    assert out.splitlines() == [
        "name:               tool_selection_accuracy",
        "class:              ToolSelectionAccuracy (from agentmetrics.metrics._tool_selection)",
        "distribution:       agent-tool-metrics 0.1.0",
        "metric version:     1",
        "description:        Intersection over union of tool names called and expected, optionally order-aware.",
        "requires LLM judge: no",
        "higher is better:   yes",
        "inputs:             tool_calls (calls), expected_tool_calls (calls)",
        "values:             [0, 1], no unit (a share or score)",
        "default threshold:  0.8",
        "parameters:",
        "  threshold: float | None = 0.8  a case passes at or above it (None: the default threshold)",
        "  order_matters: bool = False",
        "status:             ok",
    ]
    status, out, _ = run(capsys, "describe", "agent-tool-metrics/tool_selection_accuracy", "--json")
    assert json.loads(out)["parameters"] == {"threshold": 0.8, "order_matters": False}


def test_describe_unknown_and_broken_metrics(capsys, tmp_path, monkeypatch):
    from agentmetrics import refresh
    from plugin_helpers import make_distribution

    status, out, err = run(capsys, "describe", "tool_selection_acuracy")
    assert status == 2 and "Did you mean 'tool_selection_accuracy'" in err
    make_distribution(tmp_path, "broken_cli_plugin", "0.2", {"broken_cli": "broken_cli_mod:Broken"},
                      {"broken_cli_mod": "raise RuntimeError('no config file')\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh()
    status, out, _ = run(capsys, "describe", "broken_cli")
    assert status == 1
    assert out.splitlines()[2] == "distribution:       broken-cli-plugin 0.2"
    assert out.splitlines()[3].startswith("status:             broken: cannot load metric 'broken_cli' "
                                          "from distribution broken-cli-plugin 0.2")
    assert "RuntimeError: no config file" in out
    status, out, _ = run(capsys, "list")
    at = out.index("  broken_cli ")
    assert "BROKEN: importing it raised RuntimeError: no config file" in " ".join(out[at:].split())
    assert "broken-cli-plugin 0.2\n  broken_cli " in out  # under its distribution
    assert "tool_selection_accuracy" in out  # the rest still lists


def test_console_script_and_module_entry_points_are_installed():
    script = subprocess.run(["agentmetrics", "--version"], capture_output=True, text=True,
                            check=True, env=None) if _on_path() else None
    module = subprocess.run([sys.executable, "-m", "agentmetrics", "evaluate", str(CONFORMANCE)],
                            capture_output=True, text=True)
    if script is not None:
        assert script.stdout.strip() == "agentmetrics 0.1.0"
    # The conformance file has keys the case schema does not know: a clear refusal.
    assert module.returncode == 2 and "unknown keys" in module.stderr and ":1:" in module.stderr


def _on_path():
    import shutil
    from pathlib import Path

    found = shutil.which("agentmetrics")
    return found is not None and Path(found).parent == Path(sys.executable).parent


def test_progress_on_a_terminal(capsys, cases_file, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, out, err = run(capsys, "evaluate", str(cases_file), "--format", "jsonl", "--chunk-size", "2")
    assert status == 0 and "agentmetrics: 3 cases" in err
    assert len(out.splitlines()) == 3


def test_listing_metrics_does_not_import_numpy():
    code = "import sys; from agentmetrics.cli import main; main(['describe', 'tool_selection_accuracy']); " \
           "assert 'numpy' not in sys.modules, 'numpy imported'"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


# --- reading provider payloads (issue 10) ----------------------------------------------------

ANTHROPIC_TURN = {"role": "assistant", "stop_reason": "tool_use", "content": [
    {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "x"}},
    {"type": "tool_use", "id": "toolu_1", "name": "GetOrder", "input": {"order_id": 7}}]}


@pytest.fixture
def payload_file(tmp_path):
    path = tmp_path / "payloads.jsonl"
    lines = [
        {"id": "claude", "response": ANTHROPIC_TURN, "expected_tool_calls": ["GetOrder"]},
        {"id": "bare-blocks", "response": ANTHROPIC_TURN["content"], "expected_tool_calls": ["GetOrder"]},
        {"id": "wrong", "response": {"object": "response", "output": [
            {"type": "function_call", "call_id": "c", "name": "GetOrder", "arguments": "{}"}]},
         "expected_tool_calls": ["GetOrder"]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines)
                    + '{"id": "cut", "response": {"role": "assistant", "content": [\n',
                    encoding="utf-8")
    return path


def test_input_format_names_the_payload_format_and_record_keeps_every_line(capsys, payload_file):
    status, out, err = run(capsys, "evaluate", str(payload_file), "--input-format", "anthropic",
                           "--errors", "record", "--format", "jsonl", "--counts")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in records] == ["claude", "bare-blocks", "wrong", None]
    assert [(r["calls"], r["expected_calls"]) for r in records] == [(2, 1), (2, 1), (None, None),
                                                                    (None, None)]
    # Read as Anthropic, the Responses line cannot lose its call: it is an error row.
    assert records[2]["error"].startswith(f"{payload_file}:3: 'response': anthropic: the payload "
                                          "holds a call the reader did not read")
    assert "not valid JSON" in records[3]["error"] and status == 0


def test_hosted_tools_can_be_left_out_from_the_command_line(capsys, payload_file):
    status, out, _ = run(capsys, "evaluate", str(payload_file), "--no-hosted-tools", "--counts",
                         "--errors", "record", "--format", "csv")
    rows = out.splitlines()
    assert rows[0].endswith("calls,expected_calls")
    assert rows[1].split(",")[-2:] == ["1", "1"] and ",1.0,True," in rows[1]


def test_counts_in_the_table(capsys, cases_file):
    status, out, _ = run(capsys, "evaluate", str(cases_file), "--counts")
    header, first = out.splitlines()[:2]
    assert header.split() == ["case", "metric", "value", "result", "calls", "expected", "reason"]
    assert first.split()[:6] == ["good", "tool_selection_accuracy", "1.00", "PASS", "2", "2"]


def test_an_unknown_input_format_is_a_usage_error(capsys, cases_file):
    with pytest.raises(SystemExit) as info:
        main(["evaluate", str(cases_file), "--input-format", "vertex"])
    assert info.value.code == 2
    assert "invalid choice: 'vertex'" in capsys.readouterr().err


def test_summary_format_prints_the_summary_alone(capsys, cases_file):
    status, table, _ = run(capsys, "evaluate", str(cases_file))
    status, out, err = run(capsys, "evaluate", str(cases_file), "--format", "summary")
    assert status == 0 and err == ""
    assert out.startswith(f"Scored 3 cases from {cases_file}\n\n{TITLE}")
    assert "Unexpected tool" not in out  # no row
    assert out.split(TITLE)[1] == table.split(TITLE)[1]
    status, out, _ = run(capsys, "evaluate", str(cases_file), "--format", "summary",
                         "--fail-under", "0.5")
    assert status == 1 and "FAILED: tool_selection_accuracy passed 1 of 3" in out


def _parquet(path, **columns):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table(columns), path)
    return path


def test_a_parquet_file_gives_the_rows_its_jsonl_twin_gives(capsys, tmp_path):
    lines = [json.loads(line) for line in CONFORMANCE.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    def names(calls):
        return None if calls is None else [c if isinstance(c, str) else c["name"] for c in calls]

    called = [names(line.get("tool_calls")) for line in lines]
    expected = [names(line.get("expected_tool_calls")) for line in lines]
    twin = tmp_path / "cases.jsonl"
    twin.write_text("".join(json.dumps({"id": f"c{i}", "tool_calls": called,
                                        "expected_tool_calls": wanted}) + "\n"
                            for i, (called, wanted) in enumerate(zip(called, expected))),
                    encoding="utf-8")
    table = _parquet(tmp_path / "cases.parquet", id=[f"c{i}" for i in range(len(called))],
                     tool_calls=called, expected_tool_calls=expected)
    for chunk in ("1", "7", "50000"):
        options = ("--format", "jsonl", "--chunk-size", chunk, "--errors", "record",
                   "--metric", "tool_selection_accuracy:order_matters=true")
        from_jsonl = run(capsys, "evaluate", str(twin), *options)
        from_parquet = run(capsys, "evaluate", str(table), *options)
        assert from_parquet[0] == from_jsonl[0] == 0
        assert from_parquet[1] == from_jsonl[1]
        assert len(from_parquet[1].splitlines()) == len(called)


def test_parquet_rows_that_cannot_be_read_are_named_by_row(capsys, tmp_path):
    path = _parquet(tmp_path / "bad.parquet", tool_calls=[["a"], ["a"], [""], None],
                    expected_tool_calls=[["a"], ["b"], ["b"], ["c"]])
    status, out, err = run(capsys, "evaluate", str(path), "--errors", "record",
                           "--format", "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and [row["case"] for row in rows] == [0, 1, 2, 3]
    assert [row["error"] is not None for row in rows] == [False, False, True, True]
    assert rows[2]["error"].startswith("tool_calls[0]: ToolCall.name: expected a non-empty str")
    for chunk in ("1", "3", "100"):
        status, out, err = run(capsys, "evaluate", str(path), "--chunk-size", chunk,
                               "--format", "csv")
        assert status == 2 and "Traceback" not in err
        assert f"{path}: row 2: could not be scored" in err


def test_a_parquet_file_without_the_columns_or_not_parquet_is_refused(capsys, tmp_path):
    path = _parquet(tmp_path / "other.parquet", calls=[["a"]], gold=[["a"]])
    status, out, err = run(capsys, "evaluate", str(path))
    assert status == 2 and "no column 'tool_calls'" in err and "Traceback" not in err
    fake = tmp_path / "fake.parquet"
    fake.write_text("not parquet at all")
    status, out, err = run(capsys, "evaluate", str(fake))
    assert status == 2 and "not a readable Parquet file" in err and "Traceback" not in err


def test_parquet_is_recognised_by_both_magic_ends_not_by_a_first_line(capsys, tmp_path):
    table = _parquet(tmp_path / "cases.parquet", tool_calls=[["a", "b"]],
                     expected_tool_calls=[["a"]])
    unnamed = tmp_path / "cases.data"
    unnamed.write_bytes(table.read_bytes())
    status, out, err = run(capsys, "evaluate", str(unnamed), "--format", "jsonl")
    assert status == 0 and json.loads(out)["value"] == 0.5
    # A JSONL file whose first line begins with the magic bytes is JSONL: one error row a line.
    for text in (b"PAR1\n", b"PAR1 not json\n" + b"{}\n" * 3, b"PAR1" + b"x" * 20 + b"\n"):
        lines = tmp_path / "cases.jsonl"
        lines.write_bytes(text)
        status, out, err = run(capsys, "evaluate", str(lines), "--errors", "record",
                               "--format", "jsonl")
        rows = [json.loads(line) for line in out.splitlines()]
        assert status == 0, err
        assert len(rows) == text.count(b"\n") and rows[0]["error"] is not None


def test_jsonl_rows_written_fast_are_the_records_to_json_gives():
    import io

    from agentmetrics import AgentTestCase, ToolSelectionAccuracy, evaluate
    from agentmetrics.cli._common import to_json
    from agentmetrics.cli._evaluate import _Rows, _jsonl_rows

    cases = [AgentTestCase(tool_calls=["A", "B"], expected_tool_calls=["A"],
                           metadata={"id": case_id})
             for case_id in ("c1", 7, "检索 \"q\"", None, 2.5, True)]
    cases.append(AgentTestCase(tool_calls=None, expected_tool_calls=["A"], metadata={"id": "x"}))
    result = evaluate(cases, [ToolSelectionAccuracy(),
                              ToolSelectionAccuracy(0.5, order_matters=True)], errors="record")
    full = io.StringIO()
    _Rows(full, "jsonl", counts=True).write(3, result)
    records = [json.loads(line) for line in full.getvalue().splitlines()]
    for record in records:
        del record["calls"], record["expected_calls"]
    assert _jsonl_rows(3, result) == [to_json(record) + "\n" for record in records]
    assert any(record["error"] for record in records)


# --- gates that would pass on nothing (issue 48) --------------------------------------

@pytest.fixture
def empty_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    return path


def test_fail_under_fails_when_nothing_was_scored(capsys, empty_file):
    status, out, _ = run(capsys, "evaluate", str(empty_file), "--fail-under", "0.9")
    assert status == 1
    assert "FAILED: tool_selection_accuracy scored 0 of 0 cases: --fail-under 0.9 expected " \
           "cases to check and got none." in out and "--allow-empty" in out
    status, out, _ = run(capsys, "evaluate", str(empty_file), "--fail-under", "0.9",
                         "--allow-empty")
    assert status == 0 and "warning: tool_selection_accuracy scored no case" in out
    status, out, _ = run(capsys, "evaluate", str(empty_file))  # no gate asked for
    assert status == 0 and "warning: tool_selection_accuracy scored no case" in out


def test_fail_under_fails_when_every_row_is_an_error(capsys, tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('not json\n{"id": "x", "tool_calls": ["A"]}\n', encoding="utf-8")
    status, out, _ = run(capsys, "evaluate", str(path), "--errors", "record",
                         "--fail-under", "0")
    assert status == 1 and "scored 0 of 2 cases" in out
    assert "none of the 2 cases (every row is an error)" in out
    status, _, err = run(capsys, "evaluate", str(path), "--errors", "record", "--fail-under",
                         "0", "--format", "jsonl")
    assert status == 1 and "FAILED" in err  # machine formats keep stdout for the rows


def test_fail_on_regression_fails_when_nothing_paired(capsys, tmp_path, empty_file):
    base = tmp_path / "base.jsonl"
    base.write_text('{"id": "a", "tool_calls": ["x"], "expected_tool_calls": ["x"]}\n'
                    '{"id": "b", "tool_calls": ["y"], "expected_tool_calls": ["x"]}\n',
                    encoding="utf-8")
    status, out, _ = run(capsys, "compare", str(base), str(empty_file), "--on", "position",
                         "--fail-on-regression")
    assert status == 1
    assert "verdict   nothing compared" in out and "no clear difference" not in out
    assert "warning: no case paired on tool_selection_accuracy" in out
    assert "the candidate has 0 cases" in out and "FAILED: --fail-on-regression" in out
    assert run(capsys, "compare", str(base), str(empty_file), "--on", "position",
               "--fail-on-regression", "--allow-empty")[0] == 0
    other = tmp_path / "other.jsonl"  # cases on both sides, no id in common
    other.write_text('{"id": "c", "tool_calls": ["x"], "expected_tool_calls": ["x"]}\n',
                     encoding="utf-8")
    status, out, _ = run(capsys, "compare", str(base), str(other), "--fail-on-regression")
    assert status == 1 and "the ids (or the key that pairs cases) differ" in out
    status, out, _ = run(capsys, "compare", str(base), str(other), "--format", "json",
                         "--fail-on-regression")
    assert status == 1 and json.loads(out)  # the document stays valid JSON
    assert run(capsys, "compare", str(base), str(base), "--fail-on-regression")[0] == 0
