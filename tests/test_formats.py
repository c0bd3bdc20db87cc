"""agentmetrics.formats: tool calls from provider, framework and telemetry shapes."""

from __future__ import annotations

import json

import pytest

from agentmetrics import InvalidCaseError, ToolCall
from agentmetrics import formats
from conftest import TESTS

TAU2 = json.loads((TESTS / "data" / "tau2" / "airline_excerpt.json").read_text(encoding="utf-8"))


def names(calls):
    return [call.name for call in calls]


# --- tau2-bench (real data) ---------------------------------------------------------

def test_tau2_results_become_cases_with_real_calls_and_expected_actions():
    cases = {case.metadata["id"]: case for case in formats.cases_from_tau2(TAU2)}
    assert set(cases) == {"airline-0", "airline-12", "airline-39"}
    transfer = cases["airline-0"]
    assert names(transfer.tool_calls) == [
        "get_reservation_details", "get_flight_status", "get_flight_status",
        "get_user_details", "transfer_to_human_agents"]
    assert transfer.tool_calls[0].id.startswith("toolu_")
    assert transfer.tool_calls[0].arguments == {"reservation_id": "EHGLP3"}
    assert transfer.expected_tool_calls == ()
    assert transfer.input.startswith("Hi, I’d like to cancel a reservation I made.")
    assert transfer.metadata["reward"] == 1.0 and transfer.metadata["trial"] == 0
    # Task 39: the agent cancelled two of the three reservations it was expected to.
    cancel = cases["airline-39"]
    assert names(cancel.tool_calls).count("cancel_reservation") == 2
    assert names(cancel.expected_tool_calls).count("cancel_reservation") == 3
    assert cancel.metadata["reward"] == 0.0
    assert names(cases["airline-12"].expected_tool_calls) == [
        "get_reservation_details", "search_direct_flight", "search_direct_flight", "calculate",
        "update_reservation_baggages"]
    assert all(call.arguments_valid for case in cases.values() for call in case.tool_calls)


def test_tau2_rejects_other_shapes_and_dangling_simulations():
    with pytest.raises(InvalidCaseError, match="expected a tau2 results object"):
        formats.cases_from_tau2({"tasks": []})
    broken = {"tasks": [], "simulations": [{"id": "s", "task_id": "9", "messages": []}]}
    with pytest.raises(InvalidCaseError, match="refers to task '9', which the results file does not contain"):
        formats.cases_from_tau2(broken)


def test_tau2_assistant_calls_also_read_as_openai_style_messages():
    messages = TAU2["simulations"][0]["messages"]
    calls = formats.from_openai_chat([{**m, "tool_calls": [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
        for c in m.get("tool_calls") or []]} for m in messages if m["role"] == "assistant"])
    assert names(calls) == names(formats.cases_from_tau2(TAU2)[0].tool_calls)


# --- arguments ----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("value", "parsed", "raw"),
    [
        ('{"a": 1}', {"a": 1}, None),
        ({"a": 1}, {"a": 1}, None),
        ("", {}, None),
        (None, {}, None),
        ("{not json", {}, "{not json"),
        ("[1, 2]", {}, "[1, 2]"),
        ('"text"', {}, '"text"'),
    ],
)
def test_parse_arguments_keeps_what_does_not_parse(value, parsed, raw):
    assert formats.parse_arguments(value) == (parsed, raw)


# --- OpenAI Chat Completions --------------------------------------------------------------

OPENAI_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": 7}'}},
        {"id": "call_2", "type": "function", "function": {"name": "refund", "arguments": '{"order_id": 7,'}},
        {"id": "call_3", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}},
    ],
}


