"""Recorded real traffic (issue 23): every response body read exactly or refused.

``tests/recorded/`` holds response bodies recorded from live provider APIs by
other projects' test suites (VCR cassettes, HAR files and fixtures; each
source's license is in ``tests/recorded/LICENSES``, its repository, commit and
path on every record). ``tests/recorded/reference.py`` reads each body's calls
from the provider's documented wire format, independently of agentmetrics.

Each body is passed to ``tool_calls_from`` as a user would: the body text (JSON,
server-sent events, NDJSON), or for AWS event streams the events boto3 yields.
It must come back exactly as the reference reads it (names, ids, arguments;
hosted built-ins by name and id), or be refused with an error that says where;
never fewer calls, never other calls, never a crash. The same bodies go through
``read_cases`` and the CLI.
"""

from __future__ import annotations

import base64
import collections
import functools
import gzip
import json
from pathlib import Path

import pytest

from agentmetrics import InvalidCaseError, formats, read_cases
from agentmetrics.cli import main
from conftest import TESTS
from recorded import reference as ref

RECORDED = TESTS / "recorded"


def _load() -> list[dict]:
    records = []
    for file in sorted(RECORDED.glob("*.jsonl.gz")):
        with gzip.open(file, "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                record = json.loads(line)
                record["id"] = f"{file.name.removesuffix('.jsonl.gz')}:{number}"
                records.append(record)
    return records


RECORDS = _load()


def payload_of(record: dict):
    """What a user passes: the body text; for an AWS event stream, the events
    boto3 yields from ``response["stream"]`` (botocore decodes the frames; boto3
    keeps only the modelled members, so Bedrock's ``p`` padding is dropped)."""
    if "body_base64" not in record:
        return record["body"]
    from botocore.eventstream import EventStreamBuffer

    buffer = EventStreamBuffer()
    buffer.add_data(base64.b64decode(record["body_base64"]))
    events = []
    for message in buffer:
        kind = message.headers.get(":event-type") or message.headers.get(":exception-type") or ""
        payload = json.loads(message.payload.decode("utf-8")) if message.payload else {}
        if kind == "chunk":  # invoke_model_with_response_stream: the model's own event
            events.append({"chunk": {"bytes": base64.b64decode(payload["bytes"])}})
        else:
            if isinstance(payload, dict):
                payload.pop("p", None)
            events.append({kind: payload})
    return events


def _same(got, want: ref.RefCall) -> bool:
    if got.name != want.name or (got.id or None) != (want.id or None):
        return False
    if want.arguments is None or want.hosted or want.builtin:
        return True  # a built-in's arguments follow the library's documented convention
    if isinstance(want.arguments, str):
        return got.raw_arguments == want.arguments and got.arguments == {}
    return got.raw_arguments is None and got.arguments == want.arguments


def _matches(got, want: list) -> bool:
    return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))


def outcome(record: dict) -> tuple[str, str]:
    """``(category, detail)``: exact, refused (a body the reference reads), refused
    as it should be, or one of the broken promises: loss, wrong, crash."""
    want = ref.reference_calls(record)
    try:
        got = formats.tool_calls_from(payload_of(record))
    except InvalidCaseError as error:
        return ("refused-as-expected" if isinstance(want, ref.Unreadable) else "refused"), str(error)
    except Exception as error:
        return "crash", f"{type(error).__name__}: {error}"
    if isinstance(want, ref.Unreadable):
        if want.calls is not None and _matches(got, want.calls):
            return "exact", "a stream cut before its end: its finished part"
        return "read-unreadable", f"{want.reason}; got {got}"
    if len(got) < len(want):
        return "loss", f"expected {want}, got {got}"
    if not _matches(got, want):
        return "wrong", f"expected {want}, got {got}"
    return "exact", ""


@functools.cache
def outcomes() -> dict[str, tuple[str, str]]:
    """Each record's outcome by id, read when first asked for: under xdist every
    worker collects this module, and only the one that runs it reads the bodies."""
    return {record["id"]: outcome(record) for record in RECORDS}
