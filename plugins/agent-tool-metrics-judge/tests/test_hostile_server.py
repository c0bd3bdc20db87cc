"""ToolCallAppropriateness against a hostile judge (tests/judge_server.py's hostile
directives): a server that drips, never ends, floods, bombs, breaks HTTP, drops the
connection mid-body, asks for a day of waiting or redirects elsewhere. Every case
ends scored or recorded, within the metric's own bounds: the deadline (``timeout``),
``max_response_bytes`` and ``max_retry_wait``.

No test asserts how long anything took (speed lives in benchmarks/). The bounds are
shown structurally: the error names the deadline and what the request was doing;
the server saw the client leave before it had written its answer (``cut_off``,
``answered``); the client read at most the limit and one read (its error says how
much); memory stayed near the limit (tracemalloc); the server counted no extra
request (``attempts``). Each call runs under a hard guard (``HANG``) that only a
hang trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import gzip
import pickle
import re
import threading
import tracemalloc
import urllib.parse
import zlib

import numpy as np
import pytest

import agentmetrics
import agentmetrics.engine._concurrent
from agentmetrics import AgentTestCase
from agentmetrics.errors import InvalidParameterError, MetricServiceError, TransientMetricError
from agentmetrics_judge import ToolCallAppropriateness
from agentmetrics_judge import _http
from judge_server import BAD_HEADERS, JudgeServer, eventually

ENV = ("AGENTMETRICS_JUDGE_MODEL", "AGENTMETRICS_JUDGE_BASE_URL", "AGENTMETRICS_JUDGE_API_KEY",
       "OPENAI_BASE_URL", "OPENAI_API_KEY")
#: Seconds after which a call counts as hung. Only a hang trips it: the bounds
#: under test are a fraction of a second.
HANG = 60.0
#: The metric's deadline where the test is that it passes.
DEADLINE = 0.5
#: The metric's deadline where answers must also arrive within it (a local answer
#: takes milliseconds).
WITHIN = 1.0
#: httpcore reads at most this much at a time: the client may hold one read past the limit.
READ = 64 * 1024
#: Room enough for anything a test decodes.
ROOMY = 1 << 30


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch):
    for variable in ENV:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture(autouse=True)
def _short_backoff(monkeypatch):
    monkeypatch.setattr(agentmetrics.engine._concurrent, "BACKOFF_BASE", 0.005, raising=False)


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running
        assert running.errors == []


@pytest.fixture
def other_host():
    """A second judge, on another loopback address where the system has one."""
    try:
        running = JudgeServer(host="127.0.0.2").start()
    except RuntimeError:
        running = JudgeServer().start()
    try:
        yield running
    finally:
        running.stop()


def judge(server, **params):
    return ToolCallAppropriateness(model="judge-model", base_url=server.url, **params)


def case(text="Cancel order 7", calls=("GetOrder",)):
    return AgentTestCase(input=text, tool_calls=list(calls))


def in_thread(function, *args):
    """``function(*args)`` on a thread of its own, given HANG seconds: its result,
    or its exception raised here. A blocking call cannot be cancelled; a hung one
    is left behind (a daemon thread) and the test fails."""
    outcome: dict[str, object] = {}

    def run():
        try:
            outcome["value"] = function(*args)
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG)
    if thread.is_alive():
        pytest.fail(f"hung: no result within {HANG:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def failure(metric, text, calls=("GetOrder",)):
    """The error ``metric.evaluate`` raises for a case with ``text`` as its input."""
    with pytest.raises(MetricServiceError) as caught:
        in_thread(metric.evaluate, case(text, calls))
    return caught.value


def run(cases, metric, *, retries, timeout=30.0):
    """The cases through the runner, errors recorded; the metric's MetricResult."""
    result = in_thread(lambda: agentmetrics.evaluate(
        cases, metrics=[metric], errors="record", retries=retries, timeout=timeout,
        concurrency=16))
    return result["tool_call_appropriateness"]


def received(error):
    """The body bytes the client says it received before it stopped reading."""
    found = re.search(r"([\d,]+) bytes received", str(error))
    assert found, str(error)
    return int(found.group(1).replace(",", ""))


