"""The ``$regex`` matcher is bounded whatever the pattern and the text (issue 48).

Differentially tested against :func:`re.fullmatch` on small patterns and texts
(where re answers quickly whatever the pattern); the patterns that make re
backtrack exponentially are refused when the expectation is built, naming the
argument; the others are matched in linear time (the work per character is a
table lookup: the table's size does not grow with the text).
"""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidCaseError, evaluate, get_metric
from agentmetrics.expectations import Call, Expectation, Object, Regex, expectation_from_json
from agentmetrics.expectations import _regex
from agentmetrics.expectations._regex import MAX_STATES, RegexRefused, bounded

# --- a small regex grammar, for the differential ---------------------------------------

_ATOMS = st.sampled_from(["a", "b", "A", ".", r"\d", r"\w", r"\s", r"\W", "[ab]", "[^a]",
                          "[a-c]", r"[\d_]", "[^\\n]", "\\n", " ", "1", "_", "é", "K"])
_ASSERTIONS = st.sampled_from(["^", "$", r"\b", r"\B", r"\A", r"\Z"])
_QUANTIFIERS = st.sampled_from(["?", "*", "+", "{2}", "{0,2}", "{1,3}", "{2,}", "??", "*?",
                                "+?", "{1,2}?"])
_FLAGS = st.sampled_from(["", "(?i)", "(?s)", "(?m)", "(?a)", "(?is)", "(?im)", "(?ai)"])


def _patterns(depth: int = 3) -> st.SearchStrategy[str]:
    leaf = st.one_of(_ATOMS, _ASSERTIONS)
    if depth == 0:
        return leaf
    inner = st.deferred(lambda: _patterns(depth - 1))
    sequence = st.lists(inner, min_size=1, max_size=3).map("".join)
    return st.one_of(
        leaf,
        sequence,
        st.tuples(inner, _QUANTIFIERS).map(lambda t: f"(?:{t[0]}){t[1]}"),
        st.tuples(inner, _QUANTIFIERS).map(lambda t: f"({t[0]}){t[1]}"),
        st.lists(inner, min_size=2, max_size=3).map(lambda alts: "(" + "|".join(alts) + ")"),
        st.tuples(st.sampled_from(["(?i:", "(?-i:", "(?s:", "(?a:"]), inner).map(
            lambda t: f"{t[0]}{t[1]})"),
    )


_TEXTS = st.text(alphabet="aAb1_ \n.éKk", max_size=8)


@settings(max_examples=3000)
@given(st.tuples(_FLAGS, _patterns()).map("".join), st.lists(_TEXTS, min_size=1, max_size=6))
@example("(a+)+", ["a" * 6 + "!"])
@example(r"(?i)k", ["\u212a", "K", "k"])  # the Kelvin sign folds to k
@example(r"a$", ["a\n", "a"])  # $ matches before a final newline, fullmatch still not
@example(r"\B", [""])
@example(r"(?a)\w+", ["é", "a"])
def test_matches_as_re_fullmatch_or_is_refused_as_ambiguous(pattern, texts):
    try:
        compiled = bounded(pattern)
    except RegexRefused as refused:
        assert "one way only" in refused.reason, (pattern, refused.reason)
        return
    for text in texts:
        assert compiled.fullmatch(text) == (re.fullmatch(pattern, text) is not None), (
            pattern, text, compiled.strategy)


@settings(max_examples=300)
@given(st.tuples(_FLAGS, _patterns()).map("".join), _TEXTS)
def test_the_automaton_agrees_with_re_on_patterns_re_would_take(pattern, text):
    """The lazy table, forced on patterns the deterministic check would hand to
    re: both ways of matching agree."""
    try:
        compiled = bounded(pattern)
    except RegexRefused:
        return
    assume(compiled.strategy == "re")
    forced = _regex.BoundedPattern.__new__(_regex.BoundedPattern)
    for name in _regex.BoundedPattern.__slots__:
        object.__setattr__(forced, name, getattr(compiled, name))
    forced.strategy, forced._cache = "automaton", _regex._match._Table()
    assert forced.fullmatch(text) == (re.fullmatch(pattern, text) is not None)


# --- what is refused, and what is not ----------------------------------------------------

