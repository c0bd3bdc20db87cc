"""The columnar reading of records (agentmetrics._columnar) against the reference.

The reference is ``case_from_record``, one record at a time, which the JSONL
line reader uses; every columnar path (``ToolCallBatch.from_records``,
``evaluate(records)``, the bulk case builder, the CLI's line groups) must give
what it gives: the same names, ids, "not given" flags and unreadable rows, and
cases equal to its cases. Records are generated with every shape the reference
takes or refuses, Python-only values included (str subclasses, int keys,
tuples, other mappings).
"""

from __future__ import annotations

import enum
import json
import os
import pickle
from collections import OrderedDict
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics._columnar import _ingest
from agentmetrics.io._dataset import case_from_record
from agentmetrics.model._model import calls_from_mappings
from agentmetrics.errors import InvalidCaseError
from conftest import warns_if_empty

EXAMPLES = int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "400"))


class Tool(str, enum.Enum):
    SEARCH = "Search"


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=4), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=5)
NAME = st.sampled_from(["A", "B", "GetOrder", "检索", "", "tool_calls"])
ODD_NAME = st.sampled_from([Tool.SEARCH, 3, None, b"A", ("A",), ["A"]])
ARGUMENTS = st.one_of(
    st.dictionaries(st.text(max_size=3), JSON, max_size=3), st.dictionaries(st.text(max_size=3), JSON, max_size=3),
    st.none(), st.just({}), st.just({1: "a"}), st.just({Tool.SEARCH: 1}), st.just("{}"),
    st.just([["q", 1]]), st.just(OrderedDict(q=1)), st.just(MappingProxyType({"q": 2})))
CALL_KEYS = st.sampled_from(["name", "name", "name", "arguments", "arguments", "id", "output",
                             "raw_arguments", "junk"])


@st.composite
def call(draw):
    kind = draw(st.integers(0, 9))
    if kind <= 2:
        return draw(NAME)
    if kind == 3:
        return draw(ODD_NAME)
    keys = draw(st.lists(CALL_KEYS, max_size=4, unique=True))
    if kind <= 7:  # the common shape: a name and arguments
        keys = ["name", "arguments"]
    item = {}
    for key in keys:
        if key == "name":
            item[key] = draw(NAME | ODD_NAME) if kind == 8 else draw(NAME)
        elif key == "arguments":
            item[key] = draw(ARGUMENTS)
        elif key in ("id", "raw_arguments"):
            item[key] = draw(st.none() | st.text(max_size=3) | st.integers())
        else:
            item[key] = draw(JSON)
    return item if kind != 9 else OrderedDict(item)


SIDE = st.one_of(st.lists(call(), max_size=5), st.lists(call(), max_size=5), st.none(),
                 st.just("A"), st.just(3), st.tuples(NAME), st.just({"name": "A"}))
IDS = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.floats(allow_nan=False),
                st.just([1]), st.just(True))
RECORD_KEYS = st.sampled_from(["tool_calls", "tool_calls", "expected_tool_calls",
                               "expected_tool_calls", "id", "id", "input", "actual_output",
                               "metadata", "turns", "response", "format", "junk"])


@st.composite
def record(draw):
    keys = draw(st.lists(RECORD_KEYS, max_size=6, unique=True))
    if draw(st.integers(0, 3)):  # mostly the plain shape
        keys = [key for key in keys if key in _ingest.PLAIN_KEYS] + ["tool_calls",
                                                                      "expected_tool_calls"]
    item = {}
    for key in keys:
        if key in ("tool_calls", "expected_tool_calls"):
            item[key] = draw(SIDE)
        elif key == "id":
            item[key] = draw(IDS)
        elif key == "metadata":
            item[key] = draw(st.none() | st.just({}) | st.just({"id": "m"}) | st.just({"k": 1})
                             | st.just([]) | st.just(0) | st.just("x"))
        elif key == "turns":
            item[key] = draw(st.none() | st.just([{"tool_calls": ["A"]}]) | st.just(3))
        elif key == "response":
            item[key] = {"choices": [{"message": {"tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "A",
                                                              "arguments": "{}"}}]}}]}
        elif key == "format":
            item[key] = draw(st.sampled_from(["openai_chat", 3]))
        else:
            item[key] = draw(JSON)
    kind = draw(st.integers(0, 19))
    if kind == 0:
        return OrderedDict(item)
    if kind == 1:
        return draw(st.sampled_from([3, "text", None, [item]]))
    return item