def test_openai_chat_message_response_and_messages():
    calls = formats.from_openai_chat(OPENAI_MESSAGE)
    assert calls == [
        ToolCall("get_order", {"order_id": 7}, id="call_1"),
        ToolCall("refund", {}, id="call_2", raw_arguments='{"order_id": 7,'),
        ToolCall("sql", {"input": "SELECT 1"}, id="call_3"),
    ]
    assert not calls[1].arguments_valid
    response = {"id": "chatcmpl-1", "object": "chat.completion",
                "choices": [{"index": 0, "message": OPENAI_MESSAGE, "finish_reason": "tool_calls"}]}
    assert formats.tool_calls_from(response) == calls
    conversation = [{"role": "user", "content": "refund 7"}, OPENAI_MESSAGE,
                    {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
                    {"role": "assistant", "content": "Done."}]
    assert formats.from_openai_chat(conversation) == calls


def test_openai_legacy_function_call_and_tool_less_messages():
    legacy = {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": '{"q": "x"}'}}
    assert formats.tool_calls_from(legacy) == [ToolCall("lookup", {"q": "x"})]
    assert formats.from_openai_chat({"role": "assistant", "content": "Hello"}) == []
    assert formats.from_openai_chat({"choices": [{"message": {"role": "assistant", "content": "Hi"}}]}) == []


def chunk(delta, index=0):
    return {"object": "chat.completion.chunk", "choices": [{"index": index, "delta": delta}]}


def test_openai_streamed_deltas_are_joined_by_index():
    chunks = [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                               "function": {"name": "get_order", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                               "function": {"name": "refund", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"order'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": '{"amount": 5}'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '_id": 7}'}}]}),
        chunk({}),
    ]
    assert formats.tool_calls_from(chunks) == [
        ToolCall("get_order", {"order_id": 7}, id="call_a"),
        ToolCall("refund", {"amount": 5}, id="call_b"),
    ]
    legacy = [chunk({"function_call": {"name": "lookup", "arguments": ""}}),
              chunk({"function_call": {"arguments": '{"q": 1}'}})]
    assert formats.from_openai_chat(legacy) == [ToolCall("lookup", {"q": 1})]


def test_openai_stream_with_calls_in_a_second_choice_is_refused():
    # n=2: the choices are alternative answers; reading one would drop the other's calls.
    chunks = [chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]}),
              chunk({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "g", "arguments": "{}"}}]},
                    index=1)]
    with pytest.raises(InvalidCaseError, match=r"choice 1.*alternative answers"):
        formats.tool_calls_from(chunks)


# --- OpenAI Responses -----------------------------------------------------------------------

def test_openai_responses_items():
    response = {"id": "resp_1", "object": "response", "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
         "arguments": '{"city": "Paris"}', "status": "completed"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_2", "name": "code_exec", "input": "print(1)"},
        {"type": "mcp_call", "id": "mcp_1", "server_label": "deepwiki", "name": "ask_question",
         "arguments": '{"q": "x"}', "output": "..."},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
    ]}
    assert formats.tool_calls_from(response) == [
        ToolCall("get_weather", {"city": "Paris"}, id="call_1"),
        ToolCall("code_exec", {"input": "print(1)"}, id="call_2"),
        ToolCall("ask_question", {"q": "x"}, id="mcp_1"),
    ]
    assert formats.from_openai_responses(response["output"][1:2]) == [ToolCall("get_weather", {"city": "Paris"}, id="call_1")]


# --- Anthropic ------------------------------------------------------------------------------

def test_anthropic_tool_use_blocks():
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {"order_id": 7}},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    ], "stop_reason": "tool_use"}
    assert formats.tool_calls_from(message) == [
        ToolCall("get_order", {"order_id": 7}, id="toolu_1"),
        ToolCall("web_search", {"query": "x"}, id="srvtoolu_1"),
    ]
    user = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}
    assert formats.from_anthropic([message, user, {"role": "assistant", "content": "Done"}]) == \
        formats.from_anthropic(message)


# --- Gemini ---------------------------------------------------------------------------------

def test_gemini_rest_and_sdk_keys():
    rest = {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Checking."},
        {"functionCall": {"name": "get_order", "args": {"order_id": 7}}},
        {"functionCall": {"id": "fc-2", "name": "refund", "args": {"amount": 5}}},
    ]}, "finishReason": "STOP"}]}
    assert formats.tool_calls_from(rest) == [
        ToolCall("get_order", {"order_id": 7}), ToolCall("refund", {"amount": 5}, id="fc-2")]
    sdk = {"role": "model", "parts": [{"function_call": {"name": "get_order", "args": {"order_id": 7}}}]}
    assert formats.tool_calls_from(sdk) == [ToolCall("get_order", {"order_id": 7})]
    history = [{"role": "user", "parts": [{"text": "hi"}]}, sdk]
    assert formats.from_gemini(history) == [ToolCall("get_order", {"order_id": 7})]


