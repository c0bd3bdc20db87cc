"""Every "Fix:" is checked against the input it answers (issue 48, item 16).

Each row is a wrong input people write (a provider's payload spread over a case
line, a provider's call shapes under ``tool_calls``, a misspelt key, a bad
metric parameter). The test reads the error's Fix, does what it says to the
input (``apply_fix`` below understands the few things a Fix asks: rename a key,
move a payload under ``"response"``, move fields under ``"metadata"``, use a
given value), and checks that the fixed input is read, with the calls the
wrong one meant. A Fix that points the wrong way fails here.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

import agentmetrics as am
from agentmetrics import InvalidCaseError, InvalidParameterError, formats
from agentmetrics.io._dataset import case_from_record

WEATHER = {"city": "Paris"}

OPENAI_CALLS = [{"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]
OPENAI_RESPONSE = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{
    "index": 0, "finish_reason": "tool_calls",
    "message": {"role": "assistant", "content": None, "tool_calls": OPENAI_CALLS}}]}
ANTHROPIC_BLOCKS = [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                     "input": WEATHER}]
ANTHROPIC_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant",
                     "content": ANTHROPIC_BLOCKS, "stop_reason": "tool_use"}
RESPONSES_ITEMS = [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                    "name": "get_weather", "arguments": '{"city": "Paris"}'}]
RESPONSES_RESPONSE = {"id": "resp_1", "object": "response", "output": RESPONSES_ITEMS}
GEMINI_PARTS = [{"functionCall": {"name": "get_weather", "args": WEATHER}}]
GEMINI_RESPONSE = {"candidates": [{"content": {"role": "model", "parts": GEMINI_PARTS},
                                   "finishReason": "STOP"}]}
BEDROCK_BLOCKS = [{"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": WEATHER}}]
BEDROCK_RESPONSE = {"output": {"message": {"role": "assistant", "content": BEDROCK_BLOCKS}},
                    "stopReason": "tool_use"}
LANGCHAIN_CALLS = [{"name": "get_weather", "args": WEATHER, "id": "call_1",
                    "type": "tool_call"}]


def _line(**fields: Any) -> dict[str, Any]:
    return {"id": "case-1", "expected_tool_calls": ["get_weather"], **fields}


# (what is wrong, the line, what the Fix must say)
LINES = [
    ("OpenAI response spread over the line", _line(**OPENAI_RESPONSE) | {"id": "case-1"},
     '"response"'),
    ("Anthropic message spread over the line", _line(**ANTHROPIC_MESSAGE) | {"id": "case-1"},
     '"response"'),
    ("Responses response spread over the line", _line(**RESPONSES_RESPONSE) | {"id": "case-1"},
     '"response"'),
    ("Gemini response spread over the line", _line(**GEMINI_RESPONSE), '"response"'),
    ("Bedrock response spread over the line", _line(**BEDROCK_RESPONSE), '"response"'),
    ("OpenAI calls under tool_calls", _line(tool_calls=OPENAI_CALLS), '"response"'),
    ("Anthropic blocks under tool_calls", _line(tool_calls=ANTHROPIC_BLOCKS), '"response"'),
    ("Responses items under tool_calls", _line(tool_calls=RESPONSES_ITEMS), '"response"'),
    ("Gemini parts under tool_calls", _line(tool_calls=GEMINI_PARTS), '"response"'),
    ("Bedrock blocks under tool_calls", _line(tool_calls=BEDROCK_BLOCKS), '"response"'),
    ("LangChain calls under tool_calls", _line(tool_calls=LANGCHAIN_CALLS), '"response"'),
    ("'args' for 'arguments'", _line(tool_calls=[{"name": "get_weather", "args": WEATHER}]),
     "rename 'args' to 'arguments'"),
    ("OpenAI calls under expected_tool_calls",
     {"id": "case-1", "tool_calls": [{"name": "get_weather", "arguments": WEATHER}],
      "expected_tool_calls": OPENAI_CALLS}, "write each expected call as"),
    ("'expected' for a list", {"tool_calls": ["get_weather"], "expected": ["get_weather"]},
     "rename 'expected' -> 'expected_tool_calls'"),
    ("'expected' for an expectation",
     {"tool_calls": ["get_weather"], "expected": {"steps": [{"call": "get_weather"}]}},
     "rename 'expected' -> 'expectation'"),
    ("'expected_tool_call'", {"tool_calls": ["get_weather"],
                              "expected_tool_call": ["get_weather"]},
     "rename 'expected_tool_call' -> 'expected_tool_calls'"),
    ("'tool_call'", {"tool_call": ["get_weather"], "expected_tool_calls": ["get_weather"]},
     "rename 'tool_call' -> 'tool_calls'"),
    ("'calls'", {"calls": ["get_weather"], "expected_tool_calls": ["get_weather"]},
     "rename 'calls' -> 'tool_calls'"),
    ("'output' and a field of the user's", {"tool_calls": ["get_weather"], "output": "Sunny",
                                          "expected_tool_calls": ["get_weather"], "team": "a"},
     "rename 'output' -> 'actual_output' and put the other extra fields under \"metadata\""),
    ("a field of the user's", _line(tool_calls=["get_weather"], team="a"),
     'put extra fields under "metadata"'),
]


def _fix(message: str) -> str:
    assert message.count("Fix:") == 1, message
    return message.split("Fix:", 1)[1]


def apply_fix(line: dict[str, Any], message: str) -> dict[str, Any]:
    """The line as the Fix of ``message`` says it should be written."""
    fix = _fix(message)
    fixed = copy.deepcopy(line)
    unknown = sorted(set(line) - am._columnar.LINE_KEYS)
    done = False
    for old, new in re.findall(r"rename '([^']+)' -> '([^']+)'", fix):
        fixed[new] = fixed.pop(old)
        unknown.remove(old)
        done = True
    if "rename 'args' to 'arguments'" in fix:
        for call in fixed["tool_calls"]:
            call["arguments"] = call.pop("args")
        done = True
    if 'under "response"' in fix or 'as "response"' in fix:
        if unknown:  # a response spread over the line
            fixed["response"] = {key: fixed.pop(key) for key in unknown}
        else:  # a provider's calls under tool_calls
            fixed["response"] = fixed.pop("tool_calls")
        unknown, done = [], True
    if 'under "metadata"' in fix:
        fixed["metadata"] = {key: fixed.pop(key) for key in unknown}
        done = True
    if "write each expected call as" in fix:
        fixed["expected_tool_calls"] = [
            {"name": call.name, "arguments": call.arguments}
            for call in formats.tool_calls_from(fixed["expected_tool_calls"])]
        done = True
    assert done, f"the Fix says nothing this test knows how to do: {fix}"
    return fixed


@pytest.mark.parametrize(("wrong", "line", "says"), LINES, ids=[row[0] for row in LINES])
def test_each_fix_for_a_case_line_works_on_the_line_it_answers(wrong, line, says):
    with pytest.raises(InvalidCaseError) as caught:
        case_from_record(line)
    message = str(caught.value)
    assert says in _fix(message), message
    fixed = apply_fix(line, message)
    case = case_from_record(fixed)
    assert [call.name for call in case.tool_calls] == ["get_weather"], wrong
    if "response" in fixed or not isinstance(line.get("tool_calls", [""])[0], str):
        assert case.tool_calls[0].arguments == WEATHER, wrong  # read, not dropped
    if case.expectation is None:
        assert [call.name for call in case.expected_tool_calls] == ["get_weather"], wrong
    else:
        assert case.expectation.required_tool_names() == ("get_weather",), wrong


def test_the_same_lines_through_the_cli_give_the_same_fix(tmp_path, capsys):
    import json

    from agentmetrics.cli import main

    for wrong, line, says in LINES:
        path = tmp_path / "line.jsonl"
        path.write_text(json.dumps(line) + "\n", encoding="utf-8")
        assert main(["evaluate", str(path)]) == 2, wrong
        err = capsys.readouterr().err
        assert "Traceback" not in err and says in _fix(err), (wrong, err)


# --- metric parameters -----------------------------------------------------------------

def apply_parameter_fix(params: dict[str, Any], message: str) -> dict[str, Any]:
    fix = _fix(message)
    fixed = dict(params)
    for old, new in re.findall(r"rename '([^']+)' -> '([^']+)'", fix):
        fixed[new] = fixed.pop(old)
    for dropped in re.findall(r"drop '([^']+)'", fix):
        fixed.pop(dropped)
    value = re.search(r"threshold=([0-9]+(?:\.[0-9]+)?)", fix)
    if value and "threshold" in fixed and not re.search(r"rename|drop", fix):
        fixed["threshold"] = float(value.group(1))
    assert fixed != params, f"the Fix changed nothing: {fix}"
    return fixed


PARAMETERS = [
    ("a misspelt threshold", {"treshold": 0.8}, ["treshold"],
     "rename 'treshold' -> 'threshold'", 0.8),
    ("a misspelt threshold beside a good parameter", {"threshhold": 0.8, "order_matters": True},
     ["threshhold"], "rename 'threshhold' -> 'threshold'", 0.8),
    ("an unknown parameter beside a good threshold", {"threshold": 0.5, "bogus": 1}, ["bogus"],
     "drop 'bogus'", 0.5),
    ("a percentage", {"threshold": 80}, None, "threshold=0.8", 0.8),
    ("a negative threshold", {"threshold": -0.1}, None, "threshold=0 passes every score", 0.0),
    ("a threshold that is not a number", {"threshold": "x"}, None, "threshold=0.8", 0.8),
]


@pytest.mark.parametrize(("wrong", "params", "unknown", "says", "threshold"), PARAMETERS,
                         ids=[row[0] for row in PARAMETERS])
def test_each_fix_for_a_metric_parameter_works(wrong, params, unknown, says, threshold):
    with pytest.raises(InvalidParameterError) as caught:
        am.get_metric("tool_selection_accuracy", **params)
    message = str(caught.value)
    assert says in _fix(message), message
    if unknown is not None:  # only the bad names are called bad, never a good one beside them
        assert f"unknown parameter {unknown};" in message, message
    metric = am.get_metric("tool_selection_accuracy", **apply_parameter_fix(params, message))
    assert metric.threshold == threshold
