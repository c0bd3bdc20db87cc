"""Issue 51: ``describe`` (Python, ``agentmetrics describe``, ``list --json``) shows each
constructor parameter with its type, default and one-line doc, the metric's version, its
declared inputs and its corpus aggregates."""

from __future__ import annotations

import json
import math
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmetrics import Input, Metric, registry
from agentmetrics.corpus import Maximum, Quantile
from agentmetrics.cli import main
from agentmetrics.registry import (
    MetricDescription,
    MetricInfo,
    ParameterDescription,
    _parameter_docs,
    describe_metric,
    register_metric,
)


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


class RubricScore(Metric):
    """Scores an answer against a rubric.

    Parameters
    ----------
    strictness : float
        How hard the grading is, from 0 to 1. Higher fails more answers.
    model
        The grader's model name, e.g. gpt-4o-mini. A name the service knows.
    """

    name = "rubric_score"
    description = "An answer graded against the case's rubric."
    version = "3"
    inputs = ("actual_output", Input("expected_output", "text", "the reference answer"),
              Input("metadata.rubric", "text"))
    aggregates: typing.ClassVar[dict[str, object]] = {"p50": Quantile(0.5), "p95": Quantile(0.95),
                                                      "max": Maximum()}

    def __init__(self, threshold: float | None = None, strictness: float = 0.5,
                 model: str | None = None, *, retries: int = 2) -> None:
        """``retries``: how often a failed call is tried again."""
        super().__init__(threshold)
        self.strictness = strictness
        self.model = model
        self.retries = retries

    def measure(self, case):
        return 1.0, "graded"


@pytest.fixture
def rubric():
    with registry.isolated():
        register_metric(RubricScore)
        yield


def test_describe_gives_types_defaults_docs_version_inputs_and_aggregates(rubric):
    described = describe_metric("rubric_score")
    assert described.metric_version == "3"
    assert described.aggregates == ("p50", "p95", "max")
    assert [(i.name, i.value_kind, i.doc) for i in described.inputs] == [
        ("actual_output", "json", ""), ("expected_output", "text", "the reference answer"),
        ("metadata.rubric", "text", "")]
    assert described.required_fields == ("actual_output", "expected_output")
    assert described.parameter_details == (
        ParameterDescription("threshold", "float | None", 0.5, False,
                             "a case passes at or above it (None: the default threshold)"),
        ParameterDescription("strictness", "float", 0.5, False,
                             "How hard the grading is, from 0 to 1."),
        ParameterDescription("model", "str | None", None, False,
                             "The grader's model name, e.g. gpt-4o-mini."),
        ParameterDescription("retries", "int", 2, False, "how often a failed call is tried again."),
    )
    assert described.parameters == {"threshold": 0.5, "strictness": 0.5, "model": None,
                                     "retries": 2}


def test_the_command_shows_them_in_text_and_json(capsys, rubric):
    status, out, _ = run(capsys, "describe", "rubric_score")
    assert status == 0
    assert out.splitlines()[3:] == [
        "metric version:     3",
        "description:        An answer graded against the case's rubric.",
        "requires LLM judge: no",
        "higher is better:   yes",
        "inputs:             actual_output (json), expected_output (text): the reference "
        "answer, metadata.rubric (text)",
        "values:             [0, 1], no unit (a share or score)",
        "default threshold:  0.5",
        "aggregates:         p50, p95, max",
        "parameters:",
        "  threshold: float | None = 0.5  a case passes at or above it (None: the default threshold)",
        "  strictness: float = 0.5        How hard the grading is, from 0 to 1.",
        "  model: str | None = None       The grader's model name, e.g. gpt-4o-mini.",
        "  retries: int = 2               how often a failed call is tried again.",
        "status:             ok",
    ]
    status, out, _ = run(capsys, "describe", "rubric_score", "--json")
    record = json.loads(out)
    assert record["metric_version"] == "3"
    assert record["aggregates"] == ["p50", "p95", "max"]
    assert record["inputs"] == [
        {"name": "actual_output", "kind": "json", "doc": ""},
        {"name": "expected_output", "kind": "text", "doc": "the reference answer"},
        {"name": "metadata.rubric", "kind": "text", "doc": ""}]
    assert record["required_fields"] == ["actual_output", "expected_output"]  # kept as it was
    assert record["parameter_details"][1] == {
        "name": "strictness", "type": "float", "default": 0.5, "required": False,
        "secret": False, "doc": "How hard the grading is, from 0 to 1."}
    status, out, _ = run(capsys, "list", "--json")
    listed = {entry["name"]: entry for entry in json.loads(out)}
    assert listed["rubric_score"] == record