# --- LangChain -------------------------------------------------------------------------------

def test_langchain_plain_and_serialized_messages_keep_invalid_calls():
    message = {"type": "ai", "content": "", "tool_calls": [
        {"name": "get_order", "args": {"order_id": 7}, "id": "call_1", "type": "tool_call"}],
        "invalid_tool_calls": [{"name": "refund", "args": '{"amount": ', "id": "call_2",
                                "error": "Malformed args.", "type": "invalid_tool_call"}]}
    expected = [ToolCall("get_order", {"order_id": 7}, id="call_1"),
                ToolCall("refund", {}, id="call_2", raw_arguments='{"amount": ')]
    assert formats.tool_calls_from(message) == expected
    serialized = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
                  "kwargs": {k: v for k, v in message.items() if k != "type"}}
    assert formats.tool_calls_from(serialized) == expected
    human = {"type": "human", "content": "refund"}
    assert formats.from_langchain([human, message]) == expected


# --- OpenTelemetry GenAI ----------------------------------------------------------------------

def otlp(*spans):
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": list(spans)}]}]}


def kv(key, value):
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def test_otel_execute_tool_spans_in_an_otlp_export():
    late = {"name": "execute_tool refund", "startTimeUnixNano": "2000",
            "attributes": [kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "refund"),
                           kv("gen_ai.tool.call.id", "call_2"), kv("gen_ai.tool.call.arguments", '{"amount": 5}')]}
    early = {"name": "execute_tool get_order", "startTimeUnixNano": "1000",
             "attributes": [kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "get_order"),
                            kv("gen_ai.tool.call.arguments", "{bad")]}
    chat = {"name": "chat gpt-4o", "startTimeUnixNano": "500", "attributes": [kv("gen_ai.operation.name", "chat")]}
    assert formats.tool_calls_from(otlp(late, chat, early)) == [
        ToolCall("get_order", {}, raw_arguments="{bad"), ToolCall("refund", {"amount": 5}, id="call_2")]


def test_otel_output_messages_when_no_tool_span():
    span = {"name": "chat", "attributes": {
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
            {"type": "text", "content": "checking"},
            {"type": "tool_call", "id": "call_1", "name": "get_order", "arguments": {"order_id": 7}},
        ]}]),
    }}
    assert formats.tool_calls_from(span) == [ToolCall("get_order", {"order_id": 7}, id="call_1")]
    as_list = {"name": "chat", "attributes": {"gen_ai.output.messages": [
        {"role": "assistant", "parts": [{"type": "tool_call", "name": "x", "arguments": '{"k": 1}'}]}]}}
    assert formats.from_otel([as_list]) == [ToolCall("x", {"k": 1})]


# --- detection -------------------------------------------------------------------------------

def test_unknown_shapes_say_what_was_tried():
    with pytest.raises(InvalidCaseError) as info:
        formats.tool_calls_from({"tools": []})
    message = str(info.value)
    assert message.startswith("could not tell the format of dict {'tools': []}. Tried: otel")
    for name in formats.FORMATS:
        assert name in message
    with pytest.raises(InvalidCaseError, match="unknown format 'vertex'"):
        formats.tool_calls_from({}, format="vertex")
    assert formats.tool_calls_from({"role": "assistant", "content": "hi"}, format="openai_chat") == []