@contextlib.contextmanager
def traced(metric):
    """The peak of Python's allocations inside the block (all threads), in bytes:
    call the yielded function after the block. ``metric`` scores a case first, so
    that what it imports on first use is not counted."""
    assert in_thread(metric.evaluate, case()).value == 1.0
    peak: list[int] = []
    tracemalloc.start()
    try:
        yield lambda: peak[0]
    finally:
        peak.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()


def deadline_passed(seconds, phase):
    return (f"did not answer within the timeout of {seconds:g} s (ReadTimeout): the deadline "
            f"of {seconds:g} s for the whole request passed while {phase}")


# -- the findings, each a regression test ------------------------------------------------------


def test_finding_1_a_dripping_server_cannot_hold_a_request_past_its_deadline(server):
    """Before: ``timeout`` bounded each read, so a byte every 0.4 s held a
    ``timeout=1`` request for 12.7 s. Now the whole request has ``timeout``."""
    metric = judge(server, timeout=DEADLINE)
    error = failure(metric, "[[case:drip]] [[fault:drip=0.1]]")
    assert isinstance(error, TransientMetricError) and error.retry_after is None
    assert deadline_passed(DEADLINE, "reading the answer's body") in str(error)
    # The client left mid-body: the server saw it before it had written the answer.
    assert eventually(lambda: server.cut_off["drip"] == 1)
    assert server.answered["drip"] == 0 and received(error) <= server.sent["drip"]
    assert server.attempts["drip"] == 1 and metric._pool.open_clients() == 0


def test_finding_2_a_400_mb_body_is_refused_before_it_is_read(server):
    """Before: a 400 MB body was read whole into memory. Now a Content-Length over
    ``max_response_bytes`` (default 8 MiB) is refused before the body is read."""
    error = failure(judge(server), "[[case:big]] [[fault:huge=400000000]]")
    assert type(error) is MetricServiceError  # not transient: a retry would fetch it again
    message = str(error)
    assert ("sent a response larger than max_response_bytes=8388608: it announced "
            "400,000,000 bytes (Content-Length), and none of them were read") in message
    assert "Fix: if the judge's answers are really this long, pass a larger " \
           "max_response_bytes=..." in message
    assert eventually(lambda: server.cut_off["big"] == 1)
    assert server.sent["big"] < 400_000_000 and server.answered["big"] == 0


def test_finding_2_without_a_content_length_reading_stops_at_the_limit(server):
    """The same flood without a Content-Length: reading stops one read past the
    limit, and memory stays near the limit, not the body's size."""
    metric = judge(server)
    with traced(metric) as peak:
        error = failure(metric, "[[case:big]] [[fault:huge=64000000:chunked]]")
    assert type(error) is MetricServiceError
    assert "larger than max_response_bytes=8388608" in str(error)
    assert 8_388_608 < received(error) <= 8_388_608 + READ
    assert peak() < 2 * 8_388_608
    assert eventually(lambda: server.cut_off["big"] == 1) and server.sent["big"] < 64_000_000


def test_finding_3_a_day_long_retry_after_costs_at_most_the_deadline(server):
    """Before: ``Retry-After: 86400`` made the metric report ``retry_after=86400``
    and the runner slept a day. Now the metric reports at most ``max_retry_wait``,
    by default its ``timeout``."""
    metric = judge(server, timeout=WITHIN)
    text = "[[case:day]] [[fault:429:retry-after=86400:x1]]"
    error = failure(metric, text)
    assert isinstance(error, TransientMetricError) and error.retry_after == WITHIN
    assert "answered HTTP 429: injected fault: HTTP 429; it asked to wait 86400 s; waiting " \
           "at most 1 s (max_retry_wait)" in str(error)
    server.reset()
    result = run([case(text)], metric, retries=1)  # the runner waits what the metric says
    assert result.errors == {} and result.values.tolist() == [1.0]
    assert server.attempts["day"] == 2 and server.answered["day"] == 1


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_finding_4_a_redirect_to_another_host_is_refused(server, other_host, status):
    """httpx follows no redirect unless told to, and the client never tells it:
    the request carries the API key. A 3xx is an error naming where it pointed."""
    target = f"http://{other_host.host}:{other_host.port}/v1/chat/completions"
    text = f"[[case:r]] [[fault:{status}:location={urllib.parse.quote(target, safe='')}]]"
    metric = judge(server, api_key="sk-secret")
    error = failure(metric, text)
    assert type(error) is MetricServiceError
    assert f"answered HTTP {status}: Moved to {target} (a redirect to {target}, which is " \
           f"not followed: check base_url)" in str(error)
    server.reset()
    result = run([case(text)], metric, retries=2)
    assert set(result.errors) == {0} and server.attempts["r"] == 1  # not retried
    assert other_host.total == 0  # nothing, and no API key, went to the other host