def test_a_metric_without_aggregates_shows_no_aggregates_row(capsys):
    status, out, _ = run(capsys, "describe", "tool_selection_accuracy")
    assert status == 0 and "aggregates" not in out
    assert "inputs:             tool_calls (calls), expected_tool_calls (calls)\n" in out
    assert json.loads(run(capsys, "describe", "tool_selection_accuracy", "--json")[1])[
        "aggregates"] == []


class Needy(Metric):
    """A metric that cannot be built without its parameters.

    Args:
        budget (int): Calls allowed per case.
        prices: Price per token, by model
            over a second line. Then another sentence.
    """

    name = "needy"

    def __init__(self, budget, prices: dict[str, float], threshold=None):
        super().__init__(threshold)
        self.budget = budget
        self.prices = prices

    def measure(self, case):
        return 1.0, "ok"


def test_required_parameters_are_shown_as_required_with_the_docstring_s_type(capsys):
    with registry.isolated():
        register_metric(Needy)
        described = describe_metric("needy")
        assert described.needs == ("budget", "prices")
        assert described.parameter_details[:2] == (
            ParameterDescription("budget", "int", None, True, "Calls allowed per case."),
            ParameterDescription("prices", "dict[str, float]", None, True,
                                 "Price per token, by model over a second line."),
        )
        status, out, _ = run(capsys, "describe", "needy")
        assert status == 0
        assert "  budget: int (required)               Calls allowed per case.\n" in out
        assert "status:             ok (needs budget, prices)\n" in out


def _described(cls):
    return MetricDescription.of(MetricInfo(cls.name, f"tests:{cls.__name__}", None, None), cls)


def test_the_docstring_conventions_read():
    class Sphinx(Metric):
        """Sphinx style.

        :param mode: how text is compared.
        :type mode: str
        :param int n: a count
           over two lines. Then more.
        """

        name = "sphinx_style"

        def __init__(self, threshold=None, mode="exact", n=2, extra=None, quiet=False):
            """Build it.

            extra -- something extra.
            ``quiet``: say nothing.
            """
            super().__init__(threshold)
            self.mode, self.n, self.extra, self.quiet = mode, n, extra, quiet

        def measure(self, case):
            return 1.0, "ok"

    class Child(Sphinx):
        """A subclass documents none of its parameters: its base's docs are shown."""

        name = "child_style"

    for cls in (Sphinx, Child):
        details = {d.name: (d.type, d.doc) for d in _described(cls).parameter_details}
        assert details == {
            "threshold": (None, "a case passes at or above it (None: the default threshold)"),
            "mode": ("str", "how text is compared."), "n": ("int", "a count over two lines."),
            "extra": (None, "something extra."), "quiet": (None, "say nothing.")}


def test_other_sections_and_undocumented_names_give_no_doc():
    class Sections(Metric):
        """Sections.

        Returns
        -------
        mode : str
            Not a parameter's doc.

        Parameters
        ----------
        window : int
            Turns looked at.

        Raises:
            size: not a parameter either.
        """

        name = "sections"

        def __init__(self, threshold=None, mode="x", window=3, size=1):
            super().__init__(threshold)
            self.mode, self.window, self.size = mode, window, size

        def measure(self, case):
            return 1.0, "ok"

    details = {d.name: (d.type, d.doc) for d in _described(Sections).parameter_details}
    assert details["window"] == ("int", "Turns looked at.")
    assert details["mode"] == (None, "") and details["size"] == (None, "")


