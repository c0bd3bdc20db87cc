"""Issue 26: what agentmetrics.capture() costs a live agent, against the same client
without capture, side by side in one run.

    python benchmarks/bench_capture.py [--requests 3000]

  (a) loopback: the real openai client against tests/provider_server.py on
      127.0.0.1 (in a process of its own, so its threads do not share this
      one's GIL), one chat completion with two tool calls, whole and streamed
      (SSE, 9 events); microseconds a response with and without capture,
      request by request (which goes first alternates); the overhead is the
      median of the paired differences.
  (b) in process: the same client over httpx2.MockTransport (no socket, so the
      hook's cost is not lost in the loopback's noise); then again with the
      cyclic garbage collector off in both arms, which shows what of the
      difference is the collector's (its timing shifts with what is kept).
  (c) memory: bytes the capture keeps per response beyond the response's own
      bytes (tracemalloc, after N responses, reading not yet asked for).
  (d) reading, done when the run is asked (not during the agent's run):
      microseconds a response for run.tool_calls.
  (e) the hook's own work alone, timed over many calls with no I/O: what the
      wrapped send adds for a whole response (the request's endpoint checked,
      the record made and kept) and, streamed, per chunk of the tee.
  (f) reading when other hooks saw each response too (a framework's account
      and a span without content, as LangChain or anthropic 2.x give): the merge
      into one turn a response, against the wire alone, at 500 and 5,000
      responses (linear: each account is looked up in its own window).

Goal (issue 26): under 50 us a response, whole and streamed, and no memory
beyond the recorded response. Medians (2 noisy cores).
"""

from __future__ import annotations

import argparse
import contextvars
import gc
import multiprocessing
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import httpx2  # noqa: E402
import openai  # noqa: E402
from provider_replies import Call, openai_chat  # noqa: E402
from provider_server import ProviderServer, Reply  # noqa: E402

import agentmetrics as am  # noqa: E402

CALLS = [Call("GetOrder", {"order_id": "12345"}, "call_1"),
         Call("CancelOrder", {"order_id": "12345", "reason": "changed my mind"}, "call_2")]
MESSAGES = [{"role": "user", "content": "Cancel order 12345"}]


def one(client: openai.OpenAI, stream: bool) -> None:
    if stream:
        for _ in client.chat.completions.create(model="m", messages=MESSAGES, stream=True):
            pass
    else:
        client.chat.completions.create(model="m", messages=MESSAGES)


def paired(client: openai.OpenAI, stream: bool, n: int) -> tuple[float, float, float]:
    """Microseconds a response without and with capture, and the median of the
    per-request differences: request by request, alternating which goes first,
    one in a context with no capture open and the next in one where a capture
    is open (the same context switch for both), so drift and noise hit both."""
    plain_context, captured_context = contextvars.copy_context(), contextvars.copy_context()
    opened = am.capture()
    run = captured_context.run(opened.__enter__)
    plain, captured, differences = [], [], []
    for context in (plain_context, captured_context):  # warm up
        for _ in range(10):
            context.run(one, client, stream)
    for index in range(n):
        took = {}
        order = ((plain_context, "plain"), (captured_context, "captured"))
        for context, label in order if index % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            context.run(one, client, stream)
            took[label] = (time.perf_counter() - start) * 1e6
        plain.append(took["plain"])
        captured.append(took["captured"])
        differences.append(took["captured"] - took["plain"])
    captured_context.run(opened.__exit__, None, None, None)
    assert len(run.turns) == n + 10
    return statistics.median(plain), statistics.median(captured), statistics.median(differences)


class _Repeating(ProviderServer):
    """Answers every request with the same reply: ``stream`` in the body picks which."""

    def __init__(self, whole: Reply, streamed: Reply) -> None:
        super().__init__()
        self._whole, self._streamed = whole, streamed

    def route(self, method: str, path: str, body: bytes) -> Reply:
        return self._streamed if b'"stream":true' in body.replace(b" ", b"") else self._whole

    def record(self, exchange: Any) -> None:
        pass


def _serve(whole: Reply, streamed: Reply, port: Any, stop: Any) -> None:
    with _Repeating(whole, streamed) as server:
        port.value = server.port
        stop.wait()


