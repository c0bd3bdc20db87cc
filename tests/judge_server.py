"""A real OpenAI-compatible judge server for tests: HTTP/1.1 on 127.0.0.1.

::

    from judge_server import JudgeServer

    with JudgeServer(latency=0.05) as server:          # a random free port
        metric = ToolCallAppropriateness(model="judge", base_url=server.url)
        metric.evaluate(AgentTestCase(input="[[case:order-7]] Cancel order 7",
                                      tool_calls=["GetOrder", "CancelOrder"]))
        assert server.attempts["order-7"] == server.answered["order-7"] == 1

Standard library only: asyncio streams on a loop of the server's own, in a
daemon thread, so blocking test code and any number of client event loops can
talk to it. Connections are kept alive (HTTP/1.1, Content-Length or chunked
request bodies, Content-Length responses), and a listen backlog of 4096 lets a
burst of concurrent connections in without the kernel dropping SYNs. The
hostile directives (below) stream their answers piece by piece, as the client
reads them, and close the connection after.

Protocol
--------
``POST /v1/chat/completions`` with a JSON body holding ``model`` and
``messages`` answers a ``chat.completion`` whose
``choices[0].message.content`` is the verdict JSON
``{"verdicts": [{"call": i, "appropriate": bool, "reason": str}, ...]}``.
Another path is 404, another method 405, a body that is not JSON or lacks
``model``/``messages`` 400, all with OpenAI's error body
``{"error": {"message", "type", "param", "code"}}``.

Judging (deterministic)
-----------------------
The server reads the last ``user`` message. Its trailing lines
``N. {"name": ..., "arguments": ...}`` (numbered from 1, the format
agent-tool-metrics-judge sends) are the calls. A call is appropriate unless its name
contains ``delete`` (any case), or the JSON of the rest of its line (its
arguments) contains ``bad`` (any case). A message with no such lines is judged
as having no calls (``{"verdicts": []}``).

Case key
--------
Counters are kept per case: the case key is ``ID`` from a ``[[case:ID]]``
token in the user message if there is one, else the whole user message (which
a retry repeats word for word).

Fault directives
----------------
Tokens in the user message (so, in a case's ``input``) change the answer::

    [[fault:ACTION(:OPTION)*]]

    ACTION  NNN                HTTP status NNN: 400-599 with an OpenAI error body,
                               300-399 (a redirect: see location=) with a text one
            timeout=S          wait S seconds, then answer normally (if the client
                               still listens): for client-side timeouts
            malformed[=KIND]   200, content that is not one JSON object; KIND from
                               MALFORMED (default "prose")
            wrong-shape[=KIND] 200, content JSON of the wrong shape; KIND from
                               WRONG_SHAPES (default "no-verdicts")
            bad-body[=KIND]    200, a response body that is not a usable
                               chat.completion; KIND from BAD_BODIES
            drop               close the connection without answering (FIN)
            reset              abort the connection without answering (RST)
            echo-reason[=N]    200, the first call judged inappropriate for a reason
                               that quotes the request's Authorization credentials
                               after N dots (default 0)
    hostile (the answer is streamed; the connection is closed after it):
            drip=S             200 and the normal answer's headers (its whole
                               Content-Length), then its body one byte every S
                               seconds (with bytes=N: the first N bytes so, then
                               the rest at once)
            endless[=S]        200, chunked: the start of a chat.completion, then
                               chunks of 1,024 spaces, one every S seconds (default
                               0: as fast as the client reads), never an end
            endless-1xx[=S]    "102 Processing" interim responses, one every S
                               seconds (default 0.01), never a final one
            huge=N             200, the normal answer with whitespace before its
                               last "}" (still valid JSON), N bytes in all;
                               Content-Length: N unless chunked or close
            gzip-bomb=N        200, Content-Encoding: gzip: that N-byte answer,
                               compressed (~1 KB per MB); Content-Length of the
                               compressed body unless chunked or close
            bad-header[=KIND]  a response whose head (or framing) breaks HTTP/1.1;
                               KIND from BAD_HEADERS (default "status-line")
            drop-mid-body[=N]  200 and the normal answer's Content-Length, N bytes
                               of its body (default: half), then FIN
    OPTION  xN                 only N attempts fail this way, then the next
                               directive (or a normal answer) takes over
            retry-after=V      (status) send "Retry-After: V", V verbatim
            retry-after-date=S (status) send Retry-After as the HTTP date S s ahead
            retry-after-ms=M   (status) send "retry-after-ms: M" (OpenAI's header)
            pad=N              (status) append N "x" to the error message
            location=URL       (status) send "Location: URL", URL percent-decoded
                               (write ":" as %3A: a bare one ends the option)
            echo-auth          (status) end the error message with the request's
                               Authorization credentials (after pad=N)
            charset=NAME       (status) the error body's Content-Type names charset NAME
            bytes=N            (drip) drip only the first N bytes of the body
            chunked            (huge, gzip-bomb, drop-mid-body) no Content-Length:
                               a chunked body (drop-mid-body: no last chunk)
            close              (huge, gzip-bomb, endless) no Content-Length: the
                               body ends when the connection closes

Directives apply in the order written, attempt by attempt:
``[[fault:500:x1]][[fault:429:retry-after=0.2:x2]]`` fails attempt 1 with 500,
attempts 2 and 3 with 429, and answers attempt 4. A directive without ``xN``
fails every attempt that reaches it. A directive the server cannot read is
answered with HTTP 400 and listed in ``errors``. ``latency`` (seconds) delays
every answer, faults included.

Counters (thread-safe snapshots)
--------------------------------
``total`` requests received; ``attempts[key]`` requests per case key;
``answered[key]`` normal verdicts sent per case key (to a connection still
open once the answer was ready; so "every case scored once" is
``set(answered.values()) == {1}``); all counters are updated before the
response is written, so a client that has its answer sees them;
``requests`` the recorded requests (the last 10,000: method, path, headers,
JSON body, case key, attempt, what was done, monotonic time received);
``connections`` connections accepted; ``max_in_flight`` the most requests
being handled at once; ``sent[key]`` the bytes of streamed (hostile) bodies
written per case key, as they go on the wire (compressed for gzip-bomb,
without the chunked framing), each piece counted as it is handed to the
socket (so never less than the client has; a piece the socket then fails
to send still counts);
``cut_off[key]`` the streamed answers per case key whose client closed the
connection before the server had written all of it; ``errors`` what went
wrong on the server side (bad directives, handler crashes): a test can
assert it is empty. ``reset()`` zeroes them all.

A streamed answer that carries a complete normal verdict (drip, huge,
gzip-bomb) counts in ``answered`` once its last byte is about to be written,
so ``answered`` still means "a whole verdict was sent" (the client may still
refuse it: a body over its size limit). The kernel's buffers may hold part
of what ``sent`` counts, never read by the client.
"""

