"""evaluate_batch equals evaluate: values bit for bit, passed, reasons, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, ToolCallBatch, ToolSelectionAccuracy, evaluate
from agentmetrics import _kernels
from agentmetrics._kernels import _bitsets, _tuning
from conftest import TESTS, load_jsonl

UNICODE = ["検索", "résumé", "emoji🙂", "Ω", "tool with space", "GetOrder", "getorder"]


@pytest.fixture(params=["bitsets", "lanes", "narrow-lanes", "sorting", "threaded-blocks",
                        "no-bitwise-count"])
def kernel_path(request, monkeypatch):
    """Run each test through every kernel path: bitsets (at most 64 tools) and
    lanes (any vocabulary) with the bit-parallel LCS, lanes of 8 only (longer
    rows to the sort-based kernels), the sort-based kernels alone with both
    LIS paths, many small blocks on several threads, and numpy < 2's lack of
    ``np.bitwise_count``."""
    if request.param == "lanes":
        monkeypatch.setattr(_tuning, "BITSET_LIMIT", 0)
    if request.param == "narrow-lanes":
        monkeypatch.setattr(_tuning, "BITSET_LIMIT", 0)
        monkeypatch.setattr(_tuning, "MAX_LANES", 8)
    if request.param == "sorting":
        monkeypatch.setattr(_tuning, "BITSET_LIMIT", 0)
        monkeypatch.setattr(_tuning, "MAX_LANES", 0)
        monkeypatch.setattr(_tuning, "LIS_VECTOR_LIMIT", 2)  # long rows take the scalar LIS
    if request.param == "threaded-blocks":
        monkeypatch.setattr(_tuning, "BLOCK_ROWS", 7)
        monkeypatch.setenv(_kernels.THREADS_ENV, "3")
    if request.param == "no-bitwise-count":
        monkeypatch.setattr(_bitsets, "HAS_BITWISE_COUNT", False)
    return request.param


def names_strategy(vocabulary_size):
    pool = [f"t{i}" for i in range(vocabulary_size)] + UNICODE
    return st.lists(st.sampled_from(pool), max_size=10)


@st.composite
def case_lists(draw):
    size = draw(st.sampled_from([1, 2, 3, 8, 40, 64, 65, 300]))
    names = names_strategy(size)
    maybe = st.one_of(names, names, names, names, st.none())
    rows = draw(st.lists(st.tuples(maybe, maybe), min_size=0, max_size=40))
    return rows


def assert_batch_equals_scalar(metric, cases, result):
    assert len(result) == len(cases)
    bulk = result.reason_list()  # the metric's many-rows path, beside the one-row path
    assert bulk == [result.reason(row) for row in range(len(cases))]
    for row, case in enumerate(cases):
        try:
            expected = metric.evaluate(case)
        except Exception as error:  # the batch must report the same problem
            assert row in result.errors and result.errors[row] == str(error)
            assert np.isnan(result.values[row]) and not result.passed[row]
            continue
        assert row not in result.errors
        value = result.values[row]
        assert np.float64(expected.value).tobytes() == value.tobytes(), (row, expected, value)
        assert bool(result.passed[row]) is expected.passed
        assert result.reason(row) == expected.reason
        assert result.score(row) == expected


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=case_lists(), order_matters=st.booleans(), threshold=st.sampled_from([0.0, 0.5, 0.8, 1.0]))
def test_batch_equals_scalar_on_random_cases(kernel_path, rows, order_matters, threshold):
    cases = [AgentTestCase(tool_calls=c, expected_tool_calls=e) for c, e in rows]
    metric = ToolSelectionAccuracy(threshold, order_matters=order_matters)
    result = metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")
    assert_batch_equals_scalar(metric, cases, result)
    columns = ToolCallBatch.from_columns(
        tool_calls=[c for c, _ in rows], expected_tool_calls=[e for _, e in rows], errors="record")
    again = metric.evaluate_batch(columns, errors="record")
    assert np.array_equal(again.values, result.values, equal_nan=True)
    assert list(again.reasons) == list(result.reasons)


@pytest.mark.parametrize("vocabulary_size", [1, 40, 2000, 5000])
@pytest.mark.parametrize("order_matters", [False, True])
def test_batch_equals_scalar_on_large_seeded_batches(kernel_path, vocabulary_size, order_matters):
    rng = np.random.default_rng(vocabulary_size)
    names = [f"tool_{i}" for i in range(vocabulary_size)]
    cases = []
    for _ in range(3000):
        called = [names[i] for i in rng.integers(0, vocabulary_size, rng.integers(0, 9))]
        expected = [names[i] for i in rng.integers(0, vocabulary_size, rng.integers(0, 9))]
        if rng.random() < 0.5:  # share tools, in and out of order
            expected = called[::-1] if rng.random() < 0.5 else called + expected
        cases.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected))
    # Long rows exercise the wide LIS buckets and the scalar fallback.
    for length in (17, 40, 70, 130):
        order = rng.permutation(min(length, vocabulary_size))
        cases.append(AgentTestCase(tool_calls=[names[i] for i in order],
                                   expected_tool_calls=[names[i] for i in sorted(order)]))
    metric = ToolSelectionAccuracy(order_matters=order_matters)
    result = metric.evaluate_batch(ToolCallBatch.from_cases(cases))
    assert_batch_equals_scalar(metric, cases, result)


CONTRACT = load_jsonl(TESTS / "data" / "tool_selection_accuracy.jsonl")


@pytest.mark.parametrize("order_matters", [False, True])
def test_batch_meets_the_contract_cases(kernel_path, order_matters):
    cases = [case for case in CONTRACT if case["order_matters"] == order_matters]
    batch = ToolCallBatch.from_columns(
        tool_calls=[case["tool_calls"] for case in cases],
        expected_tool_calls=[case["expected_tool_calls"] for case in cases],
        ids=[case["id"] for case in cases],
    )
    for row, case in enumerate(cases):
        metric = ToolSelectionAccuracy(case["threshold"], order_matters=order_matters)
        result = metric.evaluate_batch(batch)
        assert result.values[row] == case["value"], case["id"]
        assert bool(result.passed[row]) is case["passed"], case["id"]
        assert result.reason(row) == case["reason"], case["id"]


def test_lis_lengths_against_the_scalar_routine():
    rng = np.random.default_rng(7)
    rows = [rng.permutation(k).tolist() for k in rng.integers(0, 150, 400)]
    offsets = np.cumsum([0] + [len(r) for r in rows])
    values = np.array([v for r in rows for v in r], dtype=np.int64)
    result = _kernels.lis_lengths(values, offsets)
    assert result.tolist() == [_kernels.longest_increasing_run(r) for r in rows]


def test_evaluate_agrees_with_a_loop_of_evaluate(examples_path):
    from agentmetrics import read_cases

    cases = list(read_cases(examples_path))
    for order_matters in (False, True):
        metric = ToolSelectionAccuracy(order_matters=order_matters)
        result = evaluate(cases, metric)[metric.name]
        assert_batch_equals_scalar(metric, cases, result)


def test_thread_count_setting(monkeypatch):
    monkeypatch.setenv(_kernels.THREADS_ENV, "1")
    assert _kernels.thread_count() == 1
    for bad in ("0", "-1", "many"):  # once silently 1: a setting that means nothing is an error
        monkeypatch.setenv(_kernels.THREADS_ENV, bad)
        with pytest.raises(ValueError, match="AGENTMETRICS_NUM_THREADS: expected a whole number"):
            _kernels.thread_count()


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=case_lists())
def test_row_helpers_for_metric_authors(kernel_path, rows):
    from collections import Counter

    from agentmetrics.batch import row_multiset_overlap, row_set_counts

    called = [c or [] for c, _ in rows]
    expected = [e or [] for _, e in rows]
    batch = ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected)
    assert row_multiset_overlap(batch).tolist() == [
        sum((Counter(c) & Counter(e)).values()) for c, e in zip(called, expected)]
    counts = row_set_counts(batch)
    assert [list(column) for column in counts] == [
        [len(set(c)) for c in called], [len(set(e)) for e in expected],
        [len(set(c) & set(e)) for c, e in zip(called, expected)]]


def _reference_counts(called, expected):
    """Independent per-row reference: Counter arithmetic and an O(n*m) LCS table."""
    from collections import Counter

    first_called, first_expected = list(dict.fromkeys(called)), list(dict.fromkeys(expected))
    table = [[0] * (len(first_expected) + 1) for _ in range(len(first_called) + 1)]
    for i, a in enumerate(first_called):
        for j, e in enumerate(first_expected):
            table[i + 1][j + 1] = (table[i][j] + 1 if a == e
                                   else max(table[i][j + 1], table[i + 1][j]))
    overlap = sum((Counter(called) & Counter(expected)).values())
    return (len(set(called)), len(set(expected)), len(set(called) & set(expected)),
            table[-1][-1], overlap)


@pytest.mark.parametrize("vocabulary_size", [2, 40, 64, 65, 300, 70000])
def test_kernel_counts_against_a_reference_on_rows_of_every_width(kernel_path, vocabulary_size):
    # Rows of 0 to 150 calls on a side cross every lane width (8, 16, 32, 64)
    # and the sort-based fallback; heavy overlap makes the LCS matter.
    rng = np.random.default_rng(vocabulary_size)
    rows = []
    for length in list(range(20)) + [31, 32, 33, 63, 64, 65, 100, 150] * 3:
        for _ in range(6):
            called = rng.integers(0, vocabulary_size, length).tolist()
            expected = (rng.permutation(called).tolist() if rng.random() < 0.5
                        else rng.integers(0, vocabulary_size, rng.integers(0, length + 2)).tolist())
            if rng.random() < 0.3:
                called = called[::-1]
            rows.append((called, expected))
    rng.shuffle(rows)
    def flat(side):
        lists = [row[side] for row in rows]
        offsets = np.cumsum([0] + [len(r) for r in lists]).astype(np.int64)
        return np.array([i for r in lists for i in r], dtype=np.int32), offsets

    arrays = (*flat(0), *flat(1), vocabulary_size)
    reference = np.array([_reference_counts(c, e) for c, e in rows]).T
    counts, matched = _kernels.ordered_matches(*arrays)
    assert counts.called.tolist() == reference[0].tolist()
    assert counts.expected.tolist() == reference[1].tolist()
    assert counts.shared.tolist() == reference[2].tolist()
    assert matched.tolist() == reference[3].tolist()
    plain = _kernels.set_counts(*arrays)
    assert plain.shared.tolist() == reference[2].tolist()
    assert _kernels.multiset_overlap(*arrays).tolist() == reference[4].tolist()
    for ordered, numerator in ((False, reference[2]), (True, reference[3])):
        union = reference[0] + reference[1] - reference[2]
        want = [n / u if u else 1.0 for n, u in zip(numerator.tolist(), union.tolist())]
        got = _kernels.selection_values(*arrays, ordered)
        assert got.tobytes() == np.array(want).tobytes()