EXPONENTIAL = ["(a+)+", "(a*)*", "(a+)*b", r"(\w+\s?)+", "(a|aa)+", "(x+x+)+y", "(.*a)+",
               r"^(\d+)+$", r"(\w|\d\d)+!", "((ab)*|(ab)*)+c", "(a?a?)+b"]


@pytest.mark.parametrize("pattern", EXPONENTIAL)
def test_patterns_that_backtrack_exponentially_are_refused_with_a_rewrite(pattern):
    with pytest.raises(InvalidCaseError, match=r"Regex.pattern: expected a pattern that "
                       r"matches a text in one way only.*Fix: rewrite") as caught:
        Regex(pattern)
    assert repr(pattern)[:40] in str(caught.value) or pattern[:20] in str(caught.value)


UNAMBIGUOUS = [r"\d{4}-\d{2}-\d{2}", "(a?b)+", "(ab|ac)+", r"[^,]+,\w+", r"(\d{1,3}\.){3}\d{1,3}",
               r"(?i)(yes|no)", r"[A-Z][a-z]+( [A-Z][a-z]+)*", r".*@.*\..*", r"\w+@\w+\.com",
               "(a|ab)+", r"(\s*\w+\s*,)*"]


@pytest.mark.parametrize("pattern", UNAMBIGUOUS)
def test_common_patterns_are_kept(pattern):
    assert Regex(pattern).matches("x") == (re.fullmatch(pattern, "x") is not None)


@pytest.mark.parametrize(("pattern", "what"), [
    ("(?=a)a", "lookahead"), ("(?!a)b", "negative lookahead"), ("(?<=a)b", "lookbehind"),
    (r"(a)\1", "backreference"), ("(a)?(?(1)b|c)", "conditional"),
])
def test_constructs_that_are_not_regular_are_refused_naming_them(pattern, what):
    with pytest.raises(InvalidCaseError, match=f"without an? {what}"):
        Regex(pattern)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="atomic groups came in Python 3.11")
@pytest.mark.parametrize("pattern", ["(?>a+)b", "a++b"])
def test_atomic_groups_and_possessive_repeats_are_refused(pattern):
    with pytest.raises(InvalidCaseError, match="atomic group|possessive repeat"):
        Regex(pattern)


def test_a_pattern_too_large_for_its_automaton_is_refused():
    with pytest.raises(InvalidCaseError, match=f"at most {MAX_STATES:,} automaton states"):
        Regex("(a{1000}){1000}")
    with pytest.raises(InvalidCaseError, match="nested at most"):
        Regex("(" * 600 + "a" + ")" * 600)


def test_an_invalid_pattern_is_refused_saying_why():
    with pytest.raises(InvalidCaseError, match=r"valid regular expression \(missing \)"):
        Regex("(a")
    with pytest.raises(InvalidCaseError, match="a regular expression \\(a string\\)"):
        Regex(5)  # type: ignore[arg-type]


# --- linear in the text --------------------------------------------------------------

@pytest.mark.parametrize(("pattern", "text", "matches"), [
    ("a*a*a*a*a*a*a*a*b", "a" * 50_000 + "!", False),  # n^8 steps for re
    (".*a.*b.*c.*d", "x" * 50_000, False),
    (r"\s*\s*\s*\s*x", " " * 50_000, False),
    (r"(.*,){5}.*", "," * 20_000 + "x", True),
    (r"(?i)(yes|y)+", "Y" * 30_000 + "n", False),
])
def test_ambiguous_patterns_run_over_long_texts_with_a_bounded_table(pattern, text, matches):
    compiled = bounded(pattern)
    assert compiled.strategy == "automaton"
    assert compiled.fullmatch(text) is matches
    table = compiled._cache
    assert table.size < 100, table.size  # the states met do not grow with the text
    assert compiled.fullmatch(text[:12]) == (re.fullmatch(pattern, text[:12]) is not None)


def test_the_table_starts_again_when_full_and_stays_right(monkeypatch):
    monkeypatch.setattr(_regex._match, "MAX_CACHED", 3)
    compiled = _regex.BoundedPattern("(a|b)*a(a|b){3}")
    for text in ["abaabb", "aaaa", "bbbbabbb", "ab" * 40, "b" * 7 + "a" + "bab"]:
        assert compiled.fullmatch(text) == (re.fullmatch(compiled.pattern, text) is not None)


