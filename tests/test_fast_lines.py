"""The fast decoder of JSONL (msgspec, the ``fast`` extra) gives exactly what
the line reader gives.

Differential: every generated file (call objects with arguments, name lists,
and bad lines of every kind among them) is run through ``agentmetrics
evaluate`` with ``--reader fast`` and ``--reader lines`` (the reference), and
the outputs, errors and exit codes must be identical, for a metric that scores
from names (tool_selection_accuracy) and one that reads arguments
(argument_accuracy, whose cases the fast reader builds from its kept lines).
The decoder is made to try groups of any size, and a counter proves it took
lines itself, so the comparison is not between two runs of the line reader.
The cases it builds are also compared with the line reader's, field by field.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmetrics._columnar import can_decode_fast
from agentmetrics.cli import main
from agentmetrics.io import _fast_lines
from agentmetrics.io._dataset import numbered_cases
from agentmetrics.model._model import UnreadableCase

EXAMPLES = int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "400")) // 2

needs_msgspec = pytest.mark.skipif(not can_decode_fast(), reason="needs msgspec (the fast extra)")


@pytest.fixture
def decoder_everywhere(monkeypatch):
    """Decode groups of any size, never give up on the decoder, and count the
    lines it took."""
    from agentmetrics._columnar import _decode

    monkeypatch.setattr(_fast_lines, "SMALL_GROUP", 1)
    monkeypatch.setattr(_fast_lines, "GROUP", 8)
    monkeypatch.setattr(_fast_lines, "SWITCH_AFTER", 10**9)
    monkeypatch.setattr(_fast_lines, "TABLE_ITEMS", 3)  # a fresh table of call items often
    # With names alone, switch between call texts and typed items often.
    monkeypatch.setattr(_decode, "TYPED_AFTER", 1)
    monkeypatch.setattr(_decode, "TYPED_GROUPS", 1)
    taken = {"lines": 0}
    original = _decode.LineDecoder.add

    def counting(self, reader, decoded, lines):
        taken["lines"] += len(decoded.structs)
        return original(self, reader, decoded, lines)

    monkeypatch.setattr(_decode.LineDecoder, "add", counting)
    return taken


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def both_readers(capsys, path, *options):
    fast = run(capsys, "evaluate", str(path), "--reader", "fast", *options)
    lines = run(capsys, "evaluate", str(path), "--reader", "lines", *options)
    return fast, lines


GOOD_NAMES = ['"A"', '"B"', '"GetOrder"', '"检索"', '"a\\u0000"', '"\\ud83d\\ude00"', '"A\\"q"']
#: Mostly names the decoder takes: a line with a bad one goes to the line reader.
NAMES = st.sampled_from(GOOD_NAMES * 6 + ['""', '"\\ud800"', "null", "3"])
#: Argument and output values, tricky numbers and strings among them.
GOOD_VALUES = ["1", "1.0", "-0", "-0.0", "2.5", "1e5", "1E+2", "0.1", "1.7976931348623157e308",
               "4.9e-324", "1e-400", "123456789012345678901234567890", '"x"', '"é"', "true",
               "null", "[1, 2]", '{"u": 1, "u": 2}', '{"y": {"u": [1, {"v": 2}]}}', "[]", "{}",
               '"\\ud83d\\ude00"', "-12.5e-3", "3.141592653589793238462643383279"]
VALUES = st.sampled_from(GOOD_VALUES * 4 + [
    "1", "1.0", "-0", "-0.0", "2.5", "1e5", "1E+2", "1e400", "-1e400", "1.7976931348623157e308",
    "1.7976931348623159e308", "4.9e-324", "1e-400", "123456789012345678901234567890",
    "9" * 4300, "9" * 4301, "NaN", "Infinity", '"x"', '"\\ud800"', '"\\ud83d\\ude00"', '"é"',
    "true", "null", "[1, 2]", '{"u": 1, "u": 2}', '{"y": {"u": [1, {"v": 2}]}}', "[]", "{}",
    "[" * 600 + "]" * 600,
])


@st.composite
def call(draw):
    """A call as people write them: a name, or an object with some of its keys."""
    if draw(st.integers(0, 4)) == 0:
        return draw(NAMES)
    parts = [f'"name": {draw(NAMES)}']
    arguments = draw(st.sampled_from(["absent", "object", "object", "null", "value"]))
    if arguments == "object":
        keys = draw(st.lists(st.sampled_from(["q", "n", "q", "é"]), max_size=3))
        parts.append('"arguments": {' + ", ".join(f'"{key}": {draw(VALUES)}' for key in keys)
                     + "}")
    elif arguments == "null":
        parts.append('"arguments": null')
    elif arguments == "value":
        parts.append(f'"arguments": {draw(VALUES)}')
    for key, values in (("id", ['"call_1"', "null", "5"]), ("output", None), ("output", None),
                        ("raw_arguments", ['"{bad"', "null", "1"]), ("args", ['{"x": 1}'])):
        if draw(st.integers(0, 5 if key in ("id", "output") else 15)) == 0:
            parts.append(f'"{key}": ' + (draw(VALUES) if values is None
                                         else draw(st.sampled_from(values))))
    return "{" + ", ".join(draw(st.permutations(parts))) + "}"


@st.composite
def good_line(draw):
    """A line of a case: calls on each side (or null, or left out), an id or
    not, other fields sometimes, keys in any order."""
    parts = []
    for side in ("tool_calls", "expected_tool_calls"):
        kind = draw(st.sampled_from(["list", "list", "list", "null", "absent"]))
        if kind == "list":
            parts.append(f'"{side}": [' + ", ".join(draw(st.lists(call(), max_size=4))) + "]")
        elif kind == "null":
            parts.append(f'"{side}": null')
    identifier = draw(st.sampled_from([None, None, None, '"case-1"', '"x"', "null", "7", "1.5",
                                       '""', "99999999999999999999999", '{"a": 1}', "[1]",
                                       "1e400", '"\\ud800"']))
    if identifier is not None:
        parts.append(f'"id": {identifier}')
    for key, values in (("input", ['"hi"', "null", '{"q": 1}', "1e400"]),
                        ("actual_output", ['"done"', "null", "3"]),
                        ("metadata", ['{"k": 1}', '{"id": "m"}', '{"id": "m"}', "null", "false",
                                      "0", "[]", "{}", '{"id": 1e400}', '{"id": 1, "id": 2}']),
                        ("expected_output", ['"x"']), ("latency", ["1.5", "-1"]),
                        ("response", ['{"choices": []}']), ("colour", ['"red"'])):
        if draw(st.integers(0, 3 if key == "metadata" else 12)) == 0:
            parts.append(f'"{key}": {draw(st.sampled_from(values))}')
    if parts and draw(st.integers(0, 10)) == 0:  # a key twice: the last one holds
        parts.append(draw(st.sampled_from(parts)))
    space = draw(st.sampled_from(["", " ", "\t"]))
    return ("{" + space + ("," + space).join(draw(st.permutations(parts))) + space
            + "}").encode()


OTHER_LINES = [
    b"", b"   ", b"\t", b"\r", b"not json", b"{}", b"[]", b"null", b'"text"', b"{",
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]}{"tool_calls": [], '
    b'"expected_tool_calls": []}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\r',
    b'  {"tool_calls": ["A"], "expected_tool_calls": ["A"]}  ',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]} x',
    b'{"tool_calls": ["\xff"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["\xed\xa0\x80"], "expected_tool_calls": ["A"]}',  # a surrogate in UTF-8
    b'{"tool_calls": ["A\x01"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A",], "expected_tool_calls": ["A"]}',
    b'\xef\xbb\xbf{"tool_calls": ["A"], "expected_tool_calls": ["A"]}',
    # A value that runs over a newline, beside a line holding two values.
    b'{"tool_calls": [{"name": "A",', b'"arguments": {}}], "expected_tool_calls": []}{}',
    b'{"tool_calls": [{"name": "A", "arguments": {"x": ' + b"[" * 995 + b"]" * 995
    + b'}}], "expected_tool_calls": []}',
    b'{"tool_calls": [{"name": "A", "arguments": {"x": ' + b"[" * 499 + b"]" * 499
    + b'}}], "expected_tool_calls": []}',
]

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)
KEYS = st.sampled_from(["tool_calls", "expected_tool_calls", "id", "input", "metadata", "x"])
ANY_OBJECT = st.dictionaries(KEYS, JSON, max_size=4).map(
    lambda record: json.dumps(record, ensure_ascii=False).encode())
BRACED = st.binary(max_size=40).map(lambda raw: b"{" + raw.replace(b"\n", b"") + b"}")

LINE = st.one_of(good_line(), good_line(), good_line(), good_line(), st.sampled_from(OTHER_LINES),
                 ANY_OBJECT, BRACED)


def _file(tmp_path, lines, newline, last):
    data = newline.join(lines) + (newline if last else b"")
    if data.startswith((b"\x1f\x8b", b"\xef\xbb\xbf")):
        data = b"\n" + data  # a gzip or BOM start goes to the line reader: tested below
    path = tmp_path / "cases.jsonl"
    path.write_bytes(data)
    return path


@needs_msgspec
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=30), newline=st.sampled_from([b"\n", b"\r\n"]),
       last=st.booleans(), chunk=st.sampled_from(["1", "3", "7", "50000"]),
       form=st.sampled_from(["jsonl", "table", "csv", "summary"]),
       errors=st.sampled_from(["record", "record", "raise"]),
       metric=st.sampled_from(["tool_selection_accuracy", "argument_accuracy",
                               "tool_selection_accuracy:order_matters=true"]))
def test_fast_and_line_readers_agree_on_any_file(capsys, tmp_path, decoder_everywhere, lines,
                                                 newline, last, chunk, form, errors, metric):
    path = _file(tmp_path, lines, newline, last)
    options = ("--format", form, "--chunk-size", chunk, "--errors", errors, "--metric", metric,
               "--counts")
    fast, reference = both_readers(capsys, path, *options)
    assert fast == reference


@needs_msgspec
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=30), newline=st.sampled_from([b"\n", b"\r\n"]),
       chunk=st.sampled_from([1, 4, 1000]))
def test_the_cases_are_the_line_readers(tmp_path, decoder_everywhere, lines, newline, chunk):
    # What a metric that reads arguments sees: the line reader's cases, equal
    # field by field (arguments, ids, metadata), and its errors on the same rows.
    path = _file(tmp_path, lines, newline, True)
    expected = list(numbered_cases(str(path), errors="record"))
    got_numbers, got_cases, got_errors = [], [], {}
    for piece in _fast_lines.fast_chunks(str(path), chunk, errors="record", keep_cases=True):
        batch = piece.batch
        for row, message in batch.invalid.items():
            got_errors[len(got_cases) + row] = message
        got_cases.extend(batch.cases)
        got_numbers.extend(piece.numbers)
    assert got_numbers == [number for number, _ in expected]
    assert len(got_cases) == len(expected)
    for row, (_, case) in enumerate(expected):
        if isinstance(case, UnreadableCase):
            assert got_errors.get(row) == case.message
        else:
            assert row not in got_errors
            assert got_cases[row] == case
            assert [call.arguments_given for call in got_cases[row].tool_calls or ()] == [
                call.arguments_given for call in case.tool_calls or ()]


@needs_msgspec
def test_the_fuzz_can_tell_the_readers_apart(capsys, tmp_path, decoder_everywhere):
    # The comparisons above are meaningful only if the decoder really takes lines.
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({
        "id": f"c{i}", "tool_calls": [{"name": "A", "arguments": {"q": i}}, "B"][: i % 3],
        "expected_tool_calls": [{"name": "B", "arguments": {"q": 1.5}, "output": [1]}]}) + "\n"
        for i in range(40)))
    for metric in ("tool_selection_accuracy", "argument_accuracy"):
        fast, reference = both_readers(capsys, path, "--format", "jsonl", "--metric", metric)
        assert fast == reference and fast[0] == 0
    assert decoder_everywhere["lines"] == 80


@needs_msgspec
def test_bad_lines_cost_only_their_neighbourhood(capsys, tmp_path, monkeypatch):
    # Default group sizes: a file of 10,000 good lines with a few bad ones is
    # decoded almost entirely, and its rows are the line reader's.
    from agentmetrics._columnar import _decode

    taken = {"lines": 0}
    original = _decode.LineDecoder.add

    def counting(self, reader, decoded, lines):
        taken["lines"] += len(decoded.structs)
        return original(self, reader, decoded, lines)

    monkeypatch.setattr(_decode.LineDecoder, "add", counting)
    lines = [json.dumps({"id": f"c{i}", "tool_calls": [{"name": f"t{i % 7}", "arguments": {}}],
                         "expected_tool_calls": [f"t{i % 5}"]}) for i in range(10_000)]
    lines[17] = '{"tool_calls": [{"name": "t1", "arguments": {"x": 1e400}}], "expected_tool_calls": []}'
    lines[5000] = "broken"
    lines[7000] = '{"response": {"choices": []}, "expected_tool_calls": ["t1"]}'
    lines[9999] = '{"tool_calls": ["t1"], "expected_tool_calls": ["t1"], "id": "\\ud800"}'
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    fast, reference = both_readers(capsys, path, "--format", "jsonl", "--errors", "record")
    assert fast == reference
    rows = [json.loads(line) for line in fast[1].splitlines()]
    assert len(rows) == 10_000
    assert rows[17]["error"].startswith(f"{path}:18: the number 1e400 is too large for a float")
    assert rows[5000]["error"].startswith(f"{path}:5001: not valid JSON")
    assert rows[9999]["id"] == "\ud800" and rows[9999]["error"] is None
    assert taken["lines"] >= 10_000 - 4 * 2 * _fast_lines.SMALL_GROUP


@needs_msgspec
@pytest.mark.parametrize("texts", ["few", "distinct", "cycling"])
def test_names_are_read_from_call_texts_or_typed_items(capsys, tmp_path, monkeypatch, texts):
    # Names alone: calls of a few texts are read as the bytes of each (each
    # distinct text checked once a batch); calls that rarely repeat are decoded
    # into typed items instead. Texts that are all new in a batch's first group
    # only (cycling over 480) stay texts. Either way the rows are the line reader's.
    from agentmetrics._columnar import _decode

    kinds: list[str] = []
    original = _decode.LineDecoder.add

    def recording(self, reader, decoded, lines):
        kinds.append(decoded.called.kind)
        return original(self, reader, decoded, lines)

    monkeypatch.setattr(_decode.LineDecoder, "add", recording)
    argument = {"few": lambda i: i % 2, "distinct": lambda i: i, "cycling": lambda i: i % 480}
    lines = [json.dumps({"tool_calls": [{"name": f"t{i % 3}",
                                         "arguments": {"q": argument[texts](i)}}],
                         "expected_tool_calls": [{"name": "t1", "arguments": {}}, "t2"]})
             for i in range(5_000)]
    lines[4_000] = lines[4_000].replace('"q": ', '"q": 1e400, "r": ')
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    fast, reference = both_readers(capsys, path, "--format", "jsonl", "--errors", "record",
                                   "--chunk-size", "1000")
    assert fast == reference
    rows = [json.loads(line) for line in fast[1].splitlines()]
    assert "too large for a float" in rows[4_000]["error"]
    assert sum(row["error"] is None for row in rows) == 4_999
    typed = kinds.count("names") / len(kinds)
    assert kinds.count("tool ids") + kinds.count("names") == len(kinds)
    # (cycling: the groups split around the bad line, in its batch's first
    # group, may see mostly new texts.)
    assert {"few": typed == 0, "cycling": typed < 0.2, "distinct": typed > 0.8}[texts]


@needs_msgspec
def test_the_first_bad_line_stops_the_run_as_the_line_reader_does(capsys, tmp_path,
                                                                    decoder_everywhere):
    good = json.dumps({"tool_calls": [{"name": "A", "arguments": {}}], "expected_tool_calls": ["A"]})
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([good] * 5 + ["{oops"] + [good] * 3 + ["worse"]) + "\n")
    for chunk in ("2", "100"):
        fast, reference = both_readers(capsys, path, "--format", "jsonl", "--chunk-size", chunk)
        assert fast == reference and fast[0] == 2
        assert f"{path}:6: not valid JSON" in fast[2] and "Traceback" not in fast[2]


@needs_msgspec
def test_a_file_of_other_lines_switches_to_the_line_reader(capsys, tmp_path, monkeypatch):
    # Provider payloads on every line: after SWITCH_AFTER lines the decoder stops
    # trying; the rows are the line reader's.
    monkeypatch.setattr(_fast_lines, "SWITCH_AFTER", 4)
    lines = ['{"response": {"choices": []}, "expected_tool_calls": ["A"], "id": %d}' % i
             for i in range(50)] + ['{"tool_calls": ["A"], "expected_tool_calls": ["A"]}', "{bad"]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for metric in ("tool_selection_accuracy", "argument_accuracy"):
        fast, reference = both_readers(capsys, path, "--format", "jsonl", "--errors", "record",
                                       "--metric", metric, "--chunk-size", "7")
        assert fast == reference


@pytest.mark.parametrize("start", [b"\xef\xbb\xbf", b"\xff\xfe", b"\x1f\x8b"])
def test_files_with_a_byte_order_mark_or_gzip_go_to_the_line_reader(tmp_path, start):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(start + b'{"tool_calls": [], "expected_tool_calls": []}\n')
    assert not _fast_lines.readable_fast(str(path))


def test_without_msgspec_the_readers_are_todays(capsys, tmp_path, monkeypatch):
    # The fast extra missing: auto reads as before (Arrow for name lists, else
    # lines), and --reader fast says what to install.
    path = tmp_path / "cases.jsonl"
    path.write_text('{"tool_calls": [{"name": "A", "arguments": {}}], "expected_tool_calls": '
                    '["A", "B"]}\n')
    expected = run(capsys, "evaluate", str(path), "--format", "jsonl", "--reader", "lines")
    monkeypatch.setitem(__import__("sys").modules, "msgspec", None)
    assert not _fast_lines.readable_fast(str(path))
    assert run(capsys, "evaluate", str(path), "--format", "jsonl") == expected
    status, out, err = run(capsys, "evaluate", str(path), "--reader", "fast")
    assert status != 0 and "agent-tool-metrics[fast]" in err


#: Lines where a decoder could go wrong, each read among good lines.
RISKY = [
    # the id under metadata when the line has none; the line's id when it has one (even null)
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "metadata": {"id": "m", "k": 1}}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "metadata": {"id": "m"}, "id": null}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "metadata": {"k": 1}}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "metadata": false}',
    # a key twice: the last one holds, whatever the first was
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "tool_calls": null}',
    b'{"tool_calls": 5, "expected_tool_calls": ["A"], "tool_calls": ["B"]}',
    b'{"tool_calls": [{"name": "", "name": "A"}], "expected_tool_calls": ["A"]}',
    # a value over two lines beside a line of two values: as many values as lines
    b'{"tool_calls": [{"name": "A",',
    b'"arguments": {}}], "expected_tool_calls": []}{}',
    # two values on a line that starts with { and ends with }
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]} {"tool_calls": ["B"], '
    b'"expected_tool_calls": []}',
    # numbers JSON holds and a float cannot, in arguments and outputs
    b'{"tool_calls": [{"name": "A", "arguments": {"x": 1e400}}], "expected_tool_calls": []}',
    b'{"tool_calls": [{"name": "A", "output": -1E+999}], "expected_tool_calls": []}',
    # ... and in metadata beside its id (every value of it is checked, not only the id)
    b'{"tool_calls": [], "expected_tool_calls": [], "metadata": {"n": ' + b"9" * 5000 + b'}}',
    b'{"tool_calls": ["A"], "expected_tool_calls": [], "metadata": {"id": "m", "x": 1e400}}',
    b'{"tool_calls": [{"name": "A", "arguments": {"x": ' + b"9" * 4301 + b'}}], '
    b'"expected_tool_calls": []}',
    b'{"tool_calls": [{"name": "A", "arguments": {"x": "\\ud800"}}], "expected_tool_calls": []}',
    b'{"tool_calls": [{"name": "A", "arguments": 5}], "expected_tool_calls": []}',
    b'{"tool_calls": [{"name": "A", "id": 5}], "expected_tool_calls": []}',
    b'{"tool_calls": [{"name": "A", "arguments": null}], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "input": {"x": 1e400}}',
]


@needs_msgspec
@pytest.mark.parametrize("risky", range(len(RISKY)))
@pytest.mark.parametrize("metric", ["tool_selection_accuracy", "argument_accuracy"])
def test_risky_lines_read_as_the_line_reader_reads_them(capsys, tmp_path, decoder_everywhere,
                                                         risky, metric):
    good = [b'{"id": "g%d", "tool_calls": [{"name": "A", "arguments": {"q": %d}}], '
            b'"expected_tool_calls": [{"name": "A", "arguments": {"q": 1}}]}' % (i, i)
            for i in range(6)]
    lines = good[:3] + RISKY[risky:risky + 2] + good[3:]
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    for chunk in ("1", "4", "100"):
        fast, reference = both_readers(capsys, path, "--format", "jsonl", "--errors", "record",
                                       "--metric", metric, "--chunk-size", chunk)
        assert fast == reference
    assert decoder_everywhere["lines"] >= 3 * 6


#: Argument texts that differ as text and may or may not be equal as values.
TRICKY_ARGUMENTS = [
    None, "null", "{}", "{ }", '{"x": 1}', '{"x":1}', '{ "x" : 1 }', '{"x": 1.0}', '{"x": 1e0}',
    '{"x": true}', '{"x": 2}', '{"x": 1, "x": 2}', '{"x": 2, "x": 1}', '{"y": 2, "x": 1}',
    '{"x": 1, "y": 2}', '{"\\u0078": 1}', '{"x": "\\u0041"}', '{"x": "A"}', '{"x": "a"}',
    '{"x": 1e400}', '{"x": 123456789012345678901234567890}', '{"x": 1.2345678901234568e29}',
    '{"x": ' + "9" * 4301 + "}", '{"x": -0.0}', '{"x": 0}', '{"x": 1e2}', '{"x": 100}',
    '{"x": NaN}', '{"x": [1, {"a": null}]}', '{"x": [1, {"a": null}] }', '{"x": [1.0, {"a": null}]}',
    '{"x": {"b": 1, "a": 2}}', '{"x": {"a": 2, "b": 1}}', '{"x": "\\ud800"}', "[1]", '"s"',
]


@st.composite
def tricky_call(draw):
    name = draw(st.sampled_from(['"A"', '"B"', '"\\u0041"']))
    if draw(st.integers(0, 6)) == 0:
        return name
    parts = [f'"name": {name}']
    arguments = draw(st.sampled_from(TRICKY_ARGUMENTS))
    if arguments is not None:
        parts.append(f'"arguments": {arguments}')
    if draw(st.integers(0, 8)) == 0:
        parts.append(f'"raw_arguments": {draw(st.sampled_from(["null", chr(34) + "{bad" + chr(34)]))}')
    if draw(st.integers(0, 4)) == 0:
        parts.append('"output": {"r": [1, 2]}')
    return "{" + ", ".join(draw(st.permutations(parts))) + "}"


@st.composite
def tricky_line(draw):
    sides = [f'"{side}": [' + ", ".join(draw(st.lists(tricky_call(), max_size=4))) + "]"
             for side in ("tool_calls", "expected_tool_calls")]
    return ("{" + ", ".join(sides) + "}").encode()


KEY_LINES = st.one_of(tricky_line(), tricky_line(), tricky_line(), LINE)


def _same_partition(left, right):
    """Whether two id lists put the same positions together."""
    pairs = set(zip(left, right))
    return len(pairs) == len(set(left)) == len(set(right))


@needs_msgspec
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(KEY_LINES, min_size=1, max_size=30), chunk=st.sampled_from([1, 5, 1000]))
def test_the_decoders_call_keys_are_the_cases(tmp_path, decoder_everywhere, lines, chunk):
    # The call keys the decoder gives from argument texts (no case built) put
    # together exactly the calls that the keys of the line reader's cases put
    # together; a row they leave out is one the cases' keys leave out, or one
    # the line reader read (scored case by case either way).
    import numpy as np

    from agentmetrics.cases._tool_call_batch import ToolCallBatch

    path = _file(tmp_path, lines, b"\n", True)
    for piece in _fast_lines.fast_chunks(str(path), chunk, errors="record", keep_cases=True):
        batch = piece.batch
        assert batch.argument_ids is not None
        fast = batch.call_keys()
        built = dict(batch.cases._built)
        reference = ToolCallBatch.from_cases(list(batch.cases), errors="record").call_keys()
        assert fast is not None and reference is not None
        for row in np.flatnonzero(fast.unkeyed).tolist():
            assert reference.unkeyed[row] or row in built
        for row in np.flatnonzero(reference.unkeyed).tolist():
            assert fast.unkeyed[row]
        for row in range(len(batch)):  # a call given no arguments ("arguments": null)
            assert fast.not_given[row] == reference.not_given[row] or row in built
        keyed = ~fast.unkeyed
        for mine, theirs, offsets in ((fast.called_ids, reference.called_ids, batch.called_offsets),
                                      (fast.expected_ids, reference.expected_ids,
                                       batch.expected_offsets)):
            rows = np.repeat(np.arange(len(batch)), np.diff(offsets))
            assert len(mine) == len(theirs) == len(rows)
        mine = np.concatenate([fast.called_ids[keyed[np.repeat(np.arange(len(batch)),
                                                                 np.diff(batch.called_offsets))]],
                               fast.expected_ids[keyed[np.repeat(np.arange(len(batch)),
                                                                   np.diff(batch.expected_offsets))]]])
        theirs = np.concatenate([
            reference.called_ids[keyed[np.repeat(np.arange(len(batch)), np.diff(batch.called_offsets))]],
            reference.expected_ids[keyed[np.repeat(np.arange(len(batch)),
                                                   np.diff(batch.expected_offsets))]]])
        assert _same_partition(mine.tolist(), theirs.tolist())


@needs_msgspec
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(KEY_LINES, min_size=1, max_size=30), chunk=st.sampled_from(["1", "7", "50000"]),
       match=st.sampled_from(["IN_ORDER", "EXACT", "ANY_ORDER"]),
       form=st.sampled_from(["jsonl", "summary", "table"]),
       errors=st.sampled_from(["record", "record", "raise"]))
def test_adk_on_the_decoders_keys_is_the_line_readers(capsys, tmp_path, decoder_everywhere, lines,
                                                       chunk, match, form, errors):
    path = _file(tmp_path, lines, b"\n", True)
    fast, reference = both_readers(capsys, path, "--format", form, "--chunk-size", chunk,
                                   "--errors", errors, "--metric",
                                   f"adk_tool_trajectory:match_type={match}")
    assert fast == reference


@needs_msgspec
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(KEY_LINES, min_size=1, max_size=30), chunk=st.sampled_from(["1", "7", "50000"]),
       metric=st.sampled_from(["agentevals_trajectory:trajectory_match_mode=unordered",
                               "agentevals_trajectory:trajectory_match_mode=subset",
                               "agentevals_trajectory:trajectory_match_mode=superset",
                               "ragas_tool_call_f1", "trajectory_match",
                               "trajectory_match:mode=unordered",
                               "trajectory_match:mode=in_order", "argument_accuracy",
                               "argument_accuracy:missing_calls=ignore",
                               "argument_accuracy:extra_arguments=penalize",
                               "tool_output_match", "tool_output_match:missing_calls=ignore",
                               "ragas_tool_call_accuracy",
                               "ragas_tool_call_accuracy:strict_order=false",
                               "deepeval_tool_correctness",
                               "deepeval_tool_correctness:evaluation_params=input_parameters",
                               "mlflow_tool_call_correctness",
                               "agentevals_trajectory:tool_args_match_mode=subset"]),
       form=st.sampled_from(["jsonl", "summary"]),
       errors=st.sampled_from(["record", "record", "raise"]))
def test_other_metrics_on_the_decoders_keys_are_the_line_readers(capsys, tmp_path,
                                                                 decoder_everywhere, lines, chunk,
                                                                 metric, form, errors):
    path = _file(tmp_path, lines, b"\n", True)
    fast, reference = both_readers(capsys, path, "--format", form, "--chunk-size", chunk,
                                   "--errors", errors, "--metric", metric)
    assert fast == reference


@needs_msgspec
def test_argument_accuracy_reads_the_decoders_items_without_building_cases(tmp_path):
    from agentmetrics import get_metric

    lines = [b'{"tool_calls": [{"name": "A", "arguments": {"x": 1, "y": true}}, "B"], '
             b'"expected_tool_calls": [{"name": "A", "arguments": {"y": 1, "x": 1.0}}, '
             b'{"name": "A", "arguments": {"x": 2}}]}'] * 40
    path = tmp_path / "calls.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    metric = get_metric("argument_accuracy")
    for piece in _fast_lines.fast_chunks(str(path), 1000, errors="raise", keep_cases=True):
        batch = piece.batch
        assert batch.argument_ids.called_items is not None
        values = metric.evaluate_batch(batch).values
        # No case built but the first and the last, whose reasons the result's
        # validator reads (checking their values against evaluate's).
        assert batch.cases._cases is None and set(batch.cases._alone) <= {0, len(batch) - 1}
        # y: true is not 1 under the exact rule; x: 1.0 is 1: half of A's arguments, then
        # the second A expected call finds no call left: (0.5 + 0) / 2.
        assert values.tolist() == [0.25] * 40
        assert metric.evaluate(batch.case(0)).value == 0.25


@needs_msgspec
def test_call_lists_share_one_call_per_decoder_item_without_building_cases(tmp_path):
    from agentmetrics import get_metric

    lines = [b'{"tool_calls": [{"name": "A", "arguments": {"x": 1}}, "B"], '
             b'"expected_tool_calls": [{"name": "A", "arguments": {"x": 1.0}}, '
             b'{"name": "B", "arguments": {"q": [1, {"r": null}]}}]}'] * 30
    path = tmp_path / "calls.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    metric = get_metric("deepeval_tool_correctness", evaluation_params="input_parameters")
    for piece in _fast_lines.fast_chunks(str(path), 1000, errors="raise", keep_cases=True):
        batch = piece.batch
        lists = batch.call_lists()
        assert lists is not None
        assert all(row[0] is lists.called[0][0] for row in lists.called)  # one object an item
        assert lists.expected[5] == batch.case(5).expected_tool_calls
        values = metric.evaluate_batch(batch).values
        assert batch.cases._cases is None and set(batch.cases._alone) <= {0, 5, len(batch) - 1}
        # A: {"x": 1} equals {"x": 1.0}; B: {} against {"q": ...} shares no key: (1 + 0) / 2.
        assert values.tolist() == [0.5] * 30
