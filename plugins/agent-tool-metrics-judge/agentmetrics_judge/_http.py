"""Talking to the judge: httpx.AsyncClients per event loop, hard limits on
every request, and HTTP failures mapped onto agentmetrics' errors.

Why clients per loop, and why they close themselves: an httpx.AsyncClient's
connections belong to the event loop that opened them, and agentmetrics runs
an async metric on whatever loop it is given: the runner's loop
(``evaluate(cases, ..., concurrency=N)``), a fresh ``asyncio.run`` loop for each
plain ``metric.evaluate(case)``, a thread's own loop inside Jupyter, several
loops in several threads at once. So :class:`ClientPool` hands each request a
client of the running loop, created lazily and shared by up to
CLIENT_CAPACITY requests in flight on that loop (so the runner's N concurrent
cases reuse keep-alive connections), and the last request to finish on a
client closes it. No client outlives its requests, none is ever used from a
second loop, and nothing is left for a closed loop to leak (no "unclosed
transport" ResourceWarning). The price: a loop with one request at a time
(plain ``evaluate`` in a loop) opens a connection per case. The clients share
the TLS context, built once per process (building one costs ~25 ms).

The limits: the judge is a server someone else runs, and a slow, broken or
hostile one must cost each case a bounded time and bounded memory, and end
as an error the runner understands.

- ``timeout`` is a deadline for the whole request: waiting for a connection,
  connecting, sending, waiting for the answer and reading all of its body
  (:func:`_within`, around the whole exchange). httpx's own timeouts, kept
  at the same value, bound each phase and each read separately, which alone
  bounds nothing: a server sending one byte every 0.4 s never trips a 1 s
  read timeout. Past the deadline: TransientMetricError, naming the deadline
  and what the request was doing (``trace`` events of httpcore say which
  phase it was in).
- ``max_response_bytes`` bounds the body. The response is streamed: a
  Content-Length above the limit is refused before anything of the body is
  read, and reading stops as soon as the bytes received, or the bytes they
  decode to, pass it: MetricServiceError, not transient (a retry would fetch
  the same answer). gzip and deflate are decoded here (:class:`_Inflater`),
  never more than the room left under the limit at a time, so a gzip bomb
  costs the limit, not its size; the client asks for nothing else
  (``Accept-Encoding: gzip, deflate``) and refuses any other encoding. An
  error body (3xx, 4xx, 5xx) is read only up to ERROR_BODY_BYTES: its message
  is at the start.
- The wait a TransientMetricError reports (``retry_after``, from
  ``retry-after-ms`` or ``Retry-After``) is at most ``max_retry_wait``, by
  default the timeout: a server asking for a day cannot stall the run for a
  day.
- Redirects are never followed (the request carries the API key): a 3xx is
  a MetricServiceError naming its Location.
- Whatever breaks on the wire (a refused, dropped or reset connection, a
  malformed status line or header, a body cut off) is a TransientMetricError
  with httpx's account of it; nothing but agentmetrics' errors leaves
  :func:`post_json`.

The metric never retries: a failure worth retrying raises
TransientMetricError (with ``retry_after`` when the server asked for a wait)
and the runner retries it (``evaluate(..., retries=R)``).
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import email.utils
import functools
import json
import logging
import math
import re
import ssl
import sys
import threading
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from agentmetrics.errors import MetricServiceError, TransientMetricError

from agentmetrics_judge._errors import JudgeConfigurationError
from agentmetrics_judge._verdict import quote

if TYPE_CHECKING:  # httpx is imported on first use: importing the metric stays cheap
    import httpx

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ERROR_BODY_BYTES",
    "ClientPool",
    "error_message",
    "post_json",
    "retry_after",
]

#: The largest response body read by default: a verdict for hundreds of calls
#: is tens of KB; 8 MiB leaves room for a chatty judge and none for a flood.
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
#: How much of an error body (3xx, 4xx, 5xx) is read: the message is at its start.
ERROR_BODY_BYTES = 16 * 1024
#: The encodings decoded here (and so the only ones asked for).
_ENCODINGS = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16,
              "deflate": zlib.MAX_WBITS}

_T = TypeVar("_T")


@functools.lru_cache(maxsize=2)
def _tls_context(https: bool) -> ssl.SSLContext:
    if not https:
        # A plain-http judge never shakes hands: a context that verifies but
        # trusts nothing spares loading CAs (and a broken SSL_CERT_FILE).
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    import httpx

    # Honours SSL_CERT_FILE and SSL_CERT_DIR, as httpx's own default does.
    return httpx.create_ssl_context()


#: Requests in flight on one client at most. httpcore's pool scans its
#: connections (with a socket check each) for every request it places, so one
#: client's cost per request grows with its connections: 1,280 requests at 64
#: in flight against a local server took 14 s on one client of 64, 6.4 s on
#: clients of 32, 2.1 s on clients of 8 (and 3.4 s with a client per request,
#: which reconnects every time); 1,000 at once took 24 s on one client.
CLIENT_CAPACITY = 8


class _Shared:
    __slots__ = ("client", "users")

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.users = 0


class ClientPool:
    """httpx.AsyncClients per running event loop, shared by the requests in
    flight on that loop (at most CLIENT_CAPACITY each), each closed by the last
    of its requests to finish."""

    def __init__(self, timeout: float, https: bool = True) -> None:
        self._timeout = timeout
        self._https = https
        self._lock = threading.Lock()  # loops in several threads share the table
        self._clients: dict[asyncio.AbstractEventLoop, list[_Shared]] = {}

    def _new_client(self) -> httpx.AsyncClient:
        import httpx

        try:
            tls = _tls_context(self._https)
        except (OSError, ssl.SSLError) as error:
            raise JudgeConfigurationError(
                f"tool_call_appropriateness: cannot load the TLS certificates "
                f"({type(error).__name__}: {error}). Fix: check SSL_CERT_FILE and "
                f"SSL_CERT_DIR.") from error
        return httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout),
            # A request never waits for a connection: how many cases are in
            # flight is the runner's decision (concurrency=N).
            limits=httpx.Limits(max_connections=CLIENT_CAPACITY,
                                max_keepalive_connections=CLIENT_CAPACITY),
            verify=tls,
            # Never: the request carries the API key, and a redirect may lead
            # anywhere. A 3xx is reported with its Location instead.
            follow_redirects=False,
        )

    @asynccontextmanager
    async def client(self) -> AsyncIterator[httpx.AsyncClient]:
        """A client of the running loop, for the duration of one request."""
        loop = asyncio.get_running_loop()
        with self._lock:
            shared_list = self._clients.get(loop, [])
            shared = next((s for s in shared_list if s.users < CLIENT_CAPACITY), None)
            if shared is None:
                shared = _Shared(self._new_client())  # may raise: nothing recorded yet
                shared_list.append(shared)
                self._clients[loop] = shared_list
            shared.users += 1
        try:
            yield shared.client
        finally:
            with self._lock:
                shared.users -= 1
                last = shared.users == 0
                if last:  # a request starting now gets another client
                    shared_list.remove(shared)
                    if not shared_list and self._clients.get(loop) is shared_list:
                        del self._clients[loop]
            if last:
                await shared.client.aclose()

    def open_clients(self) -> int:
        """How many clients are open now, over all loops."""
        with self._lock:
            return sum(len(shared_list) for shared_list in self._clients.values())


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a response asks for, in seconds: ``retry-after-ms`` (OpenAI's
    header), else ``Retry-After`` as seconds or as an HTTP date; None if absent
    or unreadable. Never negative."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        seconds = _number(milliseconds)
        if seconds is not None:
            return seconds / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT; a date without a zone is read as such
        when = when.replace(tzinfo=datetime.timezone.utc)
    wait = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, wait) if math.isfinite(wait) else None


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _seconds(value: float) -> str:
    return f"{value:.6g}"


def _unchanged(text: str) -> str:
    return text


def error_message(text: str, scrub: Callable[[str], str] = _unchanged) -> str:
    """The server's own words about a failed request, scrubbed of the metric's
    secrets (``scrub``) and then cut to one line of at most 200 characters:
    OpenAI's, vLLM's and LiteLLM's ``{"error": {"message": ...}}``, Ollama's
    ``{"error": "..."}``, ``{"message": ...}``, ``{"detail": ...}``, the
    message of such a body cut short (only its start is read), or the text."""
    try:
        body: Any = json.loads(text)
    except (ValueError, RecursionError):
        body = None
        found = _MESSAGE.search(text[:ERROR_BODY_BYTES]) if text.lstrip().startswith("{") else None
        if found is not None:  # JSON cut short by ERROR_BODY_BYTES: its message is still there
            try:
                text = json.loads(f'"{found.group(1)}"')
            except ValueError:
                text = found.group(1)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
        elif isinstance(body.get("message"), str):
            text = body["message"]
        elif "detail" in body:
            detail = body["detail"]
            text = detail if isinstance(detail, str) else str(detail)
    return quote(text, scrub) or "(no message)"


_MESSAGE = re.compile(r'"(?:message|error|detail)"\s*:\s*"((?:[^"\\]|\\.)*)')

_HINTS = {
    401: "check the API key (api_key=..., AGENTMETRICS_JUDGE_API_KEY or OPENAI_API_KEY)",
    403: "check the API key and that it may use this model",
    404: "check base_url (OpenAI-compatible servers usually end it in /v1) and the model name",
}

#: httpcore's trace steps (events ``<module>.<step>.started``, such as
#: ``connection.connect_tcp.started``) by how they begin, and the phase each begins.
_PHASE_EVENTS = (("connect_", "connect"), ("start_tls", "connect"), ("retry", "connect"),
                 ("send_request", "send"), ("receive_response_headers", "wait"),
                 ("receive_response_body", "body"))
#: Phase: (the httpx timeout of that phase, what the request was doing).
_PHASES = {
    "pool": ("PoolTimeout", "waiting for a connection"),
    "connect": ("ConnectTimeout", "connecting"),
    "send": ("WriteTimeout", "sending the request"),
    "wait": ("ReadTimeout", "waiting for the answer"),
    "body": ("ReadTimeout", "reading the answer's body"),
}


class _Exchange:
    """Where one request is: its phase (from httpcore's trace events) and the
    body bytes received, for the message when something goes wrong."""

    __slots__ = ("phase", "received")

    def __init__(self) -> None:
        self.phase = "pool"
        self.received = 0

    async def trace(self, event: str, info: Mapping[str, Any]) -> None:
        where, _, stage = event.rpartition(".")
        if stage == "started":
            step = where.rpartition(".")[2]
            for start, phase in _PHASE_EVENTS:
                if step.startswith(start):
                    self.phase = phase
                    return

    def doing(self) -> str:
        what = _PHASES[self.phase][1]
        return f"{what} ({self.received:,} bytes received)" if self.phase == "body" else what


class _Answer:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: httpx.Headers, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def text(self, limit: int | None = None) -> str:
        """The body (its first ``limit`` bytes) as text, in its charset if it
        names one that decodes it; else as UTF-8 (undecodable bytes replaced)."""
        content_type = self.headers.get("content-type", "")
        charset = re.search(r"charset=\"?([\w.:-]+)", content_type, re.IGNORECASE)
        data = self.body if limit is None else self.body[:limit]
        try:
            return data.decode(charset.group(1) if charset else "utf-8", errors="replace")
        except Exception:  # a charset Python does not know (LookupError), or knows but
            # cannot decode with errors="replace" ("undefined", "idna": UnicodeError)
            return data.decode("utf-8", errors="replace")


class _Inflater:
    """gzip or deflate decoding that never produces more than it is asked for
    (zlib's ``max_length``): a bomb costs the room left, not its size."""

    __slots__ = ("_unchecked", "_zlib")

    def __init__(self, wbits: int) -> None:
        self._zlib = zlib.decompressobj(wbits)
        # "deflate" is meant to be zlib-wrapped, and some servers send it bare:
        # the bytes fed until zlib's 2-byte header has passed, to start again
        # as bare deflate if it does not.
        self._unchecked: bytes | None = b"" if wbits == zlib.MAX_WBITS else None

    def feed(self, data: bytes, room: int) -> bytes:
        """``data`` decoded: at most ``room + 1`` bytes (more than ``room``
        means the limit is passed; the rest is never decoded)."""
        if self._zlib.eof:
            return b""  # anything after the end of the stream is ignored, as httpx does
        if self._unchecked is None:
            return self._zlib.decompress(data, room + 1)
        seen = self._unchecked + data
        try:
            out = self._zlib.decompress(data, room + 1)
        except zlib.error:
            self._zlib, self._unchecked = zlib.decompressobj(-zlib.MAX_WBITS), None
            return self._zlib.decompress(seen, room + 1)
        self._unchecked = seen if len(seen) < 2 else None
        return out


def _inflater(headers: httpx.Headers) -> tuple[str, _Inflater | None]:
    """The body's content coding and its decoder (None: as is); ValueError
    for a coding not decoded here."""
    codings = [coding.strip().lower()
               for coding in headers.get("content-encoding", "").split(",")]
    codings = [coding for coding in codings if coding not in ("", "identity")]
    if not codings:
        return "identity", None
    if len(codings) == 1 and codings[0] in _ENCODINGS:
        return codings[0], _Inflater(_ENCODINGS[codings[0]])
    raise ValueError(", ".join(codings))


def _too_large(url: str, limit: int, what: str) -> MetricServiceError:
    return MetricServiceError(
        f"the judge at {url} sent a response larger than max_response_bytes={limit}: {what}. "
        f"Fix: if the judge's answers are really this long, pass a larger "
        f"max_response_bytes=... (the default is {DEFAULT_MAX_RESPONSE_BYTES}, 8 MiB); "
        f"otherwise check base_url.")


async def _read_body(response: httpx.Response, limit: int, url: str, exchange: _Exchange,
                     *, strict: bool) -> bytes:
    """The body, decoded: at most ``limit`` bytes of it, counted as received and
    as decoded. ``strict``: more than that raises MetricServiceError (and so
    does a body that cannot be decoded); otherwise the rest is left unread."""
    try:
        coding, inflater = _inflater(response.headers)
    except ValueError as error:
        if strict:
            coding = quote(str(error), _SCRUB.get() or _unchanged, _HEADER_QUOTED)
            raise MetricServiceError(
                f"the judge at {url} sent its answer in Content-Encoding {coding}, which this "
                f"client does not decode (it asks for gzip or deflate only)") from None
        coding, inflater = "identity", None  # an error body: its start as it came
    parts: list[bytes] = []
    decoded = 0
    async for raw in response.aiter_raw():
        exchange.received += len(raw)
        try:
            chunk = raw if inflater is None else inflater.feed(raw, limit - decoded)
        except zlib.error as error:
            if strict:
                raise MetricServiceError(
                    f"the judge at {url} sent a body that is not valid {coding} "
                    f"(Content-Encoding: {coding}; {error})") from None
            break
        decoded += len(chunk)
        if decoded > limit or exchange.received > limit:
            if strict:
                what = f"{exchange.received:,} bytes received"
                if decoded > limit and inflater is not None:
                    what += f" ({coding}) decoded to more than {limit:,}"
                raise _too_large(url, limit, what + " when reading stopped")
            parts.append(chunk[:len(chunk) - max(0, decoded - limit)])
            break
        parts.append(chunk)
    return b"".join(parts)


def _declared_length(headers: httpx.Headers) -> int | None:
    try:
        return int(headers.get("content-length", ""))
    except ValueError:
        return None


async def _exchange(client: httpx.AsyncClient, url: str, payload: bytes,
                    headers: dict[str, str], max_response_bytes: int,
                    exchange: _Exchange, shown: str) -> _Answer:
    """The answer to one POST to ``url`` (``shown``: as messages name it)."""
    async with client.stream("POST", url, content=payload, headers=headers,
                             extensions={"trace": exchange.trace}) as response:
        exchange.phase = "body"
        status = response.status_code
        if 200 <= status < 300:
            declared = _declared_length(response.headers)
            if declared is not None and declared > max_response_bytes:
                raise _too_large(shown, max_response_bytes,
                                 f"it announced {declared:,} bytes (Content-Length), "
                                 f"and none of them were read")
            body = await _read_body(response, max_response_bytes, shown, exchange, strict=True)
        else:
            body = await _read_body(response, min(max_response_bytes, ERROR_BODY_BYTES), shown,
                                    exchange, strict=False)
        return _Answer(status, response.headers, body)


#: Whether the deadline is kept by asyncio.wait_for (Python 3.10, which has no
#: asyncio.timeout; the tests switch it on to check that way too).
_USE_WAIT_FOR = sys.version_info < (3, 11)


async def _within(seconds: float, awaitable: Awaitable[_T]) -> _T:
    """``await awaitable``, cancelled after ``seconds``: asyncio.TimeoutError then."""
    if _USE_WAIT_FOR or sys.version_info < (3, 11):
        return await asyncio.wait_for(awaitable, seconds)
    async with asyncio.timeout(seconds):
        return await awaitable


#: How the request in progress hides its secrets from httpx's own log lines
#: (``HTTP Request: POST <url> ...``): set by post_json for its task only.
_SCRUB: contextvars.ContextVar[Callable[[str], str] | None] = contextvars.ContextVar(
    "agentmetrics_judge_scrub", default=None)
#: The longest header value (Content-Type, Location, ...) a message quotes.
_HEADER_QUOTED = 120


class _ScrubbedLogs(logging.Filter):
    """On httpx's loggers: a record logged while a judge request runs is
    rewritten with that request's secrets masked (an API key, credentials in
    the URL), whatever level or handler the application set up."""

    def filter(self, record: logging.LogRecord) -> bool:
        scrub = _SCRUB.get()
        if scrub is not None:
            try:
                message = record.getMessage()
            except Exception:  # a record that cannot be formatted is left as it is
                return True
            cleaned = scrub(message)
            if cleaned != message:
                record.msg, record.args = cleaned, ()
        return True


@functools.lru_cache(maxsize=1)
def _filter_logs() -> None:
    """Put the filter on httpx's and httpcore's loggers, once per process."""
    for name in ("httpx", "httpcore", "httpcore.http11", "httpcore.connection",
                 "httpcore.http2", "httpcore.proxy"):
        logging.getLogger(name).addFilter(_ScrubbedLogs())


async def post_json(pool: ClientPool, url: str, payload: bytes,
                    headers: Mapping[str, str], timeout: float, *,
                    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
                    max_retry_wait: float | None = None,
                    scrub: Callable[[str], str] = _unchanged) -> Any:
    """POST ``payload`` (JSON bytes) and return the parsed JSON of a 2xx answer,
    all within ``timeout`` seconds and ``max_response_bytes`` (see the module's
    docstring).

    - HTTP 408, 429 and 5xx, connection failures, malformed or cut-off
      responses, the deadline passing raise TransientMetricError
      (``retry_after`` from the headers, at most ``max_retry_wait``, by
      default ``timeout``);
    - any other status (3xx included: redirects are not followed) and a body
      over ``max_response_bytes`` raise MetricServiceError;
    - a 2xx body that is not JSON raises MetricServiceError("judge gave an
      invalid verdict: ...").
    """
    _filter_logs()
    token = _SCRUB.set(scrub)
    try:
        return await _post_json(pool, url, payload, headers, timeout, max_response_bytes,
                                max_retry_wait, scrub)
    finally:
        _SCRUB.reset(token)


async def _post_json(pool: ClientPool, address: str, payload: bytes,
                     headers: Mapping[str, str], timeout: float, max_response_bytes: int,
                     max_retry_wait: float | None, scrub: Callable[[str], str]) -> Any:
    import httpx

    url = scrub(address)  # the address as every message shows it
    exchange = _Exchange()
    request_headers = {"accept-encoding": "gzip, deflate", **headers}
    try:
        async with pool.client() as client:
            answer = await _within(timeout, _exchange(client, address, payload, request_headers,
                                                      max_response_bytes, exchange, url))
    except asyncio.TimeoutError as error:
        kind = _PHASES[exchange.phase][0]
        raise TransientMetricError(
            f"the judge at {url} did not answer within the timeout of {timeout:g} s ({kind}): "
            f"the deadline of {timeout:g} s for the whole request passed while "
            f"{exchange.doing()}") from error
    except httpx.TimeoutException as error:
        raise TransientMetricError(
            f"the judge at {url} did not answer within the timeout of {timeout:g} s "
            f"({type(error).__name__})") from error
    except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as error:
        detail = quote(str(error), scrub) or "the connection was closed or reset"
        if exchange.phase == "body":
            raise TransientMetricError(
                f"the judge at {url} broke off its answer after {exchange.received:,} bytes "
                f"of the body: {type(error).__name__}: {detail}") from error
        raise TransientMetricError(
            f"could not reach the judge at {url}: {type(error).__name__}: {detail}") from error
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        raise MetricServiceError(
            f"the request to the judge at {url} failed: {type(error).__name__}: "
            f"{quote(str(error), scrub)}") from error
    status = answer.status
    if status in (408, 429) or status >= 500:
        wait = retry_after(answer.headers)
        cap = timeout if max_retry_wait is None else max_retry_wait
        capped = ""
        if wait is not None and wait > cap:
            capped = (f"; it asked to wait {_seconds(wait)} s; waiting at most {cap:g} s "
                      f"(max_retry_wait)")
            wait = cap
        raise TransientMetricError(
            f"the judge at {url} answered HTTP {status}: "
            f"{error_message(answer.text(), scrub)}{capped}", retry_after=wait)
    if not 200 <= status < 300:
        hint = _HINTS.get(status)
        if 300 <= status < 400:
            location = quote(answer.headers.get("location", "?"), scrub, _HEADER_QUOTED)
            hint = f"a redirect to {location}, which is not followed: check base_url"
        raise MetricServiceError(
            f"the judge at {url} answered HTTP {status}: {error_message(answer.text(), scrub)}"
            + (f" ({hint})" if hint else ""))
    try:
        return json.loads(answer.body)
    except (ValueError, RecursionError) as error:
        why = "is nested too deeply to read" if isinstance(error, RecursionError) else "is not JSON"
        content_type = quote(answer.headers.get("content-type", "no content type"), scrub,
                             _HEADER_QUOTED)
        raise MetricServiceError(
            f"judge gave an invalid verdict: the response body (HTTP {status}, "
            f"{content_type}) {why}: {quote(answer.text(1000), scrub)!r}") from None
