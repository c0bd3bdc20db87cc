"""tests/judge_server.py itself: the protocol, keep-alive, the directive grammar, the
counters, many connections at once, a prompt stop, and the hostile directives (drip,
endless, endless-1xx, huge, gzip-bomb, bad-header, drop-mid-body, redirects)."""

from __future__ import annotations

import asyncio
import email.utils
import gzip
import http.client
import json
import socket
import time

import pytest

from judge_server import (
    BAD_HEADERS,
    Directive,
    JudgeServer,
    eventually,
    judge_calls,
    parse_calls,
    parse_directives,
)
from judge_server import _for_attempt as for_attempt


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running


@pytest.fixture
def connect(server):
    """HTTP connections to the server, closed after the test whatever happens."""
    opened = []

    def new():
        opened.append(http.client.HTTPConnection("127.0.0.1", server.port, timeout=10))
        return opened[-1]

    yield new
    for connection in opened:
        connection.close()


def user(text, calls=("GetOrder",)):
    lines = [text, f"The agent made {len(calls)} tool calls:"]
    lines += [f"{i}. {json.dumps({'name': name, 'arguments': {}})}"
              for i, name in enumerate(calls, start=1)]
    return "\n".join(lines)


def body(text, calls=("GetOrder",), model="m"):
    return json.dumps({"model": model, "messages": [
        {"role": "system", "content": "judge"}, {"role": "user", "content": user(text, calls)}]})


def post(connection, payload, path="/v1/chat/completions", method="POST", headers=None):
    connection.request(method, path, body=payload,
                       headers={"Content-Type": "application/json", **(headers or {})})
    response = connection.getresponse()
    return response, response.read()


def test_answers_a_chat_completion_with_the_verdict(server, connect):
    connection = connect()
    response, raw = post(connection, body("[[case:a]] hi", ["GetOrder", "DeleteOrder"]))
    assert response.status == 200 and response.getheader("Content-Type") == "application/json"
    completion = json.loads(raw)
    assert completion["object"] == "chat.completion" and completion["model"] == "m"
    assert completion["choices"][0]["finish_reason"] == "stop"
    assert json.loads(completion["choices"][0]["message"]["content"]) == {"verdicts": [
        {"call": 1, "appropriate": True, "reason": "GetOrder serves the request."},
        {"call": 2, "appropriate": False,
         "reason": "DeleteOrder deletes data, which the request did not ask for."}]}
    assert (server.total, server.attempts["a"], server.answered["a"]) == (1, 1, 1)


def test_keeps_connections_alive_until_told_otherwise(server, connect):
    connection = connect()
    for i in range(5):
        response, _ = post(connection, body(f"request {i}"))
        assert response.status == 200 and response.getheader("Connection") == "keep-alive"
    response, _ = post(connection, body("last"), headers={"Connection": "close"})
    assert response.getheader("Connection") == "close"
    assert server.connections == 1 and server.total == 6


