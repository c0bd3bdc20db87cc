"""Ingestion you can trust: payloads built with the real SDKs, offline, read call for call.

Every scenario in ``tests/payloads`` was built through a provider SDK (its
client over a mock transport, its stream helpers, its span exporters) and
carries the calls its builder put in. Each must come back exactly, through
detection, through the format's own ``from_*`` function, and through a JSONL
line; or be refused with the error its scenario names.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmetrics import InvalidCaseError, formats, read_cases
from agentmetrics.formats._census import scan
from payloads import Call, Scenario, all_scenarios, all_writers

SCENARIOS = list(all_scenarios())
FORMAT_OF = {"openai_agents": "openai_responses"}


def as_calls(calls) -> list[Call]:
    return [Call(c.name, c.arguments, c.id, c.raw_arguments) for c in calls]


def assert_same(got, expected: tuple[Call, ...]) -> None:
    got = as_calls(got)
    pinned = [Call(g.name, g.arguments if e.arguments is not None else None, g.id, g.raw_arguments)
              for g, e in zip(got, expected)]
    assert pinned == list(expected)
    assert len(got) == len(expected)


def test_every_builder_has_scenarios_in_every_form():
    forms = {(s.provider, s.form) for s in SCENARIOS}
    for provider in {s.provider for s in SCENARIOS} - {"openai_agents"}:
        for form in ("object", "dump", "json", "list"):
            assert (provider, form) in forms, (provider, form)
    ids = [s.id for s in SCENARIOS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_scenario_reads_exactly_or_is_refused(scenario: Scenario):
    if scenario.expected is None:
        with pytest.raises(InvalidCaseError, match=scenario.refusal or ""):
            formats.tool_calls_from(scenario.payload, **scenario.options)
        return
    assert_same(formats.tool_calls_from(scenario.payload, **scenario.options), scenario.expected)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.expected is not None],
                         ids=lambda s: s.id)
def test_the_formats_own_reader_agrees(scenario: Scenario):
    name = FORMAT_OF.get(scenario.provider, scenario.provider)
    options = {k: v for k, v in scenario.options.items() if k != "format"}
    read = getattr(formats, f"from_{name}")
    assert_same(read(scenario.payload, **options), scenario.expected)


def _jsonable(scenario: Scenario) -> bool:
    try:
        json.dumps(scenario.payload)
    except (TypeError, ValueError):
        return False
    return True


def test_jsonl_lines_read_every_call_or_record_the_refusal(tmp_path):
    chosen = [s for s in SCENARIOS if s.form in ("dump", "json") and _jsonable(s)]
    path = tmp_path / "payloads.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for scenario in chosen:
            line = {"id": scenario.id, "response": scenario.payload,
                    "expected_tool_calls": [c.name for c in scenario.expected or ()]}
            if "format" in scenario.options:
                line["format"] = scenario.options["format"]
            handle.write(json.dumps(line) + "\n")
    rows = list(read_cases(path, errors="record",
                           hosted_tools=True))
    assert len(rows) == len(chosen)
    for scenario, row in zip(chosen, rows):
        if scenario.expected is None or scenario.options.get("hosted_tools") is False:
            continue
        assert not isinstance(row, formats_unreadable()), (scenario.id, row)
        assert [c.name for c in row.tool_calls] == [c.name for c in scenario.expected]


def formats_unreadable():
    from agentmetrics import UnreadableCase

    return UnreadableCase


# --- the census --------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.expected is not None],
                         ids=lambda s: s.id)
def test_the_census_sees_a_site_for_every_call(scenario: Scenario):
    """Independent of every reader: a payload with n calls has call sites for them."""
    found = scan(formats._payload.to_tree(scenario.payload))
    assert len({site.path for site in found.sites}) >= len(scenario.expected)


# --- properties: random conversations written by the real SDKs come back call for call ----

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False, width=32),
                    st.text(max_size=12))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(min_size=1, max_size=6), inner,
                                                  max_size=3)), max_leaves=6)
ARGUMENTS = st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), VALUES, max_size=4)
CALLS = st.builds(lambda name, arguments: Call(name, arguments), NAMES, ARGUMENTS)
TURNS = st.lists(st.lists(CALLS, max_size=4), min_size=1, max_size=4)
WRITERS = list(all_writers())


@pytest.mark.parametrize("name,writer", WRITERS, ids=[name for name, _ in WRITERS])
@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(turns=TURNS)
def test_random_conversations_come_back_call_for_call(name, writer, turns):
    payload, expected = writer(turns)
    assert_same(formats.tool_calls_from(payload), expected)


# --- never fewer calls: reading with the wrong format fails loudly -----------------------

WITH_CALLS = [s for s in SCENARIOS if s.expected and s.form in ("dump", "json")]


@pytest.mark.parametrize("scenario", WITH_CALLS, ids=lambda s: s.id)
def test_a_payload_read_as_any_other_format_never_loses_calls(scenario: Scenario):
    """Detection can be wrong, and users pass format=... by mistake: every reader,
    given a payload it was not written for, returns every call or raises."""
    right = FORMAT_OF.get(scenario.provider, scenario.provider)
    options = {k: v for k, v in scenario.options.items() if k != "format"}
    for name in formats.FORMATS:
        if name == right:
            continue
        try:
            calls = formats.tool_calls_from(scenario.payload, format=name, **options)
        except InvalidCaseError:
            continue
        assert len(calls) >= len(scenario.expected), (name, calls)


# --- fuzzing: any mutation of a real payload is read or refused, never a crash -------------

FUZZ_SEEDS = [s for s in SCENARIOS if s.form == "dump" and _jsonable(s)]
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
              st.sampled_from(["tool_calls", "function_call", "tool_use", "execute_tool",
                               "function", "text", "", "0", "{", "[1]", "response.completed"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(
                                ["type", "name", "id", "index", "arguments", "args", "input",
                                 "parts", "content", "role", "choices", "delta", "output",
                                 "attributes", "spans", "body"]), inner, max_size=3)),
    max_leaves=8)


def _nodes(tree, path=()):
    yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _nodes(value, path + (key,))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from _nodes(value, path + (index,))


def _mutate(tree, path, how, value):
    if not path:
        return value if how == "replace" else [tree, value]
    parent = tree
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "delete":
        del parent[last]
    elif how == "replace":
        parent[last] = value
    elif how == "wrap":
        parent[last] = [parent[last]]
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(last, json.loads(json.dumps(parent[last])))
    else:
        parent[last] = value
    return tree


#: Raise for a deep run: AGENTMETRICS_FUZZ_EXAMPLES=20000 pytest -k fuzz_or_mutated
FUZZ_EXAMPLES = int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "400"))


@settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_payloads_are_read_or_refused_never_a_crash(data):
    seed = data.draw(st.sampled_from(FUZZ_SEEDS), label="seed")
    tree = json.loads(json.dumps(seed.payload))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = list(_nodes(tree))
        path = data.draw(st.sampled_from(paths), label="path")
        how = data.draw(st.sampled_from(["delete", "replace", "wrap", "duplicate"]), label="how")
        tree = _mutate(tree, path, how if path else "replace", data.draw(JSON_VALUES))
    format = data.draw(st.sampled_from([None, *formats.FORMATS]), label="format")
    try:
        calls = formats.tool_calls_from(tree, format=format)
    except InvalidCaseError as error:
        assert str(error)  # refused, with a message
    else:
        assert all(type(call).__name__ == "ToolCall" and call.name for call in calls)


@settings(max_examples=FUZZ_EXAMPLES // 2, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=60), st.binary(max_size=60).map(
    lambda raw: raw.decode("latin-1"))), format=st.sampled_from([None, *formats.FORMATS]))
def test_arbitrary_text_is_read_or_refused(text, format):
    try:
        formats.tool_calls_from(text, format=format)
    except InvalidCaseError:
        pass


@settings(max_examples=FUZZ_EXAMPLES // 2, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_tau2_results_are_read_or_refused(data):
    from payloads import tau2_payloads

    build = data.draw(st.sampled_from([tau2_payloads.classic_results, tau2_payloads.telecom_results,
                                       tau2_payloads.full_duplex_results]), label="layout")
    tree = json.loads(json.dumps(build()[0]))
    paths = list(_nodes(tree))
    path = data.draw(st.sampled_from(paths), label="path")
    how = data.draw(st.sampled_from(["delete", "replace", "wrap", "duplicate"]), label="how")
    tree = _mutate(tree, path, how if path else "replace", data.draw(JSON_VALUES))
    try:
        cases = formats.cases_from_tau2(tree)
    except InvalidCaseError as error:
        assert str(error)
    else:
        simulations = tree.get("simulations") if isinstance(tree, dict) else None
        assert len(cases) == len(simulations)  # one case per simulation, never fewer


LINES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(FUZZ_SEEDS).map(lambda s: json.dumps({"response": s.payload,
                                                         "expected_tool_calls": []})),
    st.builds(lambda seed, cut: json.dumps({"response": seed.payload})[:cut],
              st.sampled_from(FUZZ_SEEDS), st.integers(0, 400)),
    JSON_VALUES.map(json.dumps),
    JSON_VALUES.map(lambda value: json.dumps({"response": value, "expected_tool_calls": []})),
)


@settings(max_examples=FUZZ_EXAMPLES // 4, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINES, min_size=1, max_size=6))
def test_any_jsonl_gives_one_row_per_line_in_record_mode(lines):
    import io

    from agentmetrics import UnreadableCase

    text = "\n".join(line.replace("\n", " ").replace("\r", " ") for line in lines) + "\n"
    rows = list(read_cases(io.StringIO(text), errors="record"))
    # A byte-order mark opening the text is an encoding signature, not content.
    expected = sum(1 for line in text.removeprefix("\ufeff").split("\n") if line.strip(" \t\r"))
    assert len(rows) == expected
    for row in rows:
        if isinstance(row, UnreadableCase):
            assert "bug in agentmetrics" not in row.message, row.message


def test_the_support_matrix_in_the_docs_is_current():
    from payloads import matrix

    assert matrix.current() == matrix.render(), (
        "docs/formats.md is out of date: run .venv/bin/python tests/payloads/matrix.py --write")
