"""Hostile strings in every field a report page shows: the run page (its
name, case ids, tool names, arguments, reasons, errors, inputs and outputs),
the comparison page (the sides' names, case keys, reasons) and the pytest
page (test ids). Each string tries to close the markup it sits in (an
attribute, a tag, a comment, a script or style block); the page must keep
exactly the elements and attributes it makes itself, and show each string as
text."""

from __future__ import annotations

import html.parser
from collections import Counter

import pytest

import agentmetrics
from agentmetrics import AgentTestCase, Metric, ToolCall
from agentmetrics.report._result import parts_html, session_headline
from agentmetrics.runs import RunStore

#: Strings that would escape each context they might be written into.
HOSTILE = (
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(2)>",
    "</textarea></style></script><svg onload=alert(3)>",
    "<!-- --><marquee data-x='",
    "&lt;script&gt;&amp;",
    "</details></summary></dd></dl><iframe src=javascript:alert(4)>",
)
#: What no page of ours holds, whatever its data.
FORBIDDEN_TAGS = {"img", "iframe", "textarea", "marquee"}
FORBIDDEN_ATTRIBUTES = {"onerror", "onload", "data-x"}


class Markup(html.parser.HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.attributes: set[str] = set()
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        self.attributes.update(name for name, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


def _checked(text: str, *, shown: tuple[str, ...] = HOSTILE) -> Markup:
    page = Markup(text)
    assert page.tags["script"] == 1  # the page's own, and no other
    assert not FORBIDDEN_TAGS & set(page.tags), set(page.tags)
    assert not FORBIDDEN_ATTRIBUTES & page.attributes
    assert page.tags["svg"] == text.count("<svg ")  # only the charts' own
    every = "".join(page.text)
    for hostile in shown:
        assert hostile in every, hostile  # shown as text, not dropped
    return page


class Echo(Metric):
    """Fails every case with a reason that repeats a hostile string."""

    name = "echo_report"
    required_fields = ("tool_calls",)

    def measure(self, case):
        if case.metadata.get("broken"):
            raise agentmetrics.InvalidCaseError(f"cannot score {case.metadata['broken']}")
        return 0.0, f"because {case.metadata['why']}"


def _cases(prefix: str = "") -> list[AgentTestCase]:
    cases = []
    for k, hostile in enumerate(HOSTILE):
        cases.append(AgentTestCase(
            input=hostile, actual_output={"text": hostile}, expected_output=[hostile],
            tool_calls=[ToolCall(hostile, {hostile: hostile})],
            expected_tool_calls=[ToolCall("ok", {"q": hostile})],
            metadata={"id": f"{prefix}{hostile}{k}", "why": hostile,
                      **({"broken": hostile} if k % 2 else {})}))
    return cases


def test_the_run_page_shows_hostile_fields_as_text():
    result = agentmetrics.evaluate(_cases(), [Echo(), "tool_selection_accuracy"],
                                   errors="record")
    text = result.to_html(name=HOSTILE[0])
    page = _checked(text)
    assert page.tags["details"] >= len(HOSTILE)  # each failing case's input and outputs


def test_the_comparison_page_shows_hostile_names_keys_and_reasons_as_text():
    baseline = agentmetrics.evaluate(_cases(), [Echo()], errors="record")
    candidate = agentmetrics.evaluate(_cases(), ["tool_selection_accuracy", Echo()],
                                      errors="record")
    comparison = agentmetrics.compare(baseline, candidate, names=(HOSTILE[1], HOSTILE[2]))
    text = comparison.to_html()
    _checked(text, shown=(HOSTILE[1], HOSTILE[2]))
    assert HOSTILE[1] in comparison.headline and HOSTILE[2] in comparison.headline


def test_the_pytest_page_shows_hostile_test_ids_as_text():
    result = agentmetrics.evaluate(_cases(), [Echo()], errors="record")
    outcomes = [(f"test_x.py::test[{hostile}]", k % 2 == 0) for k, hostile in enumerate(HOSTILE)]
    text = parts_html([(HOSTILE[3], result)], title="t", subtitle="s",
                      headline=session_headline(outcomes))
    _checked(text)


@pytest.mark.parametrize("names", [("a",), "ab", ("a", ""), ("a", 1), ("a", "b" * 201)])
def test_names_must_be_two_non_empty_texts(names):
    result = agentmetrics.evaluate(_cases()[:1], [Echo()], errors="record")
    with pytest.raises(agentmetrics.InvalidParameterError, match="names"):
        agentmetrics.compare(result, result, on=None, names=names)


def _configured(k: int) -> dict[str, str]:
    """A run configuration whose values are the hostile strings (names may not
    hold '=' or credentials, so they stay plain), the model one of them."""
    return {"model": f"{HOSTILE[2]} m{k}",
            **{f"field_{n}": f"{hostile} v{k}" for n, hostile in enumerate(HOSTILE)}}


def test_the_configuration_is_text_on_the_run_and_comparison_pages_and_the_browser(tmp_path):
    first = agentmetrics.evaluate(_cases(), [Echo()], errors="record", config=_configured(1))
    second = agentmetrics.evaluate(_cases(), [Echo()], errors="record", config=_configured(2))
    shown = tuple(f"{hostile} v1" for hostile in HOSTILE)
    run_page = first.to_html()
    _checked(run_page, shown=(*shown, f"{HOSTILE[2]} m1"))
    assert 'muted">model</span><br><b>' in run_page  # the model in the headline
    comparison = agentmetrics.compare(first, second)
    assert set(comparison.config_differences) == {"model", *(f"field_{n}" for n in
                                                             range(len(HOSTILE)))}
    assert "field_0 differs: " in comparison.to_html()  # in the headline too
    _checked(comparison.to_html(), shown=shown + tuple(f"{h} v2" for h in HOSTILE))
    store = RunStore(tmp_path / "runs.sqlite")
    for k, result in enumerate((first, second)):
        result.save(tmp_path / f"run{k}.jsonl", history=store, label=HOSTILE[k])
    page = Markup(store.to_html(None))
    assert page.tags["script"] == 1 and not FORBIDDEN_TAGS & set(page.tags)
    assert not FORBIDDEN_ATTRIBUTES & page.attributes
    every = "".join(page.text)
    assert HOSTILE[0] in every and HOSTILE[1] in every  # the labels, as text
    assert "model=" in every  # the configuration column