def test_a_redirect_to_an_unknown_host_is_refused_too(server):
    text = "[[fault:302:location=https%3A//judge.invalid/v1/chat/completions]]"
    error = failure(judge(server), text)
    assert type(error) is MetricServiceError
    assert "a redirect to https://judge.invalid/v1/chat/completions, which is not followed" \
           in str(error)


# -- the deadline ------------------------------------------------------------------------------


@pytest.mark.parametrize("fault, phase", [
    ("drip=0.05", "reading the answer's body"),
    ("endless=0.02", "reading the answer's body"),
    ("endless=0.02:close", "reading the answer's body"),
    ("endless-1xx", "waiting for the answer"),  # httpcore reads interim responses forever
    ("timeout=5", "waiting for the answer"),
])
def test_slow_answers_end_at_the_deadline(server, fault, phase):
    metric = judge(server, timeout=DEADLINE)
    error = failure(metric, f"[[case:s]] [[fault:{fault}]]")
    assert isinstance(error, TransientMetricError)
    assert deadline_passed(DEADLINE, phase) in str(error)
    if not fault.startswith("timeout"):
        assert eventually(lambda: server.cut_off["s"] == 1)
    assert server.answered["s"] == 0 and metric._pool.open_clients() == 0


def test_a_slow_answer_within_the_deadline_is_scored(server):
    score = in_thread(judge(server, timeout=HANG).evaluate,
                      case("[[case:slow]] [[fault:drip=0.001:bytes=30]]"))
    assert score.value == 1.0
    assert (server.answered["slow"], server.cut_off["slow"]) == (1, 0)


def test_the_deadline_holds_when_kept_by_wait_for(server, monkeypatch):
    """Python 3.10 has no asyncio.timeout: the deadline is kept by wait_for there.
    Both ways, through aevaluate on one loop, under asyncio.wait_for(..., HANG)."""
    monkeypatch.setattr(_http, "_USE_WAIT_FOR", True)
    metric = judge(server, timeout=WITHIN, max_response_bytes=READ)
    faults = ["drip=0.05", "endless-1xx", "huge=10000000:chunked", "bad-header=no-colon", ""]
    cases = [case(f"[[case:{i}]] [[fault:{fault}]]" if fault else f"[[case:{i}]]")
             for i, fault in enumerate(faults)]

    async def main():
        return await asyncio.wait_for(agentmetrics.aevaluate(
            cases, [metric], errors="record", concurrency=8), HANG)

    result = asyncio.run(main())["tool_call_appropriateness"]
    assert deadline_passed(WITHIN, "reading the answer's body") in result.errors[0]
    assert deadline_passed(WITHIN, "waiting for the answer") in result.errors[1]
    assert f"larger than max_response_bytes={READ}" in result.errors[2]
    assert "RemoteProtocolError: illegal header line" in result.errors[3]
    assert set(result.errors) == {0, 1, 2, 3} and result.values[4] == 1.0
    assert eventually(lambda: server.cut_off["0"] == server.cut_off["1"] == 1)
    assert metric._pool.open_clients() == 0


# -- the maximum response size -----------------------------------------------------------------


