"""Saved runs: ``result.save(path)`` and ``agentmetrics.load_result``.

Round trips of random results (names, ids of every kept type, NaN of any
bits, error and unreadable rows, labels of any characters) through JSON lines
and Parquet, bit for bit; the tables of a loaded run equal the original's;
the runs this version stored in tests/data/runs still load to the same
numbers; and every damaged, foreign or future file is refused with its name.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import pickle
import re
import struct
import sys
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import errors
from agentmetrics.runs import MetricSpec, Provenance, SavedMetric, is_saved_run, load_result
from conftest import TESTS
from make_saved_runs import fixture_result

pyarrow = pytest.importorskip("pyarrow")

FORMS = ["run.jsonl", "run.parquet", "run.jsonl.gz", "run.json", "run.json.gz"]
STORED = TESTS / "data" / "runs"


# -- helpers -----------------------------------------------------------------------


def _bits(values: np.ndarray) -> list[int]:
    return np.ascontiguousarray(values, dtype=np.float64).view(np.uint64).tolist()


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (tables hold NaN where nothing was scored)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _tables_equal(one, other) -> None:
    assert one.columns == other.columns
    assert _same(one.rows, other.rows), (one, other)


def assert_same_run(original: am.EvaluationResult, loaded: am.EvaluationResult, *,
                    provenance: bool = True) -> None:
    """Everything a saved run keeps, exactly: values to the bit, flags,
    reasons, errors, ids with their types, names per row, given flags,
    unreadable rows, provenance."""
    assert isinstance(loaded, am.EvaluationResult) and isinstance(loaded.batch, am.ToolCallBatch)
    assert len(loaded) == len(original) and loaded.metrics == original.metrics
    a, b = original.batch, loaded.batch
    if a.case_ids is None:
        assert b.case_ids is None
    else:
        assert b.case_ids is not None and len(b.case_ids) == len(a.case_ids)
        # Each id with its type, inside tuples too (_same compares types), NaN as NaN.
        assert all(_same(x, y) for x, y in zip(a.case_ids, b.case_ids))
    assert dict(b.invalid) == dict(a.invalid)
    for row in range(len(a)):
        unreadable = row in a.invalid
        assert b.called_names(row) == (None if unreadable else a.called_names(row))
        assert b.expected_names(row) == (None if unreadable else a.expected_names(row))
    assert b.called_given.tolist() == [bool(g) and r not in a.invalid
                                       for r, g in enumerate(a.called_given.tolist())]
    for label in original.metrics:
        x, y = original[label], loaded[label]
        assert isinstance(y, am.MetricResult) and isinstance(y.metric, SavedMetric)
        assert y.values.dtype == np.float64 and _bits(y.values) == _bits(x.values)
        assert np.array_equal(y.values, x.values, equal_nan=True)
        assert y.passed.dtype == np.bool_ and y.passed.tolist() == x.passed.tolist()
        assert dict(y.errors) == {int(k): v for k, v in x.errors.items()}
        assert y.reason_list() == x.reason_list()
        assert y.metric.threshold == x.metric.threshold
        assert type(y.metric).higher_is_better == type(x.metric).higher_is_better
        assert type(y.metric).value_range == tuple(map(float, type(x.metric).value_range))
    if provenance:
        assert loaded.provenance == original.provenance


# -- random results ------------------------------------------------------------------

NAMES = st.text(min_size=1, max_size=6)
SIDES = st.one_of(st.none(), st.lists(NAMES, max_size=4))
ATOMS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
                  st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6))
IDS = st.recursive(ATOMS, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=6)
LABEL_CHARS = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() == s)


def _nan(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


# Odd values a metric's range holds (a value outside it is refused when read back:
# test_a_value_outside_the_metric_range_is_refused_with_its_row).
ODD_FLOATS = st.sampled_from([math.nan, -math.nan, _nan(0x7FF4000000000001),
                              _nan(0xFFF0000000000123), -0.0, 5e-324, 1.0 - 2.0**-53])


@st.composite
def results(draw, *, odd_values: bool = False) -> am.EvaluationResult:
    n = draw(st.integers(0, 9))
    called = draw(st.lists(SIDES, min_size=n, max_size=n))
    expected = draw(st.lists(SIDES, min_size=n, max_size=n))
    ids = draw(st.one_of(st.none(), st.lists(IDS, min_size=n, max_size=n)))
    batch = am.ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected,
                                          ids=ids)
    unreadable = draw(st.sets(st.integers(0, n - 1), max_size=n)) if n else set()
    if unreadable:
        invalid = {row: draw(st.text(min_size=1, max_size=20)) for row in sorted(unreadable)}
        called_given, expected_given = batch.called_given.copy(), batch.expected_given.copy()
        called_given[list(invalid)] = expected_given[list(invalid)] = False
        batch = attrs.evolve(batch, invalid=invalid, called_given=called_given,
                             expected_given=expected_given)
    labels = draw(st.lists(LABEL_CHARS, min_size=1, max_size=3, unique=True))
    scores = {}
    for label in labels:
        value = st.one_of(st.floats(0, 1), st.just(math.nan))
        if odd_values:
            value = st.one_of(value, ODD_FLOATS)
        values = np.array(draw(st.lists(value, min_size=n, max_size=n)), dtype=np.float64)
        passed = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        failing = draw(st.sets(st.integers(0, n - 1), max_size=n)) if n else set()
        failing |= set(batch.invalid)
        row_errors = {row: batch.invalid.get(row) or draw(st.text(max_size=15))
                      for row in sorted(failing)}
        reasons = draw(st.lists(st.text(max_size=15), min_size=n, max_size=n))
        metric = am.ToolSelectionAccuracy(threshold=draw(st.floats(0, 1)),
                                          order_matters=draw(st.booleans()))
        scores[label] = am.MetricResult(metric, values, passed, row_errors, reasons.__getitem__)
    return am.EvaluationResult(batch, scores, dict.fromkeys(labels[:1], "a test"))


HYPOTHESIS = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                              HealthCheck.too_slow])


@HYPOTHESIS
@given(result=results(odd_values=True), form=st.sampled_from(FORMS))
def test_random_results_round_trip_exactly(tmp_path, result, form):
    path = result.save(tmp_path / form, history=False)
    assert path == tmp_path / form and is_saved_run(path)
    loaded = load_result(path)
    assert_same_run(result, loaded)
    assert loaded.sources == dict.fromkeys(result.metrics[:1], "a test")
    again = loaded.save(tmp_path / f"again.{form}", history=False)  # a loaded run saves alike
    assert_same_run(result, load_result(again))


@HYPOTHESIS
@given(result=results(), form=st.sampled_from(FORMS))
def test_tables_of_a_loaded_run_equal_the_original(tmp_path, result, form):
    loaded = load_result(result.save(tmp_path / form, history=False))
    _tables_equal(result.summary(), loaded.summary())
    _tables_equal(result.failures(), loaded.failures())
    _tables_equal(result.per_tool(), loaded.per_tool())
    assert _same(result.to_dicts(), loaded.to_dicts())
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(result.to_pandas(), loaded.to_pandas())


def _evaluated(*, error_row: bool = True) -> am.EvaluationResult:
    """24 cases over 4 tasks, scored by built-in and plugin metrics; case 7
    has no expected calls (an error row of the metrics that need them)."""
    cases = [
        am.AgentTestCase(tool_calls=["A", "B"], expected_tool_calls=["A", "B", "C"],
                         metadata={"id": f"case-{i}", "task_id": f"t{i % 4}", "trial": i // 4})
        if i % 5 else
        am.AgentTestCase(tool_calls=["B", "A"], expected_tool_calls=["A", "B"],
                         metadata={"id": f"case-{i}", "task_id": f"t{i % 4}", "trial": i // 4})
        for i in range(24)
    ]
    if error_row:
        cases[7] = am.AgentTestCase(tool_calls=["A"], expected_tool_calls=None,
                                    metadata={"id": "case-7", "task_id": "t3", "trial": 1})
    metrics = ["tool_selection_accuracy", am.ToolSelectionAccuracy(order_matters=True),
               am.get_metric("trajectory_match", mode="strict"), "redundant_calls",
               "tool_call_f1"]
    return am.evaluate(cases, metrics, errors="record", progress=False)


@pytest.mark.parametrize("error_row", [True, False])
@pytest.mark.parametrize("form", FORMS)
def test_an_evaluation_round_trips_with_every_table(tmp_path, form, error_row):
    result = _evaluated(error_row=error_row)
    loaded = load_result(result.save(tmp_path / form, history=False))
    assert_same_run(result, loaded)
    assert loaded.sources == result.sources
    for table in ("summary", "failures", "per_tool"):
        _tables_equal(getattr(result, table)(), getattr(loaded, table)())
    _tables_equal(result.summary(cluster="task_id"), loaded.summary(cluster="task_id"))
    label = result.metrics[0]
    _tables_equal(result.trials(metric=label).table(), loaded.trials(metric=label).table())
    assert [case.metadata for case in loaded.batch.cases] == [
        case.metadata for case in result.batch.cases]
    comparison, again = am.compare(result, result), am.compare(loaded, loaded)
    _tables_equal(comparison.summary(), again.summary())
    _tables_equal(am.compare(result, loaded).summary(), comparison.summary())
    assert am.compare(str(tmp_path / form), str(tmp_path / form)).summary().rows == [
        tuple(row) for row in again.summary().rows]
    assert loaded.created == pytest.approx(result.created, abs=1.0)


def test_a_loaded_metric_describes_and_refuses_to_score(tmp_path):
    result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"])],
                         [am.ToolSelectionAccuracy(threshold=0.75, order_matters=True)])
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False))
    metric = loaded["tool_selection_accuracy"].metric
    assert isinstance(metric, am.Metric) and isinstance(metric, SavedMetric)
    assert type(metric).name == "tool_selection_accuracy" and type(metric).version == "1"
    assert metric.threshold == 0.75 and type(metric).higher_is_better is True
    assert metric.get_params() == metric.shown_params() == {"threshold": 0.75,
                                                             "order_matters": True}
    assert repr(metric) == "saved tool_selection_accuracy(threshold=0.75, order_matters=True)"
    with pytest.raises(errors.InvalidMetricError, match=r"saved run.*cannot score new cases.*"
                       r"agentmetrics\.get_metric\('tool_selection_accuracy', \.\.\.\)"):
        metric.evaluate(am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"]))
    # Never registered: the registry still gives the real class.
    assert am.get_metric_class("tool_selection_accuracy") is am.ToolSelectionAccuracy
    assert "saved_metric" not in [info.name for info in am.list_metrics()]
    again = pickle.loads(pickle.dumps(loaded))
    assert again["tool_selection_accuracy"].metric == metric
    assert again["tool_selection_accuracy"].reason_list() == ["All expected tools called: A"]
    assert again.provenance == loaded.provenance


def test_ids_and_names_that_json_holds_only_with_tags(tmp_path):
    ids = [("test_x", 0), ("test_x", (1, None)), math.nan, math.inf, -0.0, True, 1, 1.0, None,
           "1", 10**40]
    batch = am.ToolCallBatch.from_columns(
        tool_calls=[["A\u0000", "é"]] * len(ids), expected_tool_calls=[["\U0001f600"], None] * 5
        + [[]], ids=ids)
    result = am.evaluate(batch, "tool_selection_accuracy", errors="record")
    for form in ("run.jsonl", "run.parquet"):
        loaded = load_result(result.save(tmp_path / form, history=False))
        assert [type(i) for i in loaded.batch.case_ids] == [type(i) for i in ids]
        assert _same(list(loaded.batch.case_ids), ids)
        assert math.copysign(1, loaded.batch.case_ids[4]) == -1.0  # -0.0 kept
        assert loaded.batch.called_names(0) == ("A\u0000", "é")


def test_a_lone_surrogate_round_trips_through_jsonl_and_is_refused_by_parquet(tmp_path):
    batch = am.ToolCallBatch.from_columns(tool_calls=[["Get\ud800"]], expected_tool_calls=[["A"]],
                                          ids=["x\udfff"])
    result = am.evaluate(batch, "tool_selection_accuracy")
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False))
    assert loaded.batch.called_names(0) == ("Get\ud800",) and loaded.batch.case_ids == ("x\udfff",)
    assert loaded["tool_selection_accuracy"].reason(0) == result["tool_selection_accuracy"].reason(0)
    with pytest.raises(errors.InvalidParameterError, match=r"Parquet cannot store.*run\.jsonl"):
        result.save(tmp_path / "run.parquet", history=False)
    assert not (tmp_path / "run.parquet").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]  # no temporary left


# -- the stored runs ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["format1.jsonl", "format1.parquet"])
def test_the_stored_runs_of_format_1_still_load(name):
    """Written by agentmetrics 0.1.0 (tests/make_saved_runs.py): every later
    version must read them to these numbers."""
    loaded = load_result(STORED / name)
    assert len(loaded) == 7
    assert loaded.metrics == ("tool_selection_accuracy(order_matters=False)",
                              "tool_selection_accuracy(order_matters=True)", "tool_call_f1")
    assert loaded.batch.case_ids == ("refund-ok", 7, ("test_lookup", 0), 2.5, "no-expectation",
                                     None, None)
    assert dict(loaded.batch.invalid) == {5: "not valid JSON (Expecting value at column 1)"}
    assert loaded.batch.called_names(1) == ("CancelOrder", "GetOrder")
    assert loaded.batch.expected_names(4) is None and loaded.batch.called_names(5) is None
    plain, ordered, f1 = (loaded[label] for label in loaded.metrics)
    assert _bits(plain.values) == _bits(np.array([1.0, 2 / 3, 0.5, 1.0, math.nan, math.nan, 1.0]))
    assert _bits(ordered.values) == _bits(np.array([1.0, 1 / 3, 0.5, 1.0, math.nan, math.nan,
                                                    1.0]))
    assert _bits(f1.values) == _bits(np.array([1.0, 0.8, 2 / 3, 1.0, math.nan, math.nan, 0.8]))
    assert f1.reason(6) == "precision 2/3, recall 2/2; extra: Search"
    assert type(f1.metric).name == "tool_call_f1" and f1.metric.threshold == 0.8
    assert plain.passed.tolist() == [True, False, False, True, False, False, True]
    assert sorted(plain.errors) == [4, 5]
    assert ordered.reason(1) == ("Missing expected tool: IssueRefund; Out of expected order: "
                                 "expected GetOrder -> CancelOrder, called CancelOrder -> GetOrder")
    assert loaded.batch.cases[3].metadata == {"id": 2.5, "task_id": "t2", "trial": 1,
                                              "note": "é ✓"}
    summary = loaded.summary()[0]
    assert (summary["n"], summary["passed"], summary["errors"]) == (7, 3, 2)
    assert summary["mean"] == pytest.approx((1 + 2 / 3 + 0.5 + 1 + 1) / 5, abs=1e-15)
    provenance = loaded.provenance
    assert (provenance.created, provenance.host, provenance.cases) == (
        "2026-12-02T12:00:00+00:00", "fixture", 7)
    assert provenance.fingerprint == (
        "6f332885b9f19f2baf58999bce390437d20de7846a4931cfd344cd8cfc6980d3")
    assert provenance.metrics[1].params == {"threshold": 0.8, "order_matters": True}
    # The same run scored by this version holds the same (its provenance names this version).
    assert_same_run(fixture_result(), loaded, provenance=False)


# -- refused files ------------------------------------------------------------------


def _saved(tmp_path, name="run.jsonl") -> Path:
    return _evaluated().save(tmp_path / name, history=False)


def test_a_cases_file_is_not_a_saved_run(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\n', encoding="utf-8")
    assert not is_saved_run(cases)
    with pytest.raises(errors.InvalidCaseError, match=rf"{cases}:1: not a saved run; expected a "
                       rf"header with 'agentmetrics_run'.*save\(\)"):
        load_result(cases)
    plain = tmp_path / "cases.parquet"
    pyarrow.parquet.write_table(pyarrow.table({"tool_calls": [["A"]]}), plain)
    assert not is_saved_run(plain)
    with pytest.raises(errors.InvalidCaseError, match="not a saved run"):
        load_result(plain)
    with pytest.raises(errors.InvalidParameterError, match="no such file"):
        load_result(tmp_path / "missing.jsonl")


def test_a_truncated_jsonl_run_is_refused(tmp_path):
    path = _saved(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-3]), encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=r"header says 24 cases, the file holds 21 "
                       r"lines.*cut short"):
        load_result(path)
    path.write_text("".join(lines[:-1]) + lines[-1][:40], encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=rf"{path}:25: expected one JSON object.*"
                       rf"invalid JSON"):
        load_result(path)


def test_a_truncated_gzip_or_parquet_run_is_refused(tmp_path):
    for name in ("run.jsonl.gz", "run.parquet"):
        path = _saved(tmp_path, name)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        with pytest.raises(errors.InvalidCaseError, match=rf"{path}.*(cut short|cannot be read)"):
            load_result(path)


def test_an_edited_case_is_refused_with_its_line(tmp_path):
    path = _saved(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[3])
    record["scores"][0][1] = "yes"
    lines[3] = json.dumps(record) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=rf"{path}:4: scores\[0\]: expected true or "
                       rf"false as passed, got \"yes\".*damaged"):
        load_result(path)
    record["scores"][0][1] = True
    del record["invalid"]
    lines[3] = json.dumps(record) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=rf"{path}:4: expected a case with the keys"):
        load_result(path)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("value", [3.0, -0.5, math.inf, -math.inf, 1.0 + 2.0**-52])
def test_a_value_outside_the_metric_range_is_refused_with_its_row(tmp_path, form, value):
    # I1: scores no metric could give (a file edited, or written by hand) never reach
    # a summary or a comparison, whose intervals would leave the range.
    batch = am.ToolCallBatch.from_columns(tool_calls=[["A"]] * 3, expected_tool_calls=[["A"]] * 3,
                                          ids=["a", "b", "c"])
    metric = am.ToolSelectionAccuracy()
    values = np.array([1.0, value, 0.5])
    scores = am.MetricResult(metric, values, values >= 0.8, {}, (lambda row: "r"))
    path = am.EvaluationResult(batch, {"tool_selection_accuracy": scores}).save(
        tmp_path / form, history=False)
    where = {".jsonl": rf"{path}:3", ".parquet": rf"{path}: row 1",
             ".json": rf"{path}: rows\[1\]"}[form[3:].removesuffix(".gz")]
    with pytest.raises(errors.InvalidCaseError, match=rf"{where}: scores\[0\]: "
                       rf"'tool_selection_accuracy' has the value {re.escape(repr(value))}, "
                       rf"outside its value_range \[0, 1\].*damaged"):
        load_result(path)


def test_an_edited_value_is_refused_and_compare_never_sees_it(tmp_path):
    path = _saved(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[2])
    record["scores"][0][0] = 3.0
    lines[2] = json.dumps(record) + "\n"
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(lines), encoding="utf-8")
    for read in (lambda: load_result(edited), lambda: am.compare(path, edited)):
        with pytest.raises(errors.InvalidCaseError, match=rf"{edited}:3: scores\[0\]: .* has "
                           rf"the value 3.0, outside its value_range \[0, 1\]"):
            read()


@pytest.mark.parametrize("name", ["run.jsonl", "run.parquet"])
def test_a_run_of_a_future_format_is_refused(tmp_path, name):
    path = _saved(tmp_path, name)
    if name.endswith(".jsonl"):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header = json.loads(lines[0])
        header["agentmetrics_run"] = 4
        path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    else:
        table = pyarrow.parquet.read_table(path)
        header = json.loads(table.schema.metadata[b"agentmetrics_run"])
        header["agentmetrics_run"] = 4
        pyarrow.parquet.write_table(table.replace_schema_metadata(
            {"agentmetrics_run": json.dumps(header)}), path)
    with pytest.raises(errors.InvalidCaseError, match=r"saved run of format 4, written by a newer "
                       r"agentmetrics; this one \(.*\) reads format 3 and older. Fix: upgrade"):
        load_result(path)


def _documented_suffixes() -> list[str]:
    """The suffixes docs/runs.md lists in its table of forms."""
    text = (TESTS.parent / "docs" / "runs.md").read_text(encoding="utf-8")
    return re.findall(r"^\| `(\.[a-z.]+)` \|", text, flags=re.MULTILINE)


def test_the_docs_list_exactly_the_suffixes_save_accepts():
    from agentmetrics.runs._format import SUFFIXES

    assert _documented_suffixes() == list(SUFFIXES)


@pytest.mark.parametrize("suffix", _documented_suffixes())
@pytest.mark.parametrize("upper", [False, True])
def test_every_documented_suffix_round_trips(tmp_path, suffix, upper):
    result = _evaluated()
    name = "run" + (suffix.upper() if upper else suffix)
    path = result.save(tmp_path / name, history=False)
    assert path.name == name and is_saved_run(path)
    loaded = load_result(path)
    assert_same_run(result, loaded)
    assert [case.metadata for case in loaded.batch.cases] == [
        case.metadata for case in result.batch.cases]
    data = path.read_bytes()
    assert (data[:2] == b"\x1f\x8b") == suffix.endswith(".gz")
    assert (data[:4] == b"PAR1") == (suffix == ".parquet")
    if suffix.startswith(".json") and not suffix.startswith(".jsonl"):
        text = gzip.decompress(data) if suffix.endswith(".gz") else data
        document = json.loads(text)  # one JSON document
        assert len(document["rows"]) == 24 and document["agentmetrics_run"] == 2


@pytest.mark.parametrize("name", ["run.csv", "run.txt", "run", "run.gz", "run.jsonl.bz2",
                                  "run.json.zst", "run.parquet.gz", "run.ndjson", "run.pq"])
def test_an_unknown_suffix_is_refused_before_anything_is_written(tmp_path, name):
    result = _evaluated()
    accepted = ", ".join(re.escape(suffix) for suffix in _documented_suffixes())
    with pytest.raises(errors.InvalidParameterError, match=(
            rf"{re.escape(name)}: cannot tell the form of a saved run from the name; expected "
            rf"a name ending in {accepted} \(the accepted suffixes\)\. Fix: .*format='jsonl', "
            rf"'json' or 'parquet'")):
        result.save(tmp_path / name, history=False)
    assert list(tmp_path.iterdir()) == []


def test_an_explicit_form_takes_any_name(tmp_path):
    result = _evaluated()
    with pytest.raises(errors.InvalidParameterError, match="format: expected 'jsonl', 'json' or "
                       "'parquet'"):
        result.save(tmp_path / "run.jsonl", format="csv", history=False)
    assert list(tmp_path.iterdir()) == []
    for form, name in (("jsonl", "run.txt"), ("parquet", "run.data"), ("json", "run.out")):
        path = result.save(tmp_path / name, format=form, history=False)
        assert is_saved_run(path) and len(load_result(path)) == 24
    assert json.loads((tmp_path / "run.out").read_text(encoding="utf-8"))["cases"] == 24


def test_a_json_document_is_checked_as_json_lines_are(tmp_path):
    path = _saved(tmp_path, "run.json")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    assert lines[0].endswith('"rows": [\n') and lines[-1] == "]}\n" and len(lines) == 26
    # Cut short.
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=rf"{re.escape(str(path))}:\d+: expected "
                       rf"one JSON object of a saved run, got invalid JSON.*cut short"):
        load_result(path)
    # A row less.
    path.write_text("".join(lines[:-3]) + lines[-3].rstrip().rstrip(",") + "\n]}\n",
                    encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=r"the header says 24 cases, the "
                       r"document's rows hold 23"):
        load_result(path)
    # An edited case, named by its row.
    record = json.loads(lines[4].rstrip().rstrip(","))
    record["scores"][0][1] = "yes"
    path.write_text("".join(lines[:4]) + json.dumps(record) + ",\n" + "".join(lines[5:]),
                    encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=rf"{re.escape(str(path))}: rows\[3\]: "
                       rf"scores\[0\]: expected true or false as passed, got \"yes\""):
        load_result(path)
    # Its rows are not a list.
    document = json.loads(text)
    document["rows"] = {"0": document["rows"][0]}
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=r"the document's 'rows' is an object.*"
                       r"expected a list of cases"):
        load_result(path)
    # Reformatted (indented) by another program: still the same run.
    document = json.loads(text)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert is_saved_run(path)
    assert_same_run(_evaluated(), load_result(path), provenance=False)


def test_without_pyarrow_parquet_says_which_extra(tmp_path, monkeypatch):
    saved = _saved(tmp_path, "run.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(errors.MissingDependencyError,
                       match=r"pip install 'agent-tool-metrics\[arrow\]'"):
        _evaluated().save(tmp_path / "other.parquet", history=False)
    assert not (tmp_path / "other.parquet").exists()
    assert is_saved_run(saved)  # it looks like one; reading it says what to install
    with pytest.raises(errors.MissingDependencyError, match=r"agent-tool-metrics\[arrow\]"):
        load_result(saved)
    # JSON lines need nothing.
    assert len(load_result(_saved(tmp_path, "run.jsonl"))) == 24


@pytest.mark.parametrize("bad_id, kind", [(np.int64(3), "numpy.int64"), (object(), "object"),
                                          (["a"], "list"), (("a", {"b"}), "set")])
def test_an_id_that_cannot_come_back_as_it_is_is_refused(tmp_path, bad_id, kind):
    old = _saved(tmp_path)
    before = old.read_bytes()
    batch = am.ToolCallBatch.from_columns(tool_calls=[["A"], ["B"]],
                                          expected_tool_calls=[["A"], ["A"]], ids=["ok", bad_id])
    result = am.evaluate(batch, "tool_selection_accuracy")
    with pytest.raises(errors.InvalidParameterError, match=rf"case 1: its id: a value of type "
                       rf"{kind}.*cannot be saved so that it reads back as it is.*Fix"):
        result.save(old, history=False)
    assert old.read_bytes() == before  # the old file is left whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]


def test_metadata_that_cannot_come_back_is_refused_or_left_out(tmp_path):
    import datetime

    case = am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"],
                            metadata={"id": "c", "when": datetime.date(2026, 1, 1)})
    result = am.evaluate([case], "tool_selection_accuracy")
    with pytest.raises(errors.InvalidParameterError, match=r"case 0: metadata\['when'\]: a value "
                       r"of type datetime.date"):
        result.save(tmp_path / "run.jsonl", history=False)
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False, metadata=False))
    assert loaded.batch.cases is None and loaded.batch.case_ids == ("c",)


def test_tagged_metadata_values_round_trip(tmp_path):
    metadata = {"id": "c", "tuple": (1, "a"), "nan": math.nan, "nested": {"tuple": [1]},
                "list": [1, (2, 3), {"float": "x"}], "empty": {}}
    case = am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"], metadata=metadata)
    result = am.evaluate([case], "tool_selection_accuracy")
    for form in ("run.jsonl", "run.parquet"):
        again = load_result(result.save(tmp_path / form, history=False)).batch.cases[0].metadata
        assert _same(again, metadata)


def test_a_jsonl_run_is_plain_text_one_case_a_line(tmp_path):
    result = _evaluated()
    path = result.save(tmp_path / "run.jsonl", history=False)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert list(header)[:5] == ["agentmetrics_run", "cases", "ids", "metadata", "fields"]
    assert header["agentmetrics_run"] == 2 and header["cases"] == 24
    assert header["case_fields"] == []  # the cases have no input, output, latency, ...
    assert [m["label"] for m in header["provenance"]["metrics"]] == list(_evaluated().metrics)
    first = json.loads(lines[1])
    assert first["case"] == 0 and first["id"] == "case-0" and first["tool_calls"] == ["B", "A"]
    assert first["scores"][0] == [1.0, True, "All expected tools called: A, B", None]
    # Each line is exactly json.dumps of its record: the writer builds them column by column.
    assert all(json.dumps(json.loads(line), ensure_ascii=False) == line for line in lines[1:])
    # The same result saved again (its provenance, with the time it was created, is
    # the result's own: two evaluations a second apart would differ in the header).
    gz = result.save(tmp_path / "run.jsonl.gz", history=False)
    assert gzip.decompress(gz.read_bytes()).decode("utf-8").splitlines() == lines


def test_the_parquet_layout(tmp_path):
    path = _saved(tmp_path, "run.parquet")
    table = pyarrow.parquet.read_table(path)
    assert table.column_names[:6] == ["case", "id", "tool_calls", "expected_tool_calls",
                                      "invalid", "metadata"]
    assert table.column_names[6:10] == ["m0.value", "m0.passed", "m0.reason", "m0.error"]
    assert table.schema.field("tool_calls").type == pyarrow.list_(pyarrow.string())
    assert json.loads(table.column("id")[0].as_py()) == "case-0"
    assert json.loads(table.schema.metadata[b"agentmetrics_run"])["cases"] == 24


def test_a_provenance_that_is_not_the_results_is_refused(tmp_path):
    result = _evaluated()
    other = am.evaluate([am.AgentTestCase(tool_calls=[], expected_tool_calls=[])],
                        "tool_selection_accuracy")
    mixed = am.EvaluationResult(result.batch, result.results, provenance=other.provenance)
    with pytest.raises(errors.InvalidParameterError, match=r"provenance describes 1 cases.*"
                       r"expected the provenance of this result"):
        mixed.save(tmp_path / "run.jsonl", history=False)


def test_saving_reads_no_private_state_the_writer_cannot_see(tmp_path):
    # A result built by hand (a plugin's own) with a constructed provenance saves and loads.
    result = _evaluated()
    provenance = Provenance.from_json(result.provenance.to_json())
    built = am.EvaluationResult(result.batch, result.results, result.sources,
                                provenance=provenance)
    assert_same_run(built, load_result(built.save(tmp_path / "run.parquet", history=False)))
    assert isinstance(provenance.metrics[0], MetricSpec)


def test_save_writes_atomically_beside_the_target(tmp_path, monkeypatch):
    path = _saved(tmp_path)
    before = path.read_bytes()
    import agentmetrics.runs._save as writer

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(writer, "_write_jsonl", broken)
    with pytest.raises(OSError, match="disk full"):
        _evaluated().save(path, history=False)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["run.jsonl"]
