"""Talking to the judge: httpx.AsyncClients per event loop, and HTTP
failures mapped onto agentmetrics' errors.

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

The metric never retries: a failure worth retrying raises
TransientMetricError (with ``retry_after`` when the server asked for a wait)
and the runner retries it (``evaluate(..., retries=R)``).
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import functools
import math
import ssl
import threading
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agentmetrics.errors import MetricServiceError, TransientMetricError

from agentmetrics_judge._errors import JudgeConfigurationError
from agentmetrics_judge._verdict import excerpt

if TYPE_CHECKING:  # httpx is imported on first use: importing the metric stays cheap
    import httpx

__all__ = ["ClientPool", "error_message", "post_json", "retry_after"]


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


def error_message(response: httpx.Response) -> str:
    """The server's own words about a failed request, on one line, at most 200
    characters: OpenAI's, vLLM's and LiteLLM's ``{"error": {"message": ...}}``,
    Ollama's ``{"error": "..."}``, ``{"message": ...}``, ``{"detail": ...}``, or the
    body's text."""
    text = response.text
    try:
        body: Any = response.json()
    except ValueError:
        body = None
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
    return excerpt(text) or "(no message)"


_HINTS = {
    401: "check the API key (api_key=..., AGENTMETRICS_JUDGE_API_KEY or OPENAI_API_KEY)",
    403: "check the API key and that it may use this model",
    404: "check base_url (OpenAI-compatible servers usually end it in /v1) and the model name",
}


async def post_json(pool: ClientPool, url: str, payload: bytes,
                    headers: Mapping[str, str], timeout: float) -> Any:
    """POST ``payload`` (JSON bytes) and return the parsed JSON of a 2xx answer.

    - HTTP 408, 429 and 5xx, connection failures, timeouts and dropped
      connections raise TransientMetricError (``retry_after`` from the headers);
    - any other status raises MetricServiceError with the server's message;
    - a 2xx body that is not JSON raises MetricServiceError("judge gave an
      invalid verdict: ...").
    """
    import httpx

    try:
        async with pool.client() as client:
            response = await client.post(url, content=payload, headers=dict(headers))
    except httpx.TimeoutException as error:
        raise TransientMetricError(
            f"the judge at {url} did not answer within the timeout of {timeout:g} s "
            f"({type(error).__name__})") from error
    except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as error:
        detail = excerpt(str(error)) or "the connection was closed or reset"
        raise TransientMetricError(
            f"could not reach the judge at {url}: {type(error).__name__}: {detail}") from error
    except httpx.HTTPError as error:
        raise MetricServiceError(
            f"the request to the judge at {url} failed: {type(error).__name__}: "
            f"{excerpt(str(error))}") from error
    status = response.status_code
    if status in (408, 429) or status >= 500:
        raise TransientMetricError(
            f"the judge at {url} answered HTTP {status}: {error_message(response)}",
            retry_after=retry_after(response.headers))
    if not 200 <= status < 300:
        hint = _HINTS.get(status)
        if 300 <= status < 400:
            hint = f"a redirect to {response.headers.get('location', '?')}: check base_url"
        raise MetricServiceError(
            f"the judge at {url} answered HTTP {status}: {error_message(response)}"
            + (f" ({hint})" if hint else ""))
    try:
        return response.json()
    except ValueError:
        raise MetricServiceError(
            f"judge gave an invalid verdict: the response body (HTTP {status}, "
            f"{response.headers.get('content-type', 'no content type')}) is not JSON: "
            f"{excerpt(response.text)!r}") from None