def test_a_call_without_a_name_is_refused_not_made_up():
    with pytest.raises(InvalidCaseError, match=r"at tool_calls\[0\], expected the name of the tool called, got no name"):
        formats.from_openai_chat({"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]})
    with pytest.raises(InvalidCaseError, match="got an empty name"):
        formats.from_anthropic({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": " ", "input": {}}]})


# --- the promise: never fewer calls without an error (issue 10) ---------------------------

RESPONSES_WITH_SEARCH = {"id": "resp_1", "object": "response", "text": {"format": {"type": "text"}},
                         "output": [
                             {"type": "web_search_call", "id": "ws_1", "status": "completed",
                              "action": {"type": "search", "query": "weather Paris", "queries": None}},
                             {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                              "name": "get_weather", "arguments": '{"city": "Paris"}'},
                             {"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": "18C"}]}]}


def test_hosted_calls_are_calls_and_can_be_left_out_on_request():
    # Once sent to the Gemini reader by its top-level 'text' key, and read as [].
    assert formats.tool_calls_from(RESPONSES_WITH_SEARCH) == [
        ToolCall("web_search", {"action": {"type": "search", "query": "weather Paris"}}, id="ws_1"),
        ToolCall("get_weather", {"city": "Paris"}, id="call_1")]
    assert formats.tool_calls_from(RESPONSES_WITH_SEARCH, hosted_tools=False) == [
        ToolCall("get_weather", {"city": "Paris"}, id="call_1")]


def test_a_reader_that_misses_a_call_raises_naming_where():
    # The Gemini reader knows nothing of Responses items: it must not return [].
    with pytest.raises(InvalidCaseError) as info:
        formats.tool_calls_from(RESPONSES_WITH_SEARCH, format="gemini")
    message = str(info.value)
    assert message.startswith("gemini: the payload holds a call the reader did not read: a "
                              "web_search_call item with id 'ws_1' at output[0] (and 1 more)")
    assert "got 0 call(s) from 2 call site(s)" in message and "Fix:" in message


def test_streamed_calls_without_index_are_not_merged():
    # Two calls streamed with no index: once joined into one call named 'get_weatherget_time'.
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"function": {"arguments": '{"city": "Paris"}'}}]}}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": None, "id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]}}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": []},  # the usage chunk
    ]
    assert formats.tool_calls_from(chunks) == [ToolCall("get_weather", {"city": "Paris"}, id="call_a"),
                                               ToolCall("get_time", {}, id="call_b")]


def test_langchain_chunks_are_merged_not_read_one_by_one():
    # Each chunk's partial tool_calls once came back as calls: 17 calls for 3.
    pieces = ['{"ci', 'ty": "Pa', 'ris"}']
    chunks = [{"type": "AIMessageChunk", "content": "", "tool_call_chunks": [
        {"name": "get_weather" if i == 0 else None, "args": piece, "id": "call_a" if i == 0 else None,
         "index": 0, "type": "tool_call_chunk"}],
        "tool_calls": [{"name": "get_weather" if i == 0 else "", "args": {}, "id": "call_a" if i == 0 else None,
                        "type": "tool_call"}], "invalid_tool_calls": []} for i, piece in enumerate(pieces)]
    assert formats.tool_calls_from(chunks) == [ToolCall("get_weather", {"city": "Paris"}, id="call_a")]


def test_a_stop_for_tool_use_without_calls_is_refused():
    response = {"object": "chat.completion", "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None}}]}
    with pytest.raises(InvalidCaseError, match="calls are missing"):
        formats.tool_calls_from(response)
    span = {"name": "chat gpt-4o", "attributes": {"gen_ai.operation.name": "chat",
                                                  "gen_ai.request.model": "gpt-4o",
                                                  "gen_ai.response.finish_reasons": ["tool_calls"]}}
    with pytest.raises(InvalidCaseError, match="content capture"):
        formats.tool_calls_from([span])


def test_gemini_malformed_function_call_is_refused():
    response = {"candidates": [{"content": {"role": "model", "parts": []},
                                "finishReason": "MALFORMED_FUNCTION_CALL",
                                "finishMessage": "Malformed function call: get_weather(city=)"}]}
    with pytest.raises(InvalidCaseError, match="MALFORMED_FUNCTION_CALL: the API says the function call the model generated is invalid"):
        formats.tool_calls_from(response)
    # UNEXPECTED_TOOL_CALL with the call present: the call is read (it is there) ...
    unexpected = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "list_files", "args": {}}}]},
                                  "finishReason": "UNEXPECTED_TOOL_CALL"}]}
    assert formats.tool_calls_from(unexpected) == [ToolCall("list_files", {})]
    # ... and without it, refused with what is true: the API returned no call.
    unexpected["candidates"][0]["content"]["parts"] = []
    with pytest.raises(InvalidCaseError, match="UNEXPECTED_TOOL_CALL and no functionCall part"):
        formats.tool_calls_from(unexpected)


