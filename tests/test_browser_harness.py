"""The browser harness can fail: its PNG reader, blank check and URL check on
known input; Chromium sees a page's requests and its dark mode."""

from __future__ import annotations

import struct
import zlib

from browser import external_urls, is_blank, pixel, png_pixels, render, requires_chromium


def _png(width, height, colour_of):
    rows = b"".join(b"\x00" + b"".join(bytes(colour_of(x, y)) for x in range(width))
                    for y in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def test_the_png_reader_reads_known_pixels():
    png = _png(4, 3, lambda x, y: (x * 10, y * 20, 7))
    width, height, pixels = png_pixels(png)
    assert (width, height) == (4, 3)
    assert pixels[0] == (0, 0, 7) and pixel(png, 3, 2) == (30, 40, 7)


def _filtered_png(width, height, colour_of, filters, alpha=False):
    """A PNG whose row y is written with filter ``filters[y % len(filters)]``
    (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth), encoded from the definitions."""
    step = 4 if alpha else 3
    raw = [b"".join(bytes(colour_of(x, y)) + (b"\xc8" if alpha else b"") for x in range(width))
           for y in range(height)]
    rows, previous = [], bytes(width * step)
    for y, line in enumerate(raw):
        kind = filters[y % len(filters)]
        out = bytearray()
        for i, value in enumerate(line):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            else:
                guess = {0: 0, 1: left, 2: up, 3: (left + up) // 2}[kind]
            out.append((value - guess) & 255)
        rows.append(bytes([kind]) + bytes(out))
        previous = line

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


def test_the_png_reader_undoes_every_filter():
    def colour(x, y):
        return ((x * 37 + y * 11) % 256, (x * x + 3 * y) % 256, (255 - x * y) % 256)

    want = [colour(x, y) for y in range(9) for x in range(7)]
    for alpha in (False, True):
        png = _filtered_png(7, 9, colour, [0, 1, 2, 3, 4, 2, 4, 1, 3], alpha=alpha)
        assert png_pixels(png) == (7, 9, want)
        assert pixel(png, 6, 8) == colour(6, 8)
        assert not is_blank(png)


def test_blank_is_uniform():
    assert is_blank(_png(20, 20, lambda x, y: (255, 255, 255)))
    assert not is_blank(_png(20, 20, lambda x, y: (0, 0, 0) if x < 5 else (255, 255, 255)))


def test_external_urls_finds_each_kind():
    page = ('<img src="http://a/x.png"><link href="https://b/c.css"><a href="#top">t</a>'
            '<img src="data:image/png;base64,AA"><div style="background:url(//c/d)"></div>'
            '<style>@import "https://d/e.css";</style>')
    assert sorted(external_urls(page)) == ["//c/d", "http://a/x.png", "https://b/c.css",
                                           "https://d/e.css"]


@requires_chromium
def test_chromium_runs_scripts_and_reports_requests(tmp_path):
    own = tmp_path / "own.html"
    own.write_text("<html><body><p id=x>before</p><script>document.getElementById('x')"
                   ".textContent='after script'</script></body></html>", encoding="utf-8")
    shown = render(own, width=200, height=200)
    assert "after script" in shown.dom and shown.network_requests == []
    fetching = tmp_path / "fetching.html"
    fetching.write_text('<html><body><img src="http://example.invalid/x.png">'
                        '<p>text</p></body></html>', encoding="utf-8")
    assert any("example.invalid" in url for url in render(fetching).network_requests)


@requires_chromium
def test_dark_mode_is_seen_by_the_page(tmp_path):
    page = tmp_path / "dark.html"
    page.write_text("<html><head><style>body{background:#fff}@media (prefers-color-scheme:"
                    "dark){body{background:#000}}</style></head><body>x</body></html>",
                    encoding="utf-8")
    assert pixel(render(page, width=100, height=100).png, 50, 50) == (255, 255, 255)
    assert pixel(render(page, width=100, height=100, dark=True).png, 50, 50) == (0, 0, 0)