def test_reads_chunked_request_bodies(server, connect):
    connection = connect()
    chunks = iter([body("chunked").encode()[:10], body("chunked").encode()[10:]])
    connection.request("POST", "/v1/chat/completions", body=chunks,
                       headers={"Content-Type": "application/json"}, encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 200 and json.loads(response.read())["choices"]


@pytest.mark.parametrize("path, method, payload, status, message", [
    ("/v1/completions", "POST", body("x"), 404, "no route for /v1/completions"),
    ("/v1/chat/completions", "GET", None, 405, "GET is not allowed"),
    ("/v1/chat/completions", "POST", "{not json", 400, "'model' (a string)"),
    ("/v1/chat/completions", "POST", json.dumps({"messages": []}), 400, "'model' (a string)"),
    ("/v1/chat/completions", "POST", body("[[fault:teapot]]"), 400,
     "bad directive [[fault:teapot]]: unknown fault action 'teapot'"),
])
def test_errors_look_like_openais(server, connect, path, method, payload, status, message):
    connection = connect()
    response, raw = post(connection, payload, path=path, method=method)
    error = json.loads(raw)["error"]
    assert response.status == status and message in error["message"]
    assert set(error) == {"message", "type", "param", "code"}
    assert server.errors == ([message] if "bad directive" in message else [])


def test_status_faults_carry_the_asked_headers(server, connect):
    connection = connect()
    response, raw = post(connection, body("[[fault:429:retry-after=0.2:retry-after-ms=200]]"))
    assert response.status == 429 and response.getheader("Retry-After") == "0.2"
    assert response.getheader("retry-after-ms") == "200"
    assert json.loads(raw)["error"]["type"] == "rate_limit_error"
    response, _ = post(connection, body("[[fault:503:retry-after-date=60]]"))
    when = email.utils.parsedate_to_datetime(response.getheader("Retry-After")).timestamp()
    assert 55 < when - time.time() <= 60


def test_drop_closes_the_connection_without_an_answer(server, connect):
    connection = connect()
    with pytest.raises(http.client.RemoteDisconnected):
        post(connection, body("[[fault:drop]]"))
    assert server.answered == {} and server.total == 1


def test_the_directive_grammar():
    text = ("[[fault:500:x1]] [[fault:429:retry-after=0.2:x2]] [[fault:timeout=5]] "
            "[[fault:malformed]] [[fault:wrong-shape=call-bool]] [[fault:bad-body=refusal:x3]] "
            "[[fault:drop]] [[fault:reset:x1]] [[fault:400:pad=10]] [[fault:503:retry-after-ms=9]]")
    assert parse_directives(text) == [
        Directive("status", status=500, times=1),
        Directive("status", status=429, times=2, headers=(("Retry-After", "0.2"),)),
        Directive("timeout", seconds=5.0),
        Directive("malformed", kind="prose"),
        Directive("wrong-shape", kind="call-bool"),
        Directive("bad-body", kind="refusal", times=3),
        Directive("drop"),
        Directive("reset", times=1),
        Directive("status", status=400, pad=10),
        Directive("status", status=503, headers=(("retry-after-ms", "9"),)),
    ]
    for bad in ("[[fault:200]]", "[[fault:wrong-shape=nope]]", "[[fault:500:x]]",
                "[[fault:500:later]]", "[[fault:timeout]]"):
        with pytest.raises(ValueError, match="bad directive"):
            parse_directives(bad)


def test_directives_apply_attempt_by_attempt():
    first, second, forever = parse_directives("[[fault:500:x1]][[fault:429:x2]][[fault:drop]]")
    assert [for_attempt([first, second, forever], k) for k in (1, 2, 3, 4, 9)] == [
        first, second, second, forever, forever]
    assert [for_attempt([first, second], k) for k in (1, 2, 3, 4)] == [first, second, second, None]
    assert for_attempt([], 1) is None


def test_judging_rule_and_call_lines():
    text = user("1. not a call line", ["GetOrder", "delete_user", "Refund"])
    text = text.replace('"name": "Refund", "arguments": {}', '"name": "Refund", "arguments": '
                                                             '{"x": "BAD"}')
    calls = parse_calls(text)
    assert [c["name"] for c in calls] == ["GetOrder", "delete_user", "Refund"]
    assert [v["appropriate"] for v in judge_calls(calls)["verdicts"]] == [True, False, False]
    assert parse_calls("no calls here") == []
    with pytest.raises(ValueError, match="not numbered"):
        parse_calls('2. {"name": "A"}')


def test_many_concurrent_connections(server):
    server.latency = 0.2

    async def one(i):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        payload = body(f"[[case:{i}]]").encode()
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload))
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        writer.close()
        await writer.wait_closed()
        return head.split(b" ")[1]

    async def main():
        return await asyncio.gather(*(one(i) for i in range(300)))

    assert asyncio.run(main()) == [b"200"] * 300
    assert server.connections == 300
    assert server.max_in_flight >= 50  # handled at once, not one after another
    assert sorted(server.answered) == sorted(map(str, range(300)))


def test_counters_reset_and_requests_are_recorded(server, connect):
    connection = connect()
    post(connection, body("[[case:k]] [[fault:500:x1]]"))
    post(connection, body("[[case:k]] [[fault:500:x1]]"))
    (first, second) = server.requests
    assert (first.case, first.attempt, first.outcome) == ("k", 1, "status 500")
    assert (second.case, second.attempt, second.outcome) == ("k", 2, "answered")
    assert first.body["model"] == "m" and first.headers["content-type"] == "application/json"
    assert first.received <= second.received
    server.reset()
    assert (server.total, server.attempts, server.answered, server.requests) == (0, {}, {}, [])


def test_stops_promptly_while_answers_are_pending():
    server = JudgeServer().start()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", "/v1/chat/completions", body=body("[[fault:timeout=30]]"))
        deadline = time.monotonic() + 5
        while server.total == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 5
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            connection.getresponse()
    finally:
        connection.close()
        server.stop()  # twice is fine


# -- hostile directives ----------------------------------------------------------------------