def report(title: str, plain: float, captured: float, difference: float) -> None:
    print(f"  {title:<34} {plain:9.1f} us  {captured:9.1f} us  {difference:+8.1f} us  "
          f"{captured / plain:5.3f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args()
    n = args.requests
    whole, streamed = openai_chat(CALLS), openai_chat(CALLS, stream=True)
    print(f"capture overhead per response: medians over {n} requests, each paired with one "
          f"without capture")
    print(f"  {'':<34} {'without':>12}  {'with':>12}  {'overhead':>11}  ratio")

    port, stop = multiprocessing.Value("i", 0), multiprocessing.Event()
    child = multiprocessing.Process(target=_serve, args=(whole, streamed, port, stop), daemon=True)
    child.start()
    while not port.value:
        time.sleep(0.01)
    try:
        with openai.OpenAI(base_url=f"http://127.0.0.1:{port.value}/v1", api_key="sk-bench",
                           max_retries=0) as c:
            for stream in (False, True):
                report(f"(a) loopback, {'streamed' if stream else 'whole'}",
                       *paired(c, stream, n))
    finally:
        stop.set()
        child.join(5)

    def transport_for(reply: Reply) -> httpx2.MockTransport:
        def handler(request: httpx2.Request) -> httpx2.Response:
            if reply.chunks is not None:
                return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                                       content=iter(list(reply.chunks)))
            return httpx2.Response(200, headers={"content-type": "application/json"},
                                   content=reply.body)
        return httpx2.MockTransport(handler)

    for collector in (True, False):
        for stream, reply in ((False, whole), (True, streamed)):
            http = httpx2.Client(transport=transport_for(reply))
            with openai.OpenAI(base_url="http://model.test/v1", api_key="sk-bench",
                               http_client=http, max_retries=0) as c:
                if not collector:
                    gc.disable()
                try:
                    measured = paired(c, stream, n)
                finally:
                    gc.enable()
                title = f"(b) in process, {'streamed' if stream else 'whole'}"
                report(title if collector else f"{title}, gc off", *measured)

    print("(c) memory kept per response (tracemalloc), beyond the response's bytes")
    n = min(n, 500)
    for stream, reply in ((False, whole), (True, streamed)):
        http = httpx2.Client(transport=transport_for(reply))
        with openai.OpenAI(base_url="http://model.test/v1", api_key="sk-bench",
                           http_client=http, max_retries=0) as c:
            one(c, stream)
            gc.collect()
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            with am.capture() as run:
                for _ in range(n):
                    one(c, stream)
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
            # The transport hands over the reply's own bytes objects, so nothing here
            # is the response's bytes: what is kept is the capture's own record.
            print(f"  {'streamed' if stream else 'whole':<10} response {len(reply.sent):6d} "
                  f"bytes; the capture keeps {kept / n:6.0f} bytes a response beyond them (its "
                  f"record of the exchange; the request body and response chunks are the "
                  f"SDK's own bytes objects, kept, not copied)")
            start = time.perf_counter()
            calls = run.tool_calls
            reading = (time.perf_counter() - start) / n * 1e6
            assert len(calls) == 2 * n
            print(f"  (d) reading, on demand: {reading:7.1f} us a response")
    hook_alone(whole)
    views(whole)


def views(reply: Reply) -> None:
    """(f) reading when other hooks saw each response too (issue 49): every response
    with a framework's account of it (its calls) and a span without content, each
    bracketing the request, merged into the wire's turns; against the wire alone."""
    from agentmetrics.capture._reading import read_turns
    from agentmetrics.capture._records import Exchange, ModelEvent
    from agentmetrics.formats import tool_calls_from

    calls = tuple(tool_calls_from(reply.sent, format="openai_chat"))
    for n in (500, 5000):
        exchanges, events = [], []
        for number in range(n):
            seq = number * 4
            exchange = Exchange(seq + 1, "http", "openai", "openai_chat", "e",
                                b'{"model": "m", "messages": []}')
            exchange.status = 200
            exchange.chunks = [reply.sent]
            exchange.finish()
            exchanges.append(exchange)
            events.append(ModelEvent(seq + 2, "langchain", calls, started=seq))
            events.append(ModelEvent(seq + 3, "otel", (), started=seq, content=False))
        read_turns(exchanges, [])  # each exchange's read is kept: time the merge alone
        timings = {}
        for label, given in (("wire alone", []), ("with 2 views each", events)):
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                turns = read_turns(exchanges, given)
                runs.append((time.perf_counter() - start) / n * 1e6)
            assert len(turns) == n and all(turn.error is None for turn in turns)
            timings[label] = statistics.median(runs)
        print(f"  (f) {n:5d} responses read again: wire alone {timings['wire alone']:5.1f} us a "
              f"response, with 2 views of each {timings['with 2 views each']:5.1f} us "
              f"({timings['with 2 views each'] / timings['wire alone']:.2f}x)")


def hook_alone(reply: Reply, n: int = 20000) -> None:
    from agentmetrics.capture import _http
    from agentmetrics.capture._records import Exchange
    from agentmetrics.capture._state import SENDING, recorders, sending

    # Fresh request and response objects, as each call has (their URL is parsed
    # on first use, which a reused object would have cached).
    requests = [httpx2.Request("POST", "http://127.0.0.1:8000/v1/chat/completions",
                               content=b'{"model": "m", "messages": []}') for _ in range(n)]
    responses = [httpx2.Response(200, content=reply.sent, request=request) for request in requests]
    for response in responses:
        response.read()
    with am.capture() as run:
        start = time.perf_counter()
        for request, response in zip(requests, responses):
            # What the wrapped send does around the SDK's own send: the captures it
            # records into, the request's endpoint, the mark that stops a hook
            # beneath it recording the same response (issue 49), the response taken.
            found = sending(recorders("httpx"))
            exchange = _http._exchange(request)
            token = SENDING.set(SENDING.get() + found)
            SENDING.reset(token)
            assert exchange is not None and _http._took(exchange, response)
        whole = (time.perf_counter() - start) / n * 1e6
    assert run is not None
    exchange = Exchange(0, "http", "p", "openai_chat", "e", b"")
    chunk = b"data: {}\n\n"
    keep = exchange.chunks.append
    start = time.perf_counter()
    for _ in range(n):
        keep(chunk)
    per_chunk = (time.perf_counter() - start) / n * 1e6
    print(f"  (e) the hook alone: {whole:5.1f} us a response, {per_chunk:5.2f} us a streamed "
          f"chunk")


if __name__ == "__main__":
    main()
