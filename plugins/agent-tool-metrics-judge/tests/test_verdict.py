"""The verdict validator on its own: every valid verdict read right, every spoiled one refused,
and nothing but MetricServiceError whatever the judge sends."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import ToolCall
from agentmetrics.errors import MetricServiceError
from agentmetrics_judge._http import retry_after
from agentmetrics_judge._verdict import Verdict, parse_verdicts, user_message


def completion(content):
    return {"choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}]}


reasons = st.text(min_size=1).filter(str.strip)


@st.composite
def verdict_lists(draw):
    n = draw(st.integers(1, 8))
    items = [{"call": i, "appropriate": draw(st.booleans()), "reason": draw(reasons)}
             for i in range(1, n + 1)]
    return n, draw(st.permutations(items))


@settings(max_examples=300, deadline=None)
@given(verdict_lists())
def test_a_valid_verdict_in_any_order_is_read_in_call_order(drawn):
    n, items = drawn
    verdicts = parse_verdicts(completion(json.dumps({"verdicts": items})), n)
    expected = sorted(items, key=lambda item: item["call"])
    assert verdicts == [Verdict(i["call"], i["appropriate"], i["reason"]) for i in expected]


SPOILERS = {
    "call bool": lambda item, n: {**item, "call": True},
    "call str": lambda item, n: {**item, "call": str(item["call"])},
    "call float": lambda item, n: {**item, "call": float(item["call"])},
    "call zero": lambda item, n: {**item, "call": 0},
    "call too big": lambda item, n: {**item, "call": n + 1},
    "appropriate str": lambda item, n: {**item, "appropriate": str(item["appropriate"]).lower()},
    "appropriate int": lambda item, n: {**item, "appropriate": int(item["appropriate"])},
    "appropriate null": lambda item, n: {**item, "appropriate": None},
    "reason empty": lambda item, n: {**item, "reason": ""},
    "reason blank": lambda item, n: {**item, "reason": " \n\t"},
    "reason list": lambda item, n: {**item, "reason": [item["reason"]]},
    "extra key": lambda item, n: {**item, "confidence": 0.9},
    "no reason": lambda item, n: {k: v for k, v in item.items() if k != "reason"},
    "no call": lambda item, n: {k: v for k, v in item.items() if k != "call"},
    "not an object": lambda item, n: [item["call"], item["appropriate"], item["reason"]],
}


@settings(max_examples=300, deadline=None)
@given(verdict_lists(), st.sampled_from(sorted(SPOILERS)), st.data())
def test_one_spoiled_verdict_spoils_the_answer(drawn, spoiler, data):
    n, items = drawn
    index = data.draw(st.integers(0, n - 1))
    items = list(items)
    items[index] = SPOILERS[spoiler](items[index], n)
    with pytest.raises(MetricServiceError, match="^judge gave an invalid verdict: "):
        parse_verdicts(completion(json.dumps({"verdicts": items})), n)


@settings(max_examples=200, deadline=None)
@given(verdict_lists(), st.data())
def test_a_missing_or_repeated_call_spoils_the_answer(drawn, data):
    n, items = drawn
    items = list(items)
    if data.draw(st.booleans()):
        del items[data.draw(st.integers(0, n - 1))]
    else:
        items.append(dict(items[data.draw(st.integers(0, n - 1))]))
    with pytest.raises(MetricServiceError, match="^judge gave an invalid verdict: "):
        parse_verdicts(completion(json.dumps({"verdicts": items})), n)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["verdicts", "call", "appropriate", "reason", "x"]) | st.text(),
        inner, max_size=4),
    max_leaves=20)


def reference_valid(value, n):
    """The verdict's shape, checked independently of parse_verdicts."""
    if not isinstance(value, dict) or list(value) != ["verdicts"]:
        return False
    items = value["verdicts"]
    return (isinstance(items, list)
            and all(isinstance(i, dict) and sorted(i) == ["appropriate", "call", "reason"]
                    and type(i["call"]) is int and type(i["appropriate"]) is bool
                    and isinstance(i["reason"], str) and i["reason"].strip() for i in items)
            and sorted(i["call"] for i in items) == list(range(1, n + 1)))


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(1, 4))
def test_arbitrary_content_is_accepted_exactly_when_valid(value, n):
    for candidate in (value, {"verdicts": value}):
        if reference_valid(candidate, n):
            assert len(parse_verdicts(completion(json.dumps(candidate)), n)) == n
        else:
            with pytest.raises(MetricServiceError, match="^judge gave an invalid verdict: "):
                parse_verdicts(completion(json.dumps(candidate)), n)


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(1, 4))
def test_arbitrary_bodies_are_refused_with_a_service_error_only(body, n):
    with pytest.raises(MetricServiceError, match="^judge gave an invalid verdict: "):
        parse_verdicts(body, n)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_arbitrary_text_is_never_a_verdict(text):
    try:
        json.loads(text)
    except ValueError:
        with pytest.raises(MetricServiceError, match="is not one JSON object"):
            parse_verdicts(completion(text), 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1),
                          st.dictionaries(st.text(), st.text() | st.integers())),
                min_size=1, max_size=6), st.text())
