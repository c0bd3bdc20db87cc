"""tests/judge_server.py itself: the protocol, keep-alive, the directive grammar, the
counters, many connections at once, and a prompt stop."""

from __future__ import annotations

import asyncio
import email.utils
import http.client
import json
import time

import pytest

from judge_server import Directive, JudgeServer, judge_calls, parse_calls, parse_directives
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
