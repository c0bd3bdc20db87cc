"""A scripted HTTP/1.1 server on 127.0.0.1 that stands in for LLM provider APIs.

Tests point a real provider SDK at ``server.url`` and queue the replies the server should send::

    with ProviderServer() as server:
        server.add(Reply(body=b'{"ok": true}', path="/chat/completions"))
        ...  # drive the SDK
        assert server.exchanges[0].reply.sent == b'{"ok": true}'

Standard library only, so the server itself never depends on what it is used to test.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit

__all__ = ["Exchange", "ProviderServer", "Reply"]


@dataclass
class Reply:
    """One scripted response.

    ``body`` is sent whole with Content-Length; ``chunks`` are sent with ``Transfer-Encoding: chunked``, each chunk
    written and flushed on its own (``delay`` seconds apart). ``match`` reserves the reply for the first request whose
    body contains that substring; ``path``, when set, must be a suffix of the request path (query excluded).
    """

    status: int = 200
    body: bytes | None = None
    chunks: list[bytes] | None = None
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    match: str | None = None
    path: str | None = None
    delay: float = 0.0

    def __post_init__(self) -> None:
        if self.body is not None and self.chunks is not None:
            raise ValueError("a Reply has either body or chunks, not both")

    @property
    def sent(self) -> bytes:
        """The body bytes exactly as served."""
        if self.chunks is not None:
            return b"".join(self.chunks)
        return self.body or b""

    @property
    def streamed(self) -> bool:
        return self.chunks is not None


@dataclass
class Exchange:
    """A request the server received and the reply it answered with."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    reply: Reply


def _error_reply(message: str) -> Reply:
    body = json.dumps({"error": {"message": message, "type": "provider_server_error"}}).encode()
    return Reply(status=500, body=body)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY, Nagle's
    # algorithm and the client's delayed ACK hold each response ~40 ms.
    disable_nagle_algorithm = True
    server: _Server  # type: ignore[assignment]
    timeout = 60.0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, add=False)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts: list[bytes] = []
            while True:
                size_line = self.rfile.readline()
                if not size_line:
                    break
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline()  # CRLF after each chunk
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        body = self._read_body()
        split = urlsplit(self.path)
        headers = {key.lower(): value for key, value in self.headers.items()}
        reply = self.server.owner.route(self.command, split.path, body)
        self.server.owner.record(Exchange(self.command, split.path, split.query, headers, body, reply))
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        if reply.chunks is None:
            self.send_header("Content-Length", str(len(reply.body or b"")))
            self.end_headers()
            if self.command != "HEAD" and reply.body:
                self.wfile.write(reply.body)
            self.wfile.flush()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        if self.command == "HEAD":
            return
        for index, chunk in enumerate(reply.chunks):
            if index and reply.delay:
                time.sleep(reply.delay)
            if not chunk:
                continue  # an empty chunk would end the body early
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, owner: ProviderServer) -> None:
        self.owner = owner
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def track(self, connection: socket.socket, *, add: bool) -> None:
        with self._connections_lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client hanging up is routine; anything else is a bug in the server, kept in ``errors``."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        self.owner.errors.append(f"server error on a request from {client_address}: {error!r}")

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class ProviderServer:
    """Threaded HTTP/1.1 server answering each request with the next scripted :class:`Reply`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: list[Reply] = []
        self.exchanges: list[Exchange] = []
        self.errors: list[str] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> ProviderServer:
        if self._server is not None:
            return self
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="provider-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> ProviderServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the server is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # scripting

    def add(self, *replies: Reply) -> ProviderServer:
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def pending(self) -> list[Reply]:
        """Replies queued and not yet served."""
        with self._lock:
            return list(self._queue)

    def route(self, method: str, path: str, body: bytes) -> Reply:
        """Take the reply for this request off the queue (or an error reply when none fits)."""
        with self._lock:
            chosen: Reply | None = None
            for reply in self._queue:
                if reply.match is not None and reply.match.encode() in body:
                    chosen = reply
                    break
            if chosen is None:
                chosen = next((reply for reply in self._queue if reply.match is None), None)
            if chosen is None:
                message = f"no scripted reply for {method} {path} ({len(self._queue)} queued, all with a match absent from the body)"
                self.errors.append(message)
                return _error_reply(message)
            self._queue.remove(chosen)
            if chosen.path is not None and not path.endswith(chosen.path):
                message = f"{method} {path} does not end with the scripted reply's path {chosen.path!r}"
                self.errors.append(message)
                return _error_reply(message)
            return chosen

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)