# --- detection --------------------------------------------------------------------------------

def test_detection_looks_at_every_item_of_a_list():
    conversation = [{"role": "user", "content": [{"type": "text", "text": "refund 7"}]},
                    {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "refund", "input": {"order": 7}}]}]
    assert formats.tool_calls_from(conversation) == [ToolCall("refund", {"order": 7}, id="toolu_1")]


def test_two_formats_that_fit_are_reported_not_guessed():
    mixed = [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "g", "input": {}}]}]
    with pytest.raises(InvalidCaseError, match=r"fits several formats: openai_responses \(type:function_call.*"
                                               r"anthropic \(type:tool_use.*Fix: pass format="):
        formats.tool_calls_from(mixed)


def test_a_conversation_without_calls_reads_as_no_calls_whatever_its_format():
    assert formats.tool_calls_from([{"role": "system", "content": "be brief"},
                                    {"role": "user", "content": "hi"},
                                    {"role": "assistant", "content": "hello"}]) == []


# --- what can be passed: objects, text, bytes, streams --------------------------------------

def test_json_text_bytes_sse_and_a_bom_are_read():
    response = {"object": "chat.completion", "choices": [{"index": 0, "message": OPENAI_MESSAGE}]}
    expected = formats.tool_calls_from(response)
    assert formats.tool_calls_from(json.dumps(response)) == expected
    assert formats.tool_calls_from(("\ufeff" + json.dumps(response)).encode()) == expected
    sse = "".join(f"data: {json.dumps(chunk({'tool_calls': [piece]}))}\n\n" for piece in [
        {"index": 0, "id": "call_a", "function": {"name": "f", "arguments": '{"a":'}},
        {"index": 0, "function": {"arguments": " 1}"}}]) + "data: [DONE]\n\n"
    assert formats.tool_calls_from(sse) == [ToolCall("f", {"a": 1}, id="call_a")]
    jsonl = "\n".join(json.dumps(response) for _ in range(2))
    assert formats.tool_calls_from(jsonl) == expected * 2  # two responses, one a line


class _Model:
    """Stands in for a pydantic model: what the reader duck-types on."""

    def __init__(self, data):
        self.data = data

    def model_dump(self, mode="python"):
        return self.data


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": float("nan")}}]}}]},
         r"choices\[0\]\.message\.tool_calls\[0\]\.function\.arguments: expected a finite number"),
        ({"role": "assistant", "tool_calls": {"a", "b"}}, r"tool_calls: expected a list, got a set"),
        ({"role": "assistant", "content": [object()]}, r"content\[0\]: cannot read object"),
        ("{not json", "expected JSON text"),
        ("", "got an empty string"),
        (b"\xff\xfe{", "not UTF-8"),
        ("NaN", "expected JSON text"),
    ],
)
def test_what_cannot_be_read_exactly_is_refused_with_its_path(payload, message):
    with pytest.raises(InvalidCaseError, match=message):
        formats.tool_calls_from(payload)


def test_deep_nesting_is_refused_not_a_recursion_error():
    deep: object = {"role": "assistant", "tool_calls": []}
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InvalidCaseError, match="nested more than 200 levels"):
        formats.tool_calls_from(deep)
    with pytest.raises(InvalidCaseError, match="nested too deeply|nested more than"):
        formats.tool_calls_from("[" * 100_000 + "]" * 100_000)


def test_sdk_like_objects_are_read_by_what_they_offer():
    message = _Model({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "refund", "input": {"order": 7}}], "stop_reason": "tool_use"})
    assert formats.tool_calls_from([message, _Model({"role": "user", "content": "ok"})]) == [
        ToolCall("refund", {"order": 7}, id="toolu_1")]


def test_otel_calls_not_captured_are_flagged_not_defaulted():
    span = {"name": "execute_tool ping", "attributes": {"gen_ai.operation.name": "execute_tool",
                                                        "gen_ai.tool.name": "ping"}}
    (call,) = formats.tool_calls_from([span])
    assert call.name == "ping" and call.raw_arguments == formats.NOT_CAPTURED and not call.arguments_valid


