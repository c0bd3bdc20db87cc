"""How one value compares with its expected value: the comparison rules that
argument_accuracy and tool_output_match share, and nested values by path."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Iterator, Mapping
from itertools import repeat
from typing import Any

import attrs

from agentmetrics import InvalidParameterError
from agentmetrics.errors import call_user_function, user_function_returned

__all__ = [
    "MALFORMED",
    "RULE_NAMES",
    "Compared",
    "Exact",
    "Function",
    "MetricRule",
    "Normalized",
    "Numeric",
    "Rule",
    "RuleSet",
    "SetEqual",
    "as_rule",
    "compare_values",
    "score_values",
]


@attrs.frozen(slots=True)
class Exact:
    """Equal as Python values (``1 == 1.0``; a bool is not a number here)."""

    def __call__(self, actual: Any, expected: Any) -> float:
        if (type(actual) is bool) != (type(expected) is bool):  # True is not 1 here
            return 0.0 if isinstance(actual, bool) != isinstance(expected, bool) else float(actual == expected)
        return 1.0 if actual == expected else 0.0


@attrs.frozen(slots=True)
class Normalized:
    """Strings equal ignoring case and runs of whitespace (other values: exact)."""

    def __call__(self, actual: Any, expected: Any) -> float:
        if isinstance(actual, str) and isinstance(expected, str):
            return 1.0 if " ".join(actual.split()).casefold() == " ".join(expected.split()).casefold() else 0.0
        return Exact()(actual, expected)


@attrs.frozen(slots=True)
class Numeric:
    """Numbers within ``abs_tol`` or ``rel_tol`` of each other (``math.isclose``);
    numeric strings such as ``"42"`` count as numbers when ``parse_strings``."""

    abs_tol: float = 0.0
    rel_tol: float = 1e-9
    parse_strings: bool = False

    def __attrs_post_init__(self) -> None:
        for name in ("abs_tol", "rel_tol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) >= 0:
                raise InvalidParameterError(f"Numeric.{name}: expected a number >= 0, got {value!r}.")

    def _number(self, value: Any) -> float | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, numbers.Real):
            return float(value)
        if self.parse_strings and isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                return None
        return None

    def __call__(self, actual: Any, expected: Any) -> float:
        a, e = self._number(actual), self._number(expected)
        if a is None or e is None:
            return Exact()(actual, expected)
        return 1.0 if math.isclose(a, e, abs_tol=self.abs_tol, rel_tol=self.rel_tol) else 0.0


@attrs.frozen(slots=True)
class SetEqual:
    """Lists equal as sets (order and repeats ignored; items compared exactly)."""

    def __call__(self, actual: Any, expected: Any) -> float:
        if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
            return 1.0 if _canonical_set(actual) == _canonical_set(expected) else 0.0
        return Exact()(actual, expected)


@attrs.frozen(slots=True)
class Function:
    """A callable ``(actual, expected) -> bool | float``; a float is partial
    credit and must lie in [0, 1]."""

    function: Callable[[Any, Any], Any]

    def __call__(self, actual: Any, expected: Any) -> float:
        # The function is the user's: what it raises or returns wrong makes the
        # case an error row naming it (UserFunctionError), not a metric bug.
        role = "the comparison rule"
        result = call_user_function(self.function, role, actual, expected)
        if isinstance(result, bool):
            return 1.0 if result else 0.0
        if isinstance(result, numbers.Real) and 0.0 <= float(result) <= 1.0:
            return float(result)
        raise user_function_returned(
            self.function, f"{role} (actual={actual!r:.40}, expected={expected!r:.40})", result,
            "a bool or a number in [0, 1]")


#: What a call whose arguments were not a JSON object is compared as: it earns
#: nothing, whatever was expected (no arguments included).
MALFORMED: Any = object()


def _scoring_metric(spec: Any) -> Any:
    from agentmetrics import Metric
    from agentmetrics.registry import resolve_metric

    metric = resolve_metric(spec)
    if not isinstance(metric, Metric) or not metric.higher_is_better:
        raise InvalidParameterError(
            f"MetricRule: {metric!r} scores lower-is-better; expected a metric whose value is "
            f"credit (1.0 = a match).")
    return metric


@attrs.frozen(slots=True)
class MetricRule:
    """Another metric decides, by name, class or instance (a registered LLM
    judge of meaning, say): its value is the credit (partial credit allowed).

    It scores a case whose ``actual_output`` is the value given and whose
    ``metadata["expected"]`` is the expected value; a metric written for
    this reads those two. A pair the metric cannot score raises its error,
    which makes the whole case an error rather than a guess."""

    metric: Any = attrs.field(converter=_scoring_metric)

    def __call__(self, actual: Any, expected: Any) -> float:
        from agentmetrics import AgentTestCase

        case = AgentTestCase(actual_output=actual, metadata={"expected": expected})
        return self.metric.evaluate(case).value  # type: ignore[no-any-return]


Rule = Exact | Normalized | Numeric | SetEqual | Function | MetricRule

#: The rules that can be named by a string.
RULE_NAMES: dict[str, Rule] = {
    "exact": Exact(),
    "normalized": Normalized(),
    "numeric": Numeric(),
    "set_equal": SetEqual(),
}


_BUILT_IN = (Exact, Normalized, Numeric, SetEqual)


def _canonical_set(items: Any) -> frozenset[str]:
    import json

    return frozenset(json.dumps(item, sort_keys=True, default=repr) for item in items)


def as_rule(rule: object, where: str) -> Rule:
    """``rule`` as a Rule: one of RULE_NAMES, a rule object, or a callable."""
    if isinstance(rule, str):
        if rule in RULE_NAMES:
            return RULE_NAMES[rule]
        raise InvalidParameterError(
            f"{where}: unknown comparison {rule!r}; expected one of {', '.join(RULE_NAMES)}, "
            f"a rule such as Numeric(abs_tol=0.01), or a callable (actual, expected) -> bool | float.")
    if isinstance(rule, (Exact, Normalized, Numeric, SetEqual, Function, MetricRule)):
        return rule
    from agentmetrics import Metric

    if isinstance(rule, Metric):
        return MetricRule(rule)
    if callable(rule):
        return Function(rule)
    raise InvalidParameterError(
        f"{where}: expected a comparison name ({', '.join(RULE_NAMES)}), a rule object, a "
        f"metric (or MetricRule(name)) or a callable, got {type(rule).__name__} {rule!r}.")


@attrs.frozen(slots=True)
class RuleSet:
    """A default rule and rules by path (``"address.city"``). A path with a
    rule of its own is compared whole; other nested objects are compared leaf
    by leaf."""

    default: Rule
    by_path: Mapping[str, Rule]

    @classmethod
    def of(cls, default: object, by_path: Mapping[str, object] | None, owner: str) -> RuleSet:
        if by_path is not None and not isinstance(by_path, Mapping):
            raise InvalidParameterError(
                f"{owner}: rules must map argument paths to comparisons, got {type(by_path).__name__}.")
        paths = {}
        for path, rule in (by_path or {}).items():
            if not isinstance(path, str) or not path:
                raise InvalidParameterError(f"{owner}: rule paths are non-empty str, got {path!r}.")
            paths[path] = as_rule(rule, f"{owner}: rules[{path!r}]")
        return cls(as_rule(default, f"{owner}: compare"), paths)

    def rule(self, path: str) -> Rule:
        return self.by_path.get(path, self.default)

    @property
    def pure(self) -> bool:
        """Whether every rule is one of the built-in comparisons (cheap, and the
        same answer every time), not a function or a metric of the user's."""
        return all(isinstance(rule, _BUILT_IN) for rule in (self.default, *self.by_path.values()))