def test_an_annotation_object_is_shown_as_text():
    namespace: dict[str, object] = {}
    source = (  # a class without ``from __future__ import annotations``
        "import typing\n"
        "from agentmetrics import Metric\n"
        "class Plain(Metric):\n"
        "    name = 'plain_annotations'\n"
        "    def __init__(self, threshold: typing.Optional[float] = None,\n"
        "                 weights: dict[str, typing.Any] | None = None, limit: int = 3):\n"
        "        super().__init__(threshold)\n"
        "        self.weights, self.limit = weights, limit\n"
        "    def measure(self, case):\n"
        "        return 1.0, 'ok'\n")
    exec(compile(source, "plain", "exec", dont_inherit=True), namespace)
    details = _described(namespace["Plain"]).parameter_details
    assert [d.type for d in details] == ["Optional[float]", "dict[str, Any] | None", "int"]


class LowerIsBetter(Metric):
    name = "seconds_taken"
    higher_is_better = False
    value_range = (0.0, math.inf)
    unit = "s"
    default_threshold = 2.5

    def measure(self, case):
        return 1.0, "ok"


def test_the_threshold_s_own_doc_follows_the_direction():
    threshold = _described(LowerIsBetter).parameter_details[0]
    assert threshold == ParameterDescription(
        "threshold", "float | None", 2.5, False,
        "a case passes at or below it (None: the default threshold)")


def test_a_bad_inputs_declaration_is_described_as_broken(capsys):
    class BadInputs(Metric):
        name = "bad_inputs"

        def measure(self, case):
            return 1.0, "ok"

    BadInputs.inputs = ("answer",)  # set after the class: its definition would refuse it
    described = _described(BadInputs)
    assert described.inputs is None
    assert "BadInputs.inputs names 'answer', which is no AgentTestCase field" in described.error


# --- the docstring reader, on generated docstrings ---------------------------------------------

WORDS = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda name: name != "threshold")
SENTENCES = st.lists(WORDS, min_size=1, max_size=12).map(lambda words: " ".join(words) + ".")
TYPES = st.sampled_from(["int", "str", "float | None", "dict[str, int]"])


def _docstring(style, entries):
    if style == "numpy":
        body = "".join(f"{name} : {kind}\n    {doc}\n" for name, kind, doc in entries)
        return f"Summary.\n\nParameters\n----------\n{body}\nReturns\n-------\nx : int\n    y\n"
    if style == "google":
        body = "".join(f"    {name} ({kind}): {doc}\n" for name, kind, doc in entries)
        return f"Summary.\n\nArgs:\n{body}\nReturns:\n    int: y\n"
    body = "".join(f":param {kind} {name}: {doc}\n" for name, kind, doc in entries)
    return f"Summary.\n\n{body}"


@given(style=st.sampled_from(["numpy", "google", "sphinx"]),
       entries=st.lists(st.tuples(NAMES, st.sampled_from(["int", "str", "float"]), SENTENCES),
                        min_size=1, max_size=5, unique_by=lambda entry: entry[0]),
       wrap=st.booleans())
def test_every_documented_parameter_is_read_back(style, entries, wrap):
    if wrap:  # a description over two lines, indented under its first
        entries = [(name, kind, doc.replace(" ", "\n        ", 1) if style == "numpy" else doc)
                   for name, kind, doc in entries]
    cls = type("Generated", (), {"__doc__": _docstring(style, entries)})
    names = [name for name, _, _ in entries]
    found = _parameter_docs(cls, names + ["undocumented"])
    assert found == {name: (kind, " ".join(doc.split())) for name, kind, doc in entries}
