"""What a case carries besides calls (issue 51): expected_output, latency, cost
and usage, on the case, read from JSONL lines and records, and keyed in the
cache. Numbers are checked and never coerced from text."""

from __future__ import annotations

import io
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import AgentTestCase, InvalidCaseError, MissingFieldError, UnreadableCase
from agentmetrics.engine._cache import case_keys

NUMBERS = st.one_of(st.integers(min_value=0, max_value=10**9),
                    st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False))


def reference_amount(value):
    """What a latency or cost may be, written out: None, or a finite int or float at or
    above 0 that is not a bool; kept as a float."""
    if value is None:
        return "none"
    if type(value) not in (int, float) or isinstance(value, bool):
        return "refused"
    return float(value) if math.isfinite(value) and value >= 0 else "refused"


@given(st.one_of(NUMBERS, st.floats(), st.integers(), st.text(max_size=4), st.booleans(), st.none(),
                 st.lists(st.integers(), max_size=2)))
def test_latency_and_cost_are_numbers_checked_never_coerced(value):
    for field in ("latency", "cost"):
        expected = reference_amount(value)
        if expected == "refused":
            with pytest.raises(InvalidCaseError, match=f"AgentTestCase.{field}: expected"):
                AgentTestCase(**{field: value})
        else:
            got = getattr(AgentTestCase(**{field: value}), field)
            assert got == (None if expected == "none" else expected)
            assert got is None or type(got) is float


def test_usage_is_token_counts():
    assert AgentTestCase(usage={"input_tokens": 3, "output_tokens": 0}).usage == {
        "input_tokens": 3, "output_tokens": 0}
    for bad in ({"input_tokens": 1.5}, {"input_tokens": -1}, {"input_tokens": True}, {1: 2}, [1]):
        with pytest.raises(InvalidCaseError, match="AgentTestCase.usage"):
            AgentTestCase(usage=bad)


LINE = {"id": "r1", "actual_output": "Paris", "expected_output": {"city": "Paris"},
        "latency": 1.25, "cost": 0.002, "usage": {"input_tokens": 10, "output_tokens": 2},
        "tool_calls": ["search"], "expected_tool_calls": ["search"]}


def test_a_jsonl_line_and_a_record_carry_the_fields_alike():
    (case,) = am.read_cases(io.StringIO(json.dumps(LINE) + "\n"))
    assert (case.expected_output, case.latency, case.cost, case.usage) == (
        {"city": "Paris"}, 1.25, 0.002, {"input_tokens": 10, "output_tokens": 2})
    batch = am.ToolCallBatch.from_records([LINE, {"tool_calls": [], "expected_tool_calls": []}])
    assert batch.cases[0] == case
    assert (batch.cases[1].latency, batch.cases[1].expected_output) == (None, None)


def test_text_where_seconds_are_expected_is_a_row_error_naming_the_line_and_field():
    lines = io.StringIO(json.dumps({**LINE, "latency": "1.25"}) + "\n" + json.dumps(LINE) + "\n")
    bad, good = am.read_cases(lines, errors="record")
    assert isinstance(bad, UnreadableCase) and "<stream>:1:" in bad.message
    assert "latency: expected seconds as a number" in bad.message and good.latency == 1.25
    result = am.evaluate([{**LINE, "cost": "free"}, LINE], "tool_selection_accuracy", errors="record")
    assert len(result) == 2 and "cost" in result["tool_selection_accuracy"].errors[0]


def test_a_missing_field_says_what_to_give_for_its_type():
    message = str(MissingFieldError("latency_budget", "latency"))
    assert "latency=... (the run's wall time in seconds, a number)" in message
    assert "empty list" not in str(MissingFieldError("answer", "expected_output"))
    assert "empty list is allowed" in str(MissingFieldError("m", "tool_calls"))


def test_every_new_field_is_in_the_default_cache_key():
    base = AgentTestCase(actual_output="Paris", expected_output="Paris", latency=1.0, cost=0.1,
                         usage={"input_tokens": 1})
    changed = [AgentTestCase(actual_output="Paris", expected_output="Lyon", latency=1.0, cost=0.1,
                             usage={"input_tokens": 1}),
               AgentTestCase(actual_output="Paris", expected_output="Paris", latency=2.0, cost=0.1,
                             usage={"input_tokens": 1}),
               AgentTestCase(actual_output="Paris", expected_output="Paris", latency=1.0, cost=0.2,
                             usage={"input_tokens": 1}),
               AgentTestCase(actual_output="Paris", expected_output="Paris", latency=1.0, cost=0.1,
                             usage={"input_tokens": 2})]
    metric = am.get_metric("tool_selection_accuracy")
    keys = case_keys(metric, [base, *changed])
    assert None not in keys and len(set(keys)) == 5


def test_numpy_numbers_are_numbers_and_numpy_bools_are_not():
    import numpy as np

    assert AgentTestCase(latency=np.float64(1.5), cost=np.int64(2)).latency == 1.5
    assert type(AgentTestCase(cost=np.int64(2)).cost) is float
    for bad in (np.bool_(True), np.array([1.0]), np.float64("nan")):
        with pytest.raises(InvalidCaseError, match="AgentTestCase.latency"):
            AgentTestCase(latency=bad)