def reference(records):
    """Each record as the reference reads it: the case, or the message."""
    read = []
    for row in records:
        if not isinstance(row, (dict, OrderedDict)):
            read.append("expected a mapping of case fields (or an AgentTestCase), got "
                        f"{type(row).__name__}")
            continue
        try:
            read.append(case_from_record(dict(row) if isinstance(row, OrderedDict) else row))
        except InvalidCaseError as error:
            read.append(str(error))
    return read


def check_batch(batch, records):
    expected = reference(records)
    assert len(batch) == len(records)
    for row, want in enumerate(expected):
        if isinstance(want, str):
            assert row in batch.invalid
            assert batch.invalid[row].startswith(f"record {row}: {want}")
            assert batch.called_names(row) is None and batch.expected_names(row) is None
            continue
        assert row not in batch.invalid
        assert batch.called_names(row) == want.tool_names
        assert batch.expected_names(row) == want.expected_tool_names
        assert batch.case_id(row) == want.metadata.get("id")
        assert batch.cases[row] == want
        assert type(batch.cases[row].tool_calls) is type(want.tool_calls)
        for got_side, want_side in ((batch.cases[row].tool_calls, want.tool_calls),
                                    (batch.cases[row].expected_tool_calls, want.expected_tool_calls)):
            # equality does not compare it: "no arguments given" must survive the bulk path
            assert [c.arguments_given for c in got_side or ()] == \
                [c.arguments_given for c in want_side or ()]
    assert set(batch.invalid) == {row for row, want in enumerate(expected)
                                  if isinstance(want, str)}
    used = set(batch.called_ids.tolist()) | set(batch.expected_ids.tolist())
    assert used == set(range(len(batch.vocabulary))), "a name no row holds is in the vocabulary"


@pytest.fixture
def small_groups(monkeypatch):
    """Groups small enough that a generated list spans several, and is split."""
    monkeypatch.setattr(_ingest, "CHUNK", 4)
    monkeypatch.setattr(_ingest, "SMALL_GROUP", 1)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(records=st.lists(record(), max_size=12))
def test_from_records_reads_what_the_reference_reads(small_groups, records):
    batch = am.ToolCallBatch.from_records(records, errors="record")
    check_batch(batch, records)
    expected = reference(records)
    bad = [row for row, want in enumerate(expected) if isinstance(want, str)]
    if bad:
        with pytest.raises(InvalidCaseError) as raised:
            am.ToolCallBatch.from_records(records)
        identity = records[bad[0]].get("id") if isinstance(records[bad[0]], dict) else None
        named = f"record {bad[0]}" if identity is None else f"record {bad[0]} (id {identity!r})"
        assert str(raised.value).startswith(f"{named}: {expected[bad[0]]}")
        assert str(raised.value).endswith('keep this one as an error row, pass errors="record".')
    else:
        check_batch(am.ToolCallBatch.from_records(records), records)


