"""agentevals_trajectory: agentevals' trajectory match evaluator, reproduced."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import (
    AgentMetricsWarning,
    AgentTestCase,
    InvalidCaseError,
    InvalidParameterError,
    Metric,
    ToolCall,
)
from agentmetrics.errors import call_user_function

from agentmetrics_compat._common import (
    check_choice,
    names_reason,
    readable_arguments,
    require_readable,
    show_call,
    unreadable_rows_nan,
)

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["ARGS_MODES", "TRAJECTORY_MODES", "AgentevalsTrajectory", "first_unmatched"]

_NAME = "agentevals_trajectory"
#: What agentevals does with a call given no arguments.
_ABSENT = ("agentevals parses each call's arguments (JSON null for none) into an object and "
           "refuses the case, in every mode.")
TRAJECTORY_MODES = ("unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")

Matcher = Callable[[dict[str, Any], dict[str, Any]], bool]
Override = str | Sequence[str] | Matcher


def _exact(first: dict[str, Any], second: dict[str, Any]) -> bool:
    return first == second


def _ignore(first: dict[str, Any], second: dict[str, Any]) -> bool:
    return True


def _inside(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Every argument of ``first`` is in ``second`` with an equal value."""
    return all(key in second and second[key] == value for key, value in first.items())


def _around(first: dict[str, Any], second: dict[str, Any]) -> bool:
    return _inside(second, first)


_MATCHERS: dict[str, Matcher] = {"exact": _exact, "ignore": _ignore, "subset": _inside,
                                 "superset": _around}


def _at(arguments: Any, path: str) -> Any:
    """The value at a dotted path, None where a step is missing or not an object
    (as agentevals reads it: a None value and a missing key look the same)."""
    current = arguments
    for part in path.split("."):
        if not isinstance(current, dict):
            return None
        current = current.get(part)
        if current is None:
            return None
    return current


class _OnKeys:
    """Arguments equal at the listed dotted paths, read in order until one
    differs (as agentevals' ``all(...)`` does). A path that is not text is
    refused when it is reached: agentevals raises there (``key.split``)."""

    __slots__ = ("keys", "tool")

    def __init__(self, keys: tuple[Any, ...], tool: str) -> None:
        self.keys = keys
        self.tool = tool

    def __call__(self, first: dict[str, Any], second: dict[str, Any]) -> bool:
        for key in self.keys:
            if not isinstance(key, str):
                raise InvalidCaseError(
                    f"{_NAME}: the override for {self.tool!r} lists {key!r}, which is not a "
                    f"dotted argument path; agentevals raises when it reaches it "
                    f"(AttributeError: no 'split'), so the case is refused, as agentevals "
                    f"refuses it. Fix: list paths as strings, e.g. ['city', 'address.zip'].")
            if _at(first, key) != _at(second, key):
                return False
        return True


class _Invalid:
    """An override agentevals cannot use (neither a mode, a list of paths nor
    a function): refused when a call of its tool is compared, as agentevals
    raises there (``ValueError: Invalid tool args match override``)."""

    __slots__ = ("rule", "tool")

    def __init__(self, tool: str, rule: Any) -> None:
        self.tool = tool
        self.rule = rule

    def __call__(self, first: dict[str, Any], second: dict[str, Any]) -> bool:
        raise InvalidCaseError(
            f"{_NAME}: the override for {self.tool!r} is {type(self.rule).__name__} "
            f"{self.rule!r:.60}; expected a mode, a list of dotted argument paths or a function. "
            f"agentevals raises when it compares a call of that tool (ValueError: Invalid tool "
            f"args match override), so the case is refused, as agentevals refuses it. Fix: use "
            f"one of {', '.join(map(repr, ARGS_MODES))}, a list (not a tuple) of paths, or a "
            f"function.")


class _UserMatcher:
    """The user's override function, read as agentevals reads it: its result's
    truth value (``1`` and ``"yes"`` match, ``0``, ``""`` and ``None`` do
    not). What it raises makes the case an error row naming the function."""

    __slots__ = ("function", "role")

    def __init__(self, tool: str, function: Matcher) -> None:
        self.function = function
        self.role = f"{_NAME}: the override for {tool!r}"

    def __call__(self, first: dict[str, Any], second: dict[str, Any]) -> bool:
        return bool(call_user_function(self.function, self.role, first, second, truth=True))


def _mode_matcher(mode: str) -> Matcher:
    """agentevals' matcher for a mode given as text: exact, subset or
    superset; any other text (an unknown mode, ``"EXACT"``) ignores the
    arguments, as agentevals reads it."""
    for known in ("exact", "subset", "superset"):
        if mode == known:
            return _MATCHERS[known]
    return _ignore