class AnswerWithin(am.Metric):
    """1.0 when the answer is the reference and came within the latency budget."""

    name = "answer_within"

    def measure(self, case):
        if case.latency is None:
            return 0.0, "no latency"
        good = case.actual_output == case.expected_output and case.latency <= 2.0
        return float(good), f"{case.actual_output!r} in {case.latency}s"


ROWS = {"tool_calls": [["search"], ["search"], []],
        "expected_tool_calls": [["search"], ["search"], []],
        "actual_output": ["Paris", "Lyon", "Rome"],
        "expected_output": ["Paris", "Paris", "Rome"],
        "latency": [1.0, 1.0, float("nan")]}


def reference_values(rows):
    values = []
    for out, want, seconds in zip(rows["actual_output"], rows["expected_output"], rows["latency"]):
        values.append(0.0 if seconds != seconds else float(out == want and seconds <= 2.0))
    return values


def test_a_dataframe_an_arrow_table_and_a_partition_read_the_case_fields():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    from agentmetrics import partition

    expected = reference_values(ROWS)  # [1.0, 0.0, 0.0]: a NaN latency is "not given"
    frame = pd.DataFrame(ROWS)
    assert am.evaluate(frame, AnswerWithin())["answer_within"].values.tolist() == expected
    table = pa.table({**ROWS, "latency": [1.0, 1.0, None]})
    assert am.evaluate(table, AnswerWithin())["answer_within"].values.tolist() == expected
    for data in (frame, table):
        rows, _ = partition.score(data, [AnswerWithin()])
        column = rows["answer_within"] if hasattr(rows, "columns") else rows.column("answer_within")
        assert list(column.tolist() if hasattr(column, "tolist") else column.to_pylist()) == expected
    # Only call columns: the columnar path, as before (no case object each).
    plain = am.ToolCallBatch.from_pandas(frame[["tool_calls", "expected_tool_calls"]])
    assert plain.cases is None


def test_text_in_a_latency_column_is_refused_naming_the_row_and_field():
    pd = pytest.importorskip("pandas")

    frame = pd.DataFrame({**ROWS, "latency": [1.0, "2s", 1.0]})
    with pytest.raises(InvalidCaseError, match=r"1.*latency"):
        am.evaluate(frame, AnswerWithin())
    result = am.evaluate(frame, AnswerWithin(), errors="record")
    assert list(result["answer_within"].errors) == [1] and len(result) == 3


# -- case fields read as columns (no object per case), against the records' reading ----

CELLS = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True, width=64),
                  st.integers(-5, 10**6), st.booleans(), st.text(max_size=3),
                  st.lists(st.integers(), max_size=2))
ANSWERS = st.one_of(st.none(), st.text(max_size=4), st.integers(-3, 3),
                    st.lists(st.text(max_size=2), max_size=2),
                    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))


class AnswerRead(am.Metric):
    """Reads every column field; its reason shows what it read."""

    name = "answer_read"
    inputs = ("actual_output",)

    def measure(self, case):
        seen = (case.input, case.actual_output, case.expected_output, case.latency, case.cost)
        return float(case.actual_output == case.expected_output), repr(seen)


def _records(columns):
    """The reference: each row as a record, a missing cell (None, NaN) left out."""
    rows = []
    for values in zip(*columns.values()):
        record = {}
        for name, value in zip(columns, values):
            if value is None or (isinstance(value, float) and value != value):
                continue
            record[name] = value
        rows.append(record)
    return rows


@given(st.lists(st.tuples(CELLS, CELLS, ANSWERS, ANSWERS), min_size=1, max_size=12))
def test_field_columns_read_as_the_records_reading_reads_them(rows):
    pd = pytest.importorskip("pandas")
    columns = {"latency": [r[0] for r in rows], "cost": [r[1] for r in rows],
               "actual_output": [r[2] for r in rows], "expected_output": [r[3] for r in rows]}
    frame = pd.DataFrame({name: pd.Series(values, dtype=object)
                          for name, values in columns.items()})
    metric = AnswerRead()
    mine = am.evaluate(frame, metric, errors="record")
    theirs = am.evaluate(_records(columns), metric, errors="record")
    assert mine.batch.cases is None  # read as columns
    a, b = mine["answer_read"], theirs["answer_read"]
    assert a.values.tolist() == pytest.approx(b.values.tolist(), nan_ok=True)
    assert dict(a.errors) == dict(b.errors)
    assert a.reason_list() == b.reason_list()


ARROW_NUMBERS = ["int8", "int32", "int64", "uint16", "uint64", "float16", "float32", "float64",
                 "bool", "string", "large_string"]
ARROW_TEXTS = ["string", "large_string", "int64", "float64", "bool"]


