"""agentmetrics.functional gives what the metric classes give, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidCaseError, ToolCall, ToolSelectionAccuracy
from agentmetrics.errors import CaseEvaluationError
from agentmetrics.functional import tool_selection_accuracy

NAMES = st.lists(st.sampled_from(["A", "B", "C", "D", "检索"]), max_size=7)


@settings(max_examples=200)
@given(called=NAMES, expected=NAMES, order_matters=st.booleans())
def test_one_case_is_the_metric_value(called, expected, order_matters):
    value = tool_selection_accuracy(called, expected, order_matters=order_matters)
    metric = ToolSelectionAccuracy(order_matters=order_matters)
    want = metric.evaluate(AgentTestCase(tool_calls=called, expected_tool_calls=expected)).value
    assert type(value) is float and value == want
    # and an independent reference: sets, and the LCS of first-call orders by a table
    first_called, first_expected = list(dict.fromkeys(called)), list(dict.fromkeys(expected))
    union = len(set(called) | set(expected))
    matched = len(set(called) & set(expected))
    if order_matters:
        table = [[0] * (len(first_expected) + 1) for _ in range(len(first_called) + 1)]
        for i, a in enumerate(first_called):
            for j, e in enumerate(first_expected):
                table[i + 1][j + 1] = (table[i][j] + 1 if a == e
                                       else max(table[i][j + 1], table[i + 1][j]))
        matched = table[-1][-1]
    assert value == (matched / union if union else 1.0)


@settings(max_examples=100)
@given(rows=st.lists(st.tuples(NAMES, NAMES), min_size=1, max_size=20),
       order_matters=st.booleans())
def test_columns_are_the_vectorized_values_and_each_row_the_scalar_one(rows, order_matters):
    called, expected = [c for c, _ in rows], [e for _, e in rows]
    values = tool_selection_accuracy(called, expected, order_matters=order_matters)
    assert isinstance(values, np.ndarray) and values.dtype == np.float64
    singles = [tool_selection_accuracy(c, e, order_matters=order_matters) for c, e in rows]
    assert values.tobytes() == np.array(singles).tobytes()


def test_columns_from_pandas_numpy_and_arrow_give_the_same_values():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    called, expected = [["A", "B"], [], ["C"]], [["B"], ["A"], ["C"]]
    want = tool_selection_accuracy(called, expected)
    assert want.tolist() == [0.5, 0.0, 1.0]
    cells = np.empty(3, dtype=object)
    cells[:] = called
    for column in (pd.Series(called), cells, pa.array(called), tuple(called)):
        assert tool_selection_accuracy(column, expected).tolist() == want.tolist()


def test_calls_may_be_names_tool_calls_or_mappings():
    assert tool_selection_accuracy([ToolCall("A"), {"name": "B"}], ["A", "B"]) == 1.0
    assert tool_selection_accuracy([], []) == 1.0  # one case, nothing expected or called


def test_rows_that_cannot_be_scored_raise_naming_the_row_or_are_nan_on_request():
    with pytest.raises(CaseEvaluationError, match="case 1 could not be scored"):
        tool_selection_accuracy([["A"], None], [["A"], ["A"]])
    values = tool_selection_accuracy([["A"], None, [""]], [["A"], ["A"], ["A"]], errors="record")
    assert values[0] == 1.0 and np.isnan(values[1:]).all()
    with pytest.raises(InvalidCaseError, match="got str 'A'"):
        tool_selection_accuracy("A", ["A"])
