"""Ground-truth Anthropic Messages payloads, built offline with the real SDK.

Every response object here comes out of ``anthropic.Anthropic`` (or its beta
namespace) talking to an ``httpx2.MockTransport`` that serves hand-written
JSON / SSE shaped like the documented Messages API. Stream helpers
(``messages.stream(...)``) are the SDK's own accumulators.

Provider: "anthropic". See FINDINGS.md next to this file for what the real
objects look like.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message

from payloads._scenario import Call, Scenario, dump_models

PROVIDER = "anthropic"
MODEL = "claude-sonnet-5"  # not in the SDK's DEPRECATED_MODELS table (no warning)
BASE_URL = "http://anthropic.test"
HOSTED_OFF = {"hosted_tools": False}
MISSING_CALLS = r"(?i)(missing|tool_use)"


# -- mock server ---------------------------------------------------------------------------


class _Server:
    """A MockTransport handler serving queued bodies: a dict is a JSON
    response, a str is an SSE stream (text/event-stream)."""

    def __init__(self) -> None:
        self.queue: list[Any] = []
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content or b"{}"))
        body = self.queue.pop(0)
        if isinstance(body, str):
            return httpx2.Response(
                200, content=body.encode(), headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=body, headers={"request-id": "req_mock"})


_SERVER = _Server()
_CLIENT: anthropic.Anthropic | None = None


def _client() -> anthropic.Anthropic:
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = anthropic.Anthropic(
            api_key="x",
            base_url=BASE_URL,
            max_retries=0,
            http_client=anthropic.DefaultHttpxClient(transport=httpx2.MockTransport(_SERVER)),
        )
    return _CLIENT


def _create(body: dict[str, Any], **kwargs: Any) -> Message:
    """client.messages.create(...) answered with ``body``."""
    _SERVER.queue.append(body)
    params: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
    }
    params.update(kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _client().messages.create(**params)


def _beta_create(body: dict[str, Any], **kwargs: Any) -> Any:
    _SERVER.queue.append(body)
    params: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "What's the forecast in Paris?"}],
    }
    params.update(kwargs)
    return _client().beta.messages.create(**params)


def _stream_raw(sse_text: str) -> list[Any]:
    """client.messages.create(stream=True): the raw event objects."""
    _SERVER.queue.append(sse_text)
    return list(
        _client().messages.create(
            model=MODEL,
            max_tokens=1024,
            messages=[{"role": "user", "content": "What's the weather in Paris?"}],
            stream=True,
        )
    )


def _stream_helper(sse_text: str) -> tuple[list[Any], Any]:
    """client.messages.stream(...): (helper events, get_final_message())."""
    _SERVER.queue.append(sse_text)
    with _client().messages.stream(
        model=MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": "What's the weather in Paris?"}],
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    return events, final


# -- body builders (the API's JSON, by hand) ------------------------------------------------


def _usage(inp: int = 120, out: int = 48, **extra: Any) -> dict[str, Any]:
    return {"input_tokens": inp, "output_tokens": out, **extra}


def _message(
    mid: str, content: list[dict[str, Any]], stop_reason: str = "tool_use", **extra: Any
) -> dict[str, Any]:
    return {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(),
        **extra,
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _tool_use(tid: str, name: str, inp: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp, **extra}


def _sse(events: list[dict[str, Any]]) -> str:
    """SSE text as the Messages API sends it (an ``event:`` line per event)."""
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events
    )


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _stream_events(
    mid: str,
    blocks: list[dict[str, Any]],
    stop_reason: str,
    *,
    piece: int = 9,
    ping: bool = True,
) -> list[dict[str, Any]]:
    """Raw stream events for one message: tool_use/server_tool_use inputs are
    streamed as input_json_delta pieces (the start block holds ``input: {}``),
    text as text_delta, thinking as thinking_delta + signature_delta."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _usage(out=1),
            },
        }
    ]
    if ping:
        events.append({"type": "ping"})
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind in ("tool_use", "server_tool_use"):
            start = dict(block, input={})
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            text = json.dumps(block["input"]) if block["input"] else ""
            for part in _pieces(text, piece):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": part},
                    }
                )
        elif kind == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": _text("")}
            )
            for part in _pieces(block["text"], 12):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": part},
                    }
                )
        elif kind == "thinking":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                }
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": block["thinking"]},
                }
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "signature_delta", "signature": block["signature"]},
                }
            )
        else:  # result blocks arrive whole in content_block_start
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 87},
        }
    )
    events.append({"type": "message_stop"})
    return events


