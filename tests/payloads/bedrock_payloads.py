"""Ground-truth AWS Bedrock Runtime (Converse API) payloads, built offline with the real boto3.

Every payload here is what ``boto3.client("bedrock-runtime")`` hands back, offline:

* ``converse()`` through ``botocore.stub.Stubber`` (the response is validated
  against the service model; boto3 returns the stubbed dict itself, with no
  ResponseMetadata), or through a real HTTP server on 127.0.0.1 serving the
  JSON body, so the dict is what botocore's rest-json parser makes of the
  wire bytes (with ResponseMetadata and HTTPHeaders; unmodelled keys such as
  ``usage.serverToolUsage`` are dropped).
* ``converse_stream()`` through the same server serving
  ``application/vnd.amazon.eventstream`` frames (encoded here, with the ``"p"``
  padding field real Bedrock adds, which boto3 drops), collected as
  ``list(response["stream"])``.
* ``invoke_model()`` for Amazon Nova models (the body has the Converse
  ``output.message`` shape).
* Recorded response bodies from the live API (VCR cassettes of other
  projects, embedded at the end of this module with their source), served
  through the same server and decoded by boto3.

No credentials or network beyond 127.0.0.1 are used: clients get fake keys
and ``proxies={}``; every server is stopped (and its threads joined) before
the function that started it returns.

Provider: "bedrock". See NOTES.md (tests/payloads/BEDROCK_NOTES.md once
copied) for what the real objects look like.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import hashlib
import io
import json
import socket
import struct
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.response import StreamingBody
from botocore.stub import Stubber

from payloads._scenario import Call, Scenario

PROVIDER = "bedrock"
REGION = "us-east-1"
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "us.amazon.nova-micro-v1:0"
MISSING_CALLS = r"(?i)\bmissing\b"  # the reader must say the calls are missing
HOSTED_OFF = {"hosted_tools": False}
#: a fixed Date header, so payloads are the same on every run
DATE = "Tue, 01 Dec 2026 12:00:00 GMT"
QUESTION = [{"role": "user", "content": [{"text": "What's the weather in Paris?"}]}]
TOOL_CONFIG = {
    "tools": [
        {"toolSpec": {"name": "get_weather", "description": "Current weather for a city",
                      "inputSchema": {"json": {"type": "object",
                                               "properties": {"city": {"type": "string"}}}}}},
    ]
}


# -- clients -------------------------------------------------------------------------------

_SESSION: boto3.session.Session | None = None
_STUB_CLIENT: Any = None
_CONFIG = Config(
    retries={"max_attempts": 1, "mode": "standard"},  # one attempt: a failure shows at once
    proxies={},  # never route 127.0.0.1 through an HTTP(S)_PROXY from the environment
    connect_timeout=5,
    read_timeout=10,
)


def _session() -> boto3.session.Session:
    """A boto3 session with fake credentials (no credential lookup, no real AWS).
    Its botocore session ignores AWS_PROFILE: a profile named there that does not
    exist would otherwise raise ProfileNotFound even with explicit keys."""
    global _SESSION
    if _SESSION is None:
        core = botocore.session.Session(session_vars={"profile": (None, None, None, None)})
        _SESSION = boto3.session.Session(
            botocore_session=core,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            aws_session_token="testing",
            region_name=REGION,
        )
    return _SESSION


def _client(endpoint_url: str | None = None) -> Any:
    return _session().client("bedrock-runtime", endpoint_url=endpoint_url, config=_CONFIG)


def _stub_client() -> Any:
    """The client used with Stubber (it never sends a request)."""
    global _STUB_CLIENT
    if _STUB_CLIENT is None:
        _STUB_CLIENT = _client()
    return _STUB_CLIENT


# -- wire helpers --------------------------------------------------------------------------


def _wire(value: Any) -> Any:
    """The JSON the service sends: blobs (bytes) as base64 text."""
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode()
    return value


def _default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, (datetime.datetime, datetime.date)):
        return str(value)
    return str(value)


def _safe(value: Any) -> Any:
    """A JSON-safe copy: json round trip, bytes as base64 text (as on the wire),
    datetimes (none appear in bedrock-runtime responses) as str."""
    return json.loads(json.dumps(value, default=_default))


_PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return bytes([len(n)]) + n + b"\x07" + struct.pack(">H", len(v)) + v  # 7 = string


def _frame(event_type: str, payload: bytes, message_type: str = "event") -> bytes:
    """One application/vnd.amazon.eventstream message: prelude (total length,
    headers length, prelude CRC32), headers, payload, message CRC32."""
    headers = (_header(":event-type", event_type) + _header(":content-type", "application/json")
               + _header(":message-type", message_type))
    prelude = struct.pack(">II", 12 + len(headers) + len(payload) + 4, len(headers))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + headers + payload
    return message + struct.pack(">I", binascii.crc32(message))


def _event_stream(events: list[dict[str, Any]]) -> bytes:
    """Frames for ``[{"messageStart": {...}}, ...]``: the JSON payload of each is
    the event body with sorted keys and the ``"p"`` padding field (a prefix of
    the alphabet, as real Bedrock sends it)."""
    out = []
    for i, event in enumerate(events):
        ((kind, body),) = event.items()
        padded = dict(_wire(body), p=_PAD[: (i * 23 + 7) % 58 + 1])
        out.append(_frame(kind, json.dumps(padded, sort_keys=True, separators=(",", ":")).encode()))
    return b"".join(out)


# -- the local Bedrock Runtime ---------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # a stuck keep-alive connection cannot keep a thread forever

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes: without this, Nagle plus the
        # client's delayed ACK add 40 ms to every response
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        owner: _Bedrock = self.server.owner  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        owner.requests.append({"path": self.path, "body": json.loads(raw or b"{}")})
        ctype, payload = owner.queue.pop(0)
        owner.count += 1
        self.send_response_only(200)
        self.send_header("date", DATE)
        self.send_header("content-type", ctype)
        chunked = ctype == "application/vnd.amazon.eventstream"
        if chunked:
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("content-length", str(len(payload)))
        self.send_header("connection", "keep-alive")
        self.send_header("x-amzn-requestid", f"5e1f{owner.count:04x}-0b7a-4c3d-9e2f-{owner.count:012x}")
        self.end_headers()
        if chunked:  # odd-sized chunks: frames arrive split across reads
            for i in range(0, len(payload), 97):
                piece = payload[i : i + 97]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


class _Bedrock:
    """A Bedrock Runtime on 127.0.0.1 serving queued bodies, and a real boto3
    client pointed at it (``endpoint_url``). Use as a context manager: on exit
    the client's connections are closed, the server is shut down and every
    thread it started is joined."""

    def __init__(self) -> None:
        self.queue: list[tuple[str, bytes]] = []
        self.requests: list[dict[str, Any]] = []
        self.count = 0

    def __enter__(self) -> _Bedrock:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = False
        self.server.block_on_close = True  # server_close() joins the handler threads
        self.server.owner = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, name="bedrock-local",
                                       kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()
        host, port = self.server.server_address[:2]
        self.client = _client(f"http://{host}:{port}")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.client.close()  # ends the keep-alive connection, so its handler thread returns
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    # the operations, each answered with one queued body

    def converse(self, body: dict[str, Any] | str, **request: Any) -> dict[str, Any]:
        text = body if isinstance(body, str) else json.dumps(_wire(body))
        self.queue.append(("application/json", text.encode()))
        return self.client.converse(**_request(request))

    def converse_stream_raw(self, raw: bytes, **request: Any) -> list[dict[str, Any]]:
        self.queue.append(("application/vnd.amazon.eventstream", raw))
        response = self.client.converse_stream(**_request(request))
        return list(response["stream"])

    def converse_stream(self, events: list[dict[str, Any]], **request: Any) -> list[dict[str, Any]]:
        got = self.converse_stream_raw(_event_stream(events), **request)
        # botocore decoded every frame (CRCs checked) and dropped the "p" padding
        assert _safe(got) == _safe(events), (got, events)
        return got

    def invoke_model(self, body: dict[str, Any] | str, model: str = NOVA) -> tuple[dict[str, Any], bytes]:
        text = body if isinstance(body, str) else json.dumps(body)
        self.queue.append(("application/json", text.encode()))
        response = self.client.invoke_model(
            modelId=model, contentType="application/json", accept="application/json",
            body=json.dumps({"schemaVersion": "messages-v1", "messages": QUESTION,
                             "toolConfig": TOOL_CONFIG, "inferenceConfig": {"maxTokens": 512}}),
        )
        return response, response["body"].read()

    def invoke_model_with_response_stream(self, raw: bytes, model: str) -> list[dict[str, Any]]:
        self.queue.append(("application/vnd.amazon.eventstream", raw))
        response = self.client.invoke_model_with_response_stream(
            modelId=model, contentType="application/json", accept="application/json",
            body=json.dumps({"messages": QUESTION}),
        )
        return list(response["body"])


def _request(request: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"modelId": CLAUDE, "messages": QUESTION, "toolConfig": TOOL_CONFIG,
                              "inferenceConfig": {"maxTokens": 1024}}
    params.update(request)
    return params


@contextmanager
def _stubbed() -> Iterator[Any]:
    """(client, stubber) with the Stubber active; every queued response must be used."""
    client = _stub_client()
    stubber = Stubber(client)
    with stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _stub_converse(body: dict[str, Any], **request: Any) -> dict[str, Any]:
    """client.converse(...) answered by Stubber with ``body`` (validated against
    the ConverseResponse shape; boto3 returns the stubbed dict itself)."""
    with _stubbed() as (client, stubber):
        stubber.add_response("converse", copy.deepcopy(body), _request(request))
        return client.converse(**_request(request))


# -- body builders (the API's JSON, by hand, as the docs and recordings show it) -------------


def _text(text: str) -> dict[str, Any]:
    return {"text": text}


def _tool(tid: str, name: str, inp: Any, **extra: Any) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": tid, "name": name, "input": inp, **extra}}


def _reasoning(text: str, signature: str) -> dict[str, Any]:
    return {"reasoningContent": {"reasoningText": {"text": text, "signature": signature}}}


def _redacted(blob: bytes) -> dict[str, Any]:
    return {"reasoningContent": {"redactedContent": blob}}


def _usage(inp: int = 412, out: int = 96) -> dict[str, Any]:
    return {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out}


def _converse_body(content: list[dict[str, Any]], stop: str = "tool_use", *, latency: int = 1234,
                   **extra: Any) -> dict[str, Any]:
    """A ConverseResponse body (what the service sends, minus blobs' base64)."""
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": _usage(),
        "metrics": {"latencyMs": latency},
        **extra,
    }


