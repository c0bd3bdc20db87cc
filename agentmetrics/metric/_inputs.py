"""What a metric reads: its declared inputs.

A metric declares, in one place (its ``inputs`` class attribute), the case
fields it reads and the named extra values it takes from ``metadata``, each
with a kind::

    class AnswerMatch(Metric):
        inputs = ("actual_output", "expected_output")

    class RubricScore(Metric):
        inputs = ("actual_output", Input("metadata.rubric", "text", "the grading rubric"))

That declaration is what the required-input check refuses a case by (an
absent input is a MissingFieldError naming the metric and the input, a value
of another kind an :class:`InputTypeError` naming the field: never coerced),
what ``describe`` and ``list --json`` show, what the conformance kit fills
its generated cases with, and what the cache key covers.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics.errors import (
    InputTypeError,
    InvalidCaseError,
    InvalidMetricError,
    MissingFieldError,
)
from agentmetrics.model._model import CASE_FIELDS, AgentTestCase, describe

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.metric._metric import Metric

__all__ = ["FIELD_KINDS", "INPUT_KINDS", "Input", "declared_inputs",
           "required_case_fields"]

#: The kinds an input may declare, with what each holds.
INPUT_KINDS: Mapping[str, str] = {
    "text": "a str",
    "number": "a finite int or float (not a bool)",
    "integer": "an int (not a bool)",
    "flag": "True or False",
    "json": "any JSON value (text, number, flag, list or object)",
    "object": "a mapping with str keys",
    "list": "a list",
    "calls": "a list of tool calls",
    "turns": "a list of turns",
    "expectation": "an Expectation",
    "usage": "token counts by kind",
}

#: Each case field's kind, as an input naming only the field declares it.
FIELD_KINDS: Mapping[str, str] = {
    "input": "json",
    "actual_output": "json",
    "expected_output": "json",
    "tool_calls": "calls",
    "expected_tool_calls": "calls",
    "turns": "turns",
    "expectation": "expectation",
    "latency": "number",
    "cost": "number",
    "usage": "usage",
    "metadata": "object",
}

#: The kinds a case field may be narrowed to: its own, or, for a field of
#: any JSON value, one of the JSON kinds.
_NARROWER = {"json": ("text", "number", "integer", "flag", "json", "object", "list")}

_METADATA = "metadata."


def _fits(kind: str, value: object) -> bool:
    if kind == "text":
        return isinstance(value, str)
    if kind == "number":
        return (not isinstance(value, bool) and isinstance(value, numbers.Real)
                and math.isfinite(float(value)))
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "flag":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, Mapping) and all(isinstance(key, str) for key in value)
    if kind == "list":
        return isinstance(value, (list, tuple))
    return True  # json, and the field kinds the case itself checks


@attrs.frozen(slots=True)
class Input:
    """One thing a metric reads: a case field (``"actual_output"``) or a named
    extra value from the case's metadata (``"metadata.rubric"``), of a
    ``kind`` (one of :data:`INPUT_KINDS`; a field's own kind when not given),
    with a one-line ``doc`` shown by ``describe``."""

    name: str
    kind: str | None = None
    doc: str = ""

    @property
    def field(self) -> str:
        """The case field the input is read from (``metadata`` for an extra value)."""
        return "metadata" if self.name.startswith(_METADATA) else self.name

    @property
    def key(self) -> str | None:
        """The metadata key of an extra value; None for a case field."""
        return self.name[len(_METADATA):] if self.name.startswith(_METADATA) else None

    @property
    def where(self) -> str:
        """How messages name it: ``actual_output``, ``metadata['rubric']``."""
        key = self.key
        return self.name if key is None else f"metadata[{key!r}]"

    @property
    def value_kind(self) -> str:
        """The declared kind, or the field's own."""
        if self.kind is not None:
            return self.kind
        return "json" if self.key is not None else FIELD_KINDS[self.name]

    def problem(self, case: AgentTestCase) -> str | None:
        """Why ``case`` cannot give this input: None when it can (see :meth:`read`)."""
        try:
            self.read(case, "metric")
        except (InvalidCaseError, MissingFieldError) as error:  # the second is no InvalidCaseError
            return str(error)
        return None

    def read(self, case: AgentTestCase, metric: str) -> Any:
        """The input's value in ``case``; MissingFieldError if it is absent
        (None, or a metadata key not there), InputTypeError if it is of another kind."""
        key = self.key
        if key is None:
            value = getattr(case, self.name)
            if value is None:
                raise MissingFieldError(metric, self.name, case.expectation is not None)
        else:
            value = case.metadata.get(key)
            if value is None:
                raise MissingFieldError(metric, self.where,
                                        expected=INPUT_KINDS[self.value_kind])
        kind = self.value_kind
        if not _fits(kind, value):
            raise InputTypeError(metric, self.where, f"{kind} ({INPUT_KINDS[kind]})", value)
        return value

    def to_json(self) -> dict[str, Any]:
        """The input as ``describe``'s and ``list --json``'s JSON shows it."""
        return {"name": self.name, "kind": self.value_kind, "doc": self.doc}


def _input(cls: type, given: object) -> Input:
    owner = f"{cls.__qualname__}.inputs"
    if isinstance(given, str):
        given = Input(given)
    if not isinstance(given, Input) or not isinstance(given.name, str):
        raise InvalidMetricError(
            f"{owner} holds {describe(given)}; expected a case field's name (e.g. "
            f"'actual_output'), 'metadata.KEY', or an Input. Fix: declare e.g. inputs = "
            f"('actual_output', 'expected_output').")
    key = given.key
    if key is None and given.name not in CASE_FIELDS:
        raise InvalidMetricError(
            f"{owner} names {given.name!r}, which is no AgentTestCase field; expected one of "
            f"{sorted(CASE_FIELDS)}, or 'metadata.KEY' for a value kept in the case's "
            f"metadata. Fix: declare e.g. Input('metadata.{given.name}', 'text').")
    if key == "":
        raise InvalidMetricError(f"{owner} names 'metadata.' without a key. Fix: declare "
                                 f"e.g. 'metadata.reference'.")
    kind = given.kind
    if kind is not None:
        allowed = (tuple(INPUT_KINDS) if key is not None
                   else _NARROWER.get(FIELD_KINDS[given.name], (FIELD_KINDS[given.name],)))
        if kind not in allowed:
            raise InvalidMetricError(
                f"{owner}: {given.where} is declared of kind {kind!r}; expected one of "
                f"{list(allowed)}.")
    if not isinstance(given.doc, str):
        raise InvalidMetricError(f"{owner}: the doc of {given.where} must be a str, got "
                                 f"{describe(given.doc)}.")
    return given


_DECLARED = "_agentmetrics_inputs"


def declared_inputs(cls: type[Metric]) -> tuple[Input, ...]:
    """Everything ``cls`` reads: its ``required_fields``, then its ``inputs``,
    each once (an input both name keeps the ``inputs`` declaration's kind and
    doc). Checked, and kept on the class; InvalidMetricError names the
    attribute of a bad declaration."""
    known: tuple[Input, ...] | None = cls.__dict__.get(_DECLARED)
    if known is not None:
        return known
    given = cls.inputs
    if isinstance(given, (str, Input)) or not isinstance(given, Sequence):
        raise InvalidMetricError(
            f"{cls.__qualname__}.inputs must be a tuple of inputs, got {describe(given)}. "
            f"Fix: declare e.g. inputs = ('actual_output', 'expected_output').")
    declared = {item.name: item for item in (_input(cls, entry) for entry in given)}
    ordered = [declared.get(field) or Input(field) for field in cls.required_fields]
    ordered += [item for name, item in declared.items() if name not in cls.required_fields]
    found = tuple(ordered)
    setattr(cls, _DECLARED, found)
    return found


def required_case_fields(inputs: Sequence[Input]) -> tuple[str, ...]:
    """The case fields among ``inputs`` that must not be None, in order."""
    return tuple(dict.fromkeys(item.field for item in inputs if item.key is None))
