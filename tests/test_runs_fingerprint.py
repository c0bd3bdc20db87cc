"""The data fingerprint (``result.provenance.fingerprint``) covers every case
field (issue 51): cases that differ in any one of input, actual_output,
expected_output, latency, cost, usage or metadata get another fingerprint;
the same data read as cases, records, a DataFrame or an Arrow table gets the
same one."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics.runs._provenance import FINGERPRINT_FIELDS

METRIC = am.get_metric("tool_selection_accuracy")

TEXT = st.one_of(st.none(), st.text(max_size=6))
NUMBER = st.one_of(st.none(), st.floats(0, 1e6, allow_nan=False))
VALUES = {
    "input": TEXT, "actual_output": TEXT, "expected_output": TEXT,
    "latency": NUMBER, "cost": NUMBER,
    "usage": st.one_of(st.none(), st.dictionaries(st.sampled_from(["input", "output"]),
                                                   st.integers(0, 10**6), min_size=1)),
    "metadata": st.dictionaries(st.sampled_from(["task", "trial"]), st.integers(0, 9)),
}
RECORD = st.fixed_dictionaries(
    {"tool_calls": st.lists(st.sampled_from(["A", "B"]), max_size=2),
     "expected_tool_calls": st.lists(st.sampled_from(["A", "B"]), max_size=2)},
    optional=dict(VALUES))


def _print(records) -> str:
    cases = [am.AgentTestCase(**record) for record in records]
    return am.evaluate(cases, METRIC, progress=False).provenance.fingerprint


def test_every_case_field_is_fingerprinted():
    # The calls are fingerprinted by their names; turns and expectations are not fields
    # a saved run keeps. A field added to AgentTestCase fails here until it is decided.
    fields = {field.name for field in attrs.fields(am.AgentTestCase)}
    assert fields - set(FINGERPRINT_FIELDS) == {"tool_calls", "expected_tool_calls", "turns",
                                                 "expectation"}


@settings(max_examples=200, deadline=None)
@given(records=st.lists(RECORD, min_size=1, max_size=4), data=st.data())
def test_a_change_to_any_one_field_changes_the_fingerprint(records, data):
    row = data.draw(st.integers(0, len(records) - 1))
    field = data.draw(st.sampled_from(sorted(VALUES)))
    old = records[row].get(field, {} if field == "metadata" else None)
    new = data.draw(VALUES[field].filter(lambda value: value != old))
    changed = [dict(record) for record in records]
    changed[row][field] = new
    assert _print(records) == _print([dict(record) for record in records])  # deterministic
    assert _print(changed) != _print(records), (field, old, new)


@pytest.mark.parametrize("field, a, b", [
    ("actual_output", "yes", "no"), ("expected_output", "yes", "no"), ("input", "q", "Q"),
    ("latency", 1.5, 1.25), ("cost", 0.25, 0.5), ("usage", {"input": 3}, {"input": 4}),
    ("metadata", {"task": "t"}, {"task": "u"}), ("actual_output", 1, 1.0),
    ("actual_output", None, ""), ("latency", None, 0.0)])
def test_two_runs_differing_in_one_field_differ(field, a, b):
    base = {"tool_calls": ["A"], "expected_tool_calls": ["A"]}
    assert _print([{**base, field: a}]) != _print([{**base, field: b}])


def test_the_same_data_has_one_fingerprint_however_it_is_read():
    pandas = pytest.importorskip("pandas")
    pyarrow = pytest.importorskip("pyarrow")
    records = [
        {"tool_calls": ["A"], "expected_tool_calls": ["A", "B"], "input": "hi",
         "actual_output": "yo", "expected_output": "yo", "latency": 1.5, "cost": 0.25,
         "metadata": {"id": "c1", "task": "t"}},
        {"tool_calls": ["B"], "expected_tool_calls": ["B"], "input": "q", "actual_output": "a",
         "latency": 2.0, "metadata": {"id": "c2", "task": "u"}}]
    prints = {
        "cases": _print(records),
        "records": am.evaluate(records, METRIC, progress=False).provenance.fingerprint,
        "DataFrame": am.evaluate(pandas.DataFrame(records), METRIC,
                                 progress=False).provenance.fingerprint,
        "Arrow": am.evaluate(pyarrow.Table.from_pylist(records), METRIC,
                             progress=False).provenance.fingerprint}
    assert len(set(prints.values())) == 1, prints
    other = [dict(records[0], actual_output="no"), records[1]]
    assert _print(other) != prints["cases"]


def test_field_columns_of_a_table_fingerprint_as_the_cases_do():
    pandas = pytest.importorskip("pandas")
    records = [{"tool_calls": ["A"], "expected_tool_calls": ["A"], "latency": 1.5,
                "actual_output": "x"},
               {"tool_calls": ["B"], "expected_tool_calls": ["A"], "latency": 0.5,
                "actual_output": "y"}]
    frame = am.evaluate(pandas.DataFrame(records), METRIC, progress=False)
    assert frame.provenance.fingerprint == _print(records)
    slower = pandas.DataFrame([records[0], dict(records[1], latency=0.75)])
    assert am.evaluate(slower, METRIC, progress=False).provenance.fingerprint != _print(records)


def test_a_value_nested_too_deeply_to_encode_is_still_fingerprinted():
    deep = 1
    for _ in range(5000):
        deep = [deep]
    base = {"tool_calls": ["A"], "expected_tool_calls": ["A"]}
    assert _print([{**base, "input": deep}]) == _print([{**base, "input": deep}])
    assert _print([{**base, "input": deep}]) != _print([{**base, "input": "x"}])


@pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
def test_the_cli_s_saved_run_has_the_in_memory_fingerprint(tmp_path, suffix, capsys):
    import json

    from agentmetrics.cli import main

    records = [{"tool_calls": ["A"], "expected_tool_calls": ["A", "B"], "input": "hi",
                "actual_output": "yo", "expected_output": "yo", "latency": 1.5, "cost": 0.25,
                "usage": {"input": 3}, "metadata": {"id": "c1", "task": "t"}},
               {"tool_calls": ["B"], "expected_tool_calls": ["B"], "actual_output": "a",
                "latency": 2.0, "metadata": {"id": "c2", "task": "u"}}]  # one struct for Arrow
    source = tmp_path / f"cases.{suffix}"
    if suffix == "jsonl":
        source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        pyarrow = pytest.importorskip("pyarrow")
        parquet = pytest.importorskip("pyarrow.parquet")
        parquet.write_table(pyarrow.Table.from_pylist(records), source)
    saved = tmp_path / "run.jsonl"
    status = main(["evaluate", str(source), "--metric", METRIC.name, "--save", str(saved),
                   "--no-history"])
    capsys.readouterr()
    assert status == 0
    assert am.load_result(saved).provenance.fingerprint == _print(records)