def test_each_call_is_one_numbered_line_at_the_end(calls, request):
    text = user_message(request, [ToolCall(name, arguments) for name, arguments in calls])
    lines = text.split("\n")[-len(calls):]
    for number, ((name, arguments), line) in enumerate(zip(calls, lines), start=1):
        prefix = f"{number}. "
        assert line.startswith(prefix)
        assert json.loads(line[len(prefix):]) == {"name": name, "arguments": arguments}


@pytest.mark.parametrize("headers, expected", [
    ({}, None),
    ({"retry-after": "2"}, 2.0),
    ({"retry-after": " 0.5 "}, 0.5),
    ({"retry-after": "-3"}, None),
    ({"retry-after": "inf"}, None),
    ({"retry-after": "soon"}, None),
    ({"retry-after": "Thu, 01 Jan 1970 00:01:40 GMT"}, 40.0),
    ({"retry-after": "Thu, 01 Jan 1970 00:00:10 GMT"}, 0.0),
    ({"retry-after": "Thu, 01 Jan 1970 00:01:40 -0000"}, 40.0),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
    ({"retry-after-ms": "junk", "retry-after": "9"}, 9.0),
])
def test_retry_after(headers, expected):
    assert retry_after(headers, now=60.0) == expected


def test_message_content_nested_past_the_parsers_depth_is_an_invalid_verdict():
    deep = "[" * 200_000 + "]" * 200_000  # json.loads raises RecursionError on this
    with pytest.raises(MetricServiceError, match="nested too deeply to be a verdict"):
        parse_verdicts(completion(deep), 1)


# -- the review of issue 24: linear work, bounded messages (H1, H2) ----------------------------


class Counted(str):
    """A key that counts the comparisons made with it."""

    comparisons = 0

    def __eq__(self, other):
        Counted.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_the_duplicate_key_check_is_linear():
    # H1: keys.count(key) for every key made 40,000 keys cost 27 s on the event loop.
    from agentmetrics_judge._verdict import _Objects

    keys = [Counted(f"k{i}") for i in range(20_000)]
    Counted.comparisons = 0
    assert len(_Objects(1)([(key, 0) for key in keys])) == 20_000
    with pytest.raises(ValueError, match="repeats the key 'k0'"):
        _Objects(1)([(key, 0) for key in keys] + [(Counted("k0"), 1)])
    assert Counted.comparisons < 3 * len(keys)  # quadratic: 400 million


def test_an_answer_of_many_objects_builds_only_as_many_as_a_verdict_can_hold(monkeypatch):
    # H1: every object of the answer was a call into Python, on the event loop.
    from agentmetrics_judge import _verdict

    calls = []
    original = _verdict._Objects.__call__
    monkeypatch.setattr(_verdict._Objects, "__call__",
                        lambda self, pairs: calls.append(1) or original(self, pairs))
    content = json.dumps({"verdicts": [{}] * 100_000})
    with pytest.raises(MetricServiceError, match="holds more JSON objects than a verdict for 2 "
                                                 "calls can"):
        parse_verdicts(completion(content), 2)
    assert len(calls) <= 2 * 3 + 9


FLOODS = {
    "finish_reason": {"choices": [{"finish_reason": "x" * 1_000_000,
                                   "message": {"content": None}}]},
    "refusal": {"choices": [{"message": {"content": None, "refusal": "no " * 500_000}}]},
    "top keys": completion(json.dumps({f"key-{'k' * 50}-{i}": 1 for i in range(50_000)})),
    "extra keys": completion(json.dumps({"verdicts": [], "x" * 100_000: 1, "y" * 100_000: 2})),
    "verdict keys": completion(json.dumps({"verdicts": [
        {"call": 1, "appropriate": True, "reason": "r", **{"z" * 50_000 + str(i): 1
                                                            for i in range(20)}}]})),
    "repeated long key": completion(json.dumps({"k" * 100_000: 1})[:-1] + ", "
                                    + json.dumps({"k" * 100_000: 2})[1:]),
    "huge call": completion(json.dumps({"verdicts": [
        {"call": 10 ** 3000, "appropriate": True, "reason": "r"}]})),
    "huge float call": completion('{"verdicts": [{"call": 1' + "0" * 3000
                                  + '.5, "appropriate": true, "reason": "r"}]}'),
    "not JSON": completion("no " * 1_000_000),
    "long string": completion(json.dumps("v" * 1_000_000)),
}


@pytest.mark.parametrize("flood", FLOODS)
def test_every_message_quotes_at_most_200_characters_of_the_answer(flood):
    # H2: finish_reason (by repr) and key lists were quoted whole: 7 MB an error row.
    with pytest.raises(MetricServiceError) as info:
        parse_verdicts(FLOODS[flood], 1)
    message = str(info.value)
    assert message.startswith("judge gave an invalid verdict: ")
    assert len(message) <= 1000 + len("judge gave an invalid verdict: "), len(message)
    runs = re.findall(r"(.)\1{200,}", message)  # no run of one character past the excerpt
    assert not runs, message[:300]


def test_a_reason_is_scrubbed_before_it_is_cut():
    from agentmetrics_judge._appropriateness import _score

    key = "sk-live-" + "K" * 40

    def scrub(text):
        return text.replace(key, "***")

    content = json.dumps({"verdicts": [{"call": 1, "appropriate": False,
                                        "reason": "." * 180 + f"used {key}"}]})
    value, reason = _score(parse_verdicts(completion(content), 1, scrub), ["A"], scrub)
    assert value == 0.0 and "sk-live" not in reason and "KKKK" not in reason