#: The bodies refused today (tests/recorded/refused.txt): every other one must be read
#: exactly, so a reader that starts refusing what it read before fails here, by name.
KNOWN_REFUSALS = {line.split("\t", 1)[0] for line in (
    RECORDED / "refused.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record["id"])
def test_a_recorded_body_is_read_exactly_or_refused_saying_where(record):
    category, detail = outcomes()[record["id"]]
    where = f"{record['source']} {record['path']} #{record['interaction']}"
    assert category in ("exact", "refused", "refused-as-expected"), f"{where}: {category}: {detail}"
    if record["id"] in KNOWN_REFUSALS:
        assert category != "exact", f"{where} is read now: remove {record['id']} from refused.txt"
    else:
        assert category == "exact", f"{where} was read exactly, and is {category} now: {detail}"
    if category.startswith("refused"):
        # the refusal says where (a path in the payload, or the payload itself), or
        # that no format fits and which ones were tried
        assert (" at " in detail or "the payload" in detail or detail.startswith(("[", "could not tell the format of"))), detail


def test_the_corpus_is_broad_and_read_almost_entirely_exactly():
    counts = collections.Counter(category for category, _ in outcomes().values())
    providers = {ref.provider(record) for record in RECORDS}
    apis = {ref.classify(record) for record in RECORDS}
    assert len(RECORDS) >= 600 and len(providers) >= 25, (len(RECORDS), sorted(providers))
    assert len(apis) >= 15, sorted(apis)
    assert counts["loss"] == counts["wrong"] == counts["crash"] == 0, counts
    assert counts["exact"] / len(RECORDS) >= 0.95, counts
    with_calls = sum(1 for record in RECORDS if isinstance(ref.reference_calls(record), list)
                     and ref.reference_calls(record))
    assert with_calls >= 300, with_calls


def test_the_list_of_refusals_names_only_records_that_exist():
    assert set(outcomes()) >= KNOWN_REFUSALS


def test_every_source_is_vendored_with_its_license():
    sources = {record["source"] for record in RECORDS}
    licenses = {path.stem for path in (RECORDED / "LICENSES").glob("*.txt")}
    assert {source.replace("/", "+") for source in sources} <= licenses
    for record in RECORDS:
        assert len(record["commit"]) == 40 and record["path"], record["id"]
        assert "?" not in record["url"], record["id"]  # no query strings: they carry keys


def _line(record: dict) -> dict | None:
    payload = payload_of(record)
    if not isinstance(payload, str):
        return None  # event lists hold bytes: not a JSON line
    try:
        tree = json.loads(payload)
    except ValueError:
        tree = payload  # SSE or NDJSON text, as a string in the line
    return {"id": record["id"], "response": tree, "expected_tool_calls": []}


def test_the_same_bodies_through_read_cases_give_one_row_each_with_the_same_calls(tmp_path):
    path = tmp_path / "recorded.jsonl"
    lines = [(record, line) for record in RECORDS if (line := _line(record)) is not None]
    path.write_text("".join(json.dumps(line) + "\n" for _, line in lines), encoding="utf-8")
    rows = list(read_cases(path, errors="record"))
    assert len(rows) == len(lines)
    for (record, _), row in zip(lines, rows):
        category, detail = outcomes()[record["id"]]
        if category.startswith("refused"):
            assert type(row).__name__ == "UnreadableCase", record["id"]
            assert row.id == record["id"]
        else:
            want = formats.tool_calls_from(payload_of(record))
            assert list(row.tool_calls) == want, record["id"]


def test_the_cli_scores_every_body_or_records_its_refusal(tmp_path, capsys):
    path = tmp_path / "recorded.jsonl"
    lines = [line for record in RECORDS if (line := _line(record)) is not None]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status = main(["evaluate", str(path), "--errors", "record", "--counts", "--format", "jsonl"])
    out, err = capsys.readouterr()
    assert status == 0 and "Traceback" not in out + err
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [row["id"] for row in rows] == [line["id"] for line in lines]
    by_id = {record["id"]: record for record in RECORDS}
    for row in rows:
        category, _ = outcomes()[row["id"]]
        if category.startswith("refused"):
            assert row["error"], row
        else:
            assert row["calls"] == len(formats.tool_calls_from(payload_of(by_id[row["id"]]))), row


def test_the_reference_is_not_the_library():
    source = Path(ref.__file__).read_text(encoding="utf-8")
    assert "agentmetrics" not in source.replace("agentmetrics.formats (independence", "")


def test_the_recorded_traffic_table_in_the_docs_is_current():
    from recorded import table

    page = table.current_page()
    assert table.START in page and table.END in page
    assert table.updated_page(page) == page, (
        "docs/formats.md is out of date: run .venv/bin/python tests/recorded/table.py --write")


def _fragments_with_every_call(record: dict) -> tuple[str | None, list[tuple[tuple, object]]]:
    """The whole body's format, and the nodes of it that hold every call site
    the census finds (the sites' common ancestors, the whole body left out):
    ``choices[0].message``, its ``tool_calls``, a message's ``content`` blocks, a
    candidate's ``parts``."""
    from agentmetrics.formats._census import scan
    from agentmetrics.formats._detect import detect
    from agentmetrics.formats._payload import to_tree

    tree = to_tree(payload_of(record))
    found = scan(tree)
    if not found.sites:
        return None, []
    common = list(found.sites[0].path)
    for site in found.sites[1:]:
        k = 0
        while k < min(len(common), len(site.path)) and common[k] == site.path[k]:
            k += 1
        del common[k:]
    out, node = [], tree
    for depth, step in enumerate(common):
        node = node[step]
        if isinstance(node, (dict, list)):
            out.append((tuple(common[:depth + 1]), node))
    return detect(found)[0], out


def test_a_fragment_holding_every_call_is_read_exactly_or_refused_by_every_format():
    """A user passes a piece of a response (``message.tool_calls``, a message's
    content blocks, a candidate's parts) and names a format. Named as its own
    format, the calls come back exactly as from the whole body, or the read is
    refused; named as any other format, it is refused or gives as many calls
    (a built-in tool is then named by that format's rule: an OpenAI Responses
    ``mcp_call`` read as Interactions steps is ``mcp``). Never fewer calls,
    never 'no calls' (issue 48: ``from_openai_chat`` gave [] for
    ``message.tool_calls``)."""
    read_exactly = 0
    for record in RECORDS:
        if outcomes()[record["id"]][0] != "exact" or ref._body_kind(record) != "json":
            continue  # a stream's call is spread over its events: no one node holds it
        whole = formats.tool_calls_from(payload_of(record))
        own, fragments = _fragments_with_every_call(record)
        if not whole:
            continue
        want = ref.reference_calls(record)
        for path, fragment in fragments:
            for name in formats.FORMATS:
                try:
                    got = formats.tool_calls_from(fragment, format=name)
                except InvalidCaseError:
                    continue
                where = f"{record['id']} {list(path)} as {name} (the body is {own})"
                assert len(got) == len(whole), where
                if name == own:
                    assert _matches(got, want), f"{where}: {got} != {want}"
                    read_exactly += 1
    assert read_exactly >= 300, read_exactly  # the fragments really are read, not all refused