def _typed(pa, kind, draw):
    """A column of Arrow type ``kind``, each cell a value of that type or null."""
    values = {
        "int8": st.integers(-128, 127), "int32": st.integers(-(2**31), 2**31 - 1),
        "int64": st.integers(-(2**63), 2**63 - 1), "uint16": st.integers(0, 2**16 - 1),
        "uint64": st.integers(0, 2**64 - 1),
        "float16": st.floats(width=16), "float32": st.floats(width=32), "float64": st.floats(),
        "bool": st.booleans(), "string": st.text(max_size=3), "large_string": st.text(max_size=3),
    }[kind]
    return draw(st.lists(st.one_of(st.none(), values), min_size=4, max_size=4))


@given(st.data())
def test_typed_arrow_field_columns_read_as_the_records_reading_reads_them(data):
    pa = pytest.importorskip("pyarrow")
    kinds = {"latency": data.draw(st.sampled_from(ARROW_NUMBERS)),
             "cost": data.draw(st.sampled_from(ARROW_NUMBERS)),
             "actual_output": data.draw(st.sampled_from(ARROW_TEXTS)),
             "expected_output": data.draw(st.sampled_from(ARROW_TEXTS))}
    columns = {name: _typed(pa, kind, data.draw) for name, kind in kinds.items()}
    table = pa.table({name: pa.array(columns[name], type=getattr(pa, kind + "_" * (kind == "bool"))())
                      for name, kind in kinds.items()})
    if data.draw(st.booleans()):  # two chunks a column
        table = pa.concat_tables([table.slice(0, 2), table.slice(2)])
    metric = AnswerRead()
    mine = am.evaluate(table, metric, errors="record")
    theirs = am.evaluate(_records({name: table[name].to_pylist() for name in kinds}), metric,
                         errors="record")
    assert mine.batch.cases is None  # read as columns
    a, b = mine["answer_read"], theirs["answer_read"]
    assert a.values.tobytes() == b.values.tobytes()
    # The same message; an Arrow table's reader names a row, the records' a record.
    assert {row: message.replace(f"row {row}:", f"record {row}:", 1)
            for row, message in a.errors.items()} == dict(b.errors)
    assert [reason.replace(f"row {row}:", f"record {row}:", 1)
            for row, reason in enumerate(a.reason_list())] == b.reason_list()


def test_a_table_of_answers_alone_needs_no_call_columns():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    from agentmetrics import partition

    data = {"actual_output": ["Paris", "Lyon", None], "expected_output": ["Paris", "Paris", "Rome"]}
    for table in (pd.DataFrame(data), pa.table(data)):
        result = am.evaluate(table, AnswerRead(), errors="record")
        assert result["answer_read"].values.tolist()[:2] == [1.0, 0.0]
        assert "requires the test case field 'actual_output'" in result["answer_read"].errors[2]
        assert result.batch.field("tool_calls").tolist() == [None, None, None]
        rows, _ = partition.score(table, [AnswerRead()], errors="record")
        frame = rows.to_pandas() if hasattr(rows, "to_pylist") or hasattr(rows, "schema") else rows
        assert frame["answer_read"].tolist()[:2] == [1.0, 0.0]
    # A table with neither calls nor case fields is still refused, naming the column.
    with pytest.raises(InvalidCaseError, match="no column 'tool_calls'"):
        am.evaluate(pd.DataFrame({"other": [1]}), AnswerRead())


def test_numeric_columns_are_read_as_float_columns_and_checked():
    pd = pytest.importorskip("pandas")

    frame = pd.DataFrame({"actual_output": ["a", "b", "c"], "latency": [0.5, -1.0, float("nan")],
                          "cost": [1, 2, 3]})
    result = am.evaluate(frame, AnswerRead(), errors="record")
    assert result.batch.field("latency").dtype == "float64"
    assert result.batch.field("cost").tolist() == [1.0, 2.0, 3.0]
    assert list(result["answer_read"].errors) == [1]
    assert "AgentTestCase.latency: expected seconds, a finite number at or above 0" in \
        result["answer_read"].errors[1]
    assert result.batch.case(2).latency is None  # NaN in a float column: not given


def test_a_declared_text_input_refuses_another_kind_in_a_column():
    pd = pytest.importorskip("pandas")

    class TextAnswer(am.Metric):
        name = "text_answer_columns"
        inputs = (am.Input("actual_output", "text"),)

        def measure(self, case):
            return 1.0, "text"

    frame = pd.DataFrame({"actual_output": pd.Series(["a", 3, None], dtype=object)})
    result = am.evaluate(frame, TextAnswer(), errors="record")
    errors = result["text_answer_columns"].errors
    assert sorted(errors) == [1, 2]
    assert "reads actual_output as text (a str), got int 3" in errors[1]
    assert "requires the test case field 'actual_output'" in errors[2]


def test_a_field_column_of_a_batch_with_an_unreadable_row_holds_none_there():
    batch = am.ToolCallBatch.from_cases(
        [AgentTestCase(tool_calls=["a"], latency=1.0), UnreadableCase("runs.jsonl", 2, "bad")],
        errors="record")
    assert batch.field("latency").tolist()[0] == 1.0
    assert math.isnan(batch.field("latency").tolist()[1])
    assert batch.field("actual_output").tolist() == [None, None]
    assert batch.field("tool_calls").tolist()[1] is None
