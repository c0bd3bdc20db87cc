"""Expectations richer than one list of calls: partial orders, optional and
repeated steps, alternatives, forbidden calls, and argument matchers (one of
several values, may be omitted, any value, numeric tolerance, normalised text,
regular expressions, nested objects and lists).

Build them in Python::

    from agentmetrics.expectations import Call, AnyOrder, Expectation, OneOf, MayOmit

    Expectation([
        Call("search_flights", {"origin": "SFO", "date": OneOf(["2025-05-01", "May 1"])}),
        AnyOrder([Call("hold_seat"), Call("get_fare_rules")]),
        Call("book", {"seat": MayOmit("12A")}),
    ], never=[Call("cancel_booking")])

or write their JSON form (:meth:`Expectation.to_json`,
:func:`expectation_from_json`) in a case's ``expectation`` field, and score
them with the ``expectation_match`` metric. Everything here is frozen data:
hashable, picklable, validated on construction with errors that name the path.
"""

from agentmetrics.expectations._align import LIMIT, Alignment, align
from agentmetrics.expectations._matchers import (
    AnyValue,
    Close,
    Equals,
    Items,
    Matcher,
    MayOmit,
    Object,
    OneOf,
    Regex,
    Text,
    matcher_from_json,
)
from agentmetrics.expectations._steps import (
    AnyOrder,
    Call,
    Either,
    Expectation,
    InOrder,
    OptionalStep,
    Repeat,
    Step,
    expectation_from_json,
)

__all__ = [
    "LIMIT", "Alignment", "AnyOrder", "AnyValue", "Call", "Close", "Either", "Equals", "Expectation",
    "InOrder", "Items", "Matcher", "MayOmit", "Object", "OneOf", "OptionalStep", "Regex", "Repeat",
    "Step", "Text", "align", "expectation_from_json", "matcher_from_json",
]