def _on_the_wire(body: dict[str, Any]) -> dict[str, Any]:
    """The body as recent live responses carry it: usage also holds keys the
    service model does not have (botocore's parser drops them)."""
    body = copy.deepcopy(body)
    body["usage"].update({"serverToolUsage": {}, "cacheReadInputTokenCount": 0,
                          "cacheWriteInputTokenCount": 0})
    return body


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _stream_events(blocks: list[dict[str, Any]], stop: str, *, style: str | list[str] = "claude",
                   piece: int = 9) -> list[dict[str, Any]]:
    """ConverseStream events for one message, as real Bedrock sends them:
    messageStart; per block: contentBlockStart ONLY for toolUse blocks (text and
    reasoning blocks start with their first delta), deltas, contentBlockStop;
    messageStop; metadata. ``style="claude"``: a toolUse input streams as an
    empty first piece then pieces of ``piece`` characters (an empty input: the
    empty piece alone); ``"nova"``: the whole compact JSON in one delta;
    ``"none"``: no delta at all (a list gives one style per block)."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for index, block in enumerate(blocks):
        if "toolUse" in block:
            use = block["toolUse"]
            start = {k: v for k, v in use.items() if k != "input"}
            events.append({"contentBlockStart": {"start": {"toolUse": start}, "contentBlockIndex": index}})
            how = style[index] if isinstance(style, list) else style
            if how == "claude":
                text = json.dumps(use["input"]) if use["input"] else ""
                parts = [""] + _pieces(text, piece)
            elif how == "nova":
                parts = [json.dumps(use["input"], separators=(",", ":"))]
            else:
                parts = []
            events += [{"contentBlockDelta": {"delta": {"toolUse": {"input": p}}, "contentBlockIndex": index}}
                       for p in parts]
        elif "text" in block:
            events += [{"contentBlockDelta": {"delta": {"text": p}, "contentBlockIndex": index}}
                       for p in _pieces(block["text"], 12) or [""]]
        elif "reasoningText" in block.get("reasoningContent", {}):
            r = block["reasoningContent"]["reasoningText"]
            events += [{"contentBlockDelta": {"delta": {"reasoningContent": {"text": p}},
                                              "contentBlockIndex": index}} for p in _pieces(r["text"], 16)]
            events.append({"contentBlockDelta": {"delta": {"reasoningContent": {"signature": r["signature"]}},
                                                 "contentBlockIndex": index}})
        elif "redactedContent" in block.get("reasoningContent", {}):
            events.append({"contentBlockDelta": {
                "delta": {"reasoningContent": {"redactedContent": block["reasoningContent"]["redactedContent"]}},
                "contentBlockIndex": index}})
        else:
            raise ValueError(block)
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
    events.append({"messageStop": {"stopReason": stop}})
    events.append({"metadata": {"usage": _usage(), "metrics": {"latencyMs": 987}}})
    return events


# -- forms --------------------------------------------------------------------------------


def _sc(form: str, name: str, payload: Any, expected: tuple[Call, ...] | None, note: str, *,
        refusal: str | None = None, options: dict[str, Any] | None = None) -> Scenario:
    return Scenario(PROVIDER, form, name, payload, expected, refusal, dict(options or {}), note.strip())


def _forms(base: str, obj: Any, expected: tuple[Call, ...] | None, note: str, *,
           refusal: str | None = None, options: dict[str, Any] | None = None,
           json_bytes: bool = False, object_form: bool = True) -> list[Scenario]:
    """object (what boto3 returned) / dump (JSON-safe copy) / json (its text)."""
    dumped = _safe(obj)
    kw = {"refusal": refusal, "options": options}
    out = []
    if object_form:
        out.append(_sc("object", f"{base}-object", obj, expected, note, **kw))
    out.append(_sc("dump", f"{base}-dump", dumped, expected,
                   note + " JSON-safe copy (json round trip; bytes as base64 text).", **kw))
    out.append(_sc("json", f"{base}-json", json.dumps(dumped), expected, note + " As JSON text.", **kw))
    if json_bytes:
        out.append(_sc("json", f"{base}-json-bytes", json.dumps(dumped).encode(), expected,
                       note + " As JSON bytes.", **kw))
    return out



# -- converse() -----------------------------------------------------------------------------

NESTED = {
    "query": {"text": "café near the Louvre", "filters": [
        {"field": "price", "op": "<", "value": 30.5}, {"field": "open_now", "op": "=", "value": True}]},
    "sort": {"by": "rating", "descending": True},
    "page": {"size": 5, "cursor": None},
    "tags": ["wifi", "terrace"],
}


def _converse(srv: _Bedrock) -> list[Scenario]:
    out: list[Scenario] = []

    body = _converse_body([_tool("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "get_weather",
                                 {"city": "Paris", "unit": "celsius"})])
    resp = srv.converse(_on_the_wire(body))
    one = (Call("get_weather", {"city": "Paris", "unit": "celsius"}, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"),)
    note = ("client.converse(...) answered by a local HTTP server: one toolUse block, stopReason "
            "tool_use; the dict holds ResponseMetadata (RequestId, HTTPStatusCode, HTTPHeaders, "
            "RetryAttempts).")
    out += _forms("single-call", resp, one, note, json_bytes=True)
    out += _forms("single-call-stubbed", _stub_converse(body), one,
                  "The same response through botocore.stub.Stubber: the stubbed dict itself, no "
                  "ResponseMetadata.")
    out.append(_sc("dump", "single-call-output-message-dump", _safe(resp["output"]["message"]), one,
                   "Only response['output']['message'] (role + content), as users append it to messages."))

    body = _converse_body([
        _text("I'll look up all three cities at once."),
        _tool("tooluse_1A2b3C4d5E6f7G8h9I0jKa", "get_weather", {"city": "Paris"}),
        _tool("tooluse_2B3c4D5e6F7g8H9i0J1kLb", "get_weather", {"city": "Lyon"}),
        _tool("tooluse_3C4d5E6f7G8h9I0j1K2lMc", "get_time", {"timezone": "Europe/Paris"}),
    ])
    resp = srv.converse(_on_the_wire(body))
    parallel = (
        Call("get_weather", {"city": "Paris"}, "tooluse_1A2b3C4d5E6f7G8h9I0jKa"),
        Call("get_weather", {"city": "Lyon"}, "tooluse_2B3c4D5e6F7g8H9i0J1kLb"),
        Call("get_time", {"timezone": "Europe/Paris"}, "tooluse_3C4d5E6f7G8h9I0j1K2lMc"),
    )
    out += _forms("parallel-calls", resp, parallel,
                  "Text then three toolUse blocks in one message (two with the same name).")

    body = _converse_body([_text("Let me check the forecast first."),
                           _tool("tooluse_TxT1hEnC4llQ0aBcDeFgHi", "get_forecast", {"city": "Nice", "days": 3})])
    text_call = (Call("get_forecast", {"city": "Nice", "days": 3}, "tooluse_TxT1hEnC4llQ0aBcDeFgHi"),)
    note = "A text block then one toolUse block."
    out += _forms("text-then-call", srv.converse(_on_the_wire(body)), text_call, note)
    out += _forms("text-then-call-stubbed", _stub_converse(body), text_call, note + " Through Stubber.")

    body = _converse_body([_tool("tooluse_N0InPuT0000000000000aa", "list_open_tickets", {}),
                           _tool("tooluse_N0InPuT0000000000000bb", "get_weather", {"city": "Nice"})])
    out += _forms("no-input", srv.converse(_on_the_wire(body)),
                  (Call("list_open_tickets", {}, "tooluse_N0InPuT0000000000000aa"),
                   Call("get_weather", {"city": "Nice"}, "tooluse_N0InPuT0000000000000bb")),
                  "A tool with no arguments: input {} (then a second call).")

    body = _converse_body([_tool("tooluse_NeStEd00000000000000cc", "search_places", NESTED)])
    nested = (Call("search_places", NESTED, "tooluse_NeStEd00000000000000cc"),)
    note = "Nested input: objects in lists, null, a float, booleans, non-ASCII text."
    out += _forms("nested-input", srv.converse(_on_the_wire(body)), nested, note)
    out += _forms("nested-input-stubbed", _stub_converse(body), nested, note + " Through Stubber.")

    body = _converse_body([
        _reasoning("The user wants Paris weather; call get_weather.", "EqQBCkYIBRgCKkBsigPaRiS01"),
        _redacted(b"\x12\x34redacted-thinking\x00\xff"),
        _text("Checking now."),
        _tool("tooluse_ReAsOn00000000000000dd", "get_weather", {"city": "Paris"}),
    ])
    reasoning = (Call("get_weather", {"city": "Paris"}, "tooluse_ReAsOn00000000000000dd"),)
    note = ("reasoningContent (reasoningText with signature, and a redactedContent blob: bytes in the "
            "object form) before text and a toolUse.")
    out += _forms("reasoning-then-call", srv.converse(_on_the_wire(body)), reasoning, note)
    out += _forms("reasoning-then-call-stubbed", _stub_converse(body), reasoning, note + " Through Stubber.")

    body = _converse_body([_text("Paris is 18°C and sunny.")], "end_turn")
    out += _forms("text-only", srv.converse(_on_the_wire(body)), (),
                  "A plain answer (stopReason end_turn): no calls.")

    body = _converse_body([_text("Let me look that up for you.")], "tool_use")
    note = "stopReason 'tool_use' but the message holds no toolUse block: REFUSED (calls were lost)."
    out += _forms("stop-reason-tool-use-without-call", srv.converse(_on_the_wire(body)), None, note,
                  refusal=MISSING_CALLS)
    out += _forms("stop-reason-tool-use-without-call-stubbed", _stub_converse(body), None,
                  note + " Through Stubber.", refusal=MISSING_CALLS)
    return out


# -- a conversation -------------------------------------------------------------------------

_TURNS = [
    ([_text("Let me check Paris first."), _tool("tooluse_T1aaaaaaaaaaaaaaaaaaaa", "get_weather", {"city": "Paris"})],
     "tool_use"),
    ([_tool("tooluse_T2aaaaaaaaaaaaaaaaaaaa", "get_weather", {"city": "Lyon"}),
      _tool("tooluse_T2bbbbbbbbbbbbbbbbbbbb", "get_time", {"timezone": "Europe/Paris"})], "tool_use"),
    ([_tool("tooluse_T3aaaaaaaaaaaaaaaaaaaa", "send_sms", {"to": "Sam", "body": "Paris 18C, Lyon 21C"})],
     "tool_use"),
    ([_text("Done: Paris 18°C, Lyon 21°C, it is 14:05, and Sam has been texted.")], "end_turn"),
]
_TURN_CALLS = (
    Call("get_weather", {"city": "Paris"}, "tooluse_T1aaaaaaaaaaaaaaaaaaaa"),
    Call("get_weather", {"city": "Lyon"}, "tooluse_T2aaaaaaaaaaaaaaaaaaaa"),
    Call("get_time", {"timezone": "Europe/Paris"}, "tooluse_T2bbbbbbbbbbbbbbbbbbbb"),
    Call("send_sms", {"to": "Sam", "body": "Paris 18C, Lyon 21C"}, "tooluse_T3aaaaaaaaaaaaaaaaaaaa"),
)


def _tool_results(message: dict[str, Any], turn: int) -> list[dict[str, Any]]:
    """The user's toolResult blocks for the toolUse blocks of ``message``:
    json content, text content, and an error status, in turn."""
    results = []
    for i, block in enumerate(b for b in message["content"] if "toolUse" in b):
        tid = block["toolUse"]["toolUseId"]
        if (turn + i) % 3 == 0:
            results.append({"toolResult": {"toolUseId": tid, "content": [{"json": {"ok": True, "temp_c": 18}}]}})
        elif (turn + i) % 3 == 1:
            results.append({"toolResult": {"toolUseId": tid, "content": [{"text": "14:05"}]}})
        else:
            results.append({"toolResult": {"toolUseId": tid, "content": [{"text": "rate limited"}],
                                           "status": "error"}})
    return results


def _conversation(srv: _Bedrock) -> list[Scenario]:
    """The Converse tool loop of the docs: append response['output']['message'],
    then a user message of toolResult blocks, and call converse again."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [
        {"text": "Weather in Paris and Lyon, the time, then text Sam."}]}]
    responses = []
    for turn, (content, stop) in enumerate(_TURNS):
        resp = srv.converse(_on_the_wire(_converse_body(content, stop)), messages=list(messages))
        responses.append(resp)
        message = resp["output"]["message"]
        if resp["stopReason"] != "tool_use":
            break
        messages.append(message)
        messages.append({"role": "user", "content": _tool_results(message, turn)})
    sent = srv.requests[-1]["body"]["messages"]  # what boto3 serialized on the last request
    out: list[Scenario] = []
    note = ("The messages list sent on the final converse() request: assistant messages with toolUse "
            "blocks (the dicts boto3 returned), user messages with toolResult blocks (json, text, "
            "status error): results are not calls. The final answer is not in it.")
    out += _forms("conversation-request-messages", messages, _TURN_CALLS, note, json_bytes=True)
    out.append(_sc("dump", "conversation-request-body-dump", sent, _TURN_CALLS,
                   "The 'messages' of the JSON body boto3 put on the wire for the final request "
                   "(captured by the local server)."))
    final = messages + [responses[-1]["output"]["message"]]
    out.append(_sc("list", "conversation-with-final-message-list", final, _TURN_CALLS,
                   "messages + the final response's output.message appended (the docs' loop)."))
    out += _forms("responses-per-turn", responses, _TURN_CALLS,
                  "A list of the four converse() responses, one per turn (the last a plain answer).")
    out.append(_sc("list", "responses-per-turn-mixed-list",
                   [responses[0], _safe(responses[1]), json.dumps(_safe(responses[2])), responses[3]],
                   _TURN_CALLS, "Per-turn responses held in mixed forms: dict, dump, JSON text, dict."))
    return out