# -- forms --------------------------------------------------------------------------------


def _model_forms(
    base: str,
    obj: Any,
    expected: tuple[Call, ...] | None,
    note: str,
    *,
    refusal: str | None = None,
    options: dict[str, Any] | None = None,
    extra_dumps: bool = False,
    json_bytes: bool = False,
) -> list[Scenario]:
    """object / model_dump(mode="json") / model_dump_json() (+ to_dict(), to_json()
    bytes) of one SDK model, or of a list of them."""
    opts = options or {}

    def sc(form: str, suffix: str, payload: Any, extra_note: str = "") -> Scenario:
        return Scenario(
            PROVIDER, form, f"{base}-{suffix}", payload, expected, refusal, dict(opts),
            (note + extra_note).strip(),
        )

    dumped = dump_models(obj)
    out = [
        sc("object", "object", obj),
        sc("dump", "dump", dumped, ' model_dump(mode="json"): every optional field present, null.'),
        sc("json", "json", json.dumps(dumped)),
    ]
    if extra_dumps:
        if isinstance(obj, list):
            to_dict: Any = [o.to_dict() for o in obj]
        else:
            to_dict = obj.to_dict()
        out.append(
            sc("dump", "to-dict", to_dict, " to_dict(): unset fields left out (as the API sent it).")
        )
    if json_bytes:
        if isinstance(obj, list):
            raw = json.dumps([o.to_dict() for o in obj]).encode()
        else:
            raw = obj.to_json().encode()
        out.append(sc("json", "json-bytes", raw, " to_json() as bytes (indented, unset fields left out)."))
    return out


def _stream_forms(
    base: str,
    events: list[Any],
    sse_text: str,
    expected: tuple[Call, ...] | None,
    note: str,
    *,
    refusal: str | None = None,
    options: dict[str, Any] | None = None,
) -> list[Scenario]:
    opts = options or {}
    dumped = [e.model_dump(mode="json") for e in events]

    def sc(form: str, suffix: str, payload: Any) -> Scenario:
        return Scenario(
            PROVIDER, form, f"{base}-{suffix}", payload, expected, refusal, dict(opts), note
        )

    return [
        sc("object", "object", events),
        sc("dump", "dump", dumped),
        sc("json", "json", json.dumps(dumped)),
        sc("sse", "sse", sse_text),
        sc("sse", "sse-bytes", sse_text.encode()),
    ]


# -- the scenarios ------------------------------------------------------------------------