from __future__ import annotations

import asyncio
import collections
import email.utils
import http
import json
import math
import re
import socket
import struct
import threading
import time
import urllib.parse
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BAD_BODIES",
    "BAD_HEADERS",
    "MALFORMED",
    "WRONG_SHAPES",
    "Directive",
    "JudgeServer",
    "Recorded",
    "eventually",
    "judge_calls",
    "parse_calls",
    "parse_directives",
]

_HOSTILE = ("drip", "endless", "endless-1xx", "huge", "gzip-bomb", "bad-header", "drop-mid-body")
_CALL_LINE = re.compile(r"^(\d+)\. (\{.*\})$")
_DIRECTIVE = re.compile(r"\[\[fault:([^\]]*)\]\]")
_CASE = re.compile(r"\[\[case:([^\]]+)\]\]")
_RECORDED = 10_000

Verdicts = dict[str, Any]


# -- judging -------------------------------------------------------------------------------


def parse_calls(text: str) -> list[dict[str, Any]]:
    """The numbered call lines at the end of ``text``, in order (each a JSON object)."""
    calls: list[dict[str, Any]] = []
    for line in reversed(text.rstrip("\n").split("\n")):
        match = _CALL_LINE.match(line)
        if match is None:
            break
        try:
            call = json.loads(match.group(2))
        except ValueError:
            break
        if not isinstance(call, dict):
            break
        calls.append({"number": int(match.group(1)), **call})
    calls.reverse()
    if [call["number"] for call in calls] != list(range(1, len(calls) + 1)):
        raise ValueError(f"call lines are not numbered 1..{len(calls)}: "
                         f"{[call['number'] for call in calls]}")
    return calls


def judge_calls(calls: list[dict[str, Any]]) -> Verdicts:
    """The deterministic verdict: appropriate unless the name contains "delete"
    or the arguments contain "bad"."""
    verdicts = []
    for call in calls:
        name = str(call.get("name", ""))
        rest = json.dumps({k: v for k, v in call.items() if k not in ("number", "name")},
                          ensure_ascii=False)
        if "delete" in name.lower():
            verdict = (False, f"{name} deletes data, which the request did not ask for.")
        elif "bad" in rest.lower():
            verdict = (False, f"The arguments of {name} contain 'bad'.")
        else:
            verdict = (True, f"{name} serves the request.")
        verdicts.append({"call": call["number"], "appropriate": verdict[0], "reason": verdict[1]})
    return {"verdicts": verdicts}


def _first(v: Verdicts) -> dict[str, Any]:
    items: list[dict[str, Any]] = v["verdicts"]
    return items[0] if items else {"call": 1, "appropriate": True, "reason": "fine"}