@pytest.mark.parametrize("fault", ["huge=64000000", "huge=64000000:chunked",
                                   "huge=64000000:close", "endless", "endless:close"])
def test_bodies_over_the_limit_are_refused(server, fault):
    limit = 256 * 1024
    error = failure(judge(server, max_response_bytes=limit), f"[[case:h]] [[fault:{fault}]]")
    assert type(error) is MetricServiceError
    assert f"sent a response larger than max_response_bytes={limit}: " in str(error)
    assert "pass a larger max_response_bytes=..." in str(error)
    if fault == "huge=64000000":
        assert "it announced 64,000,000 bytes (Content-Length), and none of them were read" \
               in str(error)
    else:
        assert limit < received(error) <= limit + READ
    assert eventually(lambda: server.cut_off["h"] == 1)
    assert server.sent["h"] < 64_000_000 and server.answered["h"] == 0


def test_a_body_at_the_limit_is_read_and_one_byte_more_is_not(server):
    metric = judge(server, max_response_bytes=100_000)
    for framing in ("", ":chunked"):
        assert in_thread(metric.evaluate, case(f"[[fault:huge=100000{framing}]]")).value == 1.0
        error = failure(metric, f"[[fault:huge=100001{framing}]]")
        assert "larger than max_response_bytes=100000" in str(error)


@pytest.mark.parametrize("framing", ["", ":chunked", ":close"])
def test_a_gzip_bomb_is_stopped_once_it_decodes_past_the_limit(server, framing):
    limit = 1024 * 1024
    metric = judge(server, max_response_bytes=limit)
    with traced(metric) as peak:
        error = failure(metric, f"[[case:bomb]] [[fault:gzip-bomb=64000000{framing}]]")
    assert type(error) is MetricServiceError
    assert f"larger than max_response_bytes={limit}: " in str(error)
    assert "(gzip) decoded to more than 1,048,576 when reading stopped" in str(error)
    assert received(error) < limit  # the compressed bytes: the decoded ones count
    assert peak() < 4 * limit  # never inflated past the limit (zlib's buffers: twice it)
    assert metric._pool.open_clients() == 0


def test_a_gzipped_answer_within_the_limit_is_decoded_and_scored(server):
    metric = judge(server)
    for framing in ("", ":chunked"):
        score = in_thread(metric.evaluate, case(f"[[case:g{framing}]] "
                                                f"[[fault:gzip-bomb=2000000{framing}]]"))
        assert score.value == 1.0 and server.answered[f"g{framing}"] == 1


