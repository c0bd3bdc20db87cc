"""ToolCallBatch constructors: cases, columns, pandas, Arrow; all agree."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from agentmetrics import (
    AgentTestCase,
    InvalidCaseError,
    InvalidParameterError,
    MissingDependencyError,
    ToolCall,
    ToolCallBatch,
    ToolSelectionAccuracy,
    evaluate,
)
from conftest import warns_if_empty

ROWS = [
    (["A", "B", "A"], ["A", "B"]),
    ([], ["C"]),
    (["検索"], []),
    ([], []),
    (["B", "D"], ["D", "B", "E"]),
]


def summary(batch):
    """What a batch says about each row, independent of how it was built."""
    return [
        (batch.case_id(row), batch.called_names(row), batch.expected_names(row))
        for row in range(len(batch))
    ]


def expected_summary(ids=None):
    return [
        (None if ids is None else ids[row], tuple(c), tuple(e))
        for row, (c, e) in enumerate(ROWS)
    ]


def test_from_cases_keeps_ids_and_cases():
    cases = [AgentTestCase(tool_calls=c, expected_tool_calls=e, metadata={"id": f"r{i}"})
             for i, (c, e) in enumerate(ROWS)]
    batch = ToolCallBatch.from_cases(iter(cases))
    assert summary(batch) == expected_summary([f"r{i}" for i in range(len(ROWS))])
    assert batch.case(2) is cases[2]
    assert batch.called_ids.dtype == np.int32 and batch.called_offsets.dtype == np.int64
    assert batch.vocabulary == ("A", "B", "検索", "D", "C", "E")
    assert repr(batch) == "ToolCallBatch(5 cases, 6 calls, 6 expected calls, 6 distinct tools)"


def test_from_cases_without_ids_uses_positions():
    batch = ToolCallBatch.from_cases([AgentTestCase(tool_calls=c, expected_tool_calls=e) for c, e in ROWS])
    assert batch.case_ids is None and summary(batch) == expected_summary()


def test_from_columns_accepts_names_tool_calls_mappings_and_arrays():
    batch = ToolCallBatch.from_columns(
        tool_calls=[[ToolCall("A"), {"name": "B"}, "A"], (), np.array(["検索"], dtype=object), [], ["B", "D"]],
        expected_tool_calls=[("A", "B"), ["C"], [], [], ["D", "B", "E"]],
        ids=["a", "b", "c", "d", "e"],
    )
    assert summary(batch) == expected_summary(list("abcde"))
    assert batch.case(1) == AgentTestCase(tool_calls=[], expected_tool_calls=["C"], metadata={"id": "b"})


def test_none_and_nan_mean_not_given():
    batch = ToolCallBatch.from_columns(tool_calls=[None, math.nan, ["A"]],
                                       expected_tool_calls=[["A"], ["A"], None])
    assert batch.called_given.tolist() == [False, False, True]
    assert batch.expected_given.tolist() == [True, True, False]
    assert batch.called_names(0) is None and batch.expected_names(2) is None


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("A", r"row 1: tool_calls: expected a list of tool names, got str 'A'"),
        ([""], r"row 1: tool_calls\[0\]: expected a non-empty tool name"),
        ([3], r"row 1: tool_calls\[0\]: expected a non-empty tool name.*got int 3"),
        ([{"tool": "A"}], r"row 1: tool_calls\[0\]"),
        ({"name": "A"}, r"row 1: tool_calls: expected a list of tool names, got dict"),
    ],
)
def test_bad_rows_raise_with_the_row_or_are_recorded(row, message):
    columns = dict(tool_calls=[["A"], row, ["B"]], expected_tool_calls=[["A"], ["A"], ["B"]])
    with pytest.raises(InvalidCaseError, match=message):
        ToolCallBatch.from_columns(**columns)
    batch = ToolCallBatch.from_columns(**columns, errors="record")
    assert len(batch) == 3 and list(batch.invalid) == [1]
    assert summary(batch)[2] == (None, ("B",), ("B",))
    result = evaluate(batch, "tool_selection_accuracy", errors="record")["tool_selection_accuracy"]
    assert np.isnan(result.values[1]) and result.values[[0, 2]].tolist() == [1.0, 1.0]
    assert result.errors == {1: batch.invalid[1]}


def test_from_columns_checks_lengths_and_modes():
    with pytest.raises(InvalidCaseError, match="tool_calls has 2 rows but expected_tool_calls has 1"):
        ToolCallBatch.from_columns(tool_calls=[[], []], expected_tool_calls=[[]])
    with pytest.raises(InvalidCaseError, match="ids has 1 rows"):
        ToolCallBatch.from_columns(tool_calls=[[], []], expected_tool_calls=[[], []], ids=["x"])
    with pytest.raises(InvalidParameterError, match="errors must be 'raise' or 'record', got 'ignore'"):
        ToolCallBatch.from_columns(tool_calls=[], expected_tool_calls=[], errors="ignore")


def test_from_cases_records_things_that_are_not_cases():
    with pytest.raises(InvalidCaseError, match="case 1: expected an AgentTestCase, got dict"):
        ToolCallBatch.from_cases([AgentTestCase(tool_calls=[], expected_tool_calls=[]), {"tool_calls": []}])
    batch = ToolCallBatch.from_cases([AgentTestCase(tool_calls=[], expected_tool_calls=[]), 5], errors="record")
    assert list(batch.invalid) == [1] and len(batch) == 2


def test_empty_batch():
    batch = ToolCallBatch.from_columns(tool_calls=[], expected_tool_calls=[])
    with warns_if_empty([]):
        result = evaluate(batch, ToolSelectionAccuracy())
    assert len(result) == 0 and result.summary()[0]["n"] == 0


def test_slices_share_the_vocabulary_and_rebase_rows():
    batch = ToolCallBatch.from_columns(tool_calls=[c for c, _ in ROWS], expected_tool_calls=[e for _, e in ROWS],
                                       ids=list("abcde"))
    part = batch.slice(1, 4)
    assert part.vocabulary is batch.vocabulary
    assert summary(part) == summary(batch)[1:4]


# --- pandas --------------------------------------------------------------------

pd = pytest.importorskip("pandas")


def frame():
    return pd.DataFrame({"tool_calls": [c for c, _ in ROWS], "expected_tool_calls": [e for _, e in ROWS],
                         "case_id": list("abcde")})


def test_from_pandas_default_and_named_columns():
    assert summary(ToolCallBatch.from_pandas(frame())) == expected_summary()
    renamed = frame().rename(columns={"tool_calls": "called", "expected_tool_calls": "gold"})
    batch = ToolCallBatch.from_pandas(renamed, tool_calls="called", expected_tool_calls="gold", id="case_id")
    assert summary(batch) == expected_summary(list("abcde"))
    indexed = frame().set_index("case_id")
    assert summary(ToolCallBatch.from_pandas(indexed)) == expected_summary(list("abcde"))


def test_from_pandas_reports_missing_columns_and_wrong_types():
    with pytest.raises(InvalidCaseError, match=r"no column 'tool_calls'.*\['called', 'expected_tool_calls'"):
        ToolCallBatch.from_pandas(frame().rename(columns={"tool_calls": "called"}))
    with pytest.raises(InvalidCaseError, match="expected a pandas DataFrame, got list"):
        ToolCallBatch.from_pandas([1, 2])


def test_evaluate_takes_a_dataframe_directly():
    result = evaluate(frame(), "tool_selection_accuracy")
    scalar = [ToolSelectionAccuracy().evaluate(AgentTestCase(tool_calls=c, expected_tool_calls=e)).value
              for c, e in ROWS]
    assert result["tool_selection_accuracy"].values.tolist() == scalar


# --- Arrow -------------------------------------------------------------------------

pa = pytest.importorskip("pyarrow")


def arrow_columns(list_type=None):
    list_type = list_type or pa.list_(pa.string())
    return (pa.array([c for c, _ in ROWS], type=list_type), pa.array([e for _, e in ROWS], type=list_type))


@pytest.mark.parametrize("list_type", [pa.list_(pa.string()), pa.large_list(pa.large_string())])
def test_from_arrow_matches_from_columns(list_type):
    called, expected = arrow_columns(list_type)
    batch = ToolCallBatch.from_arrow(tool_calls=called, expected_tool_calls=expected, ids=list("abcde"))
    assert summary(batch) == expected_summary(list("abcde"))


def test_from_arrow_chunked_sliced_and_null_lists():
    called = pa.chunked_array([pa.array([["A"], None], pa.list_(pa.string())),
                               pa.array([["X", "B"], ["B"]], pa.list_(pa.string())).slice(1)])
    expected = pa.chunked_array([pa.array([["A"], ["A"], ["B"]], pa.list_(pa.string()))])
    batch = ToolCallBatch.from_arrow(tool_calls=called, expected_tool_calls=expected)
    assert summary(batch) == [(None, ("A",), ("A",)), (None, None, ("A",)), (None, ("B",), ("B",))]


@pytest.mark.parametrize(("bad", "message"), [
    (None, r"expected a ToolCall, a tool name \(str\) or a mapping with 'name'; got NoneType None"),
    ("", r"ToolCall.name: expected a non-empty str, got ''")])
def test_from_arrow_null_or_empty_names_are_invalid_rows(bad, message):
    called = pa.array([["A"], ["B", bad], ["C"]], pa.list_(pa.string()))
    expected = pa.array([["A"], ["B"], ["C"]], pa.list_(pa.string()))
    # worded as the same case read from records is
    with pytest.raises(InvalidCaseError, match=rf"^row 1: tool_calls\[1\]: {message}"):
        ToolCallBatch.from_arrow(tool_calls=called, expected_tool_calls=expected)
    batch = ToolCallBatch.from_arrow(tool_calls=called, expected_tool_calls=expected, errors="record")
    assert list(batch.invalid) == [1]
    assert summary(batch)[2] == (None, ("C",), ("C",))


def test_from_arrow_refuses_other_types():
    with pytest.raises(InvalidCaseError, match="must be list<string>, got list<item: int64>"):
        ToolCallBatch.from_arrow(tool_calls=pa.array([[1]]), expected_tool_calls=pa.array([[1]]))
    with pytest.raises(InvalidCaseError, match="must be a pyarrow Array or ChunkedArray, got list"):
        ToolCallBatch.from_arrow(tool_calls=[["A"]], expected_tool_calls=[["A"]])


def test_arrow_backed_dataframes_and_tables_take_the_arrow_path():
    called, expected = arrow_columns()
    table = pa.table({"tool_calls": called, "expected_tool_calls": expected, "id": list("abcde")})
    assert summary(ToolCallBatch.from_pandas(table.to_pandas(types_mapper=pd.ArrowDtype), id="id")) == \
        expected_summary(list("abcde"))
    result = evaluate(table, "tool_selection_accuracy")
    assert result.batch.case_ids == tuple("abcde")


def test_missing_optional_dependencies_say_what_to_install(monkeypatch):
    data = frame()
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'agent-tool-metrics\[pandas\]'"):
        ToolCallBatch.from_pandas(data)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(MissingDependencyError, match=r"agent-tool-metrics\[arrow\]"):
        ToolCallBatch.from_arrow(tool_calls=None, expected_tool_calls=None)


DICT_LIST = pa.list_(pa.dictionary(pa.int32(), pa.string()))


def test_from_arrow_keeps_the_codes_of_dictionary_encoded_columns():
    called, expected = arrow_columns()
    batch = ToolCallBatch.from_arrow(tool_calls=called.cast(DICT_LIST), expected_tool_calls=expected.cast(DICT_LIST))
    assert summary(batch) == expected_summary()
    mixed = ToolCallBatch.from_arrow(tool_calls=called.cast(DICT_LIST), expected_tool_calls=expected)
    assert summary(mixed) == expected_summary()


def test_from_arrow_dictionary_with_repeated_entries_is_re_encoded():
    # Codes 0 and 1 both spell "A": they must become one tool.
    values = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], pa.int32()), pa.array(["A", "A", "B"]))
    called = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), values)
    expected = pa.array([["A"], ["B"]], DICT_LIST)
    batch = ToolCallBatch.from_arrow(tool_calls=called, expected_tool_calls=expected)
    assert summary(batch) == [(None, ("A", "A"), ("A",)), (None, ("B",), ("B",))]
    assert evaluate(batch, "tool_selection_accuracy")["tool_selection_accuracy"].values.tolist() == [1.0, 1.0]
