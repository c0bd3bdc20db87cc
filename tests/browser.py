"""Headless Chromium for the report tests: render a file, read back the DOM
after its scripts ran and a screenshot, and record every request the page
made (all traffic goes through a recording proxy on 127.0.0.1, so a page
that fetches nothing leaves it empty)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
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
from typing import Any
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
            for _ in range(3):  # one run gives both the DOM after scripts and the screenshot
                dom = _run([*common, "--dump-dom", f"--screenshot={shot}",
                            f"--window-size={width},{height}", url], timeout)
                if shot.exists() and dom.stdout.strip():
                    break
                shot.unlink(missing_ok=True)
            else:
                raise AssertionError(f"Chromium wrote no screenshot or no DOM of {url}")
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


def _unfilter_slowly(kind: int, line: bytearray, previous: bytes, step: int) -> None:
    """PNG's Average (3) and Paeth (4) filters undone in place, byte by byte
    (each byte depends on the one before it); rare in Chromium's screenshots."""
    for i in range(len(line)):
        left = line[i - step] if i >= step else 0
        up = previous[i]
        if kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 255
        else:
            corner = previous[i - step] if i >= step else 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            line[i] = (line[i] + guess) & 255


@functools.lru_cache(maxsize=16)
def _rgb(png: bytes) -> Any:
    """An 8-bit RGB or RGBA PNG as a (height, width, 3) uint8 array: rows
    unfiltered with numpy where a filter allows it (None, Sub, Up: nearly every
    row of a screenshot), byte by byte otherwise."""
    import numpy as np

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
    step = 3 if colour == 2 else 4
    stride = width * step
    raw = np.frombuffer(zlib.decompress(data), dtype=np.uint8)[:height * (stride + 1)]
    rows = raw.reshape(height, stride + 1)
    out = np.empty((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind, line = int(rows[y, 0]), rows[y, 1:]
        if kind == 0:
            out[y] = line
        elif kind == 1:  # Sub: a running sum per channel, modulo 256
            out[y] = np.cumsum(line.reshape(width, step), axis=0, dtype=np.uint8).reshape(stride)
        elif kind == 2:  # Up
            out[y] = line + previous
        else:
            fixed = bytearray(line.tobytes())
            _unfilter_slowly(kind, fixed, previous.tobytes(), step)
            out[y] = np.frombuffer(bytes(fixed), dtype=np.uint8)
        previous = out[y]
    return out.reshape(height, width, step)[:, :, :3]


def png_pixels(png: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Width, height and RGB pixels of an 8-bit RGB or RGBA PNG."""
    rgb = _rgb(png)
    height, width = rgb.shape[:2]
    return width, height, [tuple(value) for value in rgb.reshape(-1, 3).tolist()]


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    red, green, blue = _rgb(png)[y, x].tolist()
    return red, green, blue


def is_blank(png: bytes, share: float = 0.005) -> bool:
    """Whether (almost) every pixel has the most common colour."""
    import numpy as np

    rgb = _rgb(png).astype(np.uint32)
    packed = (rgb[:, :, 0] << 16) | (rgb[:, :, 1] << 8) | rgb[:, :, 2]
    _, counts = np.unique(packed, return_counts=True)
    return int(packed.size - counts.max()) < share * packed.size


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
