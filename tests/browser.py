"""Headless Chromium for the report tests: render a file, read back the DOM
after its scripts ran and a screenshot, and record every request the page
made (all traffic goes through a recording proxy on 127.0.0.1, so a page
that fetches nothing leaves it empty)."""

from __future__ import annotations

import contextlib
import dataclasses
import html.parser
import os
import re
import shutil
import socketserver
import struct
import subprocess
import tempfile
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["CHROMIUM", "Rendered", "external_urls", "find_chromium", "is_blank", "pixel",
           "png_pixels", "render", "requires_chromium"]


def find_chromium() -> str | None:
    named = os.environ.get("AGENTMETRICS_CHROMIUM")
    if named:
        return named
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
                 "headless_shell"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = find_chromium()
requires_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium; "
    ".ci/run installs it where it can)")


@dataclasses.dataclass(frozen=True)
class Rendered:
    dom: str
    png: bytes
    network_requests: list[str]


class _Recorder(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.requests: list[str] = []
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(65536).decode("latin-1").strip()
        if line:
            parts = line.split()
            self.server.requests.append(parts[1] if len(parts) > 1 else line)  # type: ignore[attr-defined]
        self.wfile.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, capture_output=True, timeout=timeout, check=False)


@contextlib.contextmanager
def _one_at_a_time() -> Iterator[None]:
    import fcntl

    with open(Path(tempfile.gettempdir()) / "agentmetrics-chromium.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def render(path: str | os.PathLike[str], *, width: int = 1280, height: int = 2000,
           dark: bool = False, timeout: float = 90) -> Rendered:
    """``path`` rendered by headless Chromium: its DOM after scripts ran, a
    PNG screenshot, and the requests it made."""
    assert CHROMIUM is not None
    url = Path(path).resolve().as_uri()
    recorder = _Recorder()
    thread = threading.Thread(target=recorder.serve_forever, daemon=True)
    thread.start()
    profile = tempfile.mkdtemp(prefix="chromium-")
    try:
        common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
                  f"--proxy-server=http://127.0.0.1:{recorder.server_address[1]}",
                  "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=3000",
                  "--no-pings", "--no-default-browser-check", "--disable-domain-reliability",
                  "--disable-client-side-phishing-detection", "--disable-default-apps",
                  "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,"
                  "MediaRouter,AutofillServerCommunication,SignInProfileCreation"]
        if dark:
            common += ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"]
        shot = Path(profile) / "shot.png"
        with _one_at_a_time():  # two Chromiums at once (pytest -n 2) starve each other
            dom = _run([*common, "--dump-dom", url], timeout)
            for _ in range(3):
                _run([*common, f"--screenshot={shot}", f"--window-size={width},{height}", url],
                     timeout)
                if shot.exists():
                    break
            else:
                raise AssertionError(f"Chromium wrote no screenshot of {url}")
        png = shot.read_bytes()
    finally:
        recorder.shutdown()
        recorder.server_close()
        shutil.rmtree(profile, ignore_errors=True)
    asked = [url for url in recorder.requests if not _BROWSER_OWN.search(url)]
    return Rendered(dom.stdout.decode("utf-8", "replace"), png, asked)


#: What Chromium itself asks for whatever the page (its clock, component
#: updates, sign-in), which no page of ours names: not the page's requests.
_BROWSER_OWN = re.compile(r"^(?:https?://)?(?:clients\d*\.google\.com|update\.googleapis\.com|"
                          r"accounts\.google\.com|[a-z0-9.-]*\.gvt1\.com)(?::443)?(?:/|$)")


def png_pixels(png: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Width, height and RGB pixels of an 8-bit RGB or RGBA PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, data, width = 8, b"", 0
    height = colour = 0
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
        elif kind == b"IDAT":
            data += chunk
        elif kind == b"IEND":
            break
    raw = zlib.decompress(data)
    step = 3 if colour == 2 else 4
    stride = width * step
    previous = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    at = 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + guess) & 255
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, step))  # type: ignore[misc]
        previous = line
    return width, height, pixels


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    width, _, pixels = png_pixels(png)
    return pixels[y * width + x]


def is_blank(png: bytes, share: float = 0.005) -> bool:
    """Whether (almost) every pixel has the most common colour."""
    _, _, pixels = png_pixels(png)
    counts: dict[tuple[int, int, int], int] = {}
    for value in pixels:
        counts[value] = counts.get(value, 0) + 1
    return len(pixels) - max(counts.values()) < share * len(pixels)


class _Urls(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and name in ("src", "href", "action", "poster", "data", "xlink:href"):
                self.found.append(value)
            elif value and name == "srcset":
                self.found += [part.split()[0] for part in value.split(",") if part.strip()]
            elif value and name == "style":
                self.found += _css_urls(value)
        self._style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._style = False

    def handle_data(self, data: str) -> None:
        if self._style:
            self.found += _css_urls(data)


def _css_urls(css: str) -> list[str]:
    return (re.findall(r"url\(\s*['\"]?([^'\")\s]+)", css)
            + re.findall(r"@import\s+(?:url\()?\s*['\"]?([^'\")\s;]+)", css))


def external_urls(text: str) -> list[str]:
    """Every URL the page would load that is not inside it (fragments,
    ``data:``, ``javascript:`` and ``about:blank`` are)."""
    parser = _Urls()
    parser.feed(text)
    return [u for u in parser.found
            if not u.startswith(("#", "data:", "javascript:", "about:blank"))]