def _override(tool: str, rule: Any, default: Matcher) -> Matcher:
    """The matcher agentevals uses for ``tool`` given its override: a falsy
    one (``[]``, ``""``, ``None``) is no override; text is a mode; a function
    is the user's; a list holds dotted paths; anything else is refused when
    used."""
    try:
        given = bool(rule)
    except Exception:  # no truth value (an array): agentevals raises where it asks
        return _Invalid(tool, rule)
    if not given:
        return default
    if isinstance(rule, str):
        return _mode_matcher(rule)
    if callable(rule):
        return _UserMatcher(tool, rule)
    if isinstance(rule, list):
        return _OnKeys(tuple(rule), tool)
    return _Invalid(tool, rule)


def first_unmatched(outer: Sequence[ToolCall], inner: Sequence[ToolCall],
                    matcher: Callable[[str], Matcher]) -> int | None:
    """agentevals' cover test: each call of ``inner`` in turn takes the first
    unused same-named call of ``outer`` whose arguments match
    (``matcher(name)(outer arguments, inner arguments)``). The index of the
    first inner call left without one, or None when all found one. First-fit,
    as agentevals does it: it can miss a matching that exists."""
    used: set[int] = set()
    for j, want in enumerate(inner):
        match = matcher(want.name)
        for i, got in enumerate(outer):
            if got.name == want.name and i not in used and match(got.arguments, want.arguments):
                used.add(i)
                break
        else:
            return j
    return None