def _basic() -> list[Scenario]:
    out: list[Scenario] = []

    # one tool_use after a text block
    m = _create(
        _message(
            "msg_01AbcSingle",
            [
                _text("I'll look up the current weather in Paris."),
                _tool_use("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Paris", "unit": "celsius"}),
            ],
        )
    )
    out += _model_forms(
        "single-tool-use", m,
        (Call("get_weather", {"city": "Paris", "unit": "celsius"}, "toolu_01A09q90qw90lq917835lq9"),),
        "The canonical client tool call: text then one tool_use, stop_reason tool_use.",
        extra_dumps=True, json_bytes=True,
    )

    # parallel tool_use with thinking, redacted thinking and text blocks
    nested = {
        "timezone": "Europe/Paris",
        "options": {"format": "24h", "fields": ["hour", "minute"], "dst": True},
        "precision": None,
    }
    m = _create(
        _message(
            "msg_01AbcParallel",
            [
                {"type": "thinking", "thinking": "Two independent lookups; do them in parallel.",
                 "signature": "EqQBCkYIBRgCKkBsig"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                _text("Checking the weather and the local time."),
                _tool_use("toolu_01ParA", "get_weather", {"city": "Paris"}, caller={"type": "direct"}),
                _tool_use("toolu_01ParB", "get_time", nested),
            ],
        ),
        thinking={"type": "adaptive"},
    )
    parallel = (
        Call("get_weather", {"city": "Paris"}, "toolu_01ParA"),
        Call("get_time", nested, "toolu_01ParB"),
    )
    out += _model_forms(
        "parallel-tool-use-thinking", m, parallel,
        "Parallel tool_use blocks after thinking/redacted_thinking/text; nested input with a null; "
        "one block carries caller {type: direct}.",
        extra_dumps=True,
    )
    # the same content as a bare list of content blocks (message.content)
    out += _model_forms(
        "content-blocks", list(m.content), parallel,
        "A bare list of content blocks (message.content), no message envelope.",
    )

    # tool_use with empty input {}
    m = _create(
        _message("msg_01AbcEmpty", [_tool_use("toolu_01EmptyIn", "list_open_tickets", {})])
    )
    out += _model_forms(
        "tool-use-empty-input", m, (Call("list_open_tickets", {}, "toolu_01EmptyIn"),),
        "tool_use with input {} (a tool with no parameters): arguments {} and raw_arguments None.",
    )

    # text only: no calls
    m = _create(_message("msg_01AbcText", [_text("It is 18 degrees and sunny in Paris.")], "end_turn"))
    out += _model_forms("text-only", m, (), "A plain answer (end_turn): no call, gives [].")

    # stop_reason tool_use but the tool_use block stripped
    m = _create(
        _message("msg_01AbcStripped", [_text("I'll look up the current weather in Paris.")])
    )
    out += _model_forms(
        "stop-reason-tool-use-without-call", m, None,
        "stop_reason 'tool_use' but no tool_use block (a logger/proxy dropped it): REFUSED, "
        "the calls are missing.",
        refusal=MISSING_CALLS,
    )

    # computer-use toolset member: a client tool_use whose name is the action
    m = _create(
        _message(
            "msg_01AbcToolset",
            [
                _text("Clicking the search box."),
                _tool_use("toolu_01Click", "left_click", {"coordinate": [512, 384]},
                          caller={"type": "direct"}, toolset_name="computer"),
            ],
        )
    )
    out += _model_forms(
        "toolset-tool-use", m, (Call("left_click", {"coordinate": [512, 384]}, "toolu_01Click"),),
        "SDK 2.x toolset member tool_use (toolset_name 'computer', name = the action). It is a "
        "client tool_use: name 'left_click', not 'computer'.",
    )
    return out


def _server_tools() -> list[Scenario]:
    out: list[Scenario] = []

    # web search (server tool) then a client tool
    web_result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01WebSearch",
        "content": [
            {"type": "web_search_result", "title": "Paris weather - Meteo", "url": "https://meteo.example/paris",
             "encrypted_content": "EqgfCioIARgBIiQ3YTAw", "page_age": "2 hours ago"},
            {"type": "web_search_result", "title": "Paris forecast", "url": "https://forecast.example/paris",
             "encrypted_content": "EpMCCioIARgBIiQ3YTAx", "page_age": None},
        ],
    }
    cited = {
        "type": "text",
        "text": "Paris is mild today.",
        "citations": [
            {"type": "web_search_result_location", "url": "https://meteo.example/paris",
             "title": "Paris weather - Meteo", "encrypted_index": "Eo8BCioIAhgBIiQ", "cited_text": "Mild, 18C"}
        ],
    }
    m = _create(
        _message(
            "msg_01SrvWeb",
            [
                _text("Let me search for that."),
                {"type": "server_tool_use", "id": "srvtoolu_01WebSearch", "name": "web_search",
                 "input": {"query": "weather Paris today"}},
                web_result,
                cited,
                _tool_use("toolu_01AfterSearch", "convert_units", {"value": 18, "from": "C", "to": "F"}),
            ],
            usage=_usage(server_tool_use={"web_search_requests": 1}),
        ),
        tools=[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
               {"name": "convert_units", "description": "Convert units",
                "input_schema": {"type": "object", "properties": {}}}],
    )
    search = Call("web_search", {"query": "weather Paris today"}, "srvtoolu_01WebSearch")
    convert = Call("convert_units", {"value": 18, "from": "C", "to": "F"}, "toolu_01AfterSearch")
    note = ("server_tool_use web_search (hosted) + web_search_tool_result (a result, not a call) + "
            "cited text + a client tool_use.")
    out += _model_forms("server-web-search", m, (search, convert), note, extra_dumps=True)
    out += _model_forms("server-web-search-hosted-off", m, (convert,), note + " hosted_tools=False.",
                        options=HOSTED_OFF)

    # legacy code execution tool (code_execution_20250522): server_tool_use code_execution
    m = _create(
        _message(
            "msg_01SrvCode",
            [
                _text("I'll compute that."),
                {"type": "server_tool_use", "id": "srvtoolu_01CodeExec", "name": "code_execution",
                 "input": {"code": "import statistics\nprint(statistics.mean([18, 21, 17]))"}},
                {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_01CodeExec",
                 "content": {"type": "code_execution_result", "stdout": "18.666666666666668\n",
                             "stderr": "", "return_code": 0, "content": []}},
                _text("The mean is about 18.7."),
            ],
            "end_turn",
            container={"id": "container_011CPR5CNjB747bTd36fQLFk", "expires_at": "2026-01-01T00:00:00Z"},
        ),
        tools=[{"type": "code_execution_20250522", "name": "code_execution"}],
    )
    code = Call("code_execution", {"code": "import statistics\nprint(statistics.mean([18, 21, 17]))"},
              "srvtoolu_01CodeExec")
    out += _model_forms(
        "server-code-execution", m, (code,),
        "Code execution (hosted): server_tool_use code_execution + code_execution_tool_result; "
        "Message.container is set.",
    )
    out += _model_forms("server-code-execution-hosted-off", m, (),
                        "Same, hosted_tools=False: nothing left.", options=HOSTED_OFF)

    # code_execution_20250825: bash + text editor sub-tools
    m = _create(
        _message(
            "msg_01SrvBash",
            [
                {"type": "server_tool_use", "id": "srvtoolu_01Bash", "name": "bash_code_execution",
                 "input": {"command": "ls -la /tmp"}},
                {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_01Bash",
                 "content": {"type": "bash_code_execution_result", "stdout": "total 0\n", "stderr": "",
                             "return_code": 0, "content": []}},
                {"type": "server_tool_use", "id": "srvtoolu_01Edit", "name": "text_editor_code_execution",
                 "input": {"command": "create", "path": "/tmp/report.py", "file_text": "print('ok')\n"}},
                {"type": "text_editor_code_execution_tool_result", "tool_use_id": "srvtoolu_01Edit",
                 "content": {"type": "text_editor_code_execution_create_result", "is_file_update": False}},
                _text("Created /tmp/report.py."),
            ],
            "end_turn",
            container={"id": "container_011CPR5CNjB747bTd36fQLFk", "expires_at": "2026-01-01T00:00:00Z"},
        ),
        tools=[{"type": "code_execution_20250825", "name": "code_execution"}],
    )
    out += _model_forms(
        "server-bash-text-editor", m,
        (
            Call("bash_code_execution", {"command": "ls -la /tmp"}, "srvtoolu_01Bash"),
            Call("text_editor_code_execution",
               {"command": "create", "path": "/tmp/report.py", "file_text": "print('ok')\n"}, "srvtoolu_01Edit"),
        ),
        "code_execution_20250825 sub-tools: server_tool_use bash_code_execution / "
        "text_editor_code_execution with their *_tool_result blocks.",
    )

    # programmatic tool calling: a client tool_use invoked from inside code execution
    m = _create(
        _message(
            "msg_01SrvProg",
            [
                {"type": "server_tool_use", "id": "srvtoolu_01Prog", "name": "code_execution",
                 "input": {"code": "for c in ['Paris', 'Lyon']:\n    print(await get_weather(city=c))"}},
                _tool_use("toolu_01ProgCall", "get_weather", {"city": "Paris"},
                          caller={"type": "code_execution_20250825", "tool_id": "srvtoolu_01Prog"}),
            ],
            container={"id": "container_011CPR5CNjB747bTd36fQLFk", "expires_at": "2026-01-01T00:00:00Z"},
        ),
        tools=[{"type": "code_execution_20250825", "name": "code_execution"}],
    )
    prog = (
        Call("code_execution", {"code": "for c in ['Paris', 'Lyon']:\n    print(await get_weather(city=c))"},
           "srvtoolu_01Prog"),
        Call("get_weather", {"city": "Paris"}, "toolu_01ProgCall"),
    )
    out += _model_forms(
        "programmatic-tool-calling", m, prog,
        "Programmatic tool calling: the client tool_use carries caller {type: code_execution_20250825, "
        "tool_id}; it is still a client call.",
    )
    out += _model_forms("programmatic-tool-calling-hosted-off", m, prog[1:],
                        "Same, hosted_tools=False keeps only the client tool_use.", options=HOSTED_OFF)

    # beta: MCP connector
    m = _beta_create(
        _message(
            "msg_01BetaMcp",
            [
                {"type": "mcp_tool_listing", "mcp_server_name": "weather-mcp",
                 "tools": [{"name": "get_forecast", "description": "Forecast for a city",
                            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]},
                _text("I'll ask the weather server."),
                {"type": "mcp_tool_use", "id": "mcptoolu_01Forecast", "name": "get_forecast",
                 "server_name": "weather-mcp", "input": {"city": "Paris", "days": 3}},
                {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01Forecast", "is_error": False,
                 "content": [{"type": "text", "text": "Sunny, 18C"}]},
                _text("Sunny and 18C for the next three days."),
            ],
            "end_turn",
        ),
        mcp_servers=[{"type": "url", "url": "https://mcp.example.com/sse", "name": "weather-mcp"}],
        betas=["mcp-client-2025-11-20"],
    )
    mcp = (Call("get_forecast", {"city": "Paris", "days": 3}, "mcptoolu_01Forecast"),)
    note = ("Beta MCP connector (client.beta.messages.create with mcp_servers): mcp_tool_listing, "
            "mcp_tool_use (hosted) and mcp_tool_result (not a call). A BetaMessage.")
    out += _model_forms("beta-mcp-tool-use", m, mcp, note, extra_dumps=True)
    out += _model_forms("beta-mcp-tool-use-hosted-off", m, (), note + " hosted_tools=False.",
                        options=HOSTED_OFF)
    return out


# the conversation used by the per-turn and request-style scenarios
_TURNS = [
    ("msg_01Turn1", [_text("Let me check."), _tool_use("toolu_01T1", "get_weather", {"city": "Paris"})],
     "tool_use"),
    ("msg_01Turn2", [_tool_use("toolu_01T2a", "get_weather", {"city": "Lyon"}),
                     _tool_use("toolu_01T2b", "get_time", {"timezone": "Europe/Paris"})], "tool_use"),
    ("msg_01Turn3", [_text("Paris 18C, Lyon 21C, it is 14:05.")], "end_turn"),
]
_TURN_CALLS = (
    Call("get_weather", {"city": "Paris"}, "toolu_01T1"),
    Call("get_weather", {"city": "Lyon"}, "toolu_01T2a"),
    Call("get_time", {"timezone": "Europe/Paris"}, "toolu_01T2b"),
)


def _conversations() -> list[Scenario]:
    out: list[Scenario] = []
    # one Message per turn, through the client; the client-side loop feeds results back
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris and Lyon, and the time?"}]
    responses = []
    as_params: list[Any] = [messages[0]]
    for mid, content, stop in _TURNS:
        resp = _create(_message(mid, content, stop), messages=list(messages))
        responses.append(resp)
        uses = [b for b in resp.content if b.type == "tool_use"]
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": json.dumps({"ok": True})} for b in uses
        ]
        # the docs' pattern: append the SDK blocks themselves
        messages.append({"role": "assistant", "content": resp.content})
        as_params.append(resp.to_param())
        if results:
            messages.append({"role": "user", "content": results})
            as_params.append({"role": "user", "content": results})
    out += _model_forms(
        "messages-per-turn", responses, _TURN_CALLS,
        "A list of Message objects, one per turn (the last one a plain answer).",
        extra_dumps=True, json_bytes=True,
    )
    out.append(Scenario(
        PROVIDER, "list", "conversation-sdk-blocks", messages, _TURN_CALLS,
        note="Request-style messages as the docs build them: "
             "{'role': 'assistant', 'content': response.content} holds SDK block OBJECTS inside plain "
             "dicts; user turns hold tool_result dicts.",
    ))
    out.append(Scenario(
        PROVIDER, "list", "conversation-to-param", as_params, _TURN_CALLS,
        note="Request-style messages built with Message.to_param() (role + list of SDK block objects).",
    ))
    # the request body the SDK actually sent for the last turn (captured by the mock)
    body = _SERVER.requests[-1]
    out.append(Scenario(
        PROVIDER, "dump", "conversation-request-messages", body["messages"], _TURN_CALLS[:3],
        note="The JSON 'messages' list the SDK sent on the final request (user string, assistant "
             "text+tool_use, user tool_result...). The final answer is not in it.",
    ))
    out.append(Scenario(
        PROVIDER, "json", "conversation-request-messages-json", json.dumps(body["messages"]),
        _TURN_CALLS[:3], note="Same as JSON text.",
    ))

    # a hand-written request-style conversation with string content and tool_result turns
    convo = [
        {"role": "user", "content": "Book a table for two at 8pm and text Sam."},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Booking first."},
            {"type": "tool_use", "id": "toolu_01Book", "name": "book_table",
             "input": {"party_size": 2, "time": "20:00", "notes": {"window": True}}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Book", "content": "Booked, ref 4411"},
        ]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01Sms", "name": "send_sms",
             "input": {"to": "Sam", "body": "Dinner at 8, ref 4411"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Sms", "content": [{"type": "text", "text": "sent"}],
             "is_error": False},
            {"type": "text", "text": "Thanks!"},
        ]},
        {"role": "assistant", "content": "Done: table booked and Sam has been texted."},
    ]
    expected = (
        Call("book_table", {"party_size": 2, "time": "20:00", "notes": {"window": True}}, "toolu_01Book"),
        Call("send_sms", {"to": "Sam", "body": "Dinner at 8, ref 4411"}, "toolu_01Sms"),
    )
    note = ("Request-style conversation: user turns hold tool_result blocks (results, not calls), "
            "string content on the first and last turns.")
    out.append(Scenario(PROVIDER, "dump", "request-conversation", convo, expected, note=note))
    out.append(Scenario(PROVIDER, "json", "request-conversation-json", json.dumps(convo), expected,
                        note=note))
    out.append(Scenario(PROVIDER, "json", "request-conversation-json-bytes",
                        json.dumps(convo).encode(), expected, note=note))
    return out


