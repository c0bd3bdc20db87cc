"""Arrow call objects (``list<struct<name, arguments, ...>>``) read as columns
(agentmetrics._columnar._arrow_calls), tested against the reference: the
records' reading of what ``records_from_arrow`` makes of the same rows, which
is what ``ToolCallBatch.from_arrow`` did for every such table before, and still
does for a table the columns cannot read. Same rows, names, given flags, ids,
unreadable rows and messages, metric values and errors, and the same cases
(all at once, or one row alone), on generated tables with bad cells."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pa = pytest.importorskip("pyarrow")

import agentmetrics as am  # noqa: E402
from agentmetrics.cases import _tool_call_batch as batch_module  # noqa: E402
from agentmetrics.errors import InvalidCaseError  # noqa: E402

TOOLS = ["search", "book", "cancel"]
METRICS = ["tool_selection_accuracy", "argument_accuracy"]

#: Arrow types of ``arguments``, each with the values a call may hold (None: a null).
_ARGUMENTS: dict[str, tuple[Any, Any]] = {
    "struct": (pa.struct([("q", pa.int64()), ("city", pa.string()),
                          ("where", pa.struct([("lat", pa.int64())]))]),
               st.none() | st.fixed_dictionaries({}, optional={
                   "q": st.none() | st.integers(-2, 2),
                   "city": st.none() | st.sampled_from(["Oslo", ""]),
                   "where": st.none() | st.fixed_dictionaries({}, optional={
                       "lat": st.none() | st.integers(0, 2)})})),
    "json": (pa.string(), st.none() | st.sampled_from(
        ['{}', '{"q": 1}', 'null', ' {"a": {"b": [1, null]}} ', '[1]', '{"q": ', '3', '"x"',
         '', 'nul', '{"q": 1, "q": 2}'])),
    "large_json": (pa.large_string(), st.none() | st.sampled_from(['{"q": 2}', '[]', 'null'])),
    "map": (pa.map_(pa.string(), pa.int64()),
            st.none() | st.lists(st.tuples(st.sampled_from("ab"), st.none() | st.integers(0, 3)),
                                 max_size=3)),
    "int_map": (pa.map_(pa.int64(), pa.string()),
                st.none() | st.lists(st.tuples(st.integers(0, 1), st.just("v")), max_size=2)),
    "int": (pa.int64(), st.none() | st.integers(0, 3)),
    "list": (pa.list_(pa.int64()), st.none() | st.lists(st.integers(0, 2), max_size=2)),
    "null": (pa.null(), st.none()),
}
#: Other fields a call struct may have: (Arrow type, values).
_OTHER_FIELDS: dict[str, tuple[Any, Any]] = {
    "id": (pa.string(), st.none() | st.sampled_from(["t1", ""])),
    "int_id": (pa.int64(), st.none() | st.integers(0, 2)),
    "output": (pa.list_(pa.int64()), st.none() | st.lists(st.integers(0, 2), max_size=2)),
    "raw_arguments": (pa.string(), st.none() | st.just("{bad")),
    "args": (pa.string(), st.none() | st.just("x")),  # a field a call does not have
}


def _mostly(good: Any, bad: Any, odds: int = 8) -> Any:
    """``good`` ``odds`` times in ``odds + 1``, else ``bad``: a row with too many bad
    cells would hide its other cells behind its first refusal."""
    return st.integers(0, odds).flatmap(lambda k: bad if k == 0 else good)


_NAMES = _mostly(st.sampled_from(TOOLS), st.sampled_from([None, ""]))


@st.composite
def _call_side(draw: Any) -> tuple[Any, list[Any]]:
    """An Arrow type of call objects and the rows of a side."""
    kind = draw(st.sampled_from(sorted(_ARGUMENTS)))
    others = draw(st.lists(st.sampled_from(sorted(_OTHER_FIELDS)), unique=True, max_size=2))
    fields = [("name", draw(st.sampled_from([pa.string(), pa.large_string(),
                                              pa.dictionary(pa.int32(), pa.string())])))]
    fields.append(("arguments", _ARGUMENTS[kind][0]))
    values = {"arguments": _ARGUMENTS[kind][1]}
    for other in others:
        key = "id" if other == "int_id" else other
        if key in dict(fields):
            continue
        fields.append((key, _OTHER_FIELDS[other][0]))
        values[key] = _OTHER_FIELDS[other][1]
    call = st.fixed_dictionaries({"name": _NAMES}, optional=values)
    calls = _mostly(st.lists(_mostly(call, st.none()), max_size=3), st.none(), 4)
    list_type = draw(st.sampled_from([pa.list_, pa.large_list]))
    return list_type(pa.struct(fields)), calls


@st.composite
def _tables(draw: Any) -> Any:
    n = draw(st.integers(1, 8))
    columns: dict[str, Any] = {}
    for side in ("tool_calls", "expected_tool_calls"):
        if side == "expected_tool_calls" and draw(st.booleans()):
            kind, rows = pa.list_(pa.string()), _mostly(st.lists(_NAMES, max_size=3), st.none(), 4)
        else:
            kind, rows = draw(_call_side())
        columns[side] = pa.array(draw(st.lists(rows, min_size=n, max_size=n)), kind)
    if draw(st.booleans()):
        columns["id"] = pa.array([f"c{i}" for i in range(n)])
    if draw(st.booleans()):
        columns["latency"] = pa.array(draw(st.lists(
            _mostly(st.none() | st.sampled_from([0.5, 2.0]), st.sampled_from([-1.0, math.inf])),
            min_size=n, max_size=n)),
            pa.float64())
    if draw(st.booleans()):
        columns["actual_output"] = pa.array(draw(st.lists(st.none() | st.just("ok"), min_size=n,
                                                          max_size=n)), pa.string())
    table = pa.table(columns)
    if draw(st.booleans()) and n > 1:  # chunks, and a slice that starts inside one
        table = pa.concat_tables([table, table]).slice(1, n)
    return table


def _reference(monkeypatch: pytest.MonkeyPatch, read: Any) -> Any:
    """What ``read()`` gives with every call-object table read by the reference."""
    with monkeypatch.context() as patched:
        patched.setattr(batch_module, "read_arrow_calls", lambda *args: None)
        return read()


def _outcome(read: Any) -> tuple[str, Any]:
    try:
        return "ok", read()
    except InvalidCaseError as error:
        return "error", str(error)


def _batch(table: Any, errors: str = "record") -> Any:
    fields = {name: table.column(name) for name in ("latency", "actual_output")
              if name in table.column_names}
    return am.ToolCallBatch.from_arrow(
        tool_calls=table.column("tool_calls"),
        expected_tool_calls=table.column("expected_tool_calls"),
        ids=table.column("id") if "id" in table.column_names else None,
        errors=errors, fields=fields)  # type: ignore[arg-type]


def _assert_same_batch(new: Any, old: Any) -> None:
    assert len(new) == len(old)
    assert new.invalid == old.invalid
    assert new.name_lists() == old.name_lists()
    assert new.case_ids == old.case_ids
    assert new.called_given.tolist() == old.called_given.tolist()
    assert new.expected_given.tolist() == old.expected_given.tolist()
    for name in ("latency", "actual_output"):
        mine, theirs = new.field(name), old.field(name)
        assert [None if v != v else v for v in mine.tolist()] == \
            [None if v != v else v for v in theirs.tolist()], name


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow,
                                                   HealthCheck.function_scoped_fixture])
@given(_tables())
def test_call_columns_read_as_the_reference_reads_them(monkeypatch: pytest.MonkeyPatch,
                                                       table: Any) -> None:
    got = _outcome(lambda: _batch(table))
    want = _reference(monkeypatch, lambda: _outcome(lambda: _batch(table)))
    assert got[0] == want[0]
    if got[0] == "error":  # refused as a whole (a name field that is not text)
        assert got[1] == want[1]
        return
    new, old = got[1], want[1]
    _assert_same_batch(new, old)
    # One row alone (the first read of a fresh batch), then every case.
    row = len(table) // 2
    assert _batch(table).cases[row] == old.cases[row]
    assert list(new.cases) == list(old.cases)
    assert list(_batch(table).cases[1:]) == list(old.cases[1:])
    # errors="raise": the same first refusal, or the same batch.
    raised = _outcome(lambda: _batch(table, "raise"))
    expected = _reference(monkeypatch, lambda: _outcome(lambda: _batch(table, "raise")))
    assert raised[0] == expected[0]
    if raised[0] == "error":
        assert raised[1] == expected[1]
    # The metrics: values, passes and errors.
    scored = am.evaluate(table, METRICS, errors="record", progress=False)
    reference = _reference(monkeypatch, lambda: am.evaluate(table, METRICS, errors="record",
                                                            progress=False))
    for label in METRICS:
        mine, theirs = scored.results[label], reference.results[label]
        assert mine.values.tobytes() == theirs.values.tobytes(), label
        assert mine.passed.tolist() == theirs.passed.tolist(), label
        assert dict(mine.errors) == dict(theirs.errors), label


def test_the_generated_tables_hold_the_bad_cells() -> None:
    """The generator can make each refusal the reference makes (a test that
    cannot fail is a defect: these rows must be told apart)."""
    calls = pa.list_(pa.struct([("name", pa.string()), ("arguments", pa.string()),
                                ("args", pa.string())]))
    table = pa.table({
        "tool_calls": pa.array([[{"name": None}], [{"name": ""}], [None],
                                [{"name": "a", "arguments": "[1]"}],
                                [{"name": "a", "args": "x"}], [{"name": "a"}], None], calls),
        "expected_tool_calls": pa.array([["a"]] * 6 + [None], pa.list_(pa.string()))})
    batch = _batch(table)
    assert sorted(batch.invalid) == [0, 1, 2, 3, 4]
    assert "ToolCall.name" in batch.invalid[0] and "got ''" in batch.invalid[1]
    assert "NoneType None" in batch.invalid[2] and "JSON of a list" in batch.invalid[3]
    assert "unknown keys ['args']" in batch.invalid[4]
    assert batch.name_lists() == ([None] * 5 + [["a"], None], [None] * 5 + [["a"], None])


@pytest.mark.parametrize("arguments, values, bad", [
    (pa.map_(pa.string(), pa.int64()), [[("a", 1), ("a", 2)], [("a", 1), ("b", 2)]], [0]),
    (pa.map_(pa.int64(), pa.int64()), [[(1, 1)], []], [0]),
    (pa.int64(), [3, None], [0]),
    # a list is no object, empty or not, whatever the other rows hold (only a map's
    # entries are): the reference once took [] for {} in a column without nulls
    (pa.list_(pa.int64()), [[1], [], None], [0, 1]),
    (pa.string(), ['{"q": ', '{"q": 1}'], [0]),
])
def test_odd_arguments_are_read_by_the_reference(monkeypatch: pytest.MonkeyPatch, arguments: Any,
                                                 values: list[Any], bad: list[int]) -> None:
    kind = pa.list_(pa.struct([("name", pa.string()), ("arguments", arguments)]))
    table = pa.table({"tool_calls": pa.array([[{"name": "a", "arguments": value}]
                                              for value in values], kind),
                      "expected_tool_calls": pa.array([["a"]] * len(values))})
    batch = _batch(table)
    assert sorted(batch.invalid) == bad
    assert batch.invalid == _reference(monkeypatch, lambda: _batch(table)).invalid


def test_cases_are_built_only_when_read() -> None:
    calls = [[{"name": "a", "arguments": {"q": 1}}], None]
    table = pa.table({"tool_calls": pa.array(calls), "expected_tool_calls": pa.array(calls)})
    batch = _batch(table)
    assert "not built yet" in repr(batch.cases)
    result = am.evaluate(batch, "tool_selection_accuracy", errors="record", progress=False)
    assert "not built yet" in repr(batch.cases)  # a missing side read its row alone
    assert result.results["tool_selection_accuracy"].values[0] == 1.0
    again = pickle.loads(pickle.dumps(batch.cases))
    assert list(again) == list(batch.cases)
    assert "built" in repr(batch.cases) and "not" not in repr(batch.cases)
    assert batch.cases[0].tool_calls[0].arguments == {"q": 1}
    assert batch.cases[-1].tool_calls is None
    with pytest.raises(IndexError):
        batch.cases[2]


def test_a_table_the_columns_cannot_read_goes_to_the_reference() -> None:
    """A side of lists of numbers beside call objects: the reference reads it all."""
    from agentmetrics._columnar import read_arrow_calls

    calls = pa.chunked_array([pa.array([[{"name": "a"}]])])
    numbers = pa.chunked_array([pa.array([[1]], pa.list_(pa.int64()))])
    assert read_arrow_calls(calls, numbers, None, {}) is None
    batch = am.ToolCallBatch.from_arrow(tool_calls=calls, expected_tool_calls=numbers,
                                        errors="record")
    assert "expected_tool_calls[0]" in batch.invalid[0] and "int 1" in batch.invalid[0]


def test_large_tables_hold_no_python_object_a_case() -> None:
    """The columns of 20,000 cases of call objects hold only arrays (and the
    ids tuple): the cases are not there until read."""
    rows = [[{"name": TOOLS[i % 3], "arguments": {"q": i}}] for i in range(20_000)]
    table = pa.table({"tool_calls": pa.array(rows), "expected_tool_calls": pa.array(rows)})
    batch = _batch(table)
    assert batch.cases is not None and "not built yet" in repr(batch.cases)
    assert isinstance(batch.called_ids, np.ndarray) and len(batch.called_ids) == 20_000
    assert batch.name_lists()[0][4] == [TOOLS[1]]


def _mixed_table(n: int, seed: int) -> Any:
    """Call objects with arguments as structs, one bad cell in about one row of five."""
    import random

    rng = random.Random(seed)

    def call() -> Any:
        roll = rng.random()
        if roll < 0.02:
            return None
        name = rng.choice(TOOLS) if roll > 0.06 else rng.choice([None, ""])
        arguments = rng.choice([None, {}, {"q": rng.randint(0, 2)}, {"city": "Oslo"}])
        item = {"name": name, "arguments": arguments}
        if rng.random() < 0.03:
            item["extra"] = "x"  # a field a call does not have
        return item

    def side() -> Any:
        return None if rng.random() < 0.05 else [call() for _ in range(rng.randint(0, 3))]

    kind = pa.list_(pa.struct([("name", pa.string()), ("arguments", pa.struct(
        [("q", pa.int64()), ("city", pa.string())])), ("extra", pa.string())]))
    return pa.table({"id": [f"c{i}" for i in range(n)],
                     "tool_calls": pa.array([side() for _ in range(n)], kind),
                     "expected_tool_calls": pa.array([side() for _ in range(n)], kind)})


def test_a_parquet_file_of_call_objects_gives_the_references_rows(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    from agentmetrics.cli import main

    table = _mixed_table(300, seed=3)
    path = tmp_path / "calls.parquet"
    pq.write_table(table, path)

    def cli(*options: str) -> tuple[int, str, str]:
        status = main(["evaluate", str(path), *options])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    for chunk in ("1", "7", "1000"):
        for metric in METRICS:
            options = ("--format", "jsonl", "--chunk-size", chunk, "--errors", "record",
                       "--metric", metric)
            mine = cli(*options)
            theirs = _reference(monkeypatch, lambda: cli(*options))
            assert mine == theirs
            assert mine[0] == 0 and len(mine[1].splitlines()) == 300
            assert '"error": null' in mine[1] and "ToolCall.name" in mine[1]
    refused = cli("--format", "csv", "--chunk-size", "50")
    assert refused == _reference(monkeypatch, lambda: cli("--format", "csv", "--chunk-size", "50"))
    assert refused[0] == 2 and "row" in refused[2]


def test_a_parquet_piece_of_call_objects_scores_as_the_reference(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    from agentmetrics import partition
    from agentmetrics.io._parquet import read_parquet_piece

    path = tmp_path / "calls.parquet"
    pq.write_table(_mixed_table(400, seed=5), path, row_group_size=100)
    for groups in (None, [1, 3]):
        with open(path, "rb") as handle:
            table = read_parquet_piece(handle, {}, (), groups)
        rows, total = partition.score(table, METRICS, errors="record")
        want_rows, want_total = _reference(
            monkeypatch, lambda: partition.score(table, METRICS, errors="record"))
        assert rows.to_pandas().equals(want_rows.to_pandas())  # NaN equal to NaN
        assert total.summary().to_dicts() == want_total.summary().to_dicts()
        assert rows.column("tool_selection_accuracy_error").null_count < len(table)


def test_rows_read_one_by_one_are_the_built_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """A metric that reads every row by index: the first rows are read alone,
    then all are built at once (never a reading a row for every row)."""
    from agentmetrics._columnar._arrow_calls import ALONE

    table = _mixed_table(3 * ALONE, seed=11)
    old = _reference(monkeypatch, lambda: _batch(table))
    cases = _batch(table).cases
    assert [cases[row] for row in range(len(table))] == list(old.cases)
    assert "not built" not in repr(cases)
    few = _batch(table).cases
    assert [few[row] for row in range(ALONE)] == list(old.cases)[:ALONE]
    assert "not built yet" in repr(few)


def test_a_missing_side_names_the_expectation_without_building_cases() -> None:
    rows = [[{"name": "a", "arguments": {"q": 1}}], None]
    table = pa.table({"tool_calls": pa.array(rows), "expected_tool_calls": pa.array(rows[::-1])})
    batch = _batch(table)
    result = am.evaluate(batch, "tool_selection_accuracy", errors="record", progress=False)
    assert "not built yet" in repr(batch.cases)
    cases = am.evaluate([batch.case(0), batch.case(1)], "tool_selection_accuracy",
                        errors="record", progress=False)
    assert dict(result.results["tool_selection_accuracy"].errors) == \
        dict(cases.results["tool_selection_accuracy"].errors) != {}
