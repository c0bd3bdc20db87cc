"""lines() and parse_json_line(): every way a JSONL source can be unreadable.

Each bug the input fuzzing found has a regression test here: a Latin-1 byte,
a UTF-16 file from PowerShell ``>``, gzip, a binary handle, a UTF-8 BOM, a
5,000-digit integer, 10,000 nesting levels and a closed stdin.
"""

from __future__ import annotations

import codecs
import gzip
import io
import itertools
import os
import pickle
import subprocess
import sys
import textwrap
import tracemalloc
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmetrics._base._lines import Line, LineError, SourceError, lines, parse_json_line



def latin1(column: int) -> str:
    return (f"not UTF-8: byte 0xe9 at column {column} (looks like Latin-1 or Windows-1252). "
            f"Fix: save the file as UTF-8.")


def read(source):
    return [(line.number, line.text, line.error) for line in lines(source)]


def texts(source):
    return [(line.number, line.text) for line in lines(source)]


class Trickle:
    """A binary handle with only ``read``, giving at most ``size`` bytes a call, like a pipe."""

    def __init__(self, data: bytes, size: int = 1) -> None:
        self.data, self.size, self.position = data, size, 0

    def read(self, n: int = -1) -> bytes:
        n = self.size if n < 0 else min(n, self.size)
        chunk = self.data[self.position:self.position + n]
        self.position += len(chunk)
        return chunk


# ---- the fuzzing regressions -------------------------------------------------------------

def test_a_latin1_line_is_one_error_and_the_other_lines_are_read(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b'{"a": 1}\n{"name": "caf\xe9"}\n{"b": "\xc3\xa9t\xc3\xa9"}\n')
    expected = [(1, '{"a": 1}', None), (2, None, latin1(14)), (3, '{"b": "été"}', None)]
    assert read(path) == read(str(path)) == expected
    with open(path, "rb") as handle:
        assert read(handle) == expected


def test_the_column_counts_characters_not_bytes():
    [line] = lines(io.BytesIO('{"a": "ééé", "b": "'.encode() + b"\xe9\"}"))
    assert line.error is not None and "byte 0xe9 at column 20 " in line.error


def test_every_bad_line_is_its_own_error():
    data = b"\xff\n[1]\n\x80abc\n[2]\n\xc3\n"
    assert [(line.number, line.text is None) for line in lines(io.BytesIO(data))] == [
        (1, True), (2, False), (3, True), (4, False), (5, True)]


def test_a_byte_no_windows_code_page_has_gets_no_latin1_hint():
    [line] = lines(io.BytesIO(b"[\x81]"))
    assert line.error == "not UTF-8: byte 0x81 at column 2. Fix: save the file as UTF-8."


def test_a_powershell_redirect_is_utf16_le_with_a_bom(tmp_path):
    # Windows PowerShell `>` writes FF FE, then UTF-16 LE with CRLF line ends.
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"\xff\xfe" + '{"a": "é"}\r\n{"b": 2}\r\n'.encode("utf-16-le"))
    assert texts(path) == [(1, '{"a": "é"}'), (2, '{"b": 2}')]


BOMS = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", *BOMS])
def test_utf16_and_utf32_with_a_bom(encoding):
    content = '{"a": "\U0001f600 \u0a0a \u0100"}\n\n[2]\r\nlast'
    # "utf-16" and "utf-32": Python's encoder writes the BOM (in the machine's byte order).
    data = BOMS.get(encoding, b"") + content.encode(encoding)
    expected = [(1, '{"a": "\U0001f600 \u0a0a \u0100"}'), (2, ""), (3, "[2]"), (4, "last")]
    assert texts(io.BytesIO(data)) == expected
    assert texts(Trickle(data, 3)) == expected


def test_a_bad_utf16_line_is_one_error():
    data = codecs.BOM_UTF16_LE + "[1]\n".encode("utf-16-le") + b"[\x00\x00\xd8]\x00\n\x00" + \
        "[3]".encode("utf-16-le") + b"\x00"  # a lone surrogate, then an odd last byte
    assert read(io.BytesIO(data)) == [
        (1, "[1]", None),
        (2, None, "not valid UTF-16: illegal UTF-16 surrogate (bytes 00 d8) at column 2. "
                  "Fix: save the file as UTF-8."),
        (3, None, "not valid UTF-16: truncated data (bytes 00) at column 4. "
                  "Fix: save the file as UTF-8."),
    ]