def _streams() -> list[Scenario]:
    out: list[Scenario] = []
    nested = {"city": "Paris", "days": [1, 2, 3], "options": {"unit": "celsius", "hourly": False}}
    blocks = [
        {"type": "thinking", "thinking": "Need weather and tickets.", "signature": "EqQBCkYIBRgCKkBsig"},
        _text("Checking both now."),
        _tool_use("toolu_01StrA", "get_weather", nested),
        _tool_use("toolu_01StrB", "search_tickets", {"query": "Louvre \"late\" entry", "limit": 5}),
    ]
    events = _stream_events("msg_01Stream", blocks, "tool_use")
    sse = _sse(events)
    expected = (
        Call("get_weather", nested, "toolu_01StrA"),
        Call("search_tickets", {"query": "Louvre \"late\" entry", "limit": 5}, "toolu_01StrB"),
    )
    note = ("Raw stream of client.messages.create(stream=True): content_block_start tool_use (input "
            "{}) then input_json_delta pieces, for two calls, after thinking and text blocks. The SSE "
            "text holds a 'ping' event the SDK drops.")
    out += _stream_forms("stream-two-calls", _stream_raw(sse), sse, expected, note)

    helper_events, final = _stream_helper(sse)
    out.append(Scenario(
        PROVIDER, "object", "stream-helper-events-object", helper_events, expected,
        note="list(client.messages.stream(...)): the raw events PLUS the SDK's helper events "
             "(text, thinking, input_json with a snapshot, content_block_stop carrying the whole "
             "block, message_stop carrying the whole message). Each call must come back once.",
    ))
    out.append(Scenario(
        PROVIDER, "dump", "stream-helper-events-dump", [e.model_dump(mode="json") for e in helper_events],
        expected, note="Dumps of the helper events (content_block_stop.content_block, message_stop.message).",
    ))
    out += _model_forms(
        "stream-final-message", final, expected,
        "client.messages.stream(...).get_final_message(): a ParsedMessage with the joined inputs.",
    )

    # empty input streamed as a single empty input_json_delta
    blocks = [_tool_use("toolu_01StrEmpty", "list_open_tickets", {}),
              _tool_use("toolu_01StrNext", "get_weather", {"city": "Nice"})]
    events = _stream_events("msg_01StreamEmpty", blocks, "tool_use", piece=4, ping=False)
    sse = _sse(events)
    out += _stream_forms(
        "stream-empty-input", _stream_raw(sse), sse,
        (Call("list_open_tickets", {}, "toolu_01StrEmpty"), Call("get_weather", {"city": "Nice"}, "toolu_01StrNext")),
        "A tool_use with no arguments streams one input_json_delta with partial_json '': "
        "arguments {} and raw_arguments None; the next call's pieces are 4 characters long.",
    )

    # server tool in a stream
    blocks = [
        {"type": "server_tool_use", "id": "srvtoolu_01StrWeb", "name": "web_search",
         "input": {"query": "Louvre opening hours"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01StrWeb",
         "content": [{"type": "web_search_result", "title": "Louvre", "url": "https://louvre.example",
                      "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": None}]},
        _text("The Louvre opens at 9am."),
    ]
    events = _stream_events("msg_01StreamWeb", blocks, "end_turn")
    sse = _sse(events)
    web = (Call("web_search", {"query": "Louvre opening hours"}, "srvtoolu_01StrWeb"),)
    note = ("Stream with a server_tool_use (input streamed by input_json_delta) and a "
            "web_search_tool_result block that arrives whole in content_block_start.")
    raw = _stream_raw(sse)
    out += _stream_forms("stream-server-tool", raw, sse, web, note)
    out.append(Scenario(PROVIDER, "object", "stream-server-tool-hosted-off-object", raw, (), None,
                        dict(HOSTED_OFF), note + " hosted_tools=False."))

    # stream that says tool_use but holds no tool_use block
    events = _stream_events("msg_01StreamStripped", [_text("Let me check the weather.")], "tool_use")
    sse = _sse(events)
    out += _stream_forms(
        "stream-stop-reason-tool-use-without-call", _stream_raw(sse), sse, None,
        "message_delta says stop_reason 'tool_use' but no tool_use block was streamed: REFUSED.",
        refusal=MISSING_CALLS,
    )
    return out


def scenarios() -> list[Scenario]:
    _SERVER.queue.clear()  # a failed earlier build must not leave bodies behind
    return _basic() + _server_tools() + _conversations() + _streams()


# -- writers -----------------------------------------------------------------------------


def _expected(call: Call, cid: str | None) -> Call:
    return Call(call.name if call.name else "<unnamed>", dict(call.arguments or {}), cid)


def _turn_blocks(turn: list[Call], t: int) -> tuple[list[dict[str, Any]], list[Call]]:
    blocks: list[dict[str, Any]] = []
    expected = []
    if not turn:
        return [_text(f"Turn {t}: nothing to call.")], []
    if t % 2:
        blocks.append(_text(f"Turn {t}: calling {len(turn)} tool(s)."))
    for i, call in enumerate(turn):
        cid = call.id if call.id is not None else f"toolu_w{t:02d}_{i:02d}"
        blocks.append(_tool_use(cid, call.name, dict(call.arguments or {})))
        expected.append(_expected(call, cid))
    return blocks, expected


def write_messages_per_turn(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """A list of Message objects (through the client), one per turn."""
    payload, expected = [], []
    for t, turn in enumerate(turns):
        blocks, exp = _turn_blocks(turn, t)
        payload.append(_create(_message(f"msg_w{t:03d}", blocks, "tool_use" if turn else "end_turn")))
        expected += exp
    return payload, tuple(expected)


def write_conversation(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """Request-style messages: user question, then per turn an assistant message
    (tool_use blocks, or string content for an empty turn) and a user message
    with the tool_result blocks."""
    payload: list[dict[str, Any]] = [{"role": "user", "content": "Please help."}]
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        blocks, exp = _turn_blocks(turn, t)
        expected += exp
        if not turn:
            payload.append({"role": "assistant", "content": blocks[0]["text"]})
            payload.append({"role": "user", "content": "Go on."})
            continue
        payload.append({"role": "assistant", "content": blocks})
        payload.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"], "content": "ok"}
            for b in blocks if b["type"] == "tool_use"
        ]})
    return payload, tuple(expected)


def write_stream_events(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """Raw stream event objects (client.messages.create(stream=True)), one
    stream per turn, concatenated: every stream restarts content indexes at 0."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        blocks, exp = _turn_blocks(turn, t)
        events = _stream_events(f"msg_ws{t:03d}", blocks, "tool_use" if turn else "end_turn",
                                piece=3 + t % 7, ping=t % 2 == 0)
        payload += _stream_raw(_sse(events))
        expected += exp
    return payload, tuple(expected)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "messages_per_turn": write_messages_per_turn,
        "conversation": write_conversation,
        "stream_events": write_stream_events,
    }