def test_deterministic_patterns_are_handed_to_re():
    for pattern in [r"\d{4}-\d{2}-\d{2}", r"[^,]+,\w+", "(a?b)+", r"^\d+$"]:
        assert bounded(pattern).strategy == "re", pattern


def test_a_regex_matcher_pickles_and_compares_by_pattern():
    matcher = Regex(r"[A-Z]{3}\d+")
    again = pickle.loads(pickle.dumps(matcher))
    assert again == matcher and again.matches("ABC123") and not again.matches("AB1")


# --- in an expectation, a case file and the CLI ------------------------------------------

def test_an_exponential_pattern_names_the_argument_it_is_under():
    with pytest.raises(InvalidCaseError, match=r"^expectation\.steps\[1\]\.arguments\.code: "
                       r"Regex\.pattern: expected a pattern that matches"):
        expectation_from_json({"steps": [{"call": "lookup"}, {
            "call": "book", "arguments": {"code": {"$regex": "(a+)+"}}}]})


def test_a_case_with_such_a_pattern_is_an_error_row_and_the_others_are_scored(tmp_path):
    good = Expectation([Call("book", {"code": Regex("a+!")})])
    records = [
        {"id": "bad", "tool_calls": [{"name": "book", "arguments": {"code": "a" * 40 + "!"}}],
         "expectation": {"steps": [{"call": "book", "arguments": {"code": {"$regex": "(a+)+"}}}]}},
        {"id": "good", "tool_calls": [{"name": "book", "arguments": {"code": "a" * 40 + "!"}}],
         "expectation": good.to_json()},
    ]
    result = evaluate(records, "expectation_match", errors="record")
    rows = result.to_dicts()
    assert [row["id"] for row in rows] == ["bad", "good"]
    assert "expectation.steps[0].arguments.code: Regex.pattern" in rows[0]["expectation_match_error"]
    assert rows[1]["expectation_match"] == 1.0


def test_the_cli_finishes_on_a_catastrophic_pattern_with_an_error_row(tmp_path):
    """Before issue 48 this hung: re.fullmatch holds the GIL, timeout= could not stop it."""
    path = tmp_path / "cases.jsonl"
    lines = [{"id": f"case-{k}", "tool_calls": [{"name": "check", "arguments": {
        "code": "a" * 40 + "!"}}], "expectation": {"steps": [{"call": "check", "arguments": {
            "code": {"$regex": "(a+)+" if k == 1 else "a+!"}}}]}} for k in range(3)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "agentmetrics", "evaluate", str(path), "--metric",
         "expectation_match", "--errors", "record", "--format", "jsonl"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [row["id"] for row in rows] == ["case-0", "case-1", "case-2"]
    assert rows[0]["value"] == rows[2]["value"] == 1.0
    assert rows[1]["value"] is None
    assert "expectation.steps[0].arguments.code: Regex.pattern" in rows[1]["error"]
    assert "Traceback" not in done.stderr


def test_the_metric_scores_a_kept_ambiguous_pattern_on_a_long_value():
    metric = get_metric("expectation_match")
    case = AgentTestCase(tool_calls=[{"name": "f", "arguments": {"q": "a" * 20_000 + "!"}}],
                         expectation=Expectation([Call("f", {"q": Regex("a*a*a*a*a*a*!")})]))
    assert metric.evaluate(case).value == 1.0


def test_a_value_too_long_for_a_huge_pattern_is_an_error_naming_the_argument():
    metric = get_metric("expectation_match")
    nested = Expectation([Call("f", {"q": Object({"r": Regex("(.?){5000}")})})])
    case = AgentTestCase(tool_calls=[{"name": "f", "arguments": {"q": {"r": "a" * 5000}}}],
                         expectation=nested)
    with pytest.raises(InvalidCaseError, match=r"arguments\.q\.r: \$regex '\(\.\?\)\{5000\}': "
                       r"expected a value this pattern can be matched against in bounded time, "
                       r"got a value of 5,000 characters.*Fix:"):
        metric.evaluate(case)
    short = AgentTestCase(tool_calls=[{"name": "f", "arguments": {"q": {"r": "a" * 50}}}],
                          expectation=nested)
    assert metric.evaluate(short).value == 1.0
