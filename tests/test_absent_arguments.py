""""No arguments given" kept apart from "empty arguments" (issue 31) on every
path a call takes: construction, mappings, records, Arrow and pandas columns,
pickles, cache keys, the readers of provider payloads, saved captures; and a
call object whose arguments sit under another key than its format's is
refused, never read as a call without arguments (issue 23)."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import InvalidCaseError, ToolCall, formats
from agentmetrics.model._canonical import encode


def given_flags(calls):
    return [call.arguments_given for call in calls or ()]


def test_construction_and_mappings():
    assert not ToolCall("a", None).arguments_given
    assert ToolCall("a").arguments_given and ToolCall("a", {}).arguments_given
    assert ToolCall("a", raw_arguments="{x").arguments_given  # text was given, if not an object
    assert ToolCall("a", None) == ToolCall("a", {}) and hash(ToolCall("a", None)) == hash(ToolCall("a"))
    case = am.AgentTestCase(tool_calls=["a", {"name": "a"}, {"name": "a", "arguments": None},
                                        {"name": "a", "arguments": {}}, ToolCall("a", None)])
    assert given_flags(case.tool_calls) == [True, True, False, True, False]
    with pytest.raises(InvalidCaseError, match="arguments_given: expected True or False"):
        ToolCall("a", arguments_given="no")


def test_pickles_evolve_and_cache_keys_keep_it():
    import attrs

    none = ToolCall("a", None, id="c1")
    assert not pickle.loads(pickle.dumps(none)).arguments_given
    assert not attrs.evolve(none, id="c2").arguments_given
    assert encode(none) != encode(ToolCall("a", {}, id="c1"))
    assert encode([none]) != encode([ToolCall("a", id="c1")])


def test_records_and_case_files_keep_it(tmp_path):
    records = [{"tool_calls": [{"name": "a", "arguments": None}, {"name": "a", "arguments": {}}, {"name": "a"}],
                "expected_tool_calls": [{"name": "a", "arguments": None}]}] * 3
    batch = am.ToolCallBatch.from_records(records)
    assert given_flags(batch.cases[2].tool_calls) == [False, True, True]
    assert given_flags(batch.cases[0].expected_tool_calls) == [False]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    for case in am.read_cases(path):
        assert given_flags(case.tool_calls) == [False, True, True]


def test_arrow_and_pandas_columns_read_null_arguments_as_none_given():
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    calls = pa.array([[{"name": "a", "arguments": {"x": 1}}, {"name": "a", "arguments": None}]])
    batch = am.ToolCallBatch.from_arrow(tool_calls=calls, expected_tool_calls=calls)
    assert given_flags(batch.cases[0].tool_calls) == [True, False]
    frame = pd.DataFrame({"tool_calls": [[{"name": "a", "arguments": None}, {"name": "a", "arguments": {}}]],
                          "expected_tool_calls": [[]]})
    assert given_flags(am.ToolCallBatch.from_pandas(frame).cases[0].tool_calls) == [False, True]


@pytest.mark.parametrize("payload, want", [
    ({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "t"}},
                                                             {"functionCall": {"name": "t", "args": {}}}]}}]},
     [False, True]),
    ({"id": "c1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant", "tool_plan": "", "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "t", "arguments": "null"}},
        {"id": "t2", "type": "function", "function": {"name": "t", "arguments": "{}"}}]}}, [False, True]),
    ({"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "t"}},
                                            {"id": "t2", "type": "function",
                                             "function": {"name": "t", "arguments": ""}}]}}]}, [False, True]),
    ({"model": "llama3", "created_at": "2026-08-07T06:08:09Z", "message": {"role": "assistant", "tool_calls": [
        {"function": {"name": "t", "arguments": {}}}, {"function": {"name": "t"}}]},
      "done": True, "done_reason": "stop"}, [True, False]),
    ({"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "t1", "name": "t", "input": {}}]}, [True]),
])
def test_readers_say_what_the_payload_says(payload, want):
    assert given_flags(formats.tool_calls_from(payload)) == want


@pytest.mark.parametrize("payload, where", [
    ({"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [
        {"id": "0", "type": "function", "function": {"name": "t", "parameters": {"d": 14}}}]}}]},
     "tool_calls[0].function.parameters"),
    ({"type": "message", "role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "t", "arguments": {"d": 1}}]}, "content[0].arguments"),
    ({"model": "llama3", "created_at": "2026-08-07T06:08:09Z", "message": {"role": "assistant", "tool_calls": [
        {"function": {"name": "t", "parameters": {"d": 1}}}]}, "done": True, "done_reason": "stop"},
     "function.parameters"),
    ({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "t", "arguments": {"d": 1}}}]}}]},
     "functionCall.arguments"),
    ({"output": {"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "t",
                                                                            "args": {"d": 1}}}]}},
      "stopReason": "tool_use"}, "toolUse.args"),
    ({"object": "response", "output": [{"type": "function_call", "call_id": "c", "name": "t",
                                        "params": {"d": 1}}]}, "output[0].params"),
])
def test_arguments_under_another_key_are_refused_naming_it(payload, where):
    with pytest.raises(InvalidCaseError, match=r"expected the call's arguments under .*, got arguments under"):
        formats.tool_calls_from(payload)
    try:
        formats.tool_calls_from(payload)
    except InvalidCaseError as error:
        assert where in str(error)


_KEYS = st.sampled_from(["parameters", "params", "args", "input", "kwargs", "Arguments", "tool_input"])


@settings(max_examples=60, deadline=None)
@given(key=_KEYS, value=st.dictionaries(st.sampled_from(["q", "d"]), st.integers(), min_size=1))
def test_a_chat_call_never_loses_arguments_held_under_another_key(key, value):
    """Whatever argument-like key holds them, the call is read with them or refused."""
    function = {"name": "t", key: value}
    payload = {"object": "chat.completion", "choices": [{"index": 0, "message": {
        "role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": function}]}}]}
    try:
        calls = formats.tool_calls_from(payload)
    except InvalidCaseError:
        return
    assert calls[0].arguments == value


def test_a_saved_capture_keeps_calls_given_no_arguments(tmp_path):
    from agentmetrics.capture._reading import case_line

    case = am.AgentTestCase(tool_calls=[ToolCall("a", None), ToolCall("a", {})], expected_tool_calls=[])
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(case_line(case)) + "\n")
    read = next(iter(am.read_cases(path)))
    assert given_flags(read.tool_calls) == [False, True]
