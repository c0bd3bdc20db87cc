"""ToolCall, AgentTestCase and EvalScore: conversion, validation, messages."""

from __future__ import annotations

import attrs
import pytest

from agentmetrics import AgentTestCase, EvalScore, InvalidCaseError, ToolCall


def test_tool_call_defaults_and_copying():
    arguments = {"order_id": 7}
    call = ToolCall("GetOrder", arguments)
    arguments["order_id"] = 8
    assert call.arguments == {"order_id": 7}
    assert ToolCall("GetOrder").arguments == {}
    assert ToolCall("GetOrder").id is None and ToolCall("GetOrder").output is None


def test_tool_calls_with_unhashable_arguments_are_hashable_and_compare_by_value():
    first = ToolCall("Search", {"filters": ["a"]}, id="c1")
    assert first == ToolCall("Search", {"filters": ["a"]}, id="c1")
    assert first != ToolCall("Search", {"filters": ["b"]}, id="c1")
    assert len({first, ToolCall("Search", {"filters": ["a"]}, id="c1")}) == 1


def test_data_classes_are_frozen_and_slotted():
    for cls in (ToolCall, AgentTestCase, EvalScore):
        assert attrs.has(cls) and "__slots__" in cls.__dict__
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ToolCall("A").name = "B"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("", "expected a non-empty str, got ''"),
        (None, "expected a non-empty str, got NoneType None"),
        (3, "expected a non-empty str, got int 3"),
    ],
)
def test_tool_call_name_is_validated(bad, message):
    with pytest.raises(InvalidCaseError, match=message):
        ToolCall(bad)


def test_tool_call_arguments_must_be_a_mapping_with_str_keys():
    with pytest.raises(InvalidCaseError, match=r"arguments: expected a mapping.*got str.*json\.loads"):
        ToolCall("A", '{"x": 1}')  # type: ignore[arg-type]
    with pytest.raises(InvalidCaseError, match="expected str keys, got key int 1"):
        ToolCall("A", {1: "x"})


def test_call_lists_accept_names_mappings_and_tool_calls_as_tuples():
    case = AgentTestCase(
        tool_calls=["A", {"name": "B", "arguments": {"x": 1}, "id": "c2"}, ToolCall("C")],
        expected_tool_calls=iter(["A"]),
    )
    assert case.tool_calls == (ToolCall("A"), ToolCall("B", {"x": 1}, id="c2"), ToolCall("C"))
    assert case.expected_tool_calls == (ToolCall("A"),)
    assert case.tool_names == ("A", "B", "C")
    assert case.expected_tool_names == ("A",)


def test_none_means_not_given_and_empty_means_none_called():
    assert AgentTestCase().tool_calls is None and AgentTestCase().tool_names is None
    assert AgentTestCase(tool_calls=[]).tool_calls == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("GetOrder", r"tool_calls: expected a list of tool calls.*got str 'GetOrder'.*\['GetOrder'\]"),
        ({"name": "A"}, r"tool_calls: expected a list.*got dict"),
        (5, r"tool_calls: expected a list.*got int 5"),
        ([{"function": {"name": "A"}}], r"tool_calls\[0\]: expected a mapping with 'name'.*unknown keys \['function'\]"),
        ([{"arguments": {}}], r"tool_calls\[0\]: .*no 'name' key"),
        (["A", ""], r"tool_calls\[1\]: ToolCall.name: expected a non-empty str"),
        (["A", 1.5], r"tool_calls\[1\]: expected a ToolCall, a tool name \(str\) or a mapping"),
    ],
)
def test_bad_call_lists_name_the_position_and_the_fix(value, message):
    with pytest.raises(InvalidCaseError, match=message):
        AgentTestCase(tool_calls=value)


def test_metadata_is_copied_and_validated():
    meta = {"id": "x"}
    case = AgentTestCase(metadata=meta)
    meta["id"] = "y"
    assert case.metadata == {"id": "x"}
    with pytest.raises(InvalidCaseError, match="metadata: expected a mapping"):
        AgentTestCase(metadata=["id"])


def test_eval_score_repr_shows_two_decimals():
    score = EvalScore(2 / 3, False, "Missing expected tool: X", "tool_selection_accuracy", 0.8)
    assert repr(score) == (
        "EvalScore(value=0.67, passed=False, reason='Missing expected tool: X', "
        "metric='tool_selection_accuracy', threshold=0.8)"
    )
    assert score.value == 2 / 3  # only the repr rounds


def test_tool_call_repr_shows_optional_fields_only_when_set():
    assert repr(ToolCall("A")) == "ToolCall('A', {})"  # arguments left out: given, empty
    assert repr(ToolCall("A", None)) == "ToolCall('A', None)"  # no arguments given
    assert not eval(repr(ToolCall("A", None, id="c"))).arguments_given
    assert repr(ToolCall("A", {"x": 1}, id="c1", raw_arguments="{x")) == \
        "ToolCall('A', {'x': 1}, id='c1', raw_arguments='{x')"
    assert eval(repr(ToolCall("A", {"x": [1]}, id="c1", output="ok"))) == \
        ToolCall("A", {"x": [1]}, id="c1", output="ok")