@pytest.mark.parametrize("encoding, encode", [
    ("gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda data: zlib.compress(data)[2:-4]),  # bare deflate, as some servers send
])
def test_the_decoder_never_inflates_past_the_room_it_is_given(encoding, encode):
    import httpx

    text = b'{"verdicts": []}' + b" " * 1_000_000
    compressed = encode(text)
    for step in (1, 7, 65536):  # fed as a slow or a fast server sends it
        coding, inflater = _http._inflater(httpx.Headers({"content-encoding": encoding}))
        decoded = b"".join(inflater.feed(compressed[i:i + step], ROOMY)
                           for i in range(0, len(compressed), step))
        assert (coding, decoded) == (encoding, text)
    _, inflater = _http._inflater(httpx.Headers({"content-encoding": encoding.upper()}))
    assert len(inflater.feed(compressed, 1000)) == 1001  # one past the room: over the limit
    for unsupported in ("br", "zstd", "gzip, gzip", "compress"):
        with pytest.raises(ValueError):
            _http._inflater(httpx.Headers({"content-encoding": unsupported}))


def test_the_deadline_message_names_the_phase_httpcore_reports():
    exchange = _http._Exchange()
    phases = []
    for event in ("connection.connect_tcp.started", "connection.connect_tcp.complete",
                  "connection.start_tls.started", "http11.send_request_headers.started",
                  "http11.send_request_body.started", "http11.receive_response_headers.started",
                  "connection.close.started", "http11.receive_response_body.started"):
        asyncio.run(exchange.trace(event, {}))
        phases.append(exchange.doing())
    assert phases == ["connecting", "connecting", "connecting", "sending the request",
                      "sending the request", "waiting for the answer", "waiting for the answer",
                      "reading the answer's body (0 bytes received)"]


def test_an_error_body_is_read_only_as_far_as_its_message(server):
    error = failure(judge(server, max_response_bytes=1024), "[[fault:503:pad=5000000]]")
    assert isinstance(error, TransientMetricError)  # the status decides, not the size
    message = str(error).split("answered HTTP 503: ")[1]
    assert message.startswith("injected fault: HTTP 503xxx") and message.endswith("x…")
    assert len(message) == 200


def test_json_nested_past_the_parsers_limit_is_an_invalid_verdict(server):
    error = failure(judge(server), "[[fault:bad-body=deep]]")
    assert type(error) is MetricServiceError
    assert str(error).startswith("judge gave an invalid verdict: the response body (HTTP 200, "
                                 "application/json) is nested too deeply to read")


# -- the review of issue 24: CPU, floods, charsets (H1-H3) ----------------------------------


def test_a_verdict_of_many_keys_stalls_no_other_case(server):
    # H1: 40,000 keys and one repeated took 27 s to check, on the event loop: cases in
    # flight beside it failed their 1 s timeout.
    cases = [case("[[fault:malformed=many-keys]] hostile"),
             *(case(f"[[case:ok{i}]] fine {i}") for i in range(6))]
    result = run(cases, judge(server, timeout=5), retries=0, timeout=5)
    assert np.isnan(result.values[0]) and "repeats the key 'k0'" in result.errors[0]
    assert result.values[1:].tolist() == [1.0] * 6, result.errors
    assert len(result.errors[0]) < 1000


@pytest.mark.parametrize("fault", [
    "bad-body=long-finish", "bad-body=long-content-type", "wrong-shape=many-keys",
    "wrong-shape=long-extra-key", "wrong-shape=huge-call", "malformed=long-duplicate-key",
    "malformed=many-objects", "307:location=http%3A//elsewhere.example/" + "p" * 8000,
    "503:pad=5000000",
])
def test_no_message_quotes_more_than_200_characters_of_the_server(server, fault):
    # H2: a finish_reason or a key list quoted whole made each error row 7 MB.
    result = run([case(f"[[fault:{fault}]] x") for _ in range(3)], judge(server), retries=0)
    for message in result.errors.values():
        assert len(message) < 1500, len(message)
        assert not re.search(r"(.)\1{200,}", message), message[:300]


@pytest.mark.parametrize("charset", ["undefined", "idna", "punycode", "no-such-charset", "base64"])
def test_an_undecodable_charset_on_a_503_is_transient_and_retried(server, charset):
    # H3: "charset=undefined" raised UnicodeError out of post_json: a "metric bug", not retried.
    result = run([case(f"[[case:cs]][[fault:503:charset={charset}]] x")], judge(server), retries=2)
    assert result.errors[0].startswith("tool_call_appropriateness: TransientMetricError: ")
    assert "answered HTTP 503: " in result.errors[0] and "(after 3 attempts)" in result.errors[0]
    if charset != "punycode":  # which "decodes" the body, to nothing readable
        assert "answered HTTP 503: injected fault: HTTP 503 (after" in result.errors[0]
    assert server.attempts["cs"] == 3


# -- Retry-After -------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["retry-after=86400", "retry-after-ms=86400000",
                                    "retry-after-date=86400"])
def test_a_long_retry_after_is_capped(server, option):
    error = failure(judge(server, timeout=WITHIN), f"[[fault:429:{option}]]")
    assert isinstance(error, TransientMetricError) and error.retry_after == WITHIN
    assert re.search(r"; it asked to wait 86\d{3}(\.\d+)? s; waiting at most 1 s "
                     r"\(max_retry_wait\)$", str(error)), str(error)
    error = failure(judge(server, timeout=WITHIN, max_retry_wait=3), f"[[fault:503:{option}]]")
    assert error.retry_after == 3.0 and "waiting at most 3 s (max_retry_wait)" in str(error)


