"""Issue 48: deep nesting and duplicated columns end in an error that names
where, for that record alone; never a RecursionError, a pyarrow KeyError, or a
batch lost because one record was odd."""

from __future__ import annotations

import json

import pytest

import agentmetrics as am
from agentmetrics import InvalidCaseError, partition
from agentmetrics._base._lines import MAX_DEPTH, check_depth
from agentmetrics.cli import main
from agentmetrics.expectations import Call, Equals, expectation_from_json

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")


# --- deep nesting ----------------------------------------------------------------------

def _steps(depth):
    step = {"call": "f"}
    for _ in range(depth):
        step = {"optional": step}
    return {"steps": [step]}


def _matcher(depth):
    value = {"$equals": 1}
    for _ in range(depth):
        value = {"$object": {"a": value}}
    return {"steps": [{"call": "f", "arguments": {"x": value}}]}


def _value(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return {"steps": [{"call": "f", "arguments": {"x": value}}]}


DEEP = {"steps": _steps, "matchers": _matcher, "values": _value}


@pytest.mark.parametrize("shape", sorted(DEEP))
@pytest.mark.parametrize("depth", [600, 5_000])
def test_a_deep_expectation_is_refused_with_its_path(shape, depth):
    with pytest.raises(InvalidCaseError, match=r"^expectation\.steps\[0\]\.(optional|arguments)"
                       r".*nested more than 100 levels deep .*Fix: flatten the expectation"):
        expectation_from_json(DEEP[shape](depth))


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_an_expectation_at_the_limit_is_read(shape):
    built = expectation_from_json(DEEP[shape](30))
    assert expectation_from_json(built.to_json()) == built


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_deep_record_is_one_error_row_and_the_batch_is_scored(shape):
    records = [{"id": "ok", "tool_calls": ["f"], "expectation": {"steps": [{"call": "f"}]}},
               {"id": "deep", "tool_calls": ["f"], "expectation": DEEP[shape](600)},
               {"id": "after", "tool_calls": ["g"], "expectation": {"steps": [{"call": "f"}]}}]
    rows = am.evaluate(records, "expectation_match", errors="record").to_dicts()
    assert [row["id"] for row in rows] == ["ok", "deep", "after"]
    assert rows[0]["expectation_match"] == 1.0 and rows[2]["expectation_match"] == 0.0
    assert "expectation.steps[0]" in rows[1]["expectation_match_error"]
    assert "nested more than 100 levels deep" in rows[1]["expectation_match_error"]
    with pytest.raises(InvalidCaseError, match=r"record 1 \(id 'deep'\): .*nested more than 100"):
        am.evaluate(records, "expectation_match")


def test_the_cli_names_a_deep_line_instead_of_calling_it_a_bug(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    lines = [{"id": "ok", "tool_calls": ["f"], "expectation": {"steps": [{"call": "f"}]}},
             {"id": "deep", "tool_calls": ["f"], "expectation": _matcher(300)}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status = main(["evaluate", str(path), "--metric", "expectation_match", "--errors", "record",
                   "--format", "jsonl"])
    out, err = capsys.readouterr()
    assert status == 0 and "Traceback" not in err and "bug" not in out + err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["value"] == 1.0 and rows[1]["value"] is None
    assert f"{path}:2: " in rows[1]["error"] and "levels deep" in rows[1]["error"]


def test_deep_values_given_in_python_are_refused_with_a_path():
    value = 1
    for _ in range(2_000):
        value = {"k": value}
    with pytest.raises(InvalidCaseError, match=r"^Equals\.value\.k\.k.*nested more than"):
        Equals(value)
    with pytest.raises(InvalidCaseError, match=r"^argument\.k\.k.*nested more than"):
        Call("f", {"x": value})


def test_check_depth_reads_without_recursion_and_names_the_path():
    value: list = []
    value.append(value)  # holds itself: infinitely deep
    with pytest.raises(InvalidCaseError, match=r"^here(\[0\]){4} \.\.\. \(88 more\) \.\.\. (\[0\]){8}: "
                       r"nested more than 100 levels deep"):
        check_depth(value, "here")
    deep = 1
    for _ in range(1_000_000):
        deep = [deep]
    with pytest.raises(InvalidCaseError, match="nested more than"):
        check_depth(deep, "x")
    check_depth({"a": [{"b": [1]}] * 3}, "fine")  # shallow: nothing to say
    within = 1
    for _ in range(MAX_DEPTH):
        within = [within]
    check_depth(within, "at the limit")


# --- duplicated columns ----------------------------------------------------------------

def _table(*names):
    columns = {"tool_calls": [["a"], ["b"]], "expected_tool_calls": [["a"], ["c"]],
               "id": ["x", "y"]}
    return pa.table([pa.array(columns[name]) for name in names], names=list(names))


TWICE = [("tool_calls", "tool_calls", "expected_tool_calls"),
         ("tool_calls", "expected_tool_calls", "expected_tool_calls"),
         ("tool_calls", "expected_tool_calls", "id", "id")]


@pytest.mark.parametrize("names", TWICE, ids=lambda names: "-".join(names))
def test_a_table_with_a_column_twice_is_refused_naming_it(names):
    doubled = next(name for name in names if names.count(name) > 1)
    table = _table(*names)
    message = rf"expected one column named '{doubled}', got 2 .*Fix: drop or rename"
    with pytest.raises(InvalidCaseError, match=message):
        am.evaluate(table, "tool_selection_accuracy", errors="record")
    with pytest.raises(InvalidCaseError, match=message):
        partition.score(table, ["tool_selection_accuracy"], errors="record")
    frame = table.to_pandas()
    if doubled == "id":  # ToolCallBatch.from_pandas reads an id column only when named
        assert len(am.evaluate(frame, "tool_selection_accuracy", errors="record")) == 2
        with pytest.raises(InvalidCaseError, match=message):
            am.ToolCallBatch.from_pandas(frame, id="id")
    else:
        with pytest.raises(InvalidCaseError, match=message):
            am.evaluate(frame, "tool_selection_accuracy", errors="record")
    with pytest.raises(InvalidCaseError, match=message):
        partition.score(frame, ["tool_selection_accuracy"], errors="record")


def test_a_parquet_file_with_a_column_twice_is_refused_by_the_cli(tmp_path, capsys):
    import pyarrow.parquet as pq

    path = tmp_path / "twice.parquet"
    pq.write_table(_table("tool_calls", "tool_calls", "expected_tool_calls"), path)
    status = main(["evaluate", str(path), "--errors", "record"])
    _, err = capsys.readouterr()
    assert status == 2 and "Traceback" not in err and "metric bug" not in err
    assert f"{path}: expected one column named 'tool_calls', got 2" in err


def test_a_column_that_is_not_read_may_be_there_twice():
    table = _table("tool_calls", "expected_tool_calls", "id")
    table = table.append_column("note", pa.array(["n", "m"])).append_column(
        "note", pa.array(["n", "m"]))
    assert len(am.evaluate(table, "tool_selection_accuracy")) == 2