@attrs.frozen(slots=True)
class Compared:
    """One value against its expected value: credit per expected leaf path,
    and the paths missing, extra and differing."""

    expected: int
    credit: float
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    differing: tuple[tuple[str, Any, Any], ...]  # (path, expected, actual)

    def score(self, count_extra: bool) -> float:
        total = self.expected + (len(self.extra) if count_extra else 0)
        if total == 0:
            return 1.0
        return self.credit / total


_PLAIN = frozenset({str, int, float, bool, type(None), list, tuple})
_NO_BOOL = _PLAIN - {bool}
_SCALARS = frozenset({str, int, float, bool, type(None)})
_ABSENT = object()  # what a missing key reads as: equal to no value


def _is_object(value: Any) -> bool:
    kind = type(value)
    return kind is dict or (kind not in _PLAIN and isinstance(value, Mapping))


def _leaves(value: Mapping[str, Any], rules: RuleSet, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, item in value.items():
        path = f"{prefix}{key}"
        if _is_object(item) and item and path not in rules.by_path:
            yield from _leaves(item, rules, path + ".")
        else:
            yield path, item


def _flattened(value: Mapping[str, Any], rules: RuleSet) -> Mapping[str, Any]:
    if type(value) is dict and (_PLAIN.issuperset(map(type, value.values()))
                                or not any(map(_is_object, value.values()))):
        return value  # flat already (the common case): no copy
    return dict(_leaves(value, rules))


def compare_values(actual: Any, expected: Any, rules: RuleSet) -> Compared:
    """Mappings leaf by leaf (each expected leaf one unit of credit); any other
    value as one unit, compared with the default rule."""
    if _is_object(expected) and _is_object(actual):
        want = _flattened(expected, rules)
        got = _flattened(actual, rules)
        credit = 0.0
        differing = []
        missing = []
        by_path, default = rules.by_path, rules.default
        for path, value in want.items():
            if path not in got:
                missing.append(path)
                continue
            share = (by_path.get(path) or default)(got[path], value) if by_path else default(got[path], value)
            credit += share
            if share < 1.0:
                differing.append((path, value, got[path]))
        extra = tuple(path for path in got if path not in want)
        return Compared(len(want), credit, tuple(missing), extra, tuple(differing))
    share = rules.default(actual, expected)
    return Compared(1, share, (), (), () if share == 1.0 else (("", expected, actual),))


def score_values(actual: Any, expected: Any, rules: RuleSet, count_extra: bool) -> float:
    """``compare_values(actual, expected, rules).score(count_extra)``, the same
    float, without collecting what differs: the value of a case whose reason is
    not asked for."""
    if actual is MALFORMED:
        return 0.0
    default = rules.default
    if type(default) is Exact and type(expected) in _SCALARS and type(actual) in _SCALARS:
        # Exact inline on two strings or numbers (a bool is not a number here)
        return 1.0 if (type(actual) is bool) == (type(expected) is bool) and actual == expected else 0.0
    if type(expected) is dict and type(actual) is dict and not rules.by_path \
            and type(default) is Exact and _NO_BOOL.issuperset(map(type, expected.values())) \
            and _NO_BOOL.issuperset(map(type, actual.values())):
        # Flat objects without booleans under Exact (the common case): Exact
        # is ==, and the credit is the count of expected keys given an equal
        # value, counted at C speed (operator.eq: no identity shortcut, so NaN
        # is never equal to itself, as in Exact).
        total = len(expected) + (len(actual.keys() - expected.keys()) if count_extra else 0)
        if total == 0:
            return 1.0
        hits: int = sum(map(operator.eq, map(actual.get, expected, repeat(_ABSENT)), expected.values()))
        return hits / total
    if not ((type(expected) is dict or _is_object(expected))
            and (type(actual) is dict or _is_object(actual))):
        return default(actual, expected)  # one unit of credit: share / 1
    want = _flattened(expected, rules)
    got = _flattened(actual, rules)
    credit = 0.0
    by_path = rules.by_path
    if not by_path and type(default) is Exact:  # Exact inline
        for path, value in want.items():
            if path in got:
                other = got[path]
                if (type(other) is bool) == (type(value) is bool) and other == value:
                    credit += 1.0
    else:
        for path, value in want.items():
            if path in got:
                credit += (by_path.get(path) or default)(got[path], value) if by_path else default(got[path], value)
    total = len(want)
    if count_extra:
        total += sum(1 for path in got if path not in want)
    return 1.0 if total == 0 else credit / total