# --- tau2-bench layouts (synthetic payloads following tau2's schemas) -----------------------

from payloads import tau2_payloads  # noqa: E402


def _check_tau2(cases, truth):
    assert len(cases) == len(truth)
    for case, expected in zip(cases, truth):
        assert case.metadata["id"] == expected["case_id"]
        assert [(c.name, c.arguments, c.id) for c in case.tool_calls] == [
            tuple(call) for call in expected["agent_calls"]]
        assert [(c.name, c.arguments) for c in case.expected_tool_calls] == [
            tuple(action) for action in expected["expected_actions"]]
        assert case.input == expected["input"]
        assert case.metadata["reward"] == expected["reward"]


@pytest.mark.parametrize("build", [tau2_payloads.classic_results, tau2_payloads.telecom_results,
                                   tau2_payloads.full_duplex_results],
                         ids=["classic", "telecom-user-tools", "full-duplex"])
def test_tau2_layouts(build):
    payload, truth = build()
    _check_tau2(formats.cases_from_tau2(payload), truth)


@pytest.mark.parametrize("kind", ["classic", "full_duplex"])
def test_tau2_directory_format(tmp_path, kind):
    truth = tau2_payloads.write_dir_tree(tmp_path, kind=kind, decoys=True)
    _check_tau2(formats.cases_from_tau2(tmp_path), truth)
    _check_tau2(formats.cases_from_tau2(tmp_path / "results.json"), truth)


def test_tau2_results_without_simulations_say_where_to_find_them(tmp_path):
    (tmp_path / "results.json").write_text('{"tasks": [], "simulation_index": []}', encoding="utf-8")
    with pytest.raises(InvalidCaseError, match="expected 'simulations' in the file, or a 'simulations' folder"):
        formats.cases_from_tau2(tmp_path)


# --- errors the API returned (issue 23) ---------------------------------------------------

@pytest.mark.parametrize("payload", [
    {"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota"}},
    '{"error": "model \'llama3\' not found"}',
    [{"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": []}},
     {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}],
])
def test_an_error_the_api_returned_is_refused_as_one(payload):
    with pytest.raises(InvalidCaseError, match=r"is an error the API returned \(.+\), not a model response"):
        formats.tool_calls_from(payload)


def test_a_failed_hosted_call_is_not_an_api_error():
    response = {"object": "response", "output": [{"type": "mcp_call", "id": "mcp_1", "name": "ask", "arguments": "{}",
                                                  "error": {"type": "mcp_tool_execution_error"}}]}
    assert [call.name for call in formats.tool_calls_from(response)] == ["ask"]


@pytest.mark.parametrize("secret", ["sk-proj-Abc123Def456Ghi789", "AIzaSyA1b2C3d4E5f6G7h8I9", "Bearer eyJhbGciOi.x.y",
                                    "key=AbCdEfGhIjKl123", "https://svc:hunter2pass@api.example.com/v1"])
def test_an_api_error_repeats_no_credential(secret):
    body = {"error": {"message": f"Incorrect API key provided: {secret}. Check your settings."}}
    with pytest.raises(InvalidCaseError) as info:
        formats.tool_calls_from(body)
    message = str(info.value)
    assert "Incorrect API key provided" in message and "***" in message
    for part in ("Abc123Def456", "A1b2C3d4E5", "eyJhbGciOi", "AbCdEfGhIjKl", "hunter2pass"):
        assert part not in message


# --- a message's tool_calls on their own (issue 48) ----------------------------------

def _sdk_tool_calls():
    """``message.tool_calls`` as the openai SDK builds them: its own types."""
    from openai.types.chat import ChatCompletionMessage

    message = ChatCompletionMessage.model_validate({
        "role": "assistant", "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_time", "arguments": "{}"}},
        ]})
    return message.tool_calls


WANT_CALLS = [ToolCall("get_weather", {"city": "Paris"}, id="call_1"),
              ToolCall("get_time", {}, id="call_2")]


