"""The call census, conservative for shapes nobody enumerated (issue 23).

A key that names a tool or function call, in any spelling, and a stop or
finish reason that says tools were used, are sites a reader must account for.
The properties insert such nodes anywhere in every supported payload (outside
what the census documents as context: tool definitions, tool results, the
arguments of a call, telemetry attributes) and require that the read either
changes or fails; never that the same calls come back as if nothing were
there.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentmetrics import InvalidCaseError, formats
from agentmetrics.formats._census import is_zero, scan
from agentmetrics.formats._keys import CALL_KEY, PLAIN_KEY, REASON_KEY, key_kind, norm, says_tools
from agentmetrics.formats._payload import to_tree
from payloads import all_scenarios

# --- spellings --------------------------------------------------------------------------

WORDS = [("tool", "calls"), ("tool", "call"), ("tool", "use"), ("tool", "uses"),
         ("function", "call"), ("function", "calls"), ("tool", "invocations"),
         ("tool", "requests"), ("server", "tool", "use"), ("invalid", "tool", "calls"),
         ("tool", "call", "chunks"), ("executable", "code")]


def spell(words: tuple[str, ...], style: str) -> str:
    if style == "snake":
        return "_".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "space":
        return " ".join(words)
    if style == "camel":
        return words[0] + "".join(word.title() for word in words[1:])
    if style == "pascal":
        return "".join(word.title() for word in words)
    return "_".join(words).upper()


STYLES = ["snake", "kebab", "space", "camel", "pascal", "upper"]
SPELLINGS = st.builds(spell, st.sampled_from(WORDS), st.sampled_from(STYLES))


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("words", WORDS)
def test_every_spelling_of_a_call_key_names_calls(words, style):
    assert key_kind(spell(words, style)) == CALL_KEY


@pytest.mark.parametrize("key", [
    "tool_call_id", "toolCallId", "tool-use-id", "toolUseId", "tool_call_ids",
    "parallel_tool_calls", "max_tool_calls", "function_calling_config", "functionCallingConfig",
    "tool_use_prompt_token_count", "toolUsePromptTokensDetails", "tool_call_count", "tool_choice",
])
def test_keys_that_refer_to_calls_or_configure_them_are_context(key):
    assert key_kind(key) != CALL_KEY


@pytest.mark.parametrize("key", ["stop_reason", "stopReason", "finish_reason", "finishReason",
                                 "done_reason", "Finish-Reason", "finish_reasons"])
def test_every_spelling_of_a_stop_reason_is_one(key):
    assert key_kind(key) == REASON_KEY


@pytest.mark.parametrize("value", ["tool_calls", "TOOL_CALL", "tool_use", "toolUse", "function_call",
                                   "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", ["stop", "tool_calls"]])
def test_reasons_that_say_tools_were_used(value):
    assert says_tools(value)


@pytest.mark.parametrize("value", ["stop", "end_turn", "STOP", "COMPLETE", "length", "", None, 3,
                                   ["stop"], "max_tokens"])
def test_reasons_that_do_not(value):
    assert not says_tools(value)


def test_a_norm_is_case_and_separator_free():
    assert {norm(spell(("tool", "calls"), style)) for style in STYLES} == {"toolcalls"}
    assert key_kind("messages") == PLAIN_KEY


# --- zero-valued placeholders --------------------------------------------------------------

def test_zero_valued_placeholders_are_not_calls_and_a_nameless_call_is_refused():
    # Snowflake Cortex sends Go-style zero values: an empty custom branch beside the
    # function it called, and an empty legacy function_call in responses with no call.
    placeholder = {"role": "assistant", "content": "Hi", "function_call": {"name": "", "arguments": ""},
                   "tool_calls": None, "audio": {"data": "", "expires_at": 0, "id": ""}}
    assert formats.from_openai_chat(placeholder) == []
    assert formats.tool_calls_from({"object": "chat.completion", "choices": [
        {"index": 0, "finish_reason": "", "message": placeholder}]}) == []
    called = {"role": "assistant", "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "P"}'},
         "custom": {"name": "", "input": ""}}]}
    [call] = formats.from_openai_chat(called)
    assert (call.name, call.arguments, call.id) == ("get_weather", {"city": "P"}, "t1")
    assert is_zero({"a": ["", {"b": 0}], "c": None}) and not is_zero({"a": " "})
    with pytest.raises(InvalidCaseError, match="expected the name of the tool called, got an empty name"):
        formats.from_openai_chat({"role": "assistant", "tool_calls": [
            {"id": "t2", "type": "function", "function": {"name": "", "arguments": '{"x": 1}'}}]})


def test_an_unrecognised_payload_with_a_call_is_refused_not_read_as_none():
    with pytest.raises(InvalidCaseError, match=r"It holds call-like content at output\.reply\.content\[0\]\.ToolUse"):
        formats.tool_calls_from({"output": {"reply": {"content": [{"ToolUse": {"Name": "get_weather", "Input": {}}}]}}})
    with pytest.raises(InvalidCaseError, match="the model stopped to call tools, but the calls are missing"):
        formats.tool_calls_from({"result": {"stopReason": "TOOL_CALLS", "text": ""}})
    with pytest.raises(InvalidCaseError, match=r'could not tell the format .* It says at reply\["Finish-Reason"\] that the model stopped to call tools'):
        formats.tool_calls_from({"reply": {"Finish-Reason": "tool_calls"}, "messages": [{"role": "assistant", "content": "hi"}]})


# --- the properties --------------------------------------------------------------------------

INPUT_EVENTS = {"gen_ai.user.message", "gen_ai.system.message", "gen_ai.assistant.message",
                "gen_ai.tool.message"}
CONTEXT = {"tools", "functions", "tool_choice", "toolchoice", "functiondeclarations", "toolconfig",
           "parameters", "inputschema", "responseformat", "attributes", "resource", "tooldefinitions"}
ARGUMENT_KEYS = {"arguments", "args", "input", "parameters", "partialargs", "partial_json", "code"}


def _jsonable(payload) -> bool:
    try:
        json.dumps(payload)
    except (TypeError, ValueError):
        return False
    return True


SEEDS = [s for s in all_scenarios() if s.expected is not None and s.form == "dump"
         and _jsonable(s.payload) and s.provider != "tau2"]


def _calls_here(node) -> bool:
    """What a call (or a result, or a request setting) looks like, independent of the
    census: its subtree is its data, where a key of any name is only data."""
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if isinstance(kind, str) and (kind.endswith(("call", "use", "Call", "Use", "result", "output", "response"))
                                  or kind == "mcp_approval_request"):
        return True
    if isinstance(node.get("role"), str) and node["role"].lower() in ("tool", "function", "ipython"):
        return True
    if node.get("eventName", node.get("event_name")) in INPUT_EVENTS:
        return True  # what a telemetry span was given: context
    return "name" in node and any(key in node for key in ("arguments", "args", "input", "parameters"))


def _positions(tree, path=()):
    """Every mapping outside context and outside calls: where a new key may go."""
    if isinstance(tree, dict):
        if _calls_here(tree):
            return
        yield path
        for key, value in tree.items():
            n = norm(key)
            if n in CONTEXT or n in ARGUMENT_KEYS or key_kind(key) != PLAIN_KEY or "result" in n or (
                    "response" in n and n != "response") or n in ("functionresponse", "toolresult"):
                continue
            yield from _positions(value, path + (key,))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from _positions(value, path + (index,))


def _at(tree, path):
    for step in path:
        tree = tree[step]
    return tree


CALL_VALUES = st.builds(
    lambda name, field, arguments, listed, call_id: (
        [{"name": name, field: arguments, **({"id": call_id} if call_id else {})}] if listed
        else {"name": name, field: arguments, **({"id": call_id} if call_id else {})}),
    st.from_regex(r"[a-z][a-z_]{2,10}", fullmatch=True), st.sampled_from(["arguments", "args", "input"]),
    st.dictionaries(st.from_regex(r"[a-z]{1,5}", fullmatch=True), st.integers(0, 9), min_size=1, max_size=2),
    st.booleans(), st.one_of(st.none(), st.from_regex(r"call_[a-z0-9]{4}", fullmatch=True)))


def _read(payload):
    try:
        return [(c.name, c.arguments, c.id, c.raw_arguments) for c in formats.tool_calls_from(payload)]
    except InvalidCaseError:
        return None


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_call_shaped_node_under_any_call_key_changes_the_read_or_fails_it(data):
    seed = data.draw(st.sampled_from(SEEDS), label="seed")
    tree = to_tree(seed.payload)
    tree = json.loads(json.dumps(tree))
    before = _read(tree)
    positions = list(_positions(tree))
    if before is None or not positions:
        return
    path = data.draw(st.sampled_from(positions), label="where")
    key = data.draw(SPELLINGS, label="key")
    node = _at(tree, path)
    if key in node:
        return
    node[key] = data.draw(CALL_VALUES, label="value")
    after = _read(tree)
    assert after is None or after != before, (seed.id, path, key)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_stop_reason_saying_tools_in_a_payload_without_calls_fails_the_read(data):
    seeds = [s for s in all_scenarios() if s.expected == () and s.form == "dump" and _jsonable(s.payload)]
    seed = data.draw(st.sampled_from(seeds), label="seed")
    tree = json.loads(json.dumps(to_tree(seed.payload)))
    if scan(tree).sites or _read(tree) is None:
        return
    positions = list(_positions(tree))
    if not positions:
        return
    path = data.draw(st.sampled_from(positions), label="where")
    key = data.draw(st.builds(spell, st.sampled_from([("stop", "reason"), ("finish", "reason"),
                                                     ("done", "reason")]), st.sampled_from(STYLES)))
    reason = data.draw(st.sampled_from(["tool_calls", "TOOL_CALL", "tool_use", "toolUse", "function_call"]))
    _at(tree, path)[key] = reason
    assert _read(tree) is None, (seed.id, path, key)


def test_a_raw_tool_call_beside_a_streamed_legacy_function_call_is_not_lost():
    """Found by the property above: a merged AIMessageChunk whose calls come from a
    legacy ``function_call`` marked every ``additional_kwargs.tool_calls`` item as a
    partial view, so a raw call that no merged call names vanished from the read."""
    from agentmetrics import formats
    from agentmetrics.errors import InvalidCaseError

    chunk = {"content": "", "type": "AIMessageChunk", "id": "fake-2", "tool_calls": [],
             "invalid_tool_calls": [], "tool_call_chunks": [], "chunk_position": "last",
             "additional_kwargs": {"function_call": {"name": "get_weather", "arguments": "{}"},
                                   "tool_calls": [{"name": "Refund", "arguments": {"a": 0}}]}}
    with pytest.raises(InvalidCaseError, match=r"additional_kwargs\.tool_calls\[0\]"):
        formats.tool_calls_from(chunk, format="langchain")
    del chunk["additional_kwargs"]["tool_calls"]
    assert [call.name for call in formats.tool_calls_from(chunk, format="langchain")] == ["get_weather"]


# --- the plain-JSON shortcut of to_tree --------------------------------------------------

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4),
                     st.floats(allow_nan=True, allow_infinity=True), st.binary(max_size=3))
_KEYS = st.one_of(st.sampled_from(["attributes", "body", "chunk", "type", "name", "args"]),
                  st.text(max_size=3), st.integers(0, 3))
_TREES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4),
    st.tuples(inner, inner)), max_leaves=25)


def _walked(tree):
    """The full walk's answer: its tree, or its error's message."""
    from agentmetrics.formats._payload import _walk

    try:
        return "tree", _walk(tree, (), 0)
    except InvalidCaseError as error:
        return "error", str(error)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(tree={"a": math.nan})
@example(tree={"a": [1, {"b": math.inf}]})
@example(tree=[{"a": -math.inf}])
@example(tree=[[math.nan]])
@example(tree={"a": {2: "x"}})
@example(tree={"a": [b"{}"]})
@example(tree={"a": (1, 2)})
@example(tree={"attributes": [{"key": "k", "value": {"stringValue": "v"}}]})
@example(tree={"x": {"body": {"stringValue": "text"}, "timeUnixNano": 1}})
@example(tree=[{"chunk": {"bytes": b'{"type": "message_stop"}'}}])
@given(tree=st.one_of(st.dictionaries(_KEYS, _TREES, max_size=5), st.lists(
    _TREES.filter(lambda item: not isinstance(item, (str, bytes))), max_size=5)))
def test_to_tree_gives_what_the_full_walk_gives_on_any_tree(tree):
    """to_tree returns a plain JSON tree as it is, without the full walk; on any
    tree (NaN, infinities, bytes, tuples, int keys, the keys the walk converts)
    it gives the full walk's tree or raises its error. (Text items of a top-level
    list are read as JSON text first, so the lists here hold none.)"""
    want = _walked(tree)
    try:
        got = "tree", to_tree(tree)
    except InvalidCaseError as error:
        got = "error", str(error)
    assert got[0] == want[0]
    if got[0] == "error":
        assert got[1] == want[1]
    else:
        assert got[1] == want[1] and type(got[1]) is type(want[1])


@pytest.mark.parametrize("depth", [150, 199, 200, 201, 400])
def test_to_tree_refuses_trees_deeper_than_its_limit_as_the_full_walk_does(depth):
    tree: object = {"x": 1.5}
    for level in range(depth):
        tree = [tree] if level % 2 else {"k": tree}
    want = _walked(tree)
    assert (want[0] == "error") == (depth >= 200)  # the float sits one level deeper
    if want[0] == "error":
        with pytest.raises(InvalidCaseError, match="nested more than 200 levels deep"):
            to_tree(tree)
    else:
        assert to_tree(tree) is tree