# -- InvokeModel (Amazon Nova: the body has the Converse output.message shape) --------------


def _nova_body(content: list[dict[str, Any]], stop: str = "tool_use") -> dict[str, Any]:
    return {"output": {"message": {"content": content, "role": "assistant"}}, "stopReason": stop,
            "usage": {"inputTokens": 408, "outputTokens": 54, "totalTokens": 462,
                      "cacheReadInputTokenCount": 0, "cacheWriteInputTokenCount": 0}}


def _invoke(srv: _Bedrock) -> list[Scenario]:
    out: list[Scenario] = []
    body = _nova_body([
        _text("<thinking> I will use get_weather for Paris. </thinking>\n"),
        {"toolUse": {"name": "get_weather", "toolUseId": "f138f98b-8fa4-46e8-8d0f-6a3da738bb1d",
                     "input": {"city": "Paris"}}},
    ])
    _, raw = srv.invoke_model(body)
    expected = (Call("get_weather", {"city": "Paris"}, "f138f98b-8fa4-46e8-8d0f-6a3da738bb1d"),)
    note = ("client.invoke_model(modelId='us.amazon.nova-micro-v1:0', ...): response['body'] is a "
            "StreamingBody (read once, so never a payload itself); this is json.loads(body.read()), "
            "Nova's Converse-shaped body (no metrics; usage with *TokenCount keys).")
    out.append(_sc("dump", "invoke-nova-body-dump", json.loads(raw), expected, note))
    out.append(_sc("json", "invoke-nova-body-json", raw, expected, note + " The raw body bytes."))
    out.append(_sc("json", "invoke-nova-body-json-text", raw.decode(), expected, note + " As text."))

    # the same through Stubber (body: a StreamingBody over the bytes)
    with _stubbed() as (client, stubber):
        stubber.add_response("invoke_model", {"body": StreamingBody(io.BytesIO(raw), len(raw)),
                                              "contentType": "application/json"})
        stubbed = client.invoke_model(modelId=NOVA, body=json.dumps({"messages": QUESTION}))
        out.append(_sc("dump", "invoke-nova-stubbed-body-dump", json.loads(stubbed["body"].read()), expected,
                       note + " Through Stubber."))

    body = _nova_body([_text("I can't look that up without a tool.")], "tool_use")
    _, raw = srv.invoke_model(body)
    out.append(_sc("dump", "invoke-nova-stop-reason-tool-use-without-call-dump", json.loads(raw), None,
                   "Nova InvokeModel body with stopReason tool_use and no toolUse block: REFUSED.",
                   refusal=MISSING_CALLS))
    return out


# -- converse_stream() ------------------------------------------------------------------------


def _stream_forms(base: str, events: list[dict[str, Any]], expected: tuple[Call, ...] | None, note: str,
                  **kw: Any) -> list[Scenario]:
    return _forms(base, events, expected, "list(client.converse_stream(...)['stream']): " + note, **kw)


def _streams(srv: _Bedrock) -> list[Scenario]:
    out: list[Scenario] = []

    args = {"city": "Paris", "unit": "celsius", "hourly": [9, 12, 18]}
    blocks = [_tool("tooluse_StReAm1111111111111aa", "get_weather", args)]
    events = srv.converse_stream(_stream_events(blocks, "tool_use", piece=5))
    out += _stream_forms("stream-one-call-pieces", events,
                         (Call("get_weather", args, "tooluse_StReAm1111111111111aa"),),
                         "contentBlockStart.start.toolUse (toolUseId, name), then the input as "
                         "contentBlockDelta.delta.toolUse.input text pieces: an empty first piece "
                         "then 5-character pieces, as Claude models stream it.")

    blocks = [_text("Checking both now."),
              _tool("tooluse_StReAm2222222222222aa", "get_weather", {"city": "Paris"}),
              _tool("tooluse_StReAm2222222222222bb", "search_places", NESTED)]
    events = srv.converse_stream(_stream_events(blocks, "tool_use", piece=11))
    two = (Call("get_weather", {"city": "Paris"}, "tooluse_StReAm2222222222222aa"),
           Call("search_places", NESTED, "tooluse_StReAm2222222222222bb"))
    out += _stream_forms("stream-two-calls", events, two,
                         "A text block (no contentBlockStart: text deltas start it), then two toolUse "
                         "blocks (index 1 and 2), the second with nested, non-ASCII input.")

    blocks = [_text("<thinking>I need the forecast.</thinking>\n"),
              _tool("tooluse_StReAm3333333333333aa", "get_forecast", {"city": "Nice", "days": 3})]
    events = srv.converse_stream(_stream_events(blocks, "tool_use", style="nova"), modelId=NOVA)
    out += _stream_forms("stream-text-then-call", events,
                         (Call("get_forecast", {"city": "Nice", "days": 3}, "tooluse_StReAm3333333333333aa"),),
                         "Text then a toolUse whose input arrives whole in one delta, as Nova models stream it.")

    blocks = [_tool("tooluse_StReAm4444444444444aa", "list_open_tickets", {}),
              _tool("tooluse_StReAm4444444444444bb", "get_weather", {"city": "Nice"})]
    events = srv.converse_stream(_stream_events(blocks, "tool_use", piece=4))
    empty = (Call("list_open_tickets", {}, "tooluse_StReAm4444444444444aa"),
             Call("get_weather", {"city": "Nice"}, "tooluse_StReAm4444444444444bb"))
    out += _stream_forms("stream-empty-input", events, empty,
                         "A tool with no arguments: its only delta is toolUse.input '' (the joined input is "
                         "the empty string: arguments {}); the next call's pieces are 4 characters long.")
    events = srv.converse_stream(_stream_events(blocks, "tool_use", style=["none", "nova"]))
    out += _stream_forms("stream-empty-input-no-delta", events, empty,
                         "A toolUse block with no delta at all between contentBlockStart and "
                         "contentBlockStop (arguments {}), then a call in one delta.")

    blocks = [_reasoning("The user wants the weather in Paris. I should call get_weather.", "ErcBCkgIBhABGAIiQDYN"),
              _redacted(b"\x0bredacted\xfe\x00"),
              _tool("tooluse_StReAm5555555555555aa", "get_weather", {"city": "Paris"})]
    events = srv.converse_stream(_stream_events(blocks, "tool_use", piece=6))
    out += _stream_forms("stream-reasoning-then-call", events,
                         (Call("get_weather", {"city": "Paris"}, "tooluse_StReAm5555555555555aa"),),
                         "delta.reasoningContent text pieces and a signature, a redactedContent delta "
                         "(bytes in the object form), then a toolUse.")

    events = srv.converse_stream(_stream_events([_text("Paris is 18°C and sunny.")], "end_turn"))
    out += _stream_forms("stream-text-only", events, (), "Text only, stopReason end_turn: no calls.")

    events = srv.converse_stream(_stream_events([_text("Let me check the weather.")], "tool_use"))
    out += _stream_forms("stream-stop-reason-tool-use-without-call", events, None,
                         "messageStop says stopReason 'tool_use' but no toolUse block was streamed: REFUSED.",
                         refusal=MISSING_CALLS)

    # several turns
    turns = [srv.converse_stream(_stream_events(content, stop, piece=7)) for content, stop in _TURNS]
    flat = [event for turn in turns for event in turn]
    out.append(_sc("list", "stream-turns-flat-list", flat, _TURN_CALLS,
                   "The events of four converse_stream() calls (one per turn) in one list: "
                   "contentBlockIndex restarts at 0 after each messageStart."))
    out.append(_sc("list", "stream-turns-nested-list", turns, _TURN_CALLS,
                   "[list(response['stream']) for each turn]: a list of event lists."))
    out.append(_sc("list", "stream-turns-nested-dump-list", _safe(turns), _TURN_CALLS,
                   "The same as JSON data."))
    return out


# -- recorded bodies from the live API ------------------------------------------------------


def _recorded_raw(key: str) -> bytes:
    rec = _RECORDED[key]
    raw = zlib.decompress(base64.b64decode(rec["zlib_b64"])) if "zlib_b64" in rec else rec["text"].encode()
    assert hashlib.sha256(raw).hexdigest() == rec["sha256"], key
    return raw


def _recorded_note(key: str, what: str) -> str:
    rec = _RECORDED[key]
    model = rec["url"].split("/model/")[1].rsplit("/", 1)[0].replace("%3A", ":")
    return (f"RECORDED from the live API ({model}): {rec['source']} {rec['path']} "
            f"(commit {rec['commit'][:12]}), served by the local server and parsed by boto3. {what}")


def _model_of(key: str) -> str:
    return _RECORDED[key]["url"].split("/model/")[1].rsplit("/", 1)[0].replace("%3A", ":")


_CITIES = ["Tokyo", "Osaka", "Kyoto", "Hiroshima", "Nara", "Yokohama", "Sapporo", "Fukuoka", "Sendai", "Nagoya"]
CODE = [Call("nova_code_interpreter", {"snippet": "1234 * 5678"}, None),
        Call("final_result", {"result": 7006652.0}, None)]

_RECORDED_STREAMS = [
    ("stream_claude_haiku_one_call", "recorded-stream-claude-one-call",
     (Call("top_song", {"sign": "WZPZ"}, "tooluse_p0X002uYQ9y_0fFkBsyYRg"),),
     "One toolUse, input in pieces after an empty first piece; no text block."),
    ("stream_claude_sonnet_many_pieces", "recorded-stream-claude-many-pieces",
     (Call("get_cities_list", {"cities": _CITIES}, "tooluse_FQQ2AuomSWSry_S27YpRbA"),),
     "One toolUse whose input list arrives in 19 pieces."),
    ("stream_claude_sonnet_text_then_call", "recorded-stream-claude-text-then-call",
     (Call("get_weather", {"location": "Barcelona"}, "tooluse_yypYDr71TwCwByoyao4-Vg"),),
     "Text deltas (no contentBlockStart) then a toolUse at index 1."),
    ("stream_nova_micro_two_calls", "recorded-stream-nova-two-calls",
     (Call("get_current_weather", {"location": "Seattle"}, "tooluse_IIpMFTgaRVGyI7x4sJfKzQ"),
      Call("get_current_weather", {"location": "San Francisco"}, "tooluse_KZPBYYUtS72Um_JDI8hTow")),
     "Nova: <thinking> text, then two toolUse blocks each with its whole input in one delta."),
    ("stream_gpt_oss_no_call", "recorded-stream-gpt-oss-no-call", (),
     "gpt-oss: an empty text delta, a reasoningContent block, text; no calls."),
]