def test_gzip_is_detected_by_its_magic_bytes_not_the_name(tmp_path):
    content = b'{"a": 1}\n\n{"b": 2}\n'
    (tmp_path / "packed.jsonl").write_bytes(gzip.compress(content))
    (tmp_path / "plain.jsonl.gz").write_bytes(content)
    expected = [(1, '{"a": 1}'), (2, ""), (3, '{"b": 2}')]
    assert texts(tmp_path / "packed.jsonl") == texts(tmp_path / "plain.jsonl.gz") == expected
    assert texts(io.BytesIO(gzip.compress(content))) == expected
    assert texts(Trickle(gzip.compress(content), 1)) == expected


def test_gzip_then_a_bom_and_several_members():
    utf16 = gzip.compress("[1]\r\n[2]\r\n".encode("utf-16"))
    assert texts(io.BytesIO(utf16)) == [(1, "[1]"), (2, "[2]")]
    members = gzip.compress(codecs.BOM_UTF8 + b"[1]\n[2") + gzip.compress(b"]\n[3]")  # `cat a.gz b.gz`
    assert texts(io.BytesIO(members)) == [(1, "[1]"), (2, "[2]"), (3, "[3]")]


def test_a_latin1_line_inside_gzip_is_one_error():
    data = gzip.compress(b'{"a": 1}\n{"name": "caf\xe9"}\n[3]\n')
    assert read(io.BytesIO(data)) == [(1, '{"a": 1}', None), (2, None, latin1(14)), (3, "[3]", None)]