@settings(max_examples=EXAMPLES // 2, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(records=st.lists(record(), max_size=12))
def test_evaluate_of_records_scores_as_evaluate_of_the_reference_cases(small_groups, records):
    expected = reference(records)
    cases = [want if not isinstance(want, str) else am.UnreadableCase(
        "r", row, want, id=records[row].get("id") if isinstance(records[row], dict) else None)
        for row, want in enumerate(expected)]
    for metric in ("tool_selection_accuracy", ("tool_selection_accuracy", {"order_matters": True})):
        with warns_if_empty(records):
            ours = am.evaluate(records, metric, errors="record").to_dicts()
        with warns_if_empty(cases):
            theirs = am.evaluate(cases, metric, errors="record").to_dicts()
        assert len(ours) == len(theirs) == len(records)
        for row, (mine, other) in enumerate(zip(ours, theirs)):
            if isinstance(expected[row], str):
                assert f"record {row}: {expected[row]}" in error_of(mine)
                assert error_of(other).startswith(expected[row])
                continue
            assert repr(mine) == repr(other)  # NaN (a missing field) equals NaN here


def error_of(row):
    (error,) = [value for key, value in row.items() if key.endswith("_error")]
    return error


def value_of(row):
    (value,) = [value for key, value in row.items()
                if key not in ("case", "id") and not key.endswith(("_error", "_passed", "_reason"))]
    return value


def test_the_fuzz_reaches_both_paths_and_can_tell_them_apart(small_groups, monkeypatch):
    plain = [{"tool_calls": [{"name": "A", "arguments": {"q": 1}}], "expected_tool_calls": ["A"],
              "id": 1}] * 10
    taken = []
    original = _ingest._plain
    monkeypatch.setattr(_ingest, "_plain",
                        lambda records, parts: taken.append(len(records)) or original(records, parts))
    batch = am.ToolCallBatch.from_records(plain + [{"tool_calls": 3}], errors="record")
    assert taken[:3] == [4, 4, 3] and taken[-1] == 1 and batch.invalid.keys() == {10}
    check_batch(batch, plain + [{"tool_calls": 3}])
    # A columnar path that skipped one check would be caught: int argument keys.
    broken = [{"tool_calls": [{"name": "A", "arguments": {1: "x"}}], "expected_tool_calls": []}]
    assert 0 in am.ToolCallBatch.from_records(broken, errors="record").invalid
    with pytest.raises(AssertionError):
        check_batch(am.ToolCallBatch.from_records(plain, errors="record"), broken * 10)


@settings(max_examples=EXAMPLES, deadline=None)
@given(items=st.lists(call(), max_size=6))
def test_calls_built_at_once_equal_calls_built_one_by_one(items):
    try:
        one_by_one = [am.ToolCall(**item) if isinstance(item, dict) else None for item in items]
    except (InvalidCaseError, TypeError):
        one_by_one = None
    built = calls_from_mappings(items)
    if built is None:
        return  # the call-by-call path says what is wrong (or takes the odd shape)
    assert one_by_one is not None and built == one_by_one
    for call_built, item in zip(built, items):
        assert call_built.arguments is not item.get("arguments")  # a copy, as ToolCall makes
        assert type(call_built.name) is str
        assert pickle.loads(pickle.dumps(call_built)) == call_built
        assert hash(call_built) == hash(am.ToolCall(**item))
        assert repr(call_built) == repr(am.ToolCall(**item))
        assert call_built.arguments_given == am.ToolCall(**item).arguments_given


def test_agent_test_case_takes_call_dicts_through_the_bulk_builder():
    calls = [{"name": "A", "arguments": {"q": 1}}, {"name": "B", "id": "c1"}]
    case = am.AgentTestCase(tool_calls=calls, expected_tool_calls=["A"])
    assert case.tool_calls == (am.ToolCall("A", {"q": 1}), am.ToolCall("B", id="c1"))
    calls[0]["arguments"]["q"] = 2  # the case holds copies
    assert case.tool_calls[0].arguments == {"q": 1}
    with pytest.raises(InvalidCaseError, match=r"tool_calls\[1\]: .*unknown keys \['nme'\]"):
        am.AgentTestCase(tool_calls=[{"name": "A"}, {"nme": "B"}])
    with pytest.raises(InvalidCaseError, match=r"tool_calls\[0\]: ToolCall.arguments: expected str keys"):
        am.AgentTestCase(tool_calls=[{"name": "A", "arguments": {1: 2}}])


def test_cases_are_built_when_first_read_and_pickle_built():
    records = [{"tool_calls": [{"name": "A", "arguments": {"q": 1}}], "expected_tool_calls": ["A"],
                "id": row, "input": "hi", "metadata": {"k": row}} for row in range(5)]
    batch = am.ToolCallBatch.from_records(records + [{"tool_calls": "A"}], errors="record")
    assert "not built yet" in repr(batch.cases)
    part = batch.cases[1:3]
    assert "not built yet" in repr(part) and len(part) == 2
    assert part[1] == case_from_record(records[2])
    assert batch.cases[5] == {"tool_calls": "A"}  # kept as it came, as from_cases keeps it
    assert list(batch.cases)[:5] == [case_from_record(r) for r in records]
    assert batch.cases[0].metadata == {"k": 0, "id": 0}
    records[0]["metadata"]["k"] = 99  # built cases hold copies
    assert batch.cases[0].metadata == {"k": 0, "id": 0}
    again = pickle.loads(pickle.dumps(batch.cases))
    assert list(again) == list(batch.cases) and len(again[0:2]) == 2
    assert list(batch.cases[::2]) == list(batch.cases)[::2]


def test_argument_metrics_read_the_cases_of_records():
    tooluse = pytest.importorskip("agentmetrics_tooluse")
    records = [{"tool_calls": [{"name": "Get", "arguments": {"id": 1}}],
                "expected_tool_calls": [{"name": "Get", "arguments": {"id": row % 2}}]}
               for row in range(6)]
    ours = am.evaluate(records, tooluse.ArgumentAccuracy()).to_dicts()
    theirs = am.evaluate([case_from_record(r) for r in records], tooluse.ArgumentAccuracy()).to_dicts()
    assert ours == theirs and {value_of(row) for row in ours} == {0.0, 1.0}


def test_records_and_cases_may_be_mixed_and_bad_items_are_named():
    case = am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"], metadata={"id": "c"})
    result = am.evaluate([case, {"tool_calls": ["A"], "expected_tool_calls": ["B"]}, 7],
                         "tool_selection_accuracy", errors="record")
    rows = result.to_dicts()
    assert [value_of(row) for row in rows[:2]] == [1.0, 0.0]
    assert "record 2: expected a mapping of case fields" in error_of(rows[2])
    with pytest.raises(InvalidCaseError, match=r"record 1: unknown keys \['expected'\]"):
        am.evaluate([case, {"tool_calls": [], "expected": []}], "tool_selection_accuracy")
    with pytest.raises(InvalidCaseError, match="from_records: expected a list"):
        am.ToolCallBatch.from_records({"tool_calls": []})


def test_the_collector_is_paused_while_reading_and_resumes_as_it_was():
    import gc

    seen = []
    original = _ingest._plain

    def spy(records, parts):
        seen.append(gc.isenabled())
        return original(records, parts)

    _ingest._plain, saved = spy, _ingest._plain
    try:
        assert gc.isenabled()
        am.ToolCallBatch.from_records([{"tool_calls": [], "expected_tool_calls": []}])
        assert seen == [False] and gc.isenabled()
        gc.disable()
        am.ToolCallBatch.from_records([{"tool_calls": [], "expected_tool_calls": []}])
        assert not gc.isenabled()
    finally:
        gc.enable()
        _ingest._plain = saved


# -- the CLI's line groups --------------------------------------------------------

pa = pytest.importorskip("pyarrow")

from agentmetrics.io import _arrow_lines  # noqa: E402
from agentmetrics.cli import main  # noqa: E402


def _line(draw_record):
    try:
        return json.dumps(draw_record, ensure_ascii=False).encode()
    except (TypeError, ValueError):
        return None


JSON_RECORD = record().filter(lambda r: _line(r) is not None).map(_line)
BAD_LINES = st.sampled_from([b"not json", b"{", b'{"tool_calls": [NaN]}', b"\xff{}", b"",
                             b'{"tool_calls": [1e999], "expected_tool_calls": []}',
                             b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\r',
                             b'{"tool_calls": [{"name": "A", "arguments": {"q": 1}}], '
                             b'"expected_tool_calls": [{"name": "A"}], "id": 12}'])


@settings(max_examples=EXAMPLES // 4, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(JSON_RECORD | JSON_RECORD | BAD_LINES, min_size=1, max_size=25),
       chunk=st.sampled_from(["2", "7", "50000"]),
       form=st.sampled_from(["jsonl", "csv", "summary"]),
       errors=st.sampled_from(["record", "record", "raise"]))
def test_line_groups_read_what_the_line_reader_reads(capsys, tmp_path, monkeypatch, lines, chunk,
                                                     form, errors):
    monkeypatch.setattr(_arrow_lines, "SMALL_GROUP", 1 << 30)  # every group to the line path
    monkeypatch.setattr(_arrow_lines, "PARSE_LINES", 5)
    monkeypatch.setattr(_ingest, "CHUNK", 3)
    monkeypatch.setattr(_ingest, "SMALL_GROUP", 1)
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    options = ("--format", form, "--chunk-size", chunk, "--errors", errors, "--counts")
    fast = main(["evaluate", str(path), "--reader", "arrow", *options]), capsys.readouterr()
    slow = main(["evaluate", str(path), "--reader", "lines", *options]), capsys.readouterr()
    assert fast == slow


# -- DataFrame cells and columns -----------------------------------------------------

np = pytest.importorskip("numpy")  # used above too (a runtime dependency: always there)
CELL = st.one_of(st.none(), st.lists(call(), max_size=4), st.lists(call(), max_size=4),
                 st.lists(NAME, max_size=3).map(tuple), st.just(float("nan")), st.just("A"),
                 st.lists(NAME, max_size=3).map(lambda names: np.array(names, dtype=object)),
                 st.just(np.array(["A", "B"])), st.just(np.array(None, dtype=object)),
                 st.just([am.ToolCall("A"), {"name": "B"}]))


def column_batch(called, expected, fast):
    from agentmetrics.cases import _encode

    if fast:
        return am.ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected,
                                             errors="record")
    saved = _encode._plain_names
    _encode._plain_names = lambda items: None  # row by row, the reference
    try:
        return am.ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected,
                                             errors="record")
    finally:
        _encode._plain_names = saved