class AgentevalsTrajectory(Metric):
    """agentevals' ``create_trajectory_match_evaluator`` (0.0.9): 1.0 when the
    tool calls match in the chosen mode, else 0.0.

    - ``trajectory_match_mode``: ``"unordered"`` (the same calls, any order,
      repeats counted), ``"superset"`` (every expected call made; extra calls
      allowed), ``"subset"`` (every call made was expected).
      agentevals' default, ``"strict"``, compares the message list itself
      (roles and which assistant message holds which calls), which an
      AgentTestCase does not keep: it is refused (trajectory_match with
      mode="exact" checks the order of calls).
    - ``tool_args_match_mode``: ``"exact"``, ``"ignore"``, ``"subset"`` or
      ``"superset"``; ``tool_args_match_overrides`` sets a mode, a list of
      dotted argument paths to compare, or a function
      ``(arguments, reference arguments) -> bool`` per tool name.
    - Overrides are read as agentevals reads them, when a call of their tool
      is compared: an empty one (``[]``, ``""``, ``None``) means the default
      mode; text other than a known mode (``"EXACT"`` included) ignores the
      arguments (a warning says so at construction); a function's result is
      taken by its truth value; a list path that is not text, a tuple or any
      other value refuses the cases that reach it. A function that raises
      makes its case an error row naming the function (UserFunctionError).
    - A call given no arguments (``ToolCall(name, None)``) or arguments that
      are not an object is refused in every mode, ``"ignore"`` included:
      agentevals parses every call's arguments into an object first.
    - Quirks kept: calls pair **first-fit**, so a matching can be missed when
      argument rules are loose; in ``"subset"`` mode the argument rule is
      applied with the sides swapped (the expected call's arguments first);
      arguments compare with Python equality (``1 == 1.0``).
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "agentevals' trajectory match (unordered, subset, superset), reproduced."
    default_threshold: ClassVar[float] = 1.0

    def __init__(self, threshold: float | None = None, trajectory_match_mode: str = "unordered",
                 tool_args_match_mode: str = "exact",
                 tool_args_match_overrides: Mapping[str, Override] | None = None) -> None:
        if getattr(trajectory_match_mode, "value", trajectory_match_mode) == "strict":
            raise InvalidParameterError(
                f"{_NAME}: trajectory_match_mode='strict' compares agentevals' message list "
                f"(roles, and which assistant message holds which calls), which an "
                f"AgentTestCase does not keep. Fix: use 'unordered', 'subset' or 'superset', or "
                f"trajectory_match with mode='exact' for the calls in order.")
        self.trajectory_match_mode = check_choice(_NAME, "trajectory_match_mode",
                                                  trajectory_match_mode, TRAJECTORY_MODES)
        self.tool_args_match_mode = check_choice(_NAME, "tool_args_match_mode",
                                                 tool_args_match_mode, ARGS_MODES)
        if tool_args_match_overrides is not None and not isinstance(tool_args_match_overrides,
                                                                     Mapping):
            raise InvalidParameterError(
                f"{_NAME}: tool_args_match_overrides must map tool names to overrides, got "
                f"{type(tool_args_match_overrides).__name__}.")
        self.tool_args_match_overrides = (None if tool_args_match_overrides is None
                                          else dict(tool_args_match_overrides))
        self._default = _MATCHERS[self.tool_args_match_mode]
        self._matchers = {tool: _override(tool, rule, self._default)
                          for tool, rule in (self.tool_args_match_overrides or {}).items()}
        for tool, rule in (self.tool_args_match_overrides or {}).items():
            if isinstance(rule, str) and rule and rule not in ARGS_MODES:
                warnings.warn(
                    f"{_NAME}: the override {rule!r} for {tool!r} is not a mode agentevals knows "
                    f"({', '.join(map(repr, ARGS_MODES))}); agentevals reads it as 'ignore', "
                    f"and so does this metric.", AgentMetricsWarning, stacklevel=2)
        super().__init__(threshold)

    def _matcher(self, tool: str) -> Matcher:
        return self._matchers.get(tool, self._default)

    def _show(self, call: ToolCall) -> str:
        return call.name if self._names_only() else show_call(call)

    def _names_only(self) -> bool:
        return self._default is _ignore and all(m is _ignore for m in self._matchers.values())

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        called, expected = case.tool_calls, case.expected_tool_calls
        fix = "repair them (agentevals parses every call's arguments into an object)."
        readable_arguments(_NAME, called, "called", fix, _ABSENT)
        readable_arguments(_NAME, expected, "expected", fix, _ABSENT)
        mode = self.trajectory_match_mode
        if mode in ("superset", "unordered"):
            j = first_unmatched(called, expected, self._matcher)
            if j is not None:
                return 0.0, (f"{mode}: expected call #{j + 1} {self._show(expected[j])} found no "
                             f"unused call with the same name and matching arguments (first-fit)")
        if mode in ("subset", "unordered"):
            i = first_unmatched(expected, called, self._matcher)
            if i is not None:
                return 0.0, (f"{mode}: call #{i + 1} {self._show(called[i])} found no unused "
                             f"expected call with the same name and matching arguments (first-fit)")
        return 1.0, f"{mode}: {len(called)} calls made, {len(expected)} expected, all matched"

    def _value(self, case: AgentTestCase) -> float:
        """What ``measure(case)`` gives as the value (raises where it refuses)."""
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        return self._value_of(case.tool_calls, case.expected_tool_calls)

    def _value_of(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> float:
        """The value of a case holding these calls (raises where measure refuses it)."""
        require_readable(called, expected, absent=True)
        mode = self.trajectory_match_mode
        if mode != "subset" and first_unmatched(called, expected, self._matcher) is not None:
            return 0.0
        if mode != "superset" and first_unmatched(expected, called, self._matcher) is not None:
            return 0.0
        return 1.0

    def scores_from_names(self) -> bool:
        return self._names_only()

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized when arguments are ignored, or compared exactly for
        every tool: first-fit under an equality is a maximum matching, so the
        match is a count of calls paired by name (or by call key:
        ``batch.call_keys()``, rows the keys leave out and rows holding a call
        given no arguments scored by ``measure``, which refuses them). Other
        argument rules case by case in one tight loop of values (with an
        override function of the user's, through ``evaluate`` once), from each
        row's calls where the batch has them (``batch.call_lists()``). Each
        reason is made by ``evaluate`` when asked for."""
        import numpy as np

        from agentmetrics.batch import (
            CallKeys,
            batch_errors,
            case_values,
            check_errors_mode,
            ratio_values,
            require_cases,
            row_multiset_overlap,
            values_of_calls,
        )

        def values(batch: ToolCallBatch, keys: CallKeys | None = None) -> Any:
            paired = row_multiset_overlap(batch, keys)
            ok = np.ones(len(batch), dtype=bool)
            if self.trajectory_match_mode in ("superset", "unordered"):
                ok &= paired == np.diff(batch.expected_offsets)
            if self.trajectory_match_mode in ("subset", "unordered"):
                ok &= paired == np.diff(batch.called_offsets)
            if keys is None:
                return unreadable_rows_nan(batch, ok.astype(np.float64), absent=True)
            out = ok.astype(np.float64)
            out[keys.unkeyed | keys.not_given] = np.nan  # measure refuses them, with its message
            return out

        if not self._names_only():
            require_cases(self, batch, f"with tool_args_match_mode={self.tool_args_match_mode!r} "
                                       f"compares arguments", "tool_args_match_mode='ignore'")
            if any(isinstance(m, _UserMatcher) for m in self._matchers.values()):
                # a function of the user's may be costly or not give the same answer
                # twice: each case through evaluate once
                return super().evaluate_batch(batch, errors=check_errors_mode(errors))
            # Exact arguments for every tool: equality, so first-fit pairs as many
            # calls as a maximum matching does, a count of equal call keys.
            exact = self._default is _exact and all(m is _exact for m in self._matchers.values())
            keys = batch.call_keys("python") if exact else None
            if keys is None:  # each row from its calls, each distinct call built once
                return case_values(self, batch, errors, self._value,
                                   bulk=lambda batch: values_of_calls(batch, self._value_of))
            return case_values(self, batch, errors, self._value,
                               bulk=lambda batch: values(batch, keys))

        if batch.cases is not None:  # a case whose arguments agentevals refuses goes to measure
            return case_values(self, batch, errors, self._value, bulk=values)
        failed = batch_errors(self, batch, errors)
        return ratio_values(self, batch, values(batch), failed, names_reason(self))