def raw_request(server, text, calls=("GetOrder",)):
    """A socket with one request sent (Connection: close); closed by the caller."""
    payload = body(text, calls).encode()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                 % (len(payload), payload))
    return sock


def read_head(sock):
    """The response head (up to its blank line) and what was read past it."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        assert more, f"the connection closed inside the head: {data[:200]!r}"
        data += more
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {key.lower(): value.strip()
               for key, _, value in (line.partition(":") for line in lines[1:])}
    return lines[0], headers, rest


def read_all(sock):
    parts = []
    while more := sock.recv(65536):
        parts.append(more)
    return b"".join(parts)


def completion_in(raw):
    completion = json.loads(raw)
    assert completion["object"] == "chat.completion"
    return json.loads(completion["choices"][0]["message"]["content"])


VERDICT = {"verdicts": [{"call": 1, "appropriate": True, "reason": "GetOrder serves the request."}]}


def test_the_hostile_directive_grammar():
    text = ("[[fault:drip=0.4]] [[fault:drip=0.1:bytes=20:x1]] [[fault:endless]] "
            "[[fault:endless=0.5:close]] [[fault:endless-1xx]] [[fault:huge=1000]] "
            "[[fault:huge=5:chunked]] [[fault:gzip-bomb=9:close]] [[fault:bad-header]] "
            "[[fault:bad-header=nul]] [[fault:drop-mid-body]] [[fault:drop-mid-body=7:chunked]] "
            "[[fault:307:location=http%3A//other.example/v1]]")
    assert parse_directives(text) == [
        Directive("drip", seconds=0.4),
        Directive("drip", seconds=0.1, size=20, times=1),
        Directive("endless", seconds=0.0),
        Directive("endless", seconds=0.5, framing="close"),
        Directive("endless-1xx", seconds=0.01),
        Directive("huge", size=1000),
        Directive("huge", size=5, framing="chunked"),
        Directive("gzip-bomb", size=9, framing="close"),
        Directive("bad-header", kind="status-line"),
        Directive("bad-header", kind="nul"),
        Directive("drop-mid-body"),
        Directive("drop-mid-body", size=7, framing="chunked"),
        Directive("status", status=307, headers=(("Location", "http://other.example/v1"),)),
    ]
    for bad in ("[[fault:drip]]", "[[fault:drip=-1]]", "[[fault:drip=nan]]", "[[fault:huge]]",
                "[[fault:huge=1e6]]", "[[fault:gzip-bomb=-5]]", "[[fault:bad-header=teapot]]",
                "[[fault:endless:chunked]]", "[[fault:drop-mid-body:close]]",
                "[[fault:huge=9:bytes=3]]", "[[fault:500:chunked]]", "[[fault:299]]"):
        with pytest.raises(ValueError, match="bad directive"):
            parse_directives(bad)


def test_drip_sends_the_answer_byte_by_byte(server):
    sock = raw_request(server, "[[case:d]] [[fault:drip=0.002:bytes=40]]")
    try:
        status, headers, rest = read_head(sock)
        raw = rest + read_all(sock)
    finally:
        sock.close()
    assert status == "HTTP/1.1 200 OK" and int(headers["content-length"]) == len(raw)
    assert completion_in(raw) == VERDICT
    assert (server.answered["d"], server.sent["d"], server.cut_off["d"]) == (1, len(raw), 0)
    assert server.requests[-1].outcome == "drip=0.002"


def test_drip_stops_when_the_client_leaves(server):
    sock = raw_request(server, "[[case:d]] [[fault:drip=0.02]]")
    _, headers, rest = read_head(sock)
    while len(rest) < 3:
        rest += sock.recv(1)
    sock.close()
    assert eventually(lambda: server.cut_off["d"] == 1)
    assert server.sent["d"] < int(headers["content-length"]) and server.answered["d"] == 0


def test_endless_sends_a_body_that_never_ends(server):
    sock = raw_request(server, "[[case:e]] [[fault:endless]]")
    try:
        _, headers, data = read_head(sock)
        while len(data) < 300_000:
            data += sock.recv(65536)
    finally:
        sock.close()
    assert headers["transfer-encoding"] == "chunked" and "content-length" not in headers
    first = data.split(b"\r\n", 2)[1]
    assert first.startswith(b'{"id": "chatcmpl-judge"') and b"\r\n0\r\n\r\n" not in data
    assert eventually(lambda: server.cut_off["e"] == 1) and server.answered["e"] == 0


def test_endless_close_has_no_framing(server):
    sock = raw_request(server, "[[case:e]] [[fault:endless=0.001:close]]")
    try:
        _, headers, data = read_head(sock)
        while len(data) < 5000:
            data += sock.recv(65536)
    finally:
        sock.close()
    assert "content-length" not in headers and "transfer-encoding" not in headers
    assert data.startswith(b'{"id": "chatcmpl-judge"') and data.endswith(b" ")


def test_endless_interim_responses_never_give_a_final_one(server):
    sock = raw_request(server, "[[case:i]] [[fault:endless-1xx=0.001]]")
    try:
        data = b""
        while data.count(b"\r\n\r\n") < 5:
            data += sock.recv(65536)
    finally:
        sock.close()
    heads = data.split(b"\r\n\r\n")[:5]
    assert heads == [b"HTTP/1.1 102 Processing"] * 5
    assert eventually(lambda: server.cut_off["i"] == 1)


@pytest.mark.parametrize("framing", ["", ":chunked", ":close"])
def test_huge_is_a_valid_answer_of_exactly_n_bytes(server, connect, framing):
    response, raw = post(connect(), body(f"[[case:h]] [[fault:huge=300000{framing}]]"))
    assert response.status == 200 and len(raw) == 300_000
    assert completion_in(raw) == VERDICT  # whitespace padding: still the same JSON
    length = response.getheader("Content-Length")
    assert length == ("300000" if not framing else None)
    assert response.getheader("Transfer-Encoding") == ("chunked" if framing == ":chunked" else None)
    assert (server.answered["h"], server.sent["h"]) == (1, 300_000)


def test_huge_stops_when_the_client_leaves(server):
    sock = raw_request(server, "[[case:h]] [[fault:huge=200000000]]")
    _, headers, _ = read_head(sock)
    sock.close()
    assert headers["content-length"] == "200000000"
    assert eventually(lambda: server.cut_off["h"] == 1)
    assert server.sent["h"] < 200_000_000 and server.answered["h"] == 0


@pytest.mark.parametrize("framing", ["", ":chunked", ":close"])
def test_gzip_bomb_is_small_and_inflates_to_n_bytes(server, connect, framing):
    connection = connect()
    connection.request("POST", "/v1/chat/completions",
                       body=body(f"[[case:g]] [[fault:gzip-bomb=20000000{framing}]]"))
    response = connection.getresponse()
    compressed = response.read()  # http.client does not decode
    assert response.getheader("Content-Encoding") == "gzip"
    assert response.getheader("Content-Length") == (str(len(compressed)) if not framing else None)
    assert len(compressed) < 40_000
    inflated = gzip.decompress(compressed)
    assert len(inflated) == 20_000_000 and completion_in(inflated) == VERDICT
    assert server.sent["g"] == len(compressed)


@pytest.mark.parametrize("kind", sorted(BAD_HEADERS))
def test_bad_header_writes_a_broken_head_and_closes(server, kind):
    sock = raw_request(server, f"[[case:b]] [[fault:bad-header={kind}]]")
    try:
        assert read_all(sock) == BAD_HEADERS[kind]
    finally:
        sock.close()
    assert server.requests[-1].outcome == f"bad-header={kind}"


@pytest.mark.parametrize("framing", ["", ":chunked"])
def test_drop_mid_body_sends_part_of_the_body_then_closes(server, framing):
    sock = raw_request(server, f"[[case:m]] [[fault:drop-mid-body=25{framing}]]")
    try:
        _, headers, rest = read_head(sock)
        raw = rest + read_all(sock)
    finally:
        sock.close()
    if framing:
        assert headers["transfer-encoding"] == "chunked"
        assert raw.startswith(b"19\r\n") and not raw.endswith(b"0\r\n\r\n")
        raw = raw[4:-2]
    assert len(raw) == 25 and raw.startswith(b'{"id": "chatcmpl-judge"')
    if not framing:
        assert int(headers["content-length"]) > 50  # announced the whole answer
    assert (server.sent["m"], server.answered["m"], server.cut_off["m"]) == (25, 0, 0)


def test_drop_mid_body_defaults_to_half(server, connect):
    with pytest.raises(http.client.IncompleteRead) as caught:
        post(connect(), body("[[fault:drop-mid-body]]"))
    partial, missing = len(caught.value.partial), caught.value.expected
    assert partial == (partial + missing) // 2


def test_a_redirect_carries_its_location(server, connect):
    response, raw = post(connect(), body("[[fault:308:location=http%3A//127.0.0.2%3A9/v1/x]]"))
    assert response.status == 308 and response.getheader("Location") == "http://127.0.0.2:9/v1/x"
    assert raw == b"Moved to http://127.0.0.2:9/v1/x"