def _recorded(srv: _Bedrock) -> list[Scenario]:
    out: list[Scenario] = []
    for key, name, expected, what in _RECORDED_STREAMS:
        events = srv.converse_stream_raw(_recorded_raw(key), modelId=_model_of(key))
        out += _stream_forms(name, events, expected, _recorded_note(key, what))

    key = "stream_nova2_code_interpreter"
    events = srv.converse_stream_raw(_recorded_raw(key), modelId=_model_of(key))
    code = (Call(CODE[0].name, CODE[0].arguments, "tooluse_VQNZJRUFMoqZzszVsRd4og"),
            Call(CODE[1].name, CODE[1].arguments, "tooluse_ptgCcZ0uQu-UUMz0abqoWw"))
    what = ("Nova 2 built-in code interpreter: contentBlockStart.start.toolUse with type "
            "'server_tool_use' (run by Bedrock), a contentBlockStart.start.toolResult block with its "
            "delta.toolResult list, then a client toolUse (type 'tool_use').")
    out += _stream_forms("recorded-stream-nova-code-interpreter", events, code, _recorded_note(key, what))
    out += _stream_forms("recorded-stream-nova-code-interpreter-hosted-off", events, code[1:],
                         _recorded_note(key, what + " hosted_tools=False: only the client call."),
                         options=HOSTED_OFF)

    recorded_converse = [
        ("converse_claude46_parallel", "recorded-parallel-calls",
         (Call("parallel_local_search_one", {"query": "latest OpenAI model release notes"},
             "tooluse_hd4QaBJIe0j2FasplcWi78"),
          Call("parallel_local_search_two", {"query": "latest Anthropic model release notes"},
             "tooluse_yB6xS6E1bsIOpv8rWcnpiR"),
          Call("parallel_local_search_three", {"query": "latest Gemini model release notes"},
             "tooluse_cjCrMYQMmA8diLWBnKJ86o")),
         "Text then three toolUse blocks, each with type 'tool_use'."),
        ("converse_claude37_thinking_empty_input", "recorded-reasoning-then-empty-input-call",
         (Call("get_user_country", {}, "tooluse_W9DaUFg4Tj2cRPpndqxWSg"),),
         "reasoningContent.reasoningText with a signature, text, then a toolUse with input {}."),
        ("converse_kimi_reasoning", "recorded-kimi-reasoning-then-call",
         (Call("get_temperature", {"city": "London"}, "functions.get_temperature:0"),),
         "Kimi K2: reasoningContent then a toolUse whose toolUseId is 'functions.get_temperature:0'."),
        ("converse_nova_micro_two_calls", "recorded-nova-two-calls",
         (Call("get_current_weather", {"location": "Seattle"}, "tooluse_AOOBCtPEQ7SHozPsXCqgNg"),
          Call("get_current_weather", {"location": "San Francisco"}, "tooluse_biMWVYVLSR-qN88TpGnkUA")),
         "Nova: <thinking> text then two toolUse blocks (the recording is pretty-printed JSON)."),
    ]
    for key, name, expected, what in recorded_converse:
        resp = srv.converse(_RECORDED[key]["text"], modelId=_model_of(key))
        out += _forms(name, resp, expected, _recorded_note(key, what))

    key = "converse_nova2_code_interpreter"
    resp = srv.converse(_RECORDED[key]["text"], modelId=_model_of(key))
    code = (Call(CODE[0].name, CODE[0].arguments, "tooluse_dV5ehBNfl1hUE-UTM9cIww"),
            Call(CODE[1].name, CODE[1].arguments, "tooluse_DaRsVjwcShCI_3pOsIsWqg"))
    what = ("Nova 2 code interpreter: toolUse type 'server_tool_use', a toolResult block in the "
            "ASSISTANT message (type 'nova_code_interpreter_result'), then a client toolUse.")
    out += _forms("recorded-nova-code-interpreter", resp, code, _recorded_note(key, what))
    out.append(_sc("object", "recorded-nova-code-interpreter-hosted-off-object", resp, code[1:],
                   _recorded_note(key, what + " hosted_tools=False: only the client call."), options=HOSTED_OFF))

    for key, name, expected in [
        ("invoke_nova_micro_one_call", "recorded-invoke-nova-one-call",
         (Call("get_weather", {"location": "Seattle"}, "f138f98b-8fa4-46e8-8d0f-6a3da738bb1d"),)),
        ("invoke_nova_micro_two_calls", "recorded-invoke-nova-two-calls",
         (Call("get_current_weather", {"location": "Seattle"}, "4d8acf92-6a04-42b6-aaf7-f68937a339ef"),
          Call("get_current_weather", {"location": "San Francisco"}, "db27bd9d-9f7d-4783-aa8b-59871e00e0bc"))),
    ]:
        _, raw = srv.invoke_model(_RECORDED[key]["text"], model=_model_of(key))
        note = _recorded_note(key, "InvokeModel body of a Nova model: json.loads(response['body'].read()); "
                                   "toolUseId is a UUID.")
        out.append(_sc("dump", f"{name}-dump", json.loads(raw), expected, note))
        out.append(_sc("json", f"{name}-json", raw, expected, note + " The raw body bytes."))
    return out


# -- entry points -------------------------------------------------------------------------


def scenarios() -> list[Scenario]:
    with _Bedrock() as srv:
        return _converse(srv) + _conversation(srv) + _invoke(srv) + _streams(srv) + _recorded(srv)


def invoke_stream_scenarios() -> list[Scenario]:
    """NOT part of scenarios(): InvokeModelWithResponseStream, as
    ``list(response["body"])`` = ``[{"chunk": {"bytes": b"..."}}, ...]``, from two
    recordings. The inner bytes are the MODEL's own stream events: Anthropic
    Messages events for Claude, Converse-like ``{"contentBlockDelta": ...}`` for
    Nova. Whether agentmetrics reads these is a decision to make first."""
    out: list[Scenario] = []
    with _Bedrock() as srv:
        key = "invoke_stream_claude35_two_calls"
        chunks = srv.invoke_model_with_response_stream(_recorded_raw(key), _model_of(key))
        expected = (Call("get_current_weather_info", {"city": "San Francisco"}, "toolu_bdrk_01CquHF9otnnrgxxx54tVxau"),
                    Call("get_current_population_info", {"city": "San Francisco"},
                       "toolu_bdrk_017gKMzG8LV5r3snEuhgaSvt"))
        what = ("list(client.invoke_model_with_response_stream(...)['body']): chunk.bytes hold Anthropic "
                "Messages stream events (content_block_start tool_use, input_json_delta pieces); "
                "message_stop carries amazon-bedrock-invocationMetrics.")
        out += _forms("invoke-stream-claude-chunks", chunks, expected, _recorded_note(key, what))
        key = "invoke_stream_nova_micro_two_calls"
        chunks = srv.invoke_model_with_response_stream(_recorded_raw(key), _model_of(key))
        expected = (Call("get_current_weather", {"location": "Seattle"}, "d899da89-5a67-4af2-aa54-54f6d2aadd40"),
                    Call("get_current_weather", {"location": "San Francisco"}, "be7b9eba-2914-4a0a-ba1d-e863a8281c18"))
        what = ("chunk.bytes hold Nova's Converse-like events ({'messageStart': ...}, {'contentBlockDelta': "
                "...}); every text delta is its own content block and the toolUse indexes skip (24, 26).")
        out += _forms("invoke-stream-nova-chunks", chunks, expected, _recorded_note(key, what))
    return out


# -- writers -----------------------------------------------------------------------------


def _expected(call: Call, cid: str) -> Call:
    return Call(call.name if call.name else "<unnamed>", dict(call.arguments or {}), cid)


def _turn_blocks(turn: list[Call], t: int) -> tuple[list[dict[str, Any]], list[Call]]:
    if not turn:
        return [_text(f"Turn {t}: nothing to call.")], []
    blocks: list[dict[str, Any]] = [_text(f"Turn {t}: calling {len(turn)} tool(s).")] if t % 2 else []
    expected = []
    for i, call in enumerate(turn):
        cid = call.id if call.id is not None else f"tooluse_w{t:02d}_{i:02d}"
        blocks.append(_tool(cid, call.name or "<unnamed>", dict(call.arguments or {})))
        expected.append(_expected(call, cid))
    return blocks, expected