def test_truncated_gzip_keeps_the_lines_before_and_ends_with_one_error():
    data = gzip.compress(b"".join(b'{"line": %d}\n' % i for i in range(5000)), mtime=0)
    got = list(lines(io.BytesIO(data[: len(data) // 2])))
    *good, last = got
    assert good and all(line.text == '{"line": %d}' % i for i, line in enumerate(good))
    assert last.number == len(good) + 1 and last.text is None
    assert last.error.startswith("the gzip data is truncated (")
    assert f"nothing after line {len(good)} could be read" in last.error


# mtime=0: the bytes are the test's id, which must be the same in every xdist worker.
@pytest.mark.parametrize("data", [b"\x1f\x8b", b"\x1f\x8bnot gzip", gzip.compress(b"[1]\n", mtime=0) + b"junk",
                                  gzip.compress(b"[1]\n", mtime=0)[:-8] + b"\0" * 8])
def test_corrupt_gzip_is_a_line_error_never_an_exception(data):
    *good, last = lines(io.BytesIO(data))
    assert all(line.text == "[1]" for line in good) and last.text is None
    assert last.error.startswith(("the gzip data is truncated", "the gzip data is corrupt"))


def test_a_binary_handle_is_read_as_bytes(tmp_path):
    # The old reader called bytes.rstrip("\r\n") on a binary handle's lines.
    data = b'{"a": 1}\r\n{"b": 2}\n'
    expected = [(1, '{"a": 1}'), (2, '{"b": 2}')]
    path = tmp_path / "cases.jsonl"
    path.write_bytes(data)
    with open(path, "rb") as buffered, open(path, "rb", buffering=0) as raw:
        assert texts(buffered) == texts(raw) == expected
    assert texts(io.BytesIO(data)) == texts(Trickle(data, 2)) == expected


def test_a_handle_is_read_from_where_it_stands_and_left_open():
    handle = io.BytesIO(b"[0]\n[1]\n[2]\n")
    handle.readline()
    assert texts(handle) == [(1, "[1]"), (2, "[2]")]
    assert not handle.closed


def test_a_utf8_bom_is_skipped(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(codecs.BOM_UTF8 + b'{"a": 1}\n{"b": 2}\n')
    assert texts(path) == [(1, '{"a": 1}'), (2, '{"b": 2}')]
    assert parse_json_line(next(lines(path)).text) == {"a": 1}
    with open(path, encoding="utf-8") as handle:  # not utf-8-sig: the BOM is in the text
        assert texts(handle) == [(1, '{"a": 1}'), (2, '{"b": 2}')]
    assert texts(io.BytesIO(codecs.BOM_UTF8)) == []
    assert texts(io.BytesIO(codecs.BOM_UTF8 + b"\n")) == [(1, "")]


def test_only_a_leading_bom_is_skipped():
    assert texts(io.BytesIO(b"[1]\n" + codecs.BOM_UTF8 + b"[2]")) == [(1, "[1]"), (2, "\ufeff[2]")]


def test_a_5000_digit_integer_is_a_line_error():
    with pytest.raises(LineError, match="an integer of more than 4300 digits") as caught:
        parse_json_line('{"n": ' + "7" * 5000 + "}")
    assert caught.value.column == 7
    with pytest.raises(LineError) as caught:
        parse_json_line('[0.5, "' + "1" * 5000 + '", 1e5, -' + "2" * 5000 + "]")
    assert caught.value.column == 5016  # the minus sign
    assert isinstance(parse_json_line("[0." + "1" * 5000 + "]")[0], float)  # no digit limit
    assert parse_json_line('"' + "1" * 5000 + '"') == "1" * 5000


def test_10000_nesting_levels_is_a_line_error():
    for text in ["[" * 10_000, "[" * 10_000 + "]" * 10_000, '{"a": ' * 10_000 + "1" + "}" * 10_000]:
        with pytest.raises(LineError, match="nested too deeply"):
            parse_json_line(text)
    assert parse_json_line("[" * 100 + "]" * 100) == eval("[" * 100 + "]" * 100)


def test_a_closed_stdin_is_a_source_error():
    handle = io.TextIOWrapper(io.BytesIO(b"[1]\n"))
    handle.close()
    with pytest.raises(SourceError, match="the input is closed"):
        list(lines(handle))
    with pytest.raises(SourceError, match="the input is closed"):  # sys.stdin with no fd 0
        list(lines(None))


# ---- standard input, in a real process ---------------------------------------------------

def run(code: str, data: bytes | None, *, shell_suffix: str = "", env: dict[str, str] | None = None):
    script = textwrap.dedent(code)
    command = [sys.executable, "-c", script]
    if shell_suffix:
        command = ["sh", "-c", f'"$0" -c "$1" {shell_suffix}', sys.executable, script]
    result = subprocess.run(command, input=data, capture_output=True, env=env, check=False,
                            stdin=subprocess.DEVNULL if data is None and not shell_suffix else None)
    return result.stdout.decode(), result.stderr.decode()


SHOW = """
import sys
from agentmetrics._base._lines import lines, SourceError
try:
    for line in lines({source}):
        print(line.number, ascii(line.text), line.error)
except SourceError as error:
    print("SourceError:", error)
"""


def test_stdin_buffer_reads_utf16_latin1_and_gzip():
    show = SHOW.format(source="sys.stdin.buffer")
    out, err = run(show, b"\xff\xfe" + "[1]\r\n".encode("utf-16-le"))
    assert (out, err) == ("1 '[1]' None\n", "")
    out, err = run(show, b'[1]\n["\xe9"]\n[3]\n')
    assert out == f"1 '[1]' None\n2 None {latin1(3)}\n3 '[3]' None\n"
    out, err = run(show, gzip.compress(b"[1]\n"))
    assert out == "1 '[1]' None\n"


def test_text_stdin_with_surrogateescape_names_the_byte():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:surrogateescape"}
    out, _ = run(SHOW.format(source="sys.stdin"), b'[1]\n["\xe9"]\n[3]\n', env=env)
    assert out == f"1 '[1]' None\n2 None {latin1(3)}\n3 '[3]' None\n"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX shell to close fd 0")
def test_stdin_closed_by_the_shell_is_a_source_error():
    out, err = run(SHOW.format(source="sys.stdin"), None, shell_suffix="<&-")
    assert out == "SourceError: the input is closed (there is no standard input).\n", err


# ---- text handles ------------------------------------------------------------------------

def test_a_text_handle_is_read_with_its_own_encoding(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_bytes('{"a": "é"}\r\n\n[2]'.encode("cp1252"))
    with open(path, encoding="cp1252", newline="") as handle:
        assert texts(handle) == [(1, '{"a": "é"}'), (2, ""), (3, "[2]")]
    assert texts(io.StringIO("[1]\r\n[2]")) == [(1, "[1]"), (2, "[2]")]


def test_a_strict_text_handle_that_cannot_decode_stops_with_one_error(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"[1]\n" * 5000 + b'["\xe9"]\n[3]\n')
    with open(path, encoding="utf-8") as handle:
        *good, last = lines(handle)
    assert all(line.text == "[1]" for line in good) and last.number == len(good) + 1
    assert last.error.startswith(f"cannot decode the input as utf-8 after line {len(good)} "
                                 f"(byte 0xe9); the rest is not read.")


def test_a_text_line_with_a_lone_surrogate_is_an_error():
    assert read(io.StringIO("[1]\n[\ud800]\n")) == [
        (1, "[1]", None),
        (2, None, "unpaired surrogate U+D800 at column 2. Fix: save the file as UTF-8.")]


def test_an_object_typed_as_text_that_reads_bytes_is_read_as_bytes():
    class Upload:  # e.g. a web framework's file object
        def read(self, size: int = -1) -> bytes:
            data, self.data = self.data[:size], self.data[size:]
            return data

    upload = Upload()
    upload.data = b"\xff\xfe" + "[1]\n".encode("utf-16-le")
    assert texts(upload) == [(1, "[1]")]


# ---- line ends and numbering -------------------------------------------------------------

@pytest.mark.parametrize(("data", "expected"), [
    (b"", []),
    (b"\n", [(1, "")]),
    (b"[1]", [(1, "[1]")]),
    (b"[1]\n", [(1, "[1]")]),
    (b"[1]\r\n[2]\r\n", [(1, "[1]"), (2, "[2]")]),
    (b"[1]\r\n[2]", [(1, "[1]"), (2, "[2]")]),
    (b"\n\n[3]\n  \n[5]\n\n", [(1, ""), (2, ""), (3, "[3]"), (4, "  "), (5, "[5]"), (6, "")]),
    (b"[1]\r[2]\n", [(1, "[1]\r[2]")]),  # a lone CR ends no line
    (b"[1]\r\r\n", [(1, "[1]\r")]),
    (b'["\xe2\x80\xa8", "\x0c"]\n', [(1, '["\u2028", "\x0c"]')]),  # no other line breaks
])
def test_line_ends_and_physical_numbers(data, expected):
    assert texts(io.BytesIO(data)) == expected
    assert texts(Trickle(data, 1)) == expected


def test_a_line_has_exactly_one_of_text_and_error():
    with pytest.raises(ValueError, match="exactly one"):
        Line(1)
    with pytest.raises(ValueError, match="exactly one"):
        Line(1, "text", "error")
    assert Line(1, "") == Line(1, text="")


# ---- sources that cannot be read ---------------------------------------------------------

def test_a_missing_file_and_a_directory_are_source_errors(tmp_path):
    with pytest.raises(SourceError, match=r"cannot read '.*missing\.jsonl': No such file") as caught:
        list(lines(tmp_path / "missing.jsonl"))
    assert isinstance(caught.value, OSError) and isinstance(caught.value, ValueError)
    assert isinstance(caught.value.__cause__, FileNotFoundError)
    with pytest.raises(SourceError, match="cannot read .*: Is a directory"):
        list(lines(str(tmp_path)))


def test_a_handle_that_cannot_be_read_is_a_source_error(tmp_path):
    with open(tmp_path / "out.jsonl", "wb") as handle, \
            pytest.raises(SourceError, match="cannot read the input: it is not open for reading"):
        list(lines(handle))
    with pytest.raises(SourceError, match="expected a path or an open file, got list"):
        list(lines(["[1]"]))  # type: ignore[arg-type]


def test_a_handle_closed_while_reading_is_a_source_error():
    handle = io.BytesIO(b"[1]\n" * 100_000)
    iterator = lines(handle)
    next(iterator)
    handle.close()
    with pytest.raises(SourceError, match="cannot read the input"):
        list(iterator)


# ---- streaming ---------------------------------------------------------------------------

class Endless:
    """JSONL without end, plain or gzip; refuses to give more than ``limit`` bytes."""

    def __init__(self, packed: bool, limit: int = 20 << 20) -> None:
        self.lines = (b'{"id": %d, "input": "%s"}\n' % (i, b"x" * 80) for i in itertools.count())
        self.packer = zlib.compressobj(wbits=31) if packed else None
        self.given, self.limit, self.pending = 0, limit, b""

    def read(self, size: int = -1) -> bytes:
        while len(self.pending) < size:
            more = b"".join(itertools.islice(self.lines, 100))
            self.pending += self.packer.compress(more) if self.packer else more
        data, self.pending = self.pending[:size], self.pending[size:]
        self.given += len(data)
        assert self.given <= self.limit, "lines() read far ahead: it must stream"
        return data


@pytest.mark.parametrize("packed", [False, True])
def test_lines_stream_with_flat_memory(packed):
    source = Endless(packed)
    first = list(itertools.islice(lines(source), 3))
    assert [line.text[:9] for line in first] == ['{"id": 0,', '{"id": 1,', '{"id": 2,']
    assert source.given <= 1 << 20
    iterator = lines(Endless(packed))
    tracemalloc.start()
    try:
        for line in itertools.islice(iterator, 60_000):  # about 6 MB of lines
            assert line.text is not None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20


# ---- parse_json_line ---------------------------------------------------------------------

def test_parse_returns_the_value():
    assert parse_json_line('{"a": [1, 2.5, "NaN", null, true]}') == {"a": [1, 2.5, "NaN", None, True]}
    assert parse_json_line(" 7 ") == 7


@pytest.mark.parametrize(("text", "message", "column"), [
    ('{"tool_calls": }', "not valid JSON (Expecting value at column 16). Fix: each line must be "
                         "one complete JSON object.", 16),
    ('{"a": 1} {"b": 2}', "not valid JSON (Extra data at column 10).", 10),
    ("", "not valid JSON (Expecting value at column 1).", 1),
    ('{"x": "NaN", "y": NaN}', 'NaN is not JSON (at column 19). Fix: write null, or the value '
                               'as a string ("NaN").', 19),
    ("[1, Infinity]", "Infinity is not JSON (at column 5).", 5),
    ('{"Infinity": -Infinity}', "-Infinity is not JSON (at column 14).", 14),
    ('{\x00"\x00a\x00"\x00', "the file looks like UTF-16 without a BOM.", 2),
])
def test_parse_errors_say_what_and_where(text, message, column):
    with pytest.raises(LineError) as caught:
        parse_json_line(text)
    assert message in str(caught.value) and caught.value.column == column
    assert isinstance(caught.value, ValueError)


def test_a_line_error_pickles_with_its_column():
    error = pickle.loads(pickle.dumps(LineError("bad", 3)))
    assert (str(error), error.column) == ("bad", 3)


# ---- properties --------------------------------------------------------------------------

line_texts = st.lists(
    st.text(st.characters(exclude_characters="\n", exclude_categories=["Cs"]), max_size=20)
    .filter(lambda text: not text.endswith("\r")),
    max_size=12,
)


def container(content: str, how: str) -> bytes:
    if how == "gzip":
        return gzip.compress(content.encode())
    if how == "utf-16-be":
        return codecs.BOM_UTF16_BE + content.encode("utf-16-be")
    return content.encode(how)  # utf-8, utf-8-sig, utf-16 and utf-32 (with their BOM)


@given(line_texts, st.data())
def test_any_unicode_lines_come_back_exactly(texts_in, data):
    if texts_in and texts_in[0][:1] in ("\ufeff", "\x00"):
        # A leading U+FEFF is a BOM, skipped; a leading NUL after the UTF-16 LE BOM makes
        # FF FE 00 00, the UTF-32 LE BOM (JSON never starts with NUL).
        texts_in[0] = "x" + texts_in[0]
    ends = data.draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(texts_in),
                              max_size=len(texts_in)))
    terminated = data.draw(st.booleans())
    content = "".join(text + end for text, end in zip(texts_in, ends))
    if not terminated and texts_in:
        content = content[: -len(ends[-1])]
    expected = list(enumerate(texts_in, start=1))
    if not terminated and texts_in and texts_in[-1] == "":
        expected.pop()  # "a\n" and "a\n\n"-without-its-last-newline are the same file
    how = data.draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32", "gzip"]))
    encoded = container(content, how)
    assert texts(io.BytesIO(encoded)) == expected
    assert texts(Trickle(encoded, data.draw(st.integers(1, 7)))) == expected
    assert texts(io.StringIO(content)) == expected


prefixes = st.sampled_from([b"", b"\x1f\x8b", b"\x1f\x8b\x08\x00", codecs.BOM_UTF8, codecs.BOM_UTF16_LE,
                            codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE])
damaged_gzip = st.builds(lambda body, cut, tail: gzip.compress(body)[:cut] + tail,
                         st.binary(max_size=200), st.integers(0, 250), st.binary(max_size=20))


@given(st.one_of(st.builds(bytes.__add__, prefixes, st.binary(max_size=300)), damaged_gzip),
       st.integers(1, 9))
def test_any_bytes_give_lines_or_line_errors_never_an_exception(data, size):
    got = list(lines(Trickle(data, size)))
    if not data.startswith(b"\x1f\x8b"):  # zlib may get further on corrupt data fed slowly
        assert got == list(lines(io.BytesIO(data)))
    assert [line.number for line in got] == list(range(1, len(got) + 1))
    for line in got:
        assert (line.text is None) != (line.error is None)
        assert line.text is None or ("\n" not in line.text and not line.text.endswith("\r"))
        if line.text is not None:
            try:
                parse_json_line(line.text)
            except LineError:
                pass


json_pieces = st.sampled_from(['[', ']', '{', '}', '"', ':', ',', ' ', '\\', '"a"', 'NaN', 'Infinity',
                               '-', '1', '.5', 'e9', 'null', "7" * 4400, "[" * 3000, "\x00", "\ud800"])


@given(st.one_of(st.text(max_size=200), st.lists(json_pieces, max_size=30).map("".join)))
def test_parse_json_line_raises_only_line_errors(text):
    try:
        parse_json_line(text)
    except LineError as error:
        assert error.column is None or 1 <= error.column <= len(text) + 1