def _edit_first(v: Verdicts, **changes: Any) -> Verdicts:
    items = [dict(item) for item in v["verdicts"]] or [dict(_first(v))]
    items[0].update(changes)
    items[0] = {key: value for key, value in items[0].items() if value is not _DROP}
    return {"verdicts": items}


_DROP = object()

#: ``wrong-shape=KIND``: the correct verdict, spoiled one way (content is valid JSON).
WRONG_SHAPES: dict[str, Callable[[Verdicts], Any]] = {
    "no-verdicts": lambda v: {"results": v["verdicts"]},
    "array": lambda v: v["verdicts"],
    "string": lambda v: "all calls are appropriate",
    "null": lambda v: None,
    "extra-key": lambda v: {**v, "summary": "fine"},
    "verdicts-object": lambda v: {"verdicts": {str(i["call"]): i for i in v["verdicts"]}},
    "verdict-not-object": lambda v: {"verdicts": ["appropriate"] * len(v["verdicts"])},
    "empty-verdicts": lambda v: {"verdicts": []},
    "missing-reason": lambda v: _edit_first(v, reason=_DROP),
    "missing-appropriate": lambda v: _edit_first(v, appropriate=_DROP),
    "missing-call": lambda v: {"verdicts": v["verdicts"][:-1]},
    "extra-field": lambda v: _edit_first(v, tool="GetOrder"),
    "call-bool": lambda v: _edit_first(v, call=True),
    "call-string": lambda v: _edit_first(v, call=str(_first(v)["call"])),
    "call-float": lambda v: _edit_first(v, call=float(_first(v)["call"])),
    "call-zero": lambda v: _edit_first(v, call=0),
    "call-out-of-range": lambda v: _edit_first(v, call=len(v["verdicts"]) + 1),
    "duplicate-call": lambda v: {"verdicts": v["verdicts"] + [dict(_first(v))]},
    "appropriate-string": lambda v: _edit_first(v, appropriate="true"),
    "appropriate-int": lambda v: _edit_first(v, appropriate=1),
    "appropriate-null": lambda v: _edit_first(v, appropriate=None),
    "empty-reason": lambda v: _edit_first(v, reason=""),
    "blank-reason": lambda v: _edit_first(v, reason="   "),
    "reason-not-string": lambda v: _edit_first(v, reason=42),
    # Floods: what a message may quote of them is bounded (and the work linear).
    "many-keys": lambda v: {**{f"key-{i}": i for i in range(50_000)}},
    "huge-call": lambda v: _edit_first(v, call=10 ** 3000),
    "long-extra-key": lambda v: {**v, "k" * 100_000: 1},
}

#: ``malformed=KIND``: content text that is not one JSON object.
MALFORMED: dict[str, Callable[[Verdicts], str]] = {
    "prose": lambda v: f"Here is my verdict: {json.dumps(v)}",
    "fenced": lambda v: f"```json\n{json.dumps(v)}\n```",
    "truncated": lambda v: json.dumps(v)[:-7],
    "duplicate-key": lambda v: '{"verdicts": [], ' + json.dumps(v)[1:],
    "nan": lambda v: json.dumps(_edit_first(v, reason=float("nan"))),
    "two-objects": lambda v: json.dumps(v) + "\n" + json.dumps(v),
    "empty": lambda v: "",
    # 40,000 keys and one of them twice (~0.6 MB): a quadratic duplicate check stalls
    # the client's event loop for half a minute.
    "many-keys": lambda v: "{" + ", ".join(f'"k{i}": 0' for i in range(40_000)) + ', "k0": 1}',
    "long-duplicate-key": lambda v: json.dumps({"k" * 100_000: 1})[:-1] + ", "
                                    + json.dumps({"k" * 100_000: 2})[1:],
    # 200,000 objects (~1.4 MB): each a call into Python if the parser builds them all.
    "many-objects": lambda v: json.dumps({"verdicts": [{}] * 200_000}),
}