def write_responses_per_turn(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """A list of converse() response dicts (through Stubber), one per turn."""
    payload, expected = [], []
    for t, turn in enumerate(turns):
        blocks, exp = _turn_blocks(turn, t)
        payload.append(_stub_converse(_converse_body(blocks, "tool_use" if turn else "end_turn")))
        expected += exp
    return payload, tuple(expected)


def write_conversation(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """The messages list of the next converse() request: user question, then per
    turn the assistant message and a user message of toolResult blocks (or
    'Go on.' after a turn without calls). Validated by boto3 (sent through
    Stubber, which checks the request against the service model)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"text": "Please help."}]}]
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        blocks, exp = _turn_blocks(turn, t)
        expected += exp
        messages.append({"role": "assistant", "content": blocks})
        results = [{"toolResult": {"toolUseId": b["toolUse"]["toolUseId"], "content": [{"text": "ok"}]}}
                   for b in blocks if "toolUse" in b]
        messages.append({"role": "user", "content": results or [{"text": "Go on."}]})
    _stub_converse(_converse_body([_text("All done.")], "end_turn"), messages=messages)
    return messages, tuple(expected)


def write_stream_events(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """The events of one converse_stream() per turn (through the local server),
    concatenated: every stream restarts contentBlockIndex at 0."""
    payload: list[Any] = []
    expected: list[Call] = []
    with _Bedrock() as srv:
        for t, turn in enumerate(turns):
            blocks, exp = _turn_blocks(turn, t)
            style = "nova" if t % 3 == 2 else "claude"
            payload += srv.converse_stream(
                _stream_events(blocks, "tool_use" if turn else "end_turn", style=style, piece=3 + t % 7))
            expected += exp
    return payload, tuple(expected)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "responses_per_turn": write_responses_per_turn,
        "conversation": write_conversation,
        "stream_events": write_stream_events,
    }


# -- recorded bodies (generated by make_recorded.py from VCR cassettes; do not edit) --

_RECORDED: dict[str, dict[str, Any]] = {
    'stream_claude_haiku_one_call': {
        "source": 'Arize-ai/openinference',
        "path": (
            'python/instrumentation/openinference-instrumentation-bedrock/tests/openinference'
            '/instrumentation/bedrock/cassettes/TestConverseStream.test_invoke_tool_message.y'
            'aml'
        ),
        "commit": '1fe497f1d9f45a07eee55d97fe185e020560f9c7',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-2'
            '0240307-v1%3A0/converse-stream'
        ),
        "kind": 'converse-stream',
        "sha256": '0fb64e79a7b946b736645af68773ccb0d4b6f6d25b835dfb2f512b2698d3afb2',
        "zlib_b64": (
            "eNrNlM9rE0EUx9eDP7AWWgriUQZPEnGTVNqMh2oaq1H7I+mP/CBlGTfTdZvNzJqZrY1hQERBioeePXrxUmoRD3oR"
            "PKqI4n8gvVnwHxChb0JIukUFjWAOD3bfvHnz+b438wzDeGoYRhZd2Bjpw3SFMnlG1n162DhWpUIQh85KUpP92OZM"
            "dhYHiO97rk2ky9nZZcFZP26FtwIONlM1kI8wIjfsMl1ybrrLFa/KuH+rJmSwcnu1fudicjx1aeLylfTVa9cnp6Zn"
            "UATVuEf1HiFcIQmTSH1bdKYN48BRwMwNvvmEw5iDLbCkx+1Kd6x7M6VZma4ibEb+UEEmOzs3vwA6hEZBuIEk5968"
            "oPqTkarWJrlvAYYDUa3FdLnp5l4gqOWbedOMBYVMom6ZSxOVpKgXsg5SSj0YOTUOVdjSlbj7dej0byqRop4k/7gS"
            "ZZ1znySX+QHIRIC3v1RIbY+tK2B9qXm3Hud3eoi3UfoZcrO7SL3KRF8A8zvNHX+4k+ohbuE6rITwyRLK/Yq/czuR"
            "QkPnMajY1EosjN/2kJLiTLEEgB0RSB1a+/AFSDfAFrI/CmNh2oHwS+f+f3zoSEXXPy4C5xpY5t6J46Nh1r728OwC"
            "MwTUHCncz1ICO1rTwoJxgVT8/qMGUHwHm3r/5PPzMMmRKpWkTLpoLSSoubbQvfMIJLDrk/CTiA2rvxuOuXyhaEZj"
            "8WGQFOjz2rdijlcog9zxc/EI4oHc6xrVw1ISr+1IRJV6/Wx7cxduTE+U"
        ),
    },
    'stream_claude_sonnet_many_pieces': {
        "source": 'open-telemetry/opentelemetry-python-contrib',
        "path": (
            'instrumentation/opentelemetry-instrumentation-botocore/tests/cassettes/test_conv'
            'erse_stream_tool_call_parsing_errors.yaml'
        ),
        "commit": '466ae4c00de77d1f54f77a9600f1d08eba2306b5',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-sonnet-'
            '20240229-v1%3A0/converse-stream'
        ),
        "kind": 'converse-stream',
        "sha256": 'f8619cdae3d431802e2a43fcc8a7279473d160dfc029ddcaf3e038d7a5864ead',
        "zlib_b64": (
            "eNrNmE9oE1kcx0eKtqwGKyxSD0L9obeuf5q6bXMQW2ttzCaaxhqrccNz8jadZjJvzLzRTsNbWbSi4EEKnnYPXhRF"
            "kD1sl4ouKyruYl0RcVmFHhQqgl7Wv1RQ8fdq/NNS2pR4eIcXJjMvP76f37/J+2madk7TtPY3R/tuzw3QPdTi33DP"
            "puXavCx1HJKmMU5y3BfQmcU/Pawktm0aOuEGs1Z0O8zyBQrbCxtmj5nKgw0BILv0FP0h3WV0Z8ysxezdOYe7e/b2"
            "eL1Nzeta1rduaAtuDH0XjmzaHG2PbenYGt/WuX3lqlp/3epv66EGcsyk0orjGA4nFgeRfnU7qGmzFqPw+OVZP58a"
            "L3xBQWqzyfRMaeo/txS0UrQHAitrvgSTI2VBIA+cMbPDofLSIlnJmaY8qRvcoE7SRGDcXNgTTOFTee06NNkajdY2"
            "uSwbi8dyXjJWW99pt+9qAiHE3bfHt6Fj/pbOCbYNLp3COS3U5OQLOyclbU4gMyzbRVpAecV6D0Tnv4Qhw4jkCHu9"
            "SxTiyCdgLEIz4JksG0D8UzbyF/Ldk4yDr4bvK8ToJPCjVL7FI6eXIts1yec/9LhFIb7qHQnYwjIeS2CFTccJYv/N"
            "339VtKqqE7DJKS5UIEaHyh4ig8y6+FDVihcKcZBMsfkGoj884EOEqxLjZc+c9SphYEJhSELedDQgWqPLy5HgkqQo"
            "Gz3epxAF42z6aIAIXQ89QvVyxZ8Gr6xViOB9GNqMHHNK7GP41gbx08LeY0h5Q5JerQgfUIi0y8gWki5CikIFcX7D"
            "8xFFXzy5MZaSQgbiwet9XyPbFcl3ZLBjmVJ52VlEafWCWFV2r1nR7pBhXUTm3JQcIH58kh9G9Rclgdfw7IFCBLJa"
            "Ymh+CgIQ+b7KE6j9f6n/zqKQrlJ/zrH3Jd/qZtzS+xueShpAHHxRfRJZ/5O8Z0YH96rEmym0uBi1ZoYLouLimguI"
            "NCCx2r76ZbtCWCliTNrtQESOnt2Igm9J0XpVfblSHSxC0jPNOaymu5o80P0midzugUcqZZeH2bVTTGQC4YM/D6Pe"
            "P3BtnS8e+sZrrhw/aWC2SoMGEN/PHrVQeD+u6K1D1/Ljxc/9ON8pQfekCsfmG8xupwR/WZhZJF30uIh3N74s/O2I"
            "DPfzCWf6iizlJEVKiDwayBm6I0NrEjSge2H8UlvX2FjU6agGXGn0Y2bg+ZBa0kDj6hpgLv/sVp1fzmU4MT/c8Psb"
            "hFj02L/vHZ6/rD4="
        ),
    },
    'stream_claude_sonnet_text_then_call': {
        "source": 'traceloop/openllmetry',
        "path": (
            'packages/opentelemetry-instrumentation-bedrock/tests/traces/cassettes/test_anthr'
            'opic/test_anthropic_converse_stream_with_tool_use.yaml'
        ),
        "commit": '93429cfb9767e6b51db6cb35f6b70f758117669a',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-sonnet-'
            '20240229-v1%3A0/converse-stream'
        ),
        "kind": 'converse-stream',
        "sha256": '3c890e12e1f382afaebca79e558953e19c1f3ae326ae988bfa8e3b9cc2a334bd',
        "zlib_b64": (
            "eNrNmF1sFFUUxwcSFHbbCmrU8KB4EhHLNnS1UhmTCktbWqC0tNuWkjX1MnvbTnd27nTmbrvbcg2JRBITPpoUH4BQ"
            "4oOpxi9MIAG/oomiENLyYKrEJmhfiC8+KMXURji3lHYbKbttTWcfbjKz986Z3//c/5xzs4qinFIUpfrIa9azXpW2"
            "U5Pn8YRFH1SyotRxSDOt4cTm2arGTD41uZxYlqFrhOvMXNfqMDNbnVg+sWDJeKgusEAFskcL06bmFr01YkRNZrXZ"
            "Do+1d8QTnZsCm4tLSreUlYMPbGZQudhxdIcTk4NYNvj2EmT7HEd9ycp/107nWzFBFDCYFimmBidzhkyOVG6GaRzU"
            "fB+EZUxQu4DTOEeyyghJgPClIwlE/m+HBpH7S8n+ytUPt7nM7ksTXO7FVhDBj71/IPkZSV/mObHbZfpVBuWpBICo"
            "GQk+hcCXJHTO9W/+chs6SmeT9G3bK3ZUVu2srgnWgigavv43yuiTUgY6+3W3pWgtVIv8Rw2IlScf71buVJD6a579"
            "fW5z8pbknIMYvpLXj2yfSb6bKrzsNl8HJYhop/YFiNw3ow8j9gcS/ZlR/T230ZvYTNggbq59bAA5f5CsfE13j9us"
            "AWJr1GAmmd0HCCK2qOVTFPG1FFK862qt20Jijm42py8CW+aopwjh35ECjl0c/D6zPsgw3jwptr+LdJ9Iwn2/P5Lr"
            "NiFpJ7pB9hj3LtYgtrT92IusX0jeeOfgcdczypiR9ikke+/xfQguPV0/mrtxq8vwauomXukdiyPtCRx1f/7y67np"
            "xMuT31PDmfU/A9+fTeu+XKIoix6S2fz56cb7ZXN+h+Z7wPnndJKoq9+FRz9HwoxvA3qn1qHy0iRRedpuprzxblPy"
            "3Z0vD+OMvI45tDGRsBqK7UJ/sGNzRyDBEoQV5NVhTRLiwLXSIUzFdzIdI/EHShbSXP5kc02p0k0rJo2GeOnlC0T8"
            "VtMyVPCtVHH6p71HM0hFVwhwMUZOIQdEuPT1YRTwlRSx+Pz+fzJIBDNDoK4KAfbkGWSAWPFGzgiiX5D4l55YdyOD"
            "8DWarpdArK47/GiGWkkehkIgUmpBK/U0vYUCTssCfPGgJ2sBC/BcahyIgD5UjrAf4dh5tqF3bDqwd/JfjHmwzp5K"
            "Fl1mVVOCUSeKaSNWUxD+DVUR7CEepN0Rez8+Op12aZRyEibzsAYGsHXNkXtvEAygJSrwxu8vXC/m0UFi8k2Tfgqy"
            "CDUx6vMvrPcBi/Gkn158CZVTu53awXET3nlMyNbCiTH54IYCIW48d+DV2/tIZAU="
        ),
    },
    'stream_nova_micro_two_calls': {
        "source": 'open-telemetry/opentelemetry-python-contrib',
        "path": (
            'instrumentation/opentelemetry-instrumentation-botocore/tests/cassettes/test_conv'
            'erse_stream_no_content_tool_call.yaml'
        ),
        "commit": '466ae4c00de77d1f54f77a9600f1d08eba2306b5',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/c'
            'onverse-stream'
        ),
        "kind": 'converse-stream',
        "sha256": '2acb9e02e9e37435547e94f1084e33b152591c142c534c7444a089c287e32de7',
        "zlib_b64": (
            "eNrVmntsU1UcxyuRhxQERHm4xMxfRKdURsu6QQVkswO6MR7bukczKZf2bL1bd2/pve1enMQYCQ+BgEHUgbIZR5yA"
            "Gyps8ogRlI1heMMGAsofRqAalSgiCHjOLLDC1j267Fz+WNK1t6ef7znfc36Pe1Uq1SqVSpWsja0vVxuQFwnyi3KR"
            "C/VVDchHksTloBSZc8sDDTZRkO9+OJhzuZy8jZN5UYjMlURhoMF/uf+C3s1DlYALDMDNt9lRdo6Dz81z5guia4Fb"
            "Ag24RSeiH0oSL8mcIAMe4r1UTVh2kb/0+Cdvjg7kGeIniHOKtjwjcspcl6FajmQS7KgQDGM1YKdjgqEEZFQoE7KJ"
            "soMX8nghB7CmLR2yx1tQWFQMOGzvJwMI94eUvbShsZ4x++R7mQFXVx90E7qDlHBfv6Q3GBOGpzpQ+xMbG/eKMX7q"
            "tOmmhMQZSTNnzZ6TnJJqTksH/OtFfTlRcpKqWfvu6jrWaswScndZTkamZaxWNw7wOydi3yKKKqiqiEvqJtaqHJx0"
            "v5EOqMIPEMCtFHL3MkMpa0hOykP2tucesNe+fR6BPUWBH6/vM4w1cLYYslWi9NExgEevHLWSiPqaCjNmnDazFiZ3"
            "bksDvnC+fCiB/4YKWF5rHsVagM3jdiMaijosArB6z7BSwv851VCXwF9jraEAcWQd3ME2RP+oXTRQfUqRrQbDftbI"
            "vBCM9vjhiGeVFLjkAjGEwFU1xigQJVVUzXzL0CLWaux8djZqy/SALVvCdQT1MMUd2WTPYb5DeZlHUlfnH/DF7wWz"
            "gvIGQ/cEgkHRvXYTRUeoqmdqkxpZr1IKOYNkJwphmfZNqVFSZOMEe+ciW2LEIiuBpzlq+tncLSOYrwgXcMYC3mqT"
            "6CaopYDVpRk+1oBT3Zxg4yVb8LMV8I7KW7EKigZjQtnAgMuSikFBZWN46j3TD3hz8qCvlJQruNyil7e3frSQVL/y"
            "pyuEdCOlFRMW9GOfEfOtVFCmhNMWQriDUjZY1G+yz79ISZLfPFw7u+/pEq+PUJ+g5EfG+4YzJtd0Q/gEPGvp5ZNK"
            "SslMwVQBLnms4QZB3UxxR13jK5kXHLzT2Tox4KW9HZOUNLUCCtIqAPzR2gJ60NH2RvqjF/b8yfz46GqlAfg5/PNo"
            "IqOBShm3xGdkLcUjdS0dBDz37WWHldS+kUNoXAZk7YYpYfFKCgPzOigL8Mijp+iSbKPk0/uvtzAmz0Htt2wAhy+p"
            "iVBQTWHtpIkAH0QNMwg8LYzSdQ2HDIwFdKxZBnhjtEjzsfcp9pc7r25Q0LwDroMTnykoQAVv3gH+o+yf1wjqBxT3"
            "ZtjrsxjjzgusKR18haykaC+LojNItO997IXFBPUYxZ1b+FQN+8Yib0Oh1ZNX+p+qJ3JoMyi9sLhx3QOUnwN2ra+m"
            "92mOUnjbiJi+rNdDFEJdDovx3BmiZj9VJEesXvOA3nkCrP7uiTQiookKef7jyI2shSDO5gg9CQOs/3E5fdygkera"
            "dLW2QAHt7aKQdQHe5h1eSSRtoLL2lmy6pagmGeCa7aoVSrqjMzGy63MOuKqs4hBRspOq+dsALzFW05mnVuLO+FYo"
            "yP6Tu6OuGg+4/Ides4mkOirrwIjIvxjLyhK6dujeui5/62/0pCXfyHw5UMbglj+eIouublbRGV7A2lWHXlWpHupD"
            "p/y4dlKwTRDaA2WtwGo7CEvSEYn+dvPSkNTQLCH6UuDy0f9FpNVf0lhvp+Ga29eZ7HRnkdceCVlNJlfS1NQcLjlt"
            "WpEppjBKSshOLJ4DGONBl39/j1X/SNvSeHfV8YLLQ01YkgXk4uaRs8CQBf5bdFmACfh9Ewj4N8lX6g8haV8sXMf3"
            "oPnaX0/Aw8PQGlZ+0/Ww3xIts+MyM81ySozOnG9NMJrGO1LFAuq3R84tVJMZOEtn4fz0spM96TddJ/3GCXfv8bXh"
            "usC+wZKVv0QTYeuoA2P/nVTZgw7UtYOGd6BFBIvu9TkVGddzA9HUd56cDYEqmMOajSW6khFHBvAbxdrcYG2qetjk"
            "j3wzq6TF+kCwfvlI5uxcCD4gA7h5m0QX2smRAWxFSeQf/YRxLfsAGvDQr95xQ6qYhwRyWZRWrwHRI7d4SztBTz0v"
            "c87b70Rrx2Lsyxw58D8pNlaU"
        ),
    },
    'stream_nova2_code_interpreter': {
        "source": 'pydantic/pydantic-ai',
        "path": 'tests/models/cassettes/test_bedrock/test_bedrock_model_code_execution_tool_stream.yaml',
        "commit": '4fda38988f2939fa6ea9cdefcf120693e10ef491',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-2-lite-v1%3'
            'A0/converse-stream'
        ),
        "kind": 'converse-stream',
        "sha256": 'f109eb63572b4cdbd913d7c13dd29f6de13ed518ee48307a3f15da2d4d3efb32',
        "zlib_b64": (
            "eNrFls9PE0EUx1eJkciPoAajnnCIFwOyrVCkB5XfgpYfhYJWsA67Q1lYdrY7swXaTAgHjRpP/ojBBEw8eICDHozh"
            "6F9guIkmHk28GI969E0p0BIEEVMP08zOvnnzfd9+9u0qirKgKErw0/LInQI/iROLV/IpmxxUCscJYzhKejh2eJFf"
            "oxbfuFmCbds0NMwNalWNMmoV+dPh6YADqVRJZCM/wkOaToajI8bomDluUTvmMO7GJyanEvUNjU3NLa2X29qvXA10"
            "dHZ1B3tQBXKoSeQ2xgzGscWRcPIuJBVlXx0o7f9x6YiZrfRwWluDSbWxvcnNzNRm6WQS+dWK3RfRG+rrv3Y9rHq8"
            "56qhICY1IX8ScUrNECNyauFxWaRF4ziiUZ1EDDjZsR0Cv7AlHdmmQ4ycu4xE+ro7wu3BUEuAxsIJluhjQb2aRmUw"
            "1ABxjDhx4kRkeATikRDiyaEpAaYtS+NOrOjRbYxrIibH/9g4XebcVLhh2S6YgZIDiFmGbRM+gPwDSFpVdqasxld7"
            "fgAJ0L6F7UjMzEWmoZaXMPqOB+rns+spyQaB2v+FAyRufsyrAVxPStdjp1qXcomrZzuZm1kMEuaaqStY5i6TELma"
            "Bmf9JYJb4hxxVo8BHmeLn78FV75KZ+7ee1qWSx49m3hcK/5GEslMqy7onSk4a1XV56vxpvzSmx0HlmBOJg3eCMWl"
            "YDAYrFO4M4xNRoQY3CAWicfz6i2o8ZHkNPYgPpJDTrcGAIm6dy8uApSF0vr5mdPPcgmld+dnZ/s2OWxY2FzjaGs0"
            "bR5t1MKq2+1WhkKBhIqHYrR/YgPNzLb4+uG3/eDDB+nF4s+liVxi6N2xLa6WCV0xTeFZ9Tf9MNtCJIrfT3ugpFeS"
            "utLB8u85pM6767ckErND90tB6hyM7q6VwYVsuQXr3x97UPpH1FE7SHCqA2RA8qYZaSDsM4yO2+X5x7LF5Y8TjnW8"
            "BzIggWNoTP71JoYE2lQALjw+Vc3oIxXIlVvX+eilY8SSYaoKhlOXZ6zV1FWkvwB6U1St7hPyYeHY3Njp8whRdfTL"
            "4i+Irm2o"
        ),
    },
    'stream_gpt_oss_no_call': {
        "source": 'pydantic/pydantic-ai',
        "path": 'tests/models/cassettes/test_bedrock/test_bedrock_model_stream_empty_text_delta.yaml',
        "commit": '4fda38988f2939fa6ea9cdefcf120693e10ef491',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/openai.gpt-oss-120b-1%3A0/'
            'converse-stream'
        ),
        "kind": 'converse-stream',
        "sha256": '581c85ec0579155e41025da901bc91a7581fcf756d6e165dfaa63c8915f91e4f',
        "zlib_b64": (
            "eNrFlc9LlEEYx98OkpSC9ReMAx2KbXP9QbAd8le5W2nprpomxPi+j7uvjjNvM8+rvspc8hJF1rmjdOtk1EE6ByF0"
            "iaBDhAldpEu3IIqaV7farSBYYzvM4Z33eb7zeZ75zozjOA8dxxm62fno6cE0zIHA4xgFsN9pmAWtWQFyyBQ2pl0p"
            "8OfPJhYE3HcZ+lKcmNZSNKZL4aWAuh2pJRrQNGWTrgdThaI/PcNnhQyuKY3h3PxCtNjV3dN75mxfJnvu/IX+gYuX"
            "Body+eGR0ctj4y00QZXkEKdr7WtkAqnp/Hq9aGlX7Ri9t/HqWSXxoRJjN5fuTC9wZFVjlytlhQcLNN2SoF6sSdNL"
            "FGEBLRk1icoCqelofd9u6dbtGPn0pet5JWFTuW4OZfCPAavvtrnh9L50nH1jcWuFguZatjZV1loFzCb7otCzG1fW"
            "7nwRSKhBkelQI9Es0mSCZvwJmiSjQASAR1ASBTqQwiOWR8lA+QyBRwkypXwQHo9IQQGg1U+SAUl0AK7POPGFRhW6"
            "MbxOklxRhtwjk0B0USpMUmOq7S01y8fWNm1T12JHbNw+0FBDR6SqoKam23+TtbDvYif0R4s1dULr74csA5zLZpKR"
            "88RlgmRJEXhAzR7MnqLm1tbKa1vfk7jGj2l66j/XSCIZWu96LDr9l8qowQd1Hyz2Suyn7c9HrtTQT62/olGzPr75"
            "2JIs2zF4px6zlTQHf7whewDZXdK+B9qqDO1cD3bGHuarGCpBzd2R7fslvw4cPfxiqxKhfhaQeWwPW2gFlO/qeLu4"
            "vUyEG/Xbj5MdbX/cKcsZxiJxuC+CEPNyBkScYO9nGWLZTHubrQnUHKi8lHy4lGVVUSLj36NSqTZj1lb73n4DBkin"
            "Bg=="
        ),
    },
    'converse_claude46_parallel': {
        "source": 'crewAIInc/crewAI',
        "path": (
            'lib/crewai/tests/cassettes/agents/TestBedrockNativeToolCalling.test_bedrock_para'
            'llel_native_tool_calling_test_crew.yaml'
        ),
        "commit": 'f4731f5025f861c78e3af0487cc80bf5e7c64782',
        "url": (
            'https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet'
            '-4-6/converse'
        ),
        "kind": 'converse',
        "sha256": '7f0706bb9eb5ba841c189f14ac5c315159660eab51610c2563c92e10461b9161',
        "text": (
            '{"metrics":{"latencyMs":2911},"output":{"message":{"content":[{"text":"I\'ll exec'
            'ute all 3 parallel searches simultaneously right away!"},{"toolUse":{"input":{"q'
            'uery":"latest OpenAI model release notes"},"name":"parallel_local_search_one","t'
            'oolUseId":"tooluse_hd4QaBJIe0j2FasplcWi78","type":"tool_use"}},{"toolUse":{"inpu'
            't":{"query":"latest Anthropic model release notes"},"name":"parallel_local_searc'
            'h_two","toolUseId":"tooluse_yB6xS6E1bsIOpv8rWcnpiR","type":"tool_use"}},{"toolUs'
            'e":{"input":{"query":"latest Gemini model release notes"},"name":"parallel_local'
            '_search_three","toolUseId":"tooluse_cjCrMYQMmA8diLWBnKJ86o","type":"tool_use"}}]'
            ',"role":"assistant"}},"stopReason":"tool_use","usage":{"cacheReadInputTokenCount'
            '":0,"cacheReadInputTokens":0,"cacheWriteInputTokenCount":0,"cacheWriteInputToken'
            's":0,"inputTokens":951,"outputTokens":169,"serverToolUsage":{},"totalTokens":112'
            '0}}'
        ),
    },
    'converse_claude37_thinking_empty_input': {
        "source": 'pydantic/pydantic-ai',
        "path": 'tests/models/cassettes/test_bedrock/test_bedrock_anthropic_tool_with_thinking.yaml',
        "commit": '4fda38988f2939fa6ea9cdefcf120693e10ef491',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-3-7-so'
            'nnet-20250219-v1%3A0/converse'
        ),
        "kind": 'converse',
        "sha256": '0fdf328f80efb1f128c3f3137d90e5fc5952805f6a8127802e9f1ac031194258',
        "text": (
            '{"metrics": {"latencyMs": 3896}, "output": {"message": {"content": [{"reasoningC'
            'ontent": {"reasoningText": {"signature": "ErcBCkgIBhABGAIiQDYN+P1S3ACL3r24cAMKCr'
            'RNiuPPxvmT2uzREPLRyKEUXagRbXn97QCke6L7OEZvlh7NdA/MQNTwMZV8TuB4qPASDLNxYxDx1S3luC'
            'IfARoMIwLZXwhsvjjTN72XIjAJrEl5ryAvv6C1+6YMCPC73ffE+kgwB96IcZaOuDFQtyaoWwcFcDPBgu'
            'M6YNp5e3cqHbDQ3QF5dR4PP5q+3K23pual3pUdT/0e7khyIxXkGAI=", "text": "The user is as'
            'king for the largest city in their country. To answer this, I first need to dete'
            'rmine what country the user is from. I can use the `get_user_country` function t'
            "o retrieve this information.\\n\\nOnce I have the user's country, I can then provi"
            'de information about the largest city in that country."}}}, {"text": "I\'ll need '
            'to check what country you\'re from to answer that question."}, {"toolUse": {"inpu'
            't": {}, "name": "get_user_country", "toolUseId": "tooluse_W9DaUFg4Tj2cRPpndqxWSg'
            '"}}], "role": "assistant"}}, "stopReason": "tool_use", "usage": {"cacheReadInput'
            'TokenCount": 0, "cacheReadInputTokens": 0, "cacheWriteInputTokenCount": 0, "cach'
            'eWriteInputTokens": 0, "inputTokens": 397, "outputTokens": 130, "totalTokens": 5'
            '27}}'
        ),
    },
    'converse_nova2_code_interpreter': {
        "source": 'pydantic/pydantic-ai',
        "path": 'tests/models/cassettes/test_bedrock/test_bedrock_model_with_code_execution_tool.yaml',
        "commit": '4fda38988f2939fa6ea9cdefcf120693e10ef491',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-2-lite-v1%3'
            'A0/converse'
        ),
        "kind": 'converse',
        "sha256": '7f46c3ab4a22bbf194c2ace0acd8f43e7d1eced5da09a16abd89ac20c92845bd',
        "text": (
            '{"metrics": {"latencyMs": 1604}, "output": {"message": {"content": [{"toolUse": '
            '{"input": {"snippet": "1234 * 5678"}, "name": "nova_code_interpreter", "toolUseI'
            'd": "tooluse_dV5ehBNfl1hUE-UTM9cIww", "type": "server_tool_use"}}, {"toolResult"'
            ': {"content": [{"json": {"exitCode": 0, "isError": false, "stdErr": "", "stdOut"'
            ': "7006652"}}], "status": "success", "toolUseId": "tooluse_dV5ehBNfl1hUE-UTM9cIw'
            'w", "type": "nova_code_interpreter_result"}}, {"toolUse": {"input": {"result": 7'
            '006652.0}, "name": "final_result", "toolUseId": "tooluse_DaRsVjwcShCI_3pOsIsWqg"'
            ', "type": "tool_use"}}], "role": "assistant"}}, "stopReason": "tool_use", "usage'
            '": {"inputTokens": 1002, "outputTokens": 59, "serverToolUsage": {}, "totalTokens'
            '": 1061}}'
        ),
    },
    'converse_kimi_reasoning': {
        "source": 'pydantic/pydantic-ai',
        "path": 'tests/models/cassettes/test_bedrock/test_bedrock_moonshotai_tool_call.yaml',
        "commit": '4fda38988f2939fa6ea9cdefcf120693e10ef491',
        "url": 'https://bedrock-runtime.us-east-1.amazonaws.com/model/moonshot.kimi-k2-thinking/converse',
        "kind": 'converse',
        "sha256": 'eac3b1049531b8341d1378e5c938075b64992476db01457c99576ce15ff823c5',
        "text": (
            '{"metrics": {"latencyMs": 1169}, "output": {"message": {"content": [{"reasoningC'
            'ontent": {"reasoningText": {"text": " The user is asking for the current tempera'
            "ture in London. They've explicitly requested the use of a tool for this purpose."
            ' I have a tool called `get_temperature` that can provide this information. It re'
            'quires a single parameter \\"city\\" which should be \\"London\\" in this case."}}},'
            ' {"toolUse": {"input": {"city": "London"}, "name": "get_temperature", "toolUseId'
            '": "functions.get_temperature:0"}}], "role": "assistant"}}, "stopReason": "tool_'
            'use", "usage": {"inputTokens": 92, "outputTokens": 75, "serverToolUsage": {}, "t'
            'otalTokens": 167}}'
        ),
    },
    'converse_nova_micro_two_calls': {
        "source": 'open-telemetry/opentelemetry-python-contrib',
        "path": (
            'instrumentation/opentelemetry-instrumentation-botocore/tests/cassettes/test_conv'
            'erse_tool_call_no_content.yaml'
        ),
        "commit": '466ae4c00de77d1f54f77a9600f1d08eba2306b5',
        "url": 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse',
        "kind": 'converse',
        "sha256": '7e103ce64f82591b0b121fd9cd00cc4861241dfd9acd27ea68fd5c8b2ff1590b',
        "text": (
            '{\n  "metrics": {\n    "latencyMs": 563\n  },\n  "output": {\n    "message": {\n      '
            '"content": [\n        {\n          "text": "<thinking>The User wants to know the c'
            'urrent weather in two different cities: Seattle and San Francisco. To provide th'
            'is information, I will use the available tool to get the current weather in each'
            ' of these locations.</thinking>\\n"\n        },\n        {\n          "toolUse": {\n '
            '           "input": {\n              "location": "Seattle"\n            },\n       '
            '     "name": "get_current_weather",\n            "toolUseId": "tooluse_AOOBCtPEQ7'
            'SHozPsXCqgNg"\n          }\n        },\n        {\n          "toolUse": {\n          '
            '  "input": {\n              "location": "San Francisco"\n            },\n          '
            '  "name": "get_current_weather",\n            "toolUseId": "tooluse_biMWVYVLSR-qN'
            '88TpGnkUA"\n          }\n        }\n      ],\n      "role": "assistant"\n    }\n  },\n '
            ' "stopReason": "tool_use",\n  "usage": {\n    "inputTokens": 415,\n    "outputToken'
            's": 180,\n    "totalTokens": 595\n  }\n}'
        ),
    },
    'invoke_nova_micro_one_call': {
        "source": 'Arize-ai/openinference',
        "path": (
            'python/instrumentation/openinference-instrumentation-bedrock/tests/openinference'
            '/instrumentation/bedrock/cassettes/TestNovaInvokeModel.test_nova_with_tool_use.y'
            'aml'
        ),
        "commit": '1fe497f1d9f45a07eee55d97fe185e020560f9c7',
        "url": 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/invoke',
        "kind": 'invoke',
        "sha256": '662f28c80d5c561a2c5e6e204a13cd6b4a6229126ed80334a284e615e9533f86',
        "text": (
            '{"output":{"message":{"content":[{"text":"<thinking> The User has asked for the '
            'current weather in Seattle. To provide this information, I will use the \\"get_we'
            'ather\\" tool with the location \\"Seattle\\". </thinking>\\n"},{"toolUse":{"name":"'
            'get_weather","toolUseId":"f138f98b-8fa4-46e8-8d0f-6a3da738bb1d","input":{"locati'
            'on":"Seattle"}}}],"role":"assistant"}},"stopReason":"tool_use","usage":{"inputTo'
            'kens":408,"outputTokens":54,"totalTokens":462,"cacheReadInputTokenCount":0,"cach'
            'eWriteInputTokenCount":0}}'
        ),
    },
    'invoke_nova_micro_two_calls': {
        "source": 'open-telemetry/opentelemetry-python-contrib',
        "path": (
            'instrumentation/opentelemetry-instrumentation-botocore/tests/cassettes/test_invo'
            'ke_model_no_content_tool_call[amazon.nova].yaml'
        ),
        "commit": '466ae4c00de77d1f54f77a9600f1d08eba2306b5',
        "url": 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/invoke',
        "kind": 'invoke',
        "sha256": '5cdb259986d22be973e575fc58f5ab7885290c8adcf7446e94e1e5134b19c737',
        "text": (
            '{\n  "output": {\n    "message": {\n      "content": [\n        {\n          "text": '
            '"<thinking> To provide the current weather information for both Seattle and San '
            'Francisco, I will need to use the `get_current_weather` tool separately for each'
            ' city. I will start by calling the tool for Seattle and then proceed to call it '
            'for San Francisco.</thinking>\\n"\n        },\n        {\n          "toolUse": {\n   '
            '         "name": "get_current_weather",\n            "toolUseId": "4d8acf92-6a04-'
            '42b6-aaf7-f68937a339ef",\n            "input": {\n              "location": "Seatt'
            'le"\n            }\n          }\n        },\n        {\n          "toolUse": {\n      '
            '      "name": "get_current_weather",\n            "toolUseId": "db27bd9d-9f7d-478'
            '3-aa8b-59871e00e0bc",\n            "input": {\n              "location": "San Fran'
            'cisco"\n            }\n          }\n        }\n      ],\n      "role": "assistant"\n  '
            '  }\n  },\n  "stopReason": "tool_use",\n  "usage": {\n    "inputTokens": 427,\n    "o'
            'utputTokens": 172,\n    "totalTokens": 599,\n    "cacheReadInputTokenCount": 0,\n  '
            '  "cacheWriteInputTokenCount": 0\n  }\n}'
        ),
    },
    'invoke_stream_claude35_two_calls': {
        "source": 'Arize-ai/openinference',
        "path": (
            'python/instrumentation/openinference-instrumentation-bedrock/tests/openinference'
            '/instrumentation/bedrock/cassettes/TestInvokeModelWithStreamResponse.test_invoke'
            '.yaml'
        ),
        "commit": '1fe497f1d9f45a07eee55d97fe185e020560f9c7',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonne'
            't-20240620-v1%3A0/invoke-with-response-stream'
        ),
        "kind": 'invoke-with-response-stream',
        "sha256": '0cc80a9bb0ce223102aabd33a5d29488aa0a97e48f5fdd39e57264e6f38d802d',
        "zlib_b64": (
            "eNrdmVuM1GQUx2ejRJFgwIQIrkFSDRjk0nYubFdWly5Mp8NOh+nstJ0mGqaX2bbTdoada8dUjYkxvBh8IRp9wAcS"
            "L7xAQkwwJGok8YKJQR58USIYwwNRCBKiYuL5ZnZlWFhYdxF257Ff+33t+Z1zvvP/egKBnrOBQGC7eHL5V4v69Zru"
            "VtZXvJJ+X2CBalTdwuJ+tehWro4uyZVKtqnmKmbR3WiVi+7ifkcvl3Oj+sS01hovYIpX0ctYP6Z7cVyXaJu1iqYi"
            "Ck2VjLqyQDU1JuppQ2yZdQhbDXKGTGbMpFs2c2LKTJrxikpq+azDezmir54QBFeQaDxt8xKHNxi5aRQUKzqWDdq7"
            "1FjRHB66wTvSsLYbrylMBq1nwDtKapA3FDeFnq8oJG8rQ2yEdbhyVhIKchpvDo9k4L1UVXEEfHiErSesVJ2z2Dpr"
            "1s0sjGuMUIVvjogEDmtzuBKk86ojGGgOa5Wqmtgow9pgG1WXgpytSoKtOJzdcY8Y/7YIcCkpLk1oUQpXyIqtuAkz"
            "aan1BLxLCQq4GhNwKcjXcqRQVT02kpAIKp8aGMDWYSXAmlNUTc+PGqZVsB23WNo1Vq5Ua/WG19xCD23dFmVibHz7"
            "cIJL7sD8Fb2N44FAzwrkZ+zl3Jr/3c//sopSpsJQVo7o9LddlRkhBM/VgYelkGFcFsO4RMbLCsmNAatNrMuH1bbf"
            "cFkycMQf1gsh9qwZnxmHFJ8eyQiilJVxggyGwhHMX8esOQJgliAwG/fcI9wNMAVZbODZ9HVgJsYjnfNbEKIdc1ze"
            "1mOthNkhzxYM5v/82MK1XcKDHYW1CdWF5EvTcdYlqBkkzuvfvnsaeDyCeOirei/PZx6uPESbcpouZiW6rqdpXPFo"
            "V5ZSZl7C/2vMYP6zT6zfCWQWITJ9+/Yfm9eRoosUwcb4ItCxNCnuoe0Irm0F5qpOFIcxe6oIwvwDR58kAcXjCMWX"
            "Sz8NzO+kEcMFNkbXoPpAVeRLChkazYlhRwnGKxPXskN5bJQzFJNmAE81S9rNLNlXnRpR4DkG5dEahGjzG6OfzGtE"
            "I4yAswxhs4xsawxXRJGTnVkeXVOUMF/d/Y0OmHoRJmmQZOY1JpmJwhgNkTORYPGSTEItn8FWjPn36ruLgOUvhObj"
            "L1YPzO8kkzRDT4emFTGYf2rTgQaYfQiZ/utTjy64S+qNaqlg2AsKsjQKSpWeyouYn770wQDE8avoiyO1DyNzRW82"
            "pqM3FZIqS0GhKbcdXWg7k6opMeHqeSTDNbSMwSRF0O5O2JODRkjfmsG1qBzKShl0vqhmRaL1bTIJOp7kQIrEQePz"
            "eY0UDI0xbNWmSooj18ap1jXYQpJuhZrtNjKhbas/vrcanLAUOeGh82t/mSsZ05gqY9oQ+HzO5WqK3Zk5tKG6fCkr"
            "Ntr3zJkcAjDfVJMuAFmNgPRc4ErdBcStqHCSLWkxW4W5ozMSvCke86+cPfETEPodUaLePHiuuyjZdTPjTQodzD9W"
            "XXkOIuN+ZPNLgVPLustmUGjsNtnLpm+RMphPPp9AGfIg4nB+cO3hLuMQtnISZylE3cynb7l9YP42EX8NSPyAaFxi"
            "r7w1R+pulLod1eHE9wdtcPUIMu6VM3+fmisl2rttJXpEc9M4EeGbRkKwBC8R5Kq8JBRlMgp3Ujct0SpA18QGlGkb"
            "hdX0yjTmi3sjOWC6EjHds+/oprmSPt7dqbjXBB/mH1o+iI7IlxGdF/u+3txddMbL7+Syi/lnLr69H0y+gMy+0Hjm"
            "nS4zmw9fazLmr+pt0JAFBDL4O2LB6e4yGARE0qRV1ka/P7aYsxfrmH/efHgDwLqCgC08++f67gJWAOUhtivvdZoU"
            "8z+vJT6DYOlBto8tOap1l+0OpbIufpMgge3h+MXlYPz7CMAfvUf2zhGREZ8kMjD/N2bZ03e0uHX0Cjs8xNtKjDfa"
            "gmBy/21cBEQpQiVbZ/Ap+3D5dN3UpKs9xxv220YS9WmmN+af/IhDJwgH0dlwYs2Td7iT2nYfyBlDd6jqsBi35Vi8"
            "liXLFXApCRKqLWUKhK3F4qVsMDHeaW3FcqbVfSxwNQ399raKwcRWRJoitBjqTraJpEiKQJ3TpFUIAdmS4sqwfhTP"
            "iVR1hIkiuWbpkCuJ5hYcdTBlx/bUID+kS7zdeZ9rFhqz2zQxf+cDhwf/AW6sWk8="
        ),
    },
    'invoke_stream_nova_micro_two_calls': {
        "source": 'open-telemetry/opentelemetry-python-contrib',
        "path": (
            'instrumentation/opentelemetry-instrumentation-botocore/tests/cassettes/test_invo'
            'ke_model_with_response_stream_no_content_tool_call[amazon.nova].yaml'
        ),
        "commit": '466ae4c00de77d1f54f77a9600f1d08eba2306b5',
        "url": (
            'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/i'
            'nvoke-with-response-stream'
        ),
        "kind": 'invoke-with-response-stream',
        "sha256": '24521e404a05b4f6973e59fbbb94525b8327c1ea5a2a1ac45520ae67c568fec3',
        "zlib_b64": (
            "eNrVW32QE+UZz6koTOdUnKkMtXboi3bAlmGzuQA5RIeE270Nl80ll+xXa2t2k8tustlLyXfsSzt2LLa2FWfUgYrO"
            "2EKFEWag4vAlw9BigSKOFbClWCmV0gq2U6ZDFapOnzcMcJS7y30off1jZ3KXfZP39/ze3/v8nmffuFyu7S6Xa6H9"
            "wCMHP9OeKqec4oxiLZ+6wTXOMEtOtrXd6HOKl/57cyKfty0jUbT6nJmZQp/T2p5LFQqJdOrCsMZnPID0WjFVQO0o"
            "VQsWNUWsq3LSjnuipuFErLBTsIycr6D1CLOEHFc3WLue5LlSMhD09UbmzUNfQXkYmtCNZKo3bVqZrJ1z+vLfXFQo"
            "lsqVaq0+H+HQzG+853K1XEsmP/61f1z3SU0+o7NeRpO9TCRXLatssUOTq4wKE4f3sv1eM5piMkKmz+rujPYlZO8i"
            "uBzBYQpCTizrTtSGK6DzvkyCsUsaL7XBvZVehRkGWH9gQQfHdwrBhV0hMdwdifbE4pKM8O53E2sB/i4SgmVbJmSu"
            "VghiSd5XETL52WOGhvCzp2dugfl/RDAUpq0J0UOj5Y8n+LjV21OxVNZXSvJSKdkRLOisuKhH9mY1JW2FM9ww1+uA"
            "FCL86M6TLwLyXxH0dy0/VKeJwepwGET4x9Nqx0CHLQTCopu3J6khUOCkuqYITQgMjoVAWVERnod+OAvAv0oC8PqE"
            "ifto4rA2wg0G4el7X2oDJPsJmifWZG+jh07eNI1a0NcVuGJsUM9F7VRAmBXyuH2X0CJ8fLrfAiAvEDAHFnpfpIma"
            "+kDUIDx76p7HYbpnyZR3ji/dR0/8O4O2oUi24YnaWsDPNN8boyOQFsKPeX95DkC/QoCv3ut/niaumBHJCOF9yw5O"
            "hj2xlWDZ9KfuFEUiEt2GEwSMkXSSlcwkb9qG5c/r1tDCEpX+whrJHolw26R1fgjEmyQYe6Yfmk4Tse6xGDAFYWn3"
            "WjCgLTcQbB92d+6iSK1Rj95ktxSd0ZJKEp/GuFlPm3fW7DkIv7VpyTlabQw7PBuza+5D98P0f0cg7Dh7fA5Fko3m"
            "tZxmGzmpUR8NyajnckYRTj657V6AtJfAun/6/iM0MeMZvvgQFl653galTSJAnl5/lKOIH3IfxyRkX8mo96XjZFvt"
            "jEJt6zf1XAT+5kpCh1ZTZW8moYiZZqoMdw5flQi3PvtcAUKymYRl5VPXraSJ37ZB+YUM+bPZpHR9g8z7weX7H6aG"
            "zi7LH4QsaTbLiOErMyLCE7dvft51FRoqo2HDO7TaEN4a2H47KGwcmfySpbetpCiXQSHX03CcaSXQrKDrGENTBeFD"
            "Z762AgJwkAThffWZv1FVkIc6R5GwITsffZ+syFME05FpG3ZQQ6zGSozCXnCk0d6LjtSuWE06Z9XQAI4U4Vv3bcIA"
            "8y0C9RfvfE+giz5lTH4L4Z+uWvVFQHaMoHts2Zov0OQ2yzpbSSf5OWmdDTKqbJeaEniF+0T4zbsnPArgdhCAt277"
            "/Ua66GtilxFe+S8GVl7LeDL9b7uOfpYmfvoSSqjZzlkfUzV0oSJA+PrDX98KMdhN4nB0cmErXTR6hqdChM/ececG"
            "OlsxPMDJ+Wq6fN52djXxKqHYyFoxh1tTG6hNguLokuDmIzN+BHj+TDC9MefAq/SQ2ZFNJ1m7oAeakSgNRSLCf/9o"
            "CYBzHSIIX/ZtUuhibVS5D+HPJ1tm0Ekb7zYTbLMWaEez7gPsMqu/9VVAt48g/Nw7z2yjizZnJMWo/u8VZYBxmkA5"
            "Xb1nxaeqGxaKJUf4KAjhjav3PQRg3yaATynnFtPFnWfs7T2Es39tjwO8kwTiic5lN1HEqWgbPFdTlah9wX+qLFfQ"
            "O0OFZt5zgB4Lwp7fhr9M63O8anhkWQ9h4an/qJRunL4SVPM53SOkNZnLJJrmPXsgXSJ87DvnvgTo/kAQ8taU79PF"
            "1+hrPYRvWWfOBVR/JMjOCB8sp7LX2URjtYGbFQg/cftON60lem1UHZb+JXpp6gdTAdnrBF1lcraTnr5mplJuStlA"
            "Pc11D569EdDsIYjuE45n6eJruDJD+J78iW4ozm8iOPZPuXYcNcwkeTOv54pwGU3cpFD7WAr0xiO7H/zFr0Eo1pNw"
            "PH4qnKKL1v+1nQjfcePil4G+a8h8vet3b6TnnJhdbb4Xjt2KIdx95hg5Z7SNRODtuYuLdDE2BEKEtRVLXwLy7m08"
            "F2nZ9t2rOHWulgw0CKv3e83orK8gKaLdgOUQ81iVDFYKagFyIDXSFo7ZWTWW9nbFJFPMGEWR53Ihy22qsTjTBZeW"
            "0bKhHGdqfIQJBQQg32vqctwKW0FHU6K9qkeqNR7Ycj6PRro0vFQTYFEPaXQGOTCD8Il5vyFHmD4k4Wt7+MDT//e1"
            "f1n4cnbJ6JQaWki5KxZZGeDJ8/BZBrxvCLZow9+MzksG6MSCLWxIrVze30F4LXrkSQD+GgHfenjONKqW/YibUQiv"
            "2rLUAS0EG/nUc/BuyrUQtEVW8Gpy0OyKCd5QLAJa6KioPW5LjXHZLjneJmZEM7xAaAvJoWr4Y9OC1qwYR/iFXSff"
            "hUhOJJG85Z93nfi0ycLULT9v5LiSytp1yPrDk8egHRnIkXdOaaf1GE5tOK0khPdsLpauhtr7/yShbFxUha8Sz0mm"
            "AQ7svDPzlXXO5zZIn280zgvh57bM/7XLdQ1poSz0Tfr5zk8QTxSyEXdhLcKcOUc7/zqvO353kouWE6xUMmrCLHGB"
            "4AH1lZNKtAJXXGeLQFmo0a8MBYgDhbKcl3pArVlwn5fuyYrlJNBOjvcT9aqy2KdJyVpCidqD3UccrS5LjJGzM+S7"
            "Ux5Y3060BmMbOjm/3rmiquTLuuW2NDlaI663S7ZLydxFzYiAr5aQxXp/bUm8bxEswwW6hxyNGgTXpblUxcz8Ahnb"
            "73NDpH2k50QvOeUJ4+F9LW84IhNxbEaLV03ixFVPFmITb7uEOWircjTYP64R1ufWyU9bGt8hmipr2pInmIfxg9zn"
            "H+XJc4RbfxJ4779DZW8O"
        ),
    },
}
