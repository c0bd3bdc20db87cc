"""A saved run keeps what its corpus aggregates are computed from (issue 51):
each metric's aggregate declarations in its provenance record, and the
columns of its per-case statistics in the header. Read back, in every form,
through the history and concatenated, ``aggregates()`` gives the table of the
live result bit for bit; a header whose statistics were edited away, cut
short or renamed is refused naming the field."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

import agentmetrics as am
from agentmetrics import errors
from agentmetrics.runs import RunStore, load_result
from test_runs_header import _saved_header, _split, _write

pyarrow = pytest.importorskip("pyarrow")

FORMS = ["run.jsonl", "run.json", "run.jsonl.gz", "run.parquet"]
METRICS = ["tool_call_micro_f1", "latency", ("cost", {"threshold": 0.5}), "answer_match",
           "tool_selection_accuracy"]


def _rows(n: int = 60, seed: int = 3) -> list[dict]:
    rng = np.random.default_rng(seed)
    tools = ["search", "book", "refund", "cancel"]
    out = []
    for i in range(n):
        row = {"id": f"r{i}", "actual_output": str(rng.choice(["yes", "no"])),
               "expected_output": "yes",
               "tool_calls": [str(t) for t in rng.choice(tools, rng.integers(0, 4))],
               "expected_tool_calls": [str(t) for t in rng.choice(tools, rng.integers(0, 3))],
               "latency": float(rng.exponential(1.5)), "cost": float(rng.uniform(0, 0.02))}
        if i % 17 == 5:
            del row["latency"]  # an error row of `latency`: no value, no statistics
        out.append(row)
    return out


def _result(rows: list[dict] | None = None) -> am.EvaluationResult:
    return am.evaluate(_rows() if rows is None else rows, METRICS, errors="record",
                       progress=False)


def _identical(found: am.Table, expected: am.Table) -> None:
    assert found.columns == expected.columns
    assert len(found.rows) == len(expected.rows) > 0
    for got, want in zip(found.rows, expected.rows):
        for a, b in zip(got, want):
            if isinstance(b, float) and math.isnan(b):
                assert isinstance(a, float) and math.isnan(a), (got, want)
            else:
                assert a == b and type(a) is type(b), (got, want)


@pytest.mark.parametrize("form", FORMS)
def test_a_saved_run_gives_back_its_aggregates_bit_for_bit(tmp_path, form):
    result = _result()
    back = load_result(result.save(tmp_path / form, history=False))
    _identical(back.aggregates(), result.aggregates())
    _identical(back.aggregates(ci=None), result.aggregates(ci=None))
    micro = back["tool_call_micro_f1"]
    assert set(micro.statistics) == set(type(micro.metric).statistics) != set()
    for name, column in result["tool_call_micro_f1"].statistics.items():
        assert micro.statistics[name].tobytes() == column.tobytes()
    assert set(type(back["latency"].metric).aggregates) == {"p50", "p95", "max"}


def test_the_history_and_a_concatenation_of_saved_runs_keep_them(tmp_path):
    rows = _rows(90)
    store = RunStore(tmp_path / "runs.sqlite")
    first, second = _result(rows[:50]), _result(rows[50:])
    first.save(tmp_path / "a.jsonl", history=store)
    path = second.save(tmp_path / "b.parquet", history=store)
    _identical(store.load("last").aggregates(), second.aggregates())
    joined = am.EvaluationResult.concat([load_result(tmp_path / "a.jsonl"), load_result(path)])
    _identical(joined.aggregates(), _result(rows).aggregates())


def test_a_run_whose_metrics_declare_no_statistics_writes_none(tmp_path):
    result = am.evaluate(_rows(), ["latency", "answer_match"], errors="record", progress=False)
    path = result.save(tmp_path / "run.jsonl", history=False)
    header = _saved_header(path, "run.jsonl")
    assert "statistics" not in header
    (spec,) = [s for s in header["provenance"]["metrics"] if s["name"] == "latency"]
    assert spec["aggregates"]["p95"]["kind"] == "Quantile" and spec["aggregates"]["p95"]["q"] == 0.95
    assert "statistics" not in spec
    _identical(load_result(path).aggregates(), result.aggregates())


def _micro(header: dict) -> tuple[dict, str]:
    specs = header["provenance"]["metrics"]
    k = next(i for i, spec in enumerate(specs) if spec["name"] == "tool_call_micro_f1")
    return specs[k], f"provenance.metrics[{k}]"


def _drop_statistics(header):
    del header["statistics"]
    return "statistics"


def _cut_a_column(header):
    column = header["statistics"]["tool_call_micro_f1"]
    name = sorted(column)[0]
    column[name] = column[name][:-1]
    return f"statistics.tool_call_micro_f1.{name}"


def _rename_a_column(header):
    column = header["statistics"]["tool_call_micro_f1"]
    name = sorted(column)[0]
    column["other"] = column.pop(name)
    return "statistics.tool_call_micro_f1"


def _text_in_a_column(header):
    column = header["statistics"]["tool_call_micro_f1"]
    name = sorted(column)[0]
    column[name][3] = "7"
    return f"statistics.tool_call_micro_f1.{name}"


def _statistics_of_an_unknown_metric(header):
    header["statistics"]["latency"] = {"x": [0.0] * header["cases"]}
    return "statistics"


def _an_unknown_reducer(header):
    spec, where = _micro(header)
    spec["aggregates"]["micro_f1"] = {"kind": "Median", "of": "value"}
    return f"{where}.aggregates.micro_f1"


def _statistics_not_a_list(header):
    spec, where = _micro(header)
    spec["statistics"] = "tp"
    return f"{where}.statistics"


def _a_reducer_that_is_a_string(header):
    spec, where = _micro(header)
    spec["aggregates"]["micro_f1"] = "ratio"
    return f"{where}.aggregates.micro_f1"


DAMAGE = [_drop_statistics, _cut_a_column, _rename_a_column, _text_in_a_column,
          _statistics_of_an_unknown_metric, _an_unknown_reducer, _statistics_not_a_list,
          _a_reducer_that_is_a_string]


@pytest.mark.parametrize("form", ["run.jsonl", "run.json", "run.parquet"])
@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__.strip("_") for d in DAMAGE])
def test_damaged_statistics_or_declarations_are_refused_naming_the_field(tmp_path, form, damage):
    plain = _result().save(tmp_path / "plain.jsonl", history=False)
    header, rest = _split(plain)
    target = _result().save(tmp_path / form, history=False)
    field = damage(header)
    _write(target, header, rest, form)
    with pytest.raises(errors.InvalidCaseError) as caught:
        load_result(target)
    message = str(caught.value)
    assert message.startswith(str(target)), message
    assert re.search(re.escape(field), message), (field, message)
    assert "Fix:" in message, message


def test_a_reducer_whose_fields_do_not_fit_is_refused_as_a_damaged_metric(tmp_path):
    plain = _result().save(tmp_path / "run.jsonl", history=False)
    header, rest = _split(plain)
    spec, _ = _micro(header)
    spec["aggregates"]["micro_f1"]["numerator"] = "nope"  # a statistic the metric lacks
    _write(plain, header, rest, "run.jsonl")
    with pytest.raises(errors.InvalidCaseError, match="cannot be described"):
        load_result(plain)


def test_the_statistics_are_scrubbed_of_nothing_and_are_plain_numbers(tmp_path):
    path = _result().save(tmp_path / "run.jsonl", history=False)
    header = _saved_header(path, "run.jsonl")
    for columns in header["statistics"].values():
        for column in columns.values():
            assert all(value is None or type(value) in (int, float) for value in column)
    json.dumps(header, allow_nan=False)  # no NaN token: null stands for it