def _completion(model: str, content: Any, finish_reason: str = "stop",
                **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-judge", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content, **message}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


#: ``bad-body=KIND``: a 200 response whose body is no usable chat.completion:
#: (content type, body bytes) from the model name and the correct verdict.
BAD_BODIES: dict[str, Callable[[str, Verdicts], tuple[str, bytes]]] = {
    "not-json": lambda m, v: ("text/html", b"<html><body>Bad gateway</body></html>"),
    "array": lambda m, v: ("application/json", json.dumps([v]).encode()),
    "no-choices": lambda m, v: ("application/json",
                                json.dumps({**_completion(m, ""), "choices": []}).encode()),
    "missing-choices": lambda m, v: ("application/json", json.dumps({"id": "x"}).encode()),
    "no-message": lambda m, v: ("application/json", json.dumps(
        {"choices": [{"index": 0, "finish_reason": "stop"}]}).encode()),
    "null-content": lambda m, v: ("application/json",
                                  json.dumps(_completion(m, None, "tool_calls")).encode()),
    "refusal": lambda m, v: ("application/json", json.dumps(
        _completion(m, None, refusal="I can't help with that.")).encode()),
    "truncated": lambda m, v: ("application/json", json.dumps(
        _completion(m, json.dumps(v)[:-3], "length")).encode()),
    # Nested past any JSON parser's recursion limit (json.loads: RecursionError).
    "deep": lambda m, v: ("application/json", b"[" * 100_000 + b"]" * 100_000),
    # Floods: what a message may quote of them is bounded.
    "long-finish": lambda m, v: ("application/json", json.dumps(
        _completion(m, None, "x" * 1_000_000)).encode()),
    "long-content-type": lambda m, v: ("text/html; " + "x" * 8_000, b"<html>Bad gateway</html>"),
}


#: ``bad-header=KIND``: what is written instead of a response (then the
#: connection is closed): a head, or its framing, that breaks HTTP/1.1 in a way
#: h11 (httpx's parser) refuses.
BAD_HEADERS: dict[str, bytes] = {
    "status-line": b"HTTP/1.1 two hundred OK\r\nContent-Length: 2\r\n\r\n{}",
    "not-http": b"SSH-2.0-OpenSSH_9.6\r\n",
    "http2": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "no-colon": b"HTTP/1.1 200 OK\r\nContent-Type application/json\r\nContent-Length: 2"
                b"\r\n\r\n{}",
    "space-before-colon": b"HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n{}",
    "nul": b"HTTP/1.1 200 OK\r\nX-Judge: a\x00b\r\nContent-Length: 2\r\n\r\n{}",
    "bad-length": b"HTTP/1.1 200 OK\r\nContent-Length: two\r\n\r\n{}",
    "two-lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}",
    "bad-transfer-encoding": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n{}",
    "bad-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "cut-head": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
    "huge-head": b"HTTP/1.1 200 OK\r\nX-Padding: " + b"x" * 200_000 + b"\r\n\r\n{}",
}

#: Streamed bodies are written in pieces of this size at most.
_PIECE = 64 * 1024


# -- directives ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Directive:
    """One ``[[fault:...]]`` token, read (see the module's docstring)."""

    action: str  # "status", "timeout", "malformed", ..., "drip", "huge", "bad-header", ...
    status: int = 0
    seconds: float = 0.0
    kind: str = ""
    times: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    pad: int = 0
    size: int | None = None  # huge, gzip-bomb, drop-mid-body: N; drip: bytes=N
    framing: str = ""  # "", "chunked" or "close"
    echo: bool = False  # (status) the Authorization credentials end the message
    charset: str = ""  # (status) the charset the error body's Content-Type names


#: The framings each streamed action may be given (besides its default).
_FRAMINGS = {"huge": ("chunked", "close"), "gzip-bomb": ("chunked", "close"),
             "drop-mid-body": ("chunked",), "endless": ("close",)}


def _seconds(value: str) -> float:
    seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{value!r} is not a number of seconds")
    return seconds


def _bytes(value: str) -> int:
    if not value.isdigit():
        raise ValueError(f"{value!r} is not a number of bytes")
    return int(value)


def _directive(spec: str) -> Directive:
    action, *options = spec.split(":")
    name, _, value = action.partition("=")
    fields: dict[str, Any] = {}
    if re.fullmatch(r"\d{3}", action) and 300 <= int(action) <= 599:
        fields.update(action="status", status=int(action))
    elif name == "timeout" and value:
        fields.update(action="timeout", seconds=float(value))
    elif name == "drip" and value:
        fields.update(action="drip", seconds=_seconds(value))
    elif name in ("endless", "endless-1xx"):
        fields.update(action=name, seconds=_seconds(value) if value else
                      (0.0 if name == "endless" else 0.01))
    elif name in ("huge", "gzip-bomb") and value:
        fields.update(action=name, size=_bytes(value))
    elif name == "drop-mid-body":
        fields.update(action=name, size=_bytes(value) if value else None)
    elif name == "bad-header":
        kind = value or "status-line"
        if kind not in BAD_HEADERS:
            raise ValueError(f"unknown bad-header kind {kind!r}; known: {sorted(BAD_HEADERS)}")
        fields.update(action=name, kind=kind)
    elif name in ("malformed", "wrong-shape", "bad-body"):
        tables: dict[str, dict[str, Any]] = {
            "malformed": MALFORMED, "wrong-shape": WRONG_SHAPES, "bad-body": BAD_BODIES}
        table = tables[name]
        kind = value or {"malformed": "prose", "wrong-shape": "no-verdicts",
                         "bad-body": "not-json"}[name]
        if kind not in table:
            raise ValueError(f"unknown {name} kind {kind!r}; known: {sorted(table)}")
        fields.update(action=name, kind=kind)
    elif action in ("drop", "reset"):
        fields.update(action=action)
    elif name == "echo-reason":
        fields.update(action=name, pad=_bytes(value) if value else 0)
    else:
        raise ValueError(f"unknown fault action {action!r}")
    headers: list[tuple[str, str]] = []
    for option in options:
        key, _, value = option.partition("=")
        if re.fullmatch(r"x\d+", option):
            fields["times"] = int(option[1:])
        elif key == "retry-after" and value:
            headers.append(("Retry-After", value))
        elif key == "retry-after-date" and value:
            headers.append(("Retry-After",
                            email.utils.formatdate(time.time() + float(value), usegmt=True)))
        elif key == "retry-after-ms" and value:
            headers.append(("retry-after-ms", value))
        elif key == "pad" and value.isdigit():
            fields["pad"] = int(value)
        elif key == "location" and value:
            headers.append(("Location", urllib.parse.unquote(value)))
        elif option == "echo-auth" and fields["action"] == "status":
            fields["echo"] = True
        elif key == "charset" and value and fields["action"] == "status":
            fields["charset"] = value
        elif key == "bytes" and fields["action"] == "drip":
            fields["size"] = _bytes(value)
        elif option in _FRAMINGS.get(fields["action"], ()):
            fields["framing"] = option
        else:
            raise ValueError(f"unknown fault option {option!r}"
                             + (f" for {name}" if fields["action"] in _FRAMINGS else ""))
    return Directive(headers=tuple(headers), **fields)


def parse_directives(text: str) -> list[Directive]:
    """Every ``[[fault:...]]`` token in ``text``, in order; ValueError for one that is
    not understood."""
    directives = []
    for spec in _DIRECTIVE.findall(text):
        try:
            directives.append(_directive(spec))
        except ValueError as error:
            raise ValueError(f"bad directive [[fault:{spec}]]: {error}") from None
    return directives


def _for_attempt(directives: list[Directive], attempt: int) -> Directive | None:
    """The directive that governs ``attempt`` (from 1), or None: answer normally."""
    passed = 0
    for directive in directives:
        if directive.times is None or attempt <= passed + directive.times:
            return directive
        passed += directive.times
    return None


def eventually(condition: Callable[[], Any]) -> Any:
    """For tests: wait (at most 10 s: only a hang trips this) for the server's
    thread to notice something; the condition's last value."""
    deadline = time.monotonic() + 10
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


# -- the server ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON, or None
    case: str
    attempt: int
    outcome: str  # "answered", "status 429", "drop", ...
    received: float  # time.monotonic()


class _Answer:
    __slots__ = ("body", "case", "close", "content_type", "cut", "framing", "head", "headers",
                 "length", "pieces", "status", "verdict_for")

    def __init__(self, status: int, body: bytes, content_type: str = "application/json",
                 headers: tuple[tuple[str, str], ...] = (), close: str | None = None,
                 verdict_for: str | None = None) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = headers
        self.close = close  # "drop" or "reset": no answer at all
        self.verdict_for = verdict_for  # a normal verdict for this case: counted once written
        # A streamed answer (hostile directives): its body is ``pieces``, not ``body``.
        self.pieces: AsyncIterator[bytes] | None = None
        self.case = ""  # whose ``sent`` and ``cut_off`` it counts in
        self.framing = "length"  # "length" (Content-Length), "chunked", "close" or "raw"
        self.length: int | None = None  # the Content-Length announced ("length")
        self.head: bytes = b""  # "raw": written as is, instead of a response head
        self.cut = False  # closed after the pieces, before the body is complete


def _streamed(case: str, pieces: AsyncIterator[bytes], *, framing: str = "length",
              length: int | None = None, headers: tuple[tuple[str, str], ...] = (),
              verdict_for: str | None = None, cut: bool = False, head: bytes = b"") -> _Answer:
    answer = _Answer(200, b"", headers=headers, verdict_for=verdict_for)
    answer.case, answer.pieces, answer.framing = case, pieces, framing
    answer.length, answer.cut, answer.head = length, cut, head
    return answer


async def _pieces(parts: Iterator[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _padded(body: bytes, size: int) -> Iterator[bytes]:
    """``body`` (a JSON object) with spaces before its last byte, ``size`` bytes in all
    (the body itself if it is longer), in pieces of at most _PIECE bytes."""
    pad = max(0, size - len(body))
    yield body[:-1]
    block = b" " * _PIECE
    while pad >= _PIECE:
        yield block
        pad -= _PIECE
    if pad:
        yield b" " * pad
    yield body[-1:]


def _gzipped(parts: Iterator[bytes]) -> Iterator[bytes]:
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    for part in parts:
        out = compressor.compress(part)
        if out:
            yield out
    yield compressor.flush()


async def _drip(body: bytes, seconds: float, count: int) -> AsyncIterator[bytes]:
    for i in range(count):
        await asyncio.sleep(seconds)
        yield body[i:i + 1]
    if count < len(body):
        yield body[count:]


async def _endless(prefix: bytes, seconds: float) -> AsyncIterator[bytes]:
    yield prefix
    filler = b" " * 1024
    while True:
        await asyncio.sleep(seconds)
        yield filler


async def _interim(seconds: float) -> AsyncIterator[bytes]:
    while True:
        await asyncio.sleep(seconds)
        yield b"HTTP/1.1 102 Processing\r\n\r\n"


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:  # a status http.HTTPStatus does not name (299, 499, ...)
        return "Unnamed"


def _error(status: int, message: str, kind: str = "invalid_request_error",
           headers: tuple[tuple[str, str], ...] = ()) -> _Answer:
    body = {"error": {"message": message, "type": kind, "param": None, "code": status}}
    return _Answer(status, json.dumps(body).encode(), headers=headers)


def _credentials(headers: dict[str, str]) -> str:
    """The credentials of a request's Authorization header (after its scheme), as received."""
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    return value.partition(" ")[2] or "(none)"


def _user_text(body: Any) -> str:
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return content if isinstance(content, str) else ""
    return ""


class JudgeServer:
    """The server; start and stop it with ``with JudgeServer() as server:`` (or
    ``start()``/``stop()``). ``url`` is the base URL to give a client
    (``http://127.0.0.1:PORT/v1``). ``latency`` may be changed while it runs."""

    def __init__(self, *, latency: float = 0.0, host: str = "127.0.0.1", port: int = 0) -> None:
        self.latency = latency
        self.host = host
        self.port = port
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._started = threading.Event()
        self._startup_error: BaseException | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.reset()

    # counters ----------------------------------------------------------------------------

    def reset(self) -> None:
        """Zero every counter and forget the recorded requests."""
        with self._lock:
            self._total = 0
            self._attempts: collections.Counter[str] = collections.Counter()
            self._answered: collections.Counter[str] = collections.Counter()
            self._requests: collections.deque[Recorded] = collections.deque(maxlen=_RECORDED)
            self._connections = 0
            self._in_flight = 0
            self._max_in_flight = 0
            self._sent: collections.Counter[str] = collections.Counter()
            self._cut_off: collections.Counter[str] = collections.Counter()
            self._errors: list[str] = []

    @property
    def total(self) -> int:
        with self._lock:
            return self._total

    @property
    def attempts(self) -> collections.Counter[str]:
        with self._lock:
            return collections.Counter(self._attempts)

    @property
    def answered(self) -> collections.Counter[str]:
        with self._lock:
            return collections.Counter(self._answered)

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._requests)

    @property
    def connections(self) -> int:
        with self._lock:
            return self._connections

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    @property
    def sent(self) -> collections.Counter[str]:
        with self._lock:
            return collections.Counter(self._sent)

    @property
    def cut_off(self) -> collections.Counter[str]:
        with self._lock:
            return collections.Counter(self._cut_off)

    @property
    def errors(self) -> list[str]:
        with self._lock:
            return list(self._errors)

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until every connection the server accepted has been handled to its end
        (at most ``timeout`` seconds); whether it got there.

        A client that gave up on an attempt may have sent a request this server has not
        read yet (on a loaded machine its thread runs late): the request is counted when
        it is read, so a test reads the counters after this."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._handlers:
                return True
            time.sleep(0.01)
        return not self._handlers

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # lifecycle ---------------------------------------------------------------------------

    def start(self) -> JudgeServer:
        if self._thread is not None:
            raise RuntimeError("JudgeServer is already running")
        self._started.clear()
        self._thread = threading.Thread(target=self._run, name="judge-server", daemon=True)
        self._thread.start()
        self._started.wait()
        if self._startup_error is not None:
            self._thread.join()
            self._thread = None
            raise RuntimeError(f"JudgeServer could not start: {self._startup_error!r}")
        return self

    def stop(self) -> None:
        """Stop: cancel what is being handled, close every connection, end the thread."""
        thread, loop, stopping = self._thread, self._loop, self._stopping
        if thread is None:
            return
        if loop is not None and stopping is not None:
            loop.call_soon_threadsafe(stopping.set)
        thread.join(timeout=30)
        if thread.is_alive():
            raise RuntimeError("JudgeServer did not stop within 30 s")
        self._thread = None

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self._thread is not None else "stopped"
        return f"JudgeServer({self.url!r}, {state}, total={self.total})"

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as error:
            self._startup_error = error
        finally:
            self._started.set()
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            self._loop = None

    async def _main(self) -> None:
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(self._serve, self.host, self.port, backlog=4096)
        self.port = server.sockets[0].getsockname()[1]
        self._started.set()
        try:
            await self._stopping.wait()
        finally:
            server.close()
            handlers = list(self._handlers)
            for task in handlers:
                task.cancel()
            await asyncio.gather(*handlers, return_exceptions=True)
            await server.wait_closed()

    # HTTP --------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        with self._lock:
            self._connections += 1
        try:
            while await self._one_request(reader, writer):
                pass
        except asyncio.CancelledError:
            pass  # the server is stopping
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away
        except Exception as error:
            with self._lock:
                self._errors.append(f"handler crashed: {error!r}")
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except (Exception, asyncio.CancelledError):
                pass
            self._handlers.discard(task)

    async def _one_request(self, reader: asyncio.StreamReader,
                           writer: asyncio.StreamWriter) -> bool:
        """Read, handle and answer one request; whether to keep the connection."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False  # closed between requests
        except asyncio.LimitOverrunError:
            await self._write(writer, _error(431, "request headers too large"), keep=False)
            return False
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            await self._write(writer, _error(400, "bad request line"), keep=False)
            return False
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            raw = await self._read_chunked(reader)
        else:
            raw = await reader.readexactly(int(headers.get("content-length", "0") or 0))
        connection = headers.get("connection", "").lower()
        keep = connection != "close" if version == "HTTP/1.1" else connection == "keep-alive"

        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            answer = await self._handle(method, target.split("?")[0], headers, raw, reader, writer)
        finally:
            with self._lock:
                self._in_flight -= 1
        if answer is None:  # the client left while the answer was being prepared
            return False
        if answer.close == "drop":
            writer.close()
            return False
        if answer.close == "reset":
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        if answer.pieces is not None or answer.head:
            await self._stream(reader, writer, answer)
            return False
        await self._write(writer, answer, keep)
        return keep

    @staticmethod
    async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readline()).strip():
                    pass  # trailers
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readline()

    async def _write(self, writer: asyncio.StreamWriter, answer: _Answer, keep: bool) -> None:
        head = [f"HTTP/1.1 {answer.status} {_phrase(answer.status)}",
                f"Content-Type: {answer.content_type}",
                f"Content-Length: {len(answer.body)}",
                f"Connection: {'keep-alive' if keep else 'close'}",
                *(f"{key}: {value}" for key, value in answer.headers)]
        if answer.verdict_for is not None:
            # Counted before it is written: the client, in another thread, may
            # read it and look at the counters before this thread runs again.
            with self._lock:
                self._answered[answer.verdict_for] += 1
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + answer.body)
        await writer.drain()

    async def _stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      answer: _Answer) -> None:
        """Write a streamed answer piece by piece, as the client takes it; stop
        (and count it in ``cut_off``) as soon as the client has gone."""
        if answer.framing == "raw":
            head = answer.head
        else:
            framing = {"length": f"Content-Length: {answer.length}",
                       "chunked": "Transfer-Encoding: chunked"}.get(answer.framing)
            lines = [f"HTTP/1.1 {answer.status} {_phrase(answer.status)}",
                     f"Content-Type: {answer.content_type}",
                     *([framing] if framing else []), "Connection: close",
                     *(f"{key}: {value}" for key, value in answer.headers)]
            head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        written = 0

        def gone() -> bool:
            return reader.at_eof() or writer.is_closing()

        def complete() -> None:
            if answer.verdict_for is not None and not answer.cut:
                with self._lock:  # before the last byte goes out, as for _write
                    self._answered[answer.verdict_for] += 1

        try:
            writer.write(head)
            await writer.drain()
            async for piece in answer.pieces or _pieces(iter(())):
                if gone():
                    raise ConnectionResetError("the client closed the connection")
                if answer.framing == "length" and answer.length is not None \
                        and written + len(piece) >= answer.length:
                    complete()
                framed = (b"%x\r\n%s\r\n" % (len(piece), piece)
                          if answer.framing == "chunked" and piece else piece)
                written += len(piece)
                with self._lock:  # before the client can have it, as every counter
                    self._sent[answer.case] += len(piece)
                writer.write(framed)
                await writer.drain()
            if answer.framing == "chunked" and not answer.cut:
                complete()
                writer.write(b"0\r\n\r\n")
                await writer.drain()
            elif answer.framing == "close":
                complete()
        except (ConnectionError, OSError):
            with self._lock:
                self._cut_off[answer.case] += 1
        finally:
            aclose = getattr(answer.pieces, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _handle(self, method: str, path: str, headers: dict[str, str], raw: bytes,
                      reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> _Answer | None:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        text = _user_text(body)
        found = _CASE.search(text)
        case = found.group(1) if found else text
        with self._lock:
            self._total += 1
            self._attempts[case] += 1
            attempt = self._attempts[case]

        def record(outcome: str) -> None:
            with self._lock:
                self._requests.append(Recorded(method, path, headers, body, case, attempt,
                                               outcome, time.monotonic()))

        if path != "/v1/chat/completions":
            record("status 404")
            return _error(404, f"no route for {path}; this server answers "
                               f"POST /v1/chat/completions", "not_found_error")
        if method != "POST":
            record("status 405")
            return _error(405, f"{method} is not allowed; use POST")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) \
                or not isinstance(body.get("model"), str):
            record("status 400")
            return _error(400, "the body must be a JSON object with 'model' (a string) and "
                               "'messages' (an array)")
        try:
            directives = parse_directives(text)
            verdicts = judge_calls(parse_calls(text))
        except ValueError as error:
            with self._lock:
                self._errors.append(str(error))
            record("status 400")
            return _error(400, f"judge_server: {error}")
        directive = _for_attempt(directives, attempt)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        model = body["model"]
        if directive is None or directive.action == "timeout":
            if directive is not None:
                await asyncio.sleep(directive.seconds)
            if reader.at_eof() or writer.is_closing():
                record("abandoned by the client")  # it timed out or was cancelled
                return None
            record("answered")
            content = json.dumps(verdicts, ensure_ascii=False)
            return _Answer(200, json.dumps(_completion(model, content)).encode(),
                           verdict_for=case)
        action = directive.action
        if action == "status":
            record(f"status {directive.status}")
            if directive.status < 400:
                location = dict(directive.headers).get("Location", "")
                return _Answer(directive.status, f"Moved to {location}".encode(), "text/plain",
                               headers=directive.headers)
            message = f"injected fault: HTTP {directive.status}" + "x" * directive.pad
            if directive.echo:
                message += f": {_credentials(headers)}"
            kind = "rate_limit_error" if directive.status == 429 else (
                "server_error" if directive.status >= 500 else "invalid_request_error")
            answer = _error(directive.status, message, kind, directive.headers)
            if directive.charset:
                answer.content_type = f"application/json; charset={directive.charset}"
            return answer
        if action == "echo-reason":
            record("echo-reason")
            echoed = _edit_first(verdicts, appropriate=False, reason=(
                "." * directive.pad + f"request authenticated as {_credentials(headers)}"))
            return _Answer(200, json.dumps(_completion(model, json.dumps(echoed))).encode())
        if action in _HOSTILE:
            return await self._hostile(directive, case, model, verdicts, record)
        record(action if action in ("drop", "reset") else f"{action}={directive.kind}")
        if action in ("drop", "reset"):
            return _Answer(0, b"", close=action)
        if action == "malformed":
            content = MALFORMED[directive.kind](verdicts)
            return _Answer(200, json.dumps(_completion(model, content)).encode())
        if action == "wrong-shape":
            content = json.dumps(WRONG_SHAPES[directive.kind](verdicts))
            return _Answer(200, json.dumps(_completion(model, content)).encode())
        content_type, payload = BAD_BODIES[directive.kind](model, verdicts)
        return _Answer(200, payload, content_type)

    @staticmethod
    async def _hostile(directive: Directive, case: str, model: str, verdicts: Verdicts,
                       record: Callable[[str], None]) -> _Answer:
        """The streamed answer of a hostile directive."""
        action = directive.action
        value = {"drip": directive.seconds, "endless": directive.seconds,
                 "endless-1xx": directive.seconds, "huge": directive.size,
                 "gzip-bomb": directive.size, "bad-header": directive.kind,
                 "drop-mid-body": directive.size}[action]
        record(action if value is None else f"{action}={value}")
        body = json.dumps(_completion(model, json.dumps(verdicts, ensure_ascii=False))).encode()
        framing = directive.framing or "length"
        if action == "drip":
            count = len(body) if directive.size is None else min(directive.size, len(body))
            return _streamed(case, _drip(body, directive.seconds, count), length=len(body),
                             verdict_for=case)
        if action == "endless":
            return _streamed(case, _endless(body[:-1], directive.seconds),
                             framing=directive.framing or "chunked")
        if action == "endless-1xx":
            return _streamed(case, _interim(directive.seconds), framing="raw")
        if action == "bad-header":
            return _streamed(case, _pieces(iter(())), framing="raw",
                             head=BAD_HEADERS[directive.kind])
        if action == "drop-mid-body":
            sent = len(body) // 2 if directive.size is None else min(directive.size, len(body))
            return _streamed(case, _pieces(iter([body[:sent]])), framing=framing,
                             length=len(body), cut=True)
        size = max(directive.size or 0, len(body))
        if action == "huge":
            return _streamed(case, _pieces(_padded(body, size)), framing=framing, length=size,
                             verdict_for=case)
        gzip = (("Content-Encoding", "gzip"),)
        if framing == "length":  # a real bomb: a small Content-Length
            compressed = await asyncio.to_thread(lambda: b"".join(_gzipped(_padded(body, size))))
            return _streamed(case, _pieces(iter([compressed])), length=len(compressed),
                             headers=gzip, verdict_for=case)
        return _streamed(case, _pieces(_gzipped(_padded(body, size))), framing=framing,
                         headers=gzip, verdict_for=case)