@settings(max_examples=EXAMPLES, deadline=None)
@given(rows=st.lists(st.tuples(CELL, CELL), max_size=8))
def test_column_cells_read_at_once_as_row_by_row(rows):
    called, expected = [row[0] for row in rows], [row[1] for row in rows]
    fast, slow = column_batch(called, expected, True), column_batch(called, expected, False)
    assert fast.invalid == slow.invalid
    for row in range(len(rows)):
        assert fast.called_names(row) == slow.called_names(row)
        assert fast.expected_names(row) == slow.expected_names(row)


# -- parsing many lines at once ----------------------------------------------------------

NUMBER_TEXT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers().map(str),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-10**20, 10**20), st.integers(-400, 400)),
    st.builds(lambda digits, tail: "9" * digits + tail, st.integers(1, 420),
              st.sampled_from(["", ".5", "e-5", "e99", ".0e10"])),
    st.sampled_from(["1.7976931348623157e308", "1.8e308", "-1e309", "1e-400", "0e999",
                     "NaN", "-Infinity", "1" * 4400, '"1e999"', "[1e99, 2e100]"]))


@settings(max_examples=EXAMPLES, deadline=None)
@given(numbers=st.lists(NUMBER_TEXT, min_size=1, max_size=4))
def test_many_lines_parse_as_each_line_parses(numbers):
    from agentmetrics._base._lines import LineError, parse_json_line, parse_json_lines

    texts = [f'{{"x": {number}}}' for number in numbers]
    try:
        each = [parse_json_line(text) for text in texts]
    except LineError:
        each = None
    at_once = parse_json_lines(texts, "\n".join(texts))
    assert repr(at_once) == repr(each)  # repr: -0.0 and 0.0, and NaN, told apart