@pytest.mark.parametrize("shape", ["objects", "model_dump", "json"])
def test_a_message_s_tool_calls_on_their_own_are_read_by_name_format_and_detection(shape):
    calls = _sdk_tool_calls()
    payload = (calls if shape == "objects" else [call.model_dump() for call in calls]
               if shape == "model_dump" else json.dumps([call.model_dump() for call in calls]))
    assert formats.from_openai_chat(payload) == WANT_CALLS
    assert formats.tool_calls_from(payload, format="openai_chat") == WANT_CALLS
    assert formats.tool_calls_from(payload) == WANT_CALLS  # detected as OpenAI's
    one = calls[0] if shape == "objects" else calls[0].model_dump()
    assert formats.from_openai_chat(one) == WANT_CALLS[:1]


def test_a_message_s_tool_calls_are_refused_by_every_other_reader_never_read_as_none():
    payload = [call.model_dump() for call in _sdk_tool_calls()]
    for name in formats.FORMATS:
        if name == "openai_chat":
            continue
        with pytest.raises(InvalidCaseError, match=r"\[0\]") as caught:
            formats.tool_calls_from(payload, format=name)
        assert name in str(caught.value)


def test_streamed_tool_call_pieces_on_their_own_are_joined_by_index():
    pieces = [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"ci'}},
        {"index": 1, "id": "call_2", "type": "function",
         "function": {"name": "get_time", "arguments": ""}},
        {"index": 0, "function": {"arguments": 'ty": "Paris"}'}},
        {"index": 1, "function": {"arguments": "{}"}},
    ]
    assert formats.from_openai_chat(pieces) == WANT_CALLS


def test_tool_definitions_are_not_calls():
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    with pytest.raises(InvalidCaseError, match="nothing in list"):
        formats.from_openai_chat(tools)


@pytest.mark.parametrize("payload", [{"foo": 1}, [{"foo": 1}], {}, [{}], {"usage": {"total": 3}}])
@pytest.mark.parametrize("name", sorted(formats.FORMATS))
def test_a_payload_a_named_reader_cannot_place_is_refused_not_read_as_no_calls(payload, name):
    with pytest.raises(InvalidCaseError) as caught:
        formats.tool_calls_from(payload, format=name)
    assert name in str(caught.value) and "Fix:" in str(caught.value)


@pytest.mark.parametrize("payload", [[], [[]], [[], []]])
@pytest.mark.parametrize("name", sorted(formats.FORMATS))
def test_nothing_at_all_is_no_calls_in_every_format(payload, name):
    assert formats.tool_calls_from(payload, format=name) == []


def test_an_anthropic_stream_that_ends_inside_a_tool_block_is_refused():
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                           "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"city": "Par'}},
    ]
    with pytest.raises(InvalidCaseError, match=r"content_block_stop.*ends inside the block"):
        formats.from_anthropic(events)
    whole = events + [
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": 'is"}'}},
        {"type": "content_block_stop", "index": 0}]
    assert formats.from_anthropic(whole) == [ToolCall("get_weather", {"city": "Paris"},
                                                      id="toolu_1")]


def test_an_interactions_mcp_step_is_named_by_its_tool():
    interaction = {"object": "interaction", "id": "i1", "steps": [
        {"type": "mcp_server_tool_call", "id": "s1", "name": "roll_dice", "server_name": "dice",
         "arguments": {"sides": 6}}]}
    calls = formats.from_gemini_interactions(interaction)
    assert [(c.name, c.arguments) for c in calls] == [("roll_dice", {"sides": 6})]


def test_a_langchain_message_s_tool_calls_on_their_own_are_read():
    from langchain_core.messages import AIMessage

    message = AIMessage(content="", tool_calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
        {"name": "get_time", "args": {}, "id": "call_2"}])
    want = [ToolCall("get_weather", {"city": "Paris"}, id="call_1"),
            ToolCall("get_time", {}, id="call_2")]
    assert formats.from_langchain(message.tool_calls) == want
    assert formats.tool_calls_from(message.tool_calls) == want  # detected as LangChain's
    with pytest.raises(InvalidCaseError, match="tool_call_chunk"):
        formats.from_langchain([{"name": "get_weather", "args": '{"ci', "id": "call_1",
                                 "index": 0, "type": "tool_call_chunk"}])