def test_a_retry_after_under_the_cap_is_kept(server):
    error = failure(judge(server, timeout=WITHIN), "[[fault:503:retry-after=0.2]]")
    assert error.retry_after == 0.2 and "asked to wait" not in str(error)
    error = failure(judge(server, timeout=WITHIN, max_retry_wait=60), "[[fault:429:retry-after=30]]")
    assert error.retry_after == 30.0  # a cap above the deadline is the user's choice


# -- broken HTTP -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BAD_HEADERS))
def test_a_malformed_response_head_is_transient(server, kind):
    metric = judge(server)
    error = failure(metric, f"[[case:b]] [[fault:bad-header={kind}]]")
    assert isinstance(error, TransientMetricError) and error.retry_after is None
    assert f"the judge at {server.url}/chat/completions" in str(error)
    assert ": RemoteProtocolError: " in str(error)
    assert server.attempts["b"] == 1 and metric._pool.open_clients() == 0


@pytest.mark.parametrize("fault, message", [
    ("drop", "could not reach the judge at {url}: RemoteProtocolError: Server disconnected "
             "without sending a response."),
    ("reset", "could not reach the judge at {url}: ReadError"),
    ("drop-mid-body=40", "the judge at {url} broke off its answer after 40 bytes of the body: "
                         "RemoteProtocolError: peer closed connection without sending complete "
                         "message body (received 40 bytes"),
    ("drop-mid-body=40:chunked", "the judge at {url} broke off its answer after 40 bytes of the "
                                 "body: RemoteProtocolError: peer closed connection without "
                                 "sending complete message body (incomplete chunked read)"),
])
def test_a_dropped_connection_is_transient(server, fault, message):
    error = failure(judge(server), f"[[fault:{fault}]]")
    assert isinstance(error, TransientMetricError) and error.retry_after is None
    assert message.format(url=f"{server.url}/chat/completions") in str(error)


# -- through the runner ------------------------------------------------------------------------

#: Directives that fail the first attempt only: the retry scores.
RECOVERS = ["drip=0.05:x1", "endless=0.02:x1", "endless-1xx:x1", "bad-header=no-colon:x1",
            "drop-mid-body:x1", "reset:x1", "429:retry-after=86400:x1",
            "503:retry-after-date=86400:x1"]
#: Transient failures on every attempt: retried, then recorded.
TRANSIENT = ["drip=0.05", "endless-1xx", "bad-header=status-line", "drop-mid-body:chunked",
             "429:retry-after-ms=86400000"]
#: Refused at once and never retried: a retry would get the same.
REFUSED = ["huge=64000000", "huge=64000000:chunked", "gzip-bomb=64000000:chunked", "endless",
           "307:location=http%3A//judge.invalid/v1/chat/completions"]


@pytest.mark.parametrize("runner_timeout", [30.0, None])
def test_every_hostile_case_ends_scored_or_recorded_once(server, runner_timeout):
    """The metric bounds itself: with the runner's timeout far above the metric's
    deadline (or none at all), every case still ends, scored or recorded, once."""
    directives = [""] * 4 + RECOVERS + TRANSIENT + REFUSED
    cases = [case(f"[[case:{row}]] [[fault:{fault}]]" if fault else f"[[case:{row}]]",
                  ["GetOrder", "DeleteOrder"] if row % 2 else ["GetOrder"])
             for row, fault in enumerate(directives)]
    metric = judge(server, timeout=WITHIN, max_response_bytes=1024 * 1024)
    result = run(cases, metric, retries=2, timeout=runner_timeout)
    assert len(result.values) == len(cases)  # one row per case: none lost
    server.settle()  # an attempt the client gave up on is counted once the server reads it
    for row, fault in enumerate(directives):
        key = str(row)
        if fault in TRANSIENT or fault in REFUSED:
            assert np.isnan(result.values[row]) and server.answered[key] <= 1
            assert result.errors[row].startswith("tool_call_appropriateness: ")
            assert "no answer within the timeout" not in result.errors[row]  # the runner's own
        if fault in TRANSIENT:
            assert server.attempts[key] == 3 and result.errors[row].endswith("(after 3 attempts)")
        elif fault in REFUSED:
            assert server.attempts[key] == 1, fault
        else:  # scored once: none twice
            assert float(result.values[row]) == (0.5 if row % 2 else 1.0)
            assert server.answered[key] == 1
            assert server.attempts[key] == (1 if not fault else 2)
    assert set(result.errors) == {row for row, fault in enumerate(directives)
                                  if fault in TRANSIENT or fault in REFUSED}
    errors = dict(zip(directives, (result.errors.get(row, "") for row in range(len(cases)))))
    assert deadline_passed(WITHIN, "reading the answer's body") in errors["drip=0.05"]
    assert deadline_passed(WITHIN, "waiting for the answer") in errors["endless-1xx"]
    assert "waiting at most 1 s (max_retry_wait)" in errors["429:retry-after-ms=86400000"]
    assert "(gzip) decoded to more than 1,048,576" in errors["gzip-bomb=64000000:chunked"]
    assert "which is not followed" in errors[REFUSED[-1]]
    assert metric._pool.open_clients() == 0
    gc.collect()  # anything left unclosed warns here, in this test


