"""The Arrow reader of JSONL name lists gives exactly what the line reader gives.

Differential: every file is run through ``agentmetrics evaluate`` twice, with
``--reader arrow`` (Arrow for the lines it can take) and ``--reader lines``
(the reference), and the outputs, errors and exit codes must be identical.
The Arrow reader is forced to try even tiny groups of lines, and a counter
proves it took some lines itself, so the comparison is not between two runs
of the line reader.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyarrow")

from agentmetrics.io import _arrow_lines
from agentmetrics.cli import main

EXAMPLES = int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "400")) // 2


@pytest.fixture
def arrow_everywhere(monkeypatch):
    """Try Arrow on groups of any size, never give up on it, and count the
    lines it took."""
    monkeypatch.setattr(_arrow_lines, "SMALL_GROUP", 0)
    monkeypatch.setattr(_arrow_lines, "SWITCH_TO_LINES", False)
    taken = {"lines": 0}
    original = _arrow_lines._Reader.arrow_group

    def counting(self, lines):
        batch = original(self, lines)
        if batch is not None:
            taken["lines"] += len(lines)
        return batch

    monkeypatch.setattr(_arrow_lines._Reader, "arrow_group", counting)
    return taken


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def both_readers(capsys, path, *options):
    arrow = run(capsys, "evaluate", str(path), "--reader", "arrow", *options)
    lines = run(capsys, "evaluate", str(path), "--reader", "lines", *options)
    return arrow, lines


NAMES = st.sampled_from(["A", "B", "C", "GetOrder", "检索", "é", "", "tool_calls", "a\\u0000",
                         "\\ud83d\\ude00", "\\ud800", "quote\\\"d", "tab\\t"])


def _names(draw):
    return "[" + ", ".join(f'"{name}"' for name in draw(st.lists(NAMES, max_size=5))) + "]"


@st.composite
def good_line(draw):
    """A line of name lists as people write them: keys in any order, an id or not."""
    parts = [f'"tool_calls": {_names(draw)}', f'"expected_tool_calls": {_names(draw)}']
    identifier = draw(st.sampled_from([None, '"case-1"', '"x"', "null", "7", "1.5", '""']))
    if identifier is not None:
        parts.append(f'"id": {identifier}')
    order = draw(st.permutations(parts))
    space = draw(st.sampled_from(["", " ", "  ", "\t"]))
    return ("{" + space + ("," + space).join(order) + space + "}").encode()


OTHER_LINES = [
    b"", b"   ", b"\t", b"\r", b"not json", b"{}", b"[]", b"null", b'"text"',
    b'{"tool_calls": ["A"]}',
    b'{"tool_calls": null, "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A", null], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": [{"name": "A"}], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "input": "hi"}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "metadata": {"k": 1}}',
    b'{"tool_calls": ["A"], "tool_calls": ["B"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A"], "tool\\u005fcalls": ["B"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]}{"tool_calls": [], '
    b'"expected_tool_calls": []}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\r',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"]} x',
    b'{"tool_calls": ["\xff"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A\x01"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": [NaN], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": "A", "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A",], "expected_tool_calls": ["A"]}',
    b'{"response": {"choices": []}, "expected_tool_calls": ["A"]}',
    b'\xef\xbb\xbf{"tool_calls": ["A"], "expected_tool_calls": ["A"]}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "id": {"a": 1}}',
    b'{"tool_calls": ["A"], "expected_tool_calls": ["A"], "id": 99999999999999999999999}',
]

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)
KEYS = st.sampled_from(["tool_calls", "expected_tool_calls", "id", "input", "x"])
ANY_OBJECT = st.dictionaries(KEYS, JSON, max_size=4).map(
    lambda record: json.dumps(record, ensure_ascii=False).encode())
# Bytes between braces: what pyarrow sees of a corrupt line that looks like an object.
BRACED = st.binary(max_size=40).map(lambda raw: b"{" + raw.replace(b"\n", b"") + b"}")

LINE = st.one_of(good_line(), good_line(), good_line(), st.sampled_from(OTHER_LINES),
                 ANY_OBJECT, BRACED)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=30), newline=st.sampled_from([b"\n", b"\r\n"]),
       last=st.booleans(), chunk=st.sampled_from(["1", "3", "7", "50000"]),
       form=st.sampled_from(["jsonl", "table", "csv", "summary"]),
       errors=st.sampled_from(["record", "record", "raise"]),
       metric=st.sampled_from(["tool_selection_accuracy",
                               "tool_selection_accuracy:order_matters=true"]))
def test_arrow_and_line_readers_agree_on_any_file(capsys, tmp_path, arrow_everywhere, lines,
                                                  newline, last, chunk, form, errors, metric):
    data = newline.join(lines) + (newline if last else b"")
    if data.startswith((b"\x1f\x8b", b"\xef\xbb\xbf")):
        data = b"\n" + data  # a gzip or BOM start is another reader's case, tested below
    path = tmp_path / "cases.jsonl"
    path.write_bytes(data)
    options = ("--format", form, "--chunk-size", chunk, "--errors", errors, "--metric", metric,
               "--counts")
    arrow, reference = both_readers(capsys, path, *options)
    assert arrow == reference


def test_the_fuzz_can_tell_the_readers_apart(capsys, tmp_path, arrow_everywhere):
    # The comparison above is meaningful only if Arrow really takes lines.
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({"id": f"c{i}", "tool_calls": ["A", "B"][: i % 3],
                                        "expected_tool_calls": ["B"]}) + "\n" for i in range(40)))
    arrow, reference = both_readers(capsys, path, "--format", "jsonl")
    assert arrow == reference and arrow[0] == 0
    assert arrow_everywhere["lines"] == 40


@pytest.mark.parametrize("ids", ["integers", "mixed"])
def test_integer_ids_are_read_by_arrow_too(capsys, tmp_path, arrow_everywhere, ids):
    # Integer ids (up to 64 bits) take the Arrow path; a group mixing string and
    # integer ids is split until each part has one kind; the rows are the line reader's.
    def identifier(i: int) -> object:
        return i * 7 - 100 if ids == "integers" or i < 20 else f"c{i}"

    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({"id": identifier(i), "tool_calls": ["A", "B"][: i % 3],
                                        "expected_tool_calls": ["B"]}) + "\n" for i in range(40)))
    arrow, reference = both_readers(capsys, path, "--format", "jsonl")
    assert arrow == reference and arrow[0] == 0
    assert json.loads(arrow[1].splitlines()[0])["id"] == -100
    assert arrow_everywhere["lines"] == 40


def test_bad_lines_cost_only_their_neighbourhood(capsys, tmp_path, monkeypatch):
    # Default group sizes: a file of 10,000 good lines with three bad ones is
    # read almost entirely by Arrow, and its rows are the line reader's.
    taken = {"arrow": 0}
    original = _arrow_lines._Reader.arrow_group

    def counting(self, lines):
        batch = original(self, lines)
        taken["arrow"] += 0 if batch is None else len(lines)
        return batch

    monkeypatch.setattr(_arrow_lines._Reader, "arrow_group", counting)
    lines = [json.dumps({"id": f"c{i}", "tool_calls": [f"t{i % 7}"],
                         "expected_tool_calls": [f"t{i % 5}"]}) for i in range(10_000)]
    lines[17] = '{"tool_calls": [{"name": "t1"}], "expected_tool_calls": ["t1"]}'
    lines[5000] = "broken"
    lines[9999] = '{"tool_calls": ["t1"], "expected_tool_calls": ["t1"], "id": 3}'
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    arrow, reference = both_readers(capsys, path, "--format", "jsonl", "--errors", "record")
    assert arrow == reference
    rows = [json.loads(line) for line in arrow[1].splitlines()]
    assert len(rows) == 10_000 and rows[5000]["error"].endswith(
        "Fix: each line must be one complete JSON object.")
    assert rows[5000]["error"].startswith(f"{path}:5001: not valid JSON")
    assert taken["arrow"] >= 10_000 - 3 * 2 * _arrow_lines.SMALL_GROUP


def test_the_first_bad_line_stops_the_run_as_the_line_reader_does(capsys, tmp_path,
                                                                    arrow_everywhere):
    good = json.dumps({"tool_calls": ["A"], "expected_tool_calls": ["A"]})
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([good] * 5 + ["{oops"] + [good] * 3 + ["worse"]) + "\n")
    for chunk in ("2", "100"):
        arrow, reference = both_readers(capsys, path, "--format", "jsonl", "--chunk-size", chunk)
        assert arrow == reference and arrow[0] == 2
        assert f"{path}:6: not valid JSON" in arrow[2] and "Traceback" not in arrow[2]


@pytest.mark.parametrize("start", [b"\xef\xbb\xbf", b"\xff\xfe"])
def test_files_with_a_byte_order_mark_or_gzip_go_to_the_line_reader(tmp_path, start):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(start + b'{"tool_calls": [], "expected_tool_calls": []}\n')
    assert not _arrow_lines.readable_as_arrow(str(path))
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(b'{"tool_calls": [], "expected_tool_calls": []}\n')
    assert _arrow_lines.readable_as_arrow(str(plain))


def test_metrics_that_need_case_objects_keep_the_line_reader(capsys, tmp_path, monkeypatch):
    called = []
    from agentmetrics.io import _input

    monkeypatch.setattr(_input, "name_list_chunks",
                        lambda *a, **k: called.append(1) or iter(()))
    path = tmp_path / "cases.jsonl"
    path.write_text('{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\n')
    status, out, err = run(capsys, "evaluate", str(path), "--metric", "exact_match_stub")
    assert status == 2  # an unknown metric: refused before reading
    status, out, err = run(capsys, "evaluate", str(path), "--format", "jsonl", "--reader", "arrow")
    assert status == 0 and called == [1]


def test_without_pyarrow_the_line_reader_reads_everything(capsys, tmp_path, monkeypatch):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"tool_calls": ["A"], "expected_tool_calls": ["A", "B"]}\n')
    expected = run(capsys, "evaluate", str(path), "--format", "jsonl")
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    assert not _arrow_lines.readable_as_arrow(str(path))
    assert run(capsys, "evaluate", str(path), "--format", "jsonl") == expected


def test_prefetched_items_come_in_order_and_errors_where_they_were_raised():
    import threading

    from agentmetrics._base._prefetch import prefetched

    def items():
        yield 1
        yield 2
        raise ValueError("the third item could not be made")

    got = []
    with pytest.raises(ValueError, match="third item"):
        for item in prefetched(items()):
            got.append(item)
    assert got == [1, 2]
    made = []

    def endless():
        number = 0
        while True:
            made.append(number)
            yield number
            number += 1

    stream = prefetched(endless())
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    stream.close()  # the reader stops at its next item instead of running on
    for thread in threading.enumerate():
        if thread.name == "agentmetrics-reader":
            thread.join(timeout=5)
            assert not thread.is_alive()
    assert len(made) <= 6