def _lazy_cases(rows: int, built: dict[int, object]) -> _ingest.LazyCases:
    records = [{"tool_calls": [f"t{row}"], "expected_tool_calls": []} for row in range(rows)]
    for row in built:
        records[row] = {}  # what a saved run keeps for a row it built itself
    return _ingest.LazyCases(records, dict(built))


@pytest.mark.parametrize("index", [2, np.int64(2), np.int32(-3), np.uint8(2)])
def test_a_row_the_reference_read_is_its_case_under_any_integer(index):
    kept = object()
    cases = _lazy_cases(5, {2: kept})
    assert cases[index] is kept  # never built again from what stands in its record's place
    assert list(cases)[2] is kept


def test_rows_built_alone_are_built_once_and_kept_when_all_are_built():
    cases = _lazy_cases(_ingest.ALONE + 3, {})
    first = [cases[np.int64(row)] for row in range(_ingest.ALONE)]
    assert [case.tool_calls[0].name for case in first] == [f"t{row}" for row in range(_ingest.ALONE)]
    assert all(cases[row] is case for row, case in enumerate(first))  # asked again: the same
    every = list(cases)  # the next distinct row builds the rest
    assert all(every[row] is case for row, case in enumerate(first))
    assert [case.tool_calls[0].name for case in every] == [f"t{row}" for row in range(len(every))]


def test_prepared_rows_are_built_in_one_go_and_the_rest_left_unbuilt(monkeypatch):
    calls = []
    real = _ingest.cases_from_records

    def counting(records):
        calls.append(len(records))
        return real(records)

    monkeypatch.setattr(_ingest, "cases_from_records", counting)
    kept = object()
    cases = _lazy_cases(200, {3: kept})
    wanted = [150, 3, 7, 150, 40] + list(range(60, 90))
    cases.prepare(wanted)
    assert calls == [33]  # one build of the 33 distinct rows not read the reference way
    assert cases._cases is None
    assert all(cases[row].tool_calls[0].name == f"t{row}" for row in wanted if row != 3)
    assert cases[3] is kept and calls == [33]  # read without another build
    assert cases[100].tool_calls[0].name == "t100" and calls == [33, 1]  # one more, alone
    assert cases._cases is None
    every = list(cases)  # then all: the prepared rows kept as they are
    assert every[150] is cases._alone[150] and every[3] is kept
    assert [case.tool_calls[0].name for row, case in enumerate(every) if row != 3] == [
        f"t{row}" for row in range(200) if row != 3]
    many = _lazy_cases(40, {})
    many.prepare(range(20))  # more than ALONE rows and half of them: every case at once
    assert many._cases is not None and len(many._cases) == 40


@pytest.mark.parametrize("index", [5, -6, np.int64(7)])
def test_a_row_out_of_range_is_an_index_error_as_a_lists(index):
    with pytest.raises(IndexError):
        _lazy_cases(5, {1: object()})[index]
    with pytest.raises(TypeError):
        _lazy_cases(5, {})["1"]