# -- the parameters ----------------------------------------------------------------------------


@pytest.mark.parametrize("params, got", [
    ({"max_response_bytes": 0}, "0"),
    ({"max_response_bytes": -1}, "-1"),
    ({"max_response_bytes": True}, "True"),
    ({"max_response_bytes": 1.5}, "1.5"),
    ({"max_response_bytes": 1e6}, "1000000.0"),
    ({"max_response_bytes": "8MB"}, "'8MB'"),
    ({"max_response_bytes": None}, "None"),
    ({"max_retry_wait": 0}, "0"),
    ({"max_retry_wait": -5.0}, "-5.0"),
    ({"max_retry_wait": float("nan")}, "nan"),
    ({"max_retry_wait": float("inf")}, "inf"),
    ({"max_retry_wait": True}, "True"),
    ({"max_retry_wait": "30"}, "'30'"),
])
def test_bad_limits_are_refused_when_built(params, got):
    (name,) = params
    expected = {"max_response_bytes": "a positive int (a number of bytes),",
                "max_retry_wait": "a positive number of seconds, or None for the timeout,"}[name]
    with pytest.raises(InvalidParameterError) as caught:
        ToolCallAppropriateness(**params)
    assert str(caught.value).startswith(
        f"tool_call_appropriateness: {name} must be {expected} got {got}. Fix: pass e.g. {name}=")


def test_the_limits_are_parameters_that_never_change_a_score(server):
    from agentmetrics.engine._cache import case_keys

    default = ToolCallAppropriateness()
    assert (default.max_response_bytes, default.max_retry_wait) == (8 * 1024 * 1024, None)
    metric = judge(server, timeout=2, max_response_bytes=np.int64(4096), max_retry_wait=5)
    assert type(metric.max_response_bytes) is int and metric.max_response_bytes == 4096
    assert type(metric.max_retry_wait) is float and metric.max_retry_wait == 5.0
    params = metric.get_params()
    assert list(params)[4:7] == ["timeout", "max_response_bytes", "max_retry_wait"]
    assert params["max_response_bytes"] == 4096 and params["max_retry_wait"] == 5.0
    assert "max_response_bytes=4096, max_retry_wait=5.0" in repr(metric)
    clone = pickle.loads(pickle.dumps(metric))
    assert clone == metric and (clone.max_response_bytes, clone.max_retry_wait) == (4096, 5.0)
    assert clone != judge(server, timeout=2, max_response_bytes=8192, max_retry_wait=5)
    assert {"max_response_bytes", "max_retry_wait"} <= set(ToolCallAppropriateness.cache_exclude)
    one = case()
    assert case_keys(metric, [one]) == case_keys(judge(server, timeout=2), [one])
    positional = ToolCallAppropriateness(None, "judge-model", server.url, None, 2.0, 4096, 5.0)
    assert positional == metric
    assert in_thread(clone.evaluate, one).value == 1.0
