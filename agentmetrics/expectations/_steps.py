"""What the calls should be: steps, the Expectation that holds them, and their JSON form.

Steps nest: a :class:`Call` (one call, its arguments matched), :class:`InOrder`
(each step's calls after the previous step's), :class:`AnyOrder` (each step
once, in any order, interleaved), :class:`OptionalStep` (may happen; earns
nothing, costs nothing), :class:`Repeat` (one call pattern at least / at most
n times) and :class:`Either` (one of several alternatives). An
:class:`Expectation` is a root step, the calls that must never happen, and
whether calls no step accounts for are allowed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from agentmetrics._base._lines import check_depth
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations._matchers import Matcher, fields_match, matcher_from_json, named_matchers

__all__ = ["AnyOrder", "Call", "Either", "Expectation", "InOrder", "OptionalStep", "Repeat", "Step",
           "expectation_from_json", "step_from_json", "weight"]


def _fail(path: str, expected: str, got: Any, fix: str) -> InvalidCaseError:
    shown = repr(got)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InvalidCaseError(f"{path}: expected {expected}, got {shown}. Fix: {fix}")


class Step:
    """The base of steps."""

    __slots__ = ()

    def to_json(self) -> Any:
        raise NotImplementedError


def _arguments(value: Mapping[str, Any] | None) -> tuple[tuple[str, Matcher], ...] | None:
    """None (any arguments), or the argument matchers by name."""
    if value is None:
        return None
    return named_matchers(value, "Call.arguments", "{'city': 'Paris'} (or None: any arguments)")


@attrs.frozen(slots=True)
class Call(Step):
    """One call to ``name`` (compared as it is). ``arguments``: None accepts any
    arguments; a mapping of argument names to matchers (plain values mean
    equal) accepts a call whose arguments match them, an omittable matcher's
    argument may be missing, and other arguments are refused unless
    ``extra_arguments="allow"``."""

    name: str
    arguments: tuple[tuple[str, Matcher], ...] | None = attrs.field(default=None, converter=_arguments)
    extra_arguments: str = "forbid"

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise _fail("Call.name", "a non-empty tool name", self.name, "pass the tool's name.")
        if self.extra_arguments not in ("forbid", "allow"):
            raise _fail("Call.extra_arguments", "'forbid' or 'allow'", self.extra_arguments,
                        "pass extra_arguments='allow' to accept arguments not listed.")

    def accepts(self, name: str, arguments: Mapping[str, Any]) -> bool:
        if name != self.name:
            return False
        if self.arguments is None:
            return True
        return fields_match(self.arguments, arguments, self.extra_arguments == "allow")

    def failing_arguments(self, arguments: Mapping[str, Any]) -> list[str]:
        """Why a same-named call's arguments are refused, one text per argument."""
        if self.arguments is None:
            return []
        out = []
        for key, matcher in self.arguments:
            if key not in arguments:
                if not matcher.omittable:
                    out.append(f"{key} missing (expected {matcher.describe()})")
            elif not matcher.matches(arguments[key]):
                shown = repr(arguments[key])
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                out.append(f"{key}={shown} (expected {matcher.describe()})")
        if self.extra_arguments == "forbid":
            named = {key for key, _ in self.arguments}
            out.extend(f"{key} not expected" for key in arguments if key not in named)
        return out

    def to_json(self) -> Any:
        out: dict[str, Any] = {"call": self.name}
        if self.arguments is not None:
            out["arguments"] = {key: matcher.to_json() for key, matcher in self.arguments}
        if self.extra_arguments != "forbid":
            out["extra_arguments"] = self.extra_arguments
        return out

    def describe(self) -> str:
        if not self.arguments:
            return self.name
        text = ", ".join(f"{key}={matcher.describe()}" for key, matcher in self.arguments)
        return f"{self.name}({text if len(text) <= 60 else text[:57] + '...'})"


def _steps(items: Iterable[Any]) -> tuple[Step, ...]:
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise _fail("steps", "a list of steps", items, "pass a list such as [Call('a'), Call('b')].")
    out = tuple(items)
    for k, step in enumerate(out):
        if not isinstance(step, Step):
            raise _fail(f"steps[{k}]", "a step (Call, InOrder, AnyOrder, OptionalStep, Repeat, Either)",
                        step, "build it with agentmetrics.expectations' functions.")
    return out


@attrs.frozen(slots=True)
class InOrder(Step):
    """The steps one after another: every call of a step before every call of
    the next (other calls may come between)."""

    steps: tuple[Step, ...] = attrs.field(converter=_steps)

    def to_json(self) -> Any:
        return {"in_order": [step.to_json() for step in self.steps]}


@attrs.frozen(slots=True)
class AnyOrder(Step):
    """Each step once, in any order (their calls may interleave)."""

    steps: tuple[Step, ...] = attrs.field(converter=_steps)

    def to_json(self) -> Any:
        return {"any_order": [step.to_json() for step in self.steps]}


@attrs.frozen(slots=True)
class OptionalStep(Step):
    """``step`` may happen: its calls are accounted for (never extra), and it
    earns nothing when it happens nor costs anything when it does not."""

    step: Step

    def __attrs_post_init__(self) -> None:
        _steps([self.step])

    def to_json(self) -> Any:
        return {"optional": self.step.to_json()}


@attrs.frozen(slots=True)
class Repeat(Step):
    """``call`` made at least ``at_least`` and at most ``at_most`` times (None:
    no limit). Each of the first ``at_least`` counts as a required step; calls
    beyond ``at_most`` are not accounted for (extra calls)."""

    call: Call
    at_least: int = 1
    at_most: int | None = None

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.call, Call):
            raise _fail("Repeat.call", "a Call", self.call, "repeat one call pattern: Repeat(Call('poll')).")
        if type(self.at_least) is not int or self.at_least < 0:
            raise _fail("Repeat.at_least", "an int >= 0", self.at_least, "pass at_least=1, say.")
        if self.at_most is not None and (type(self.at_most) is not int or self.at_most < max(self.at_least, 1)):
            raise _fail("Repeat.at_most", f"None or an int >= {max(self.at_least, 1)}", self.at_most,
                        "pass at_most at least as large as at_least (and at least 1).")

    def to_json(self) -> Any:
        out: dict[str, Any] = {"repeat": self.call.to_json(), "at_least": self.at_least}
        if self.at_most is not None:
            out["at_most"] = self.at_most
        return out


@attrs.frozen(slots=True)
class Either(Step):
    """One of the alternatives (the one that scores best). It counts as one
    required step, credited with the share of the chosen alternative's
    required steps that are met."""

    alternatives: tuple[Step, ...] = attrs.field(converter=_steps)

    def __attrs_post_init__(self) -> None:
        if len(self.alternatives) < 2:
            raise _fail("Either.alternatives", "at least two alternatives", self.alternatives,
                        "give two or more steps, or use the step itself.")

    def to_json(self) -> Any:
        return {"either": [step.to_json() for step in self.alternatives]}


def _root(value: Any) -> Step:
    if isinstance(value, Step):
        return value
    if isinstance(value, (list, tuple)):
        return InOrder(value)
    raise _fail("Expectation.steps", "a step or a list of steps (in order)", value,
                "pass Call('a') or [Call('a'), Call('b')].")


def _never(items: Iterable[Any]) -> tuple[Call, ...]:
    if isinstance(items, (str, Mapping)) or not isinstance(items, Iterable):
        raise _fail("Expectation.never", "a list of Call patterns", items, "pass [Call('delete_user')].")
    out = tuple(items)
    for k, call in enumerate(out):
        if not isinstance(call, Call):
            raise _fail(f"Expectation.never[{k}]", "a Call pattern", call, "pass Call('delete_user').")
    return out


@attrs.frozen(slots=True)
class Expectation:
    """What the calls should be: ``steps`` (a step, or a list of steps in
    order); ``never``, call patterns that must not be matched by any call;
    ``extra_calls``: ``"forbid"`` (the default) counts every call no step
    accounts for against the score, ``"allow"`` ignores them."""

    steps: Step = attrs.field(converter=_root)
    never: tuple[Call, ...] = attrs.field(default=(), converter=_never)
    extra_calls: str = "forbid"
    _weight: float = attrs.field(init=False, eq=False, hash=False, repr=False)
    #: The compiled steps expectation_match's values use, made on first use.
    _plan: Any = attrs.field(init=False, default=None, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.extra_calls not in ("forbid", "allow"):
            raise _fail("Expectation.extra_calls", "'forbid' or 'allow'", self.extra_calls,
                        "pass extra_calls='allow' to ignore calls no step accounts for.")
        object.__setattr__(self, "_weight", weight(self.steps))

    def __getstate__(self) -> dict[str, Any]:  # the compiled plan is not data
        return {"steps": self.steps, "never": self.never, "extra_calls": self.extra_calls}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_weight", weight(self.steps))
        object.__setattr__(self, "_plan", None)

    @property
    def required_steps(self) -> float:
        """How many required steps the expectation counts (see expectation_match)."""
        return self._weight

    def to_json(self) -> dict[str, Any]:
        """The JSON form (what :func:`expectation_from_json` reads back)."""
        out: dict[str, Any] = {"steps": self.steps.to_json()}
        if self.never:
            out["never"] = [call.to_json() for call in self.never]
        if self.extra_calls != "forbid":
            out["extra_calls"] = self.extra_calls
        return out

    def canonical(self) -> str:
        """The JSON form as text with sorted keys: equal expectations, equal text."""
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)

    def required_tool_names(self) -> tuple[str, ...] | None:
        """The names of the calls required in every way of meeting the
        expectation, in order, when that is one fixed sequence (steps of only
        Calls in order and Repeats of a fixed count); None otherwise."""
        names: list[str] = []

        def walk(step: Step) -> bool:
            if isinstance(step, Call):
                names.append(step.name)
                return True
            if isinstance(step, InOrder):
                return all(walk(inner) for inner in step.steps)
            if isinstance(step, AnyOrder) and len(step.steps) <= 1:
                return all(walk(inner) for inner in step.steps)
            if isinstance(step, Repeat) and step.at_most == step.at_least:
                names.extend([step.call.name] * step.at_least)
                return True
            return False

        return tuple(names) if walk(self.steps) else None


def weight(step: Step) -> float:
    """How many required steps ``step`` counts for: 1 a Call, ``at_least`` a
    Repeat, 1 an Either, 0 an OptionalStep, the sum of an InOrder's or
    AnyOrder's steps."""
    if isinstance(step, Call):
        return 1.0
    if isinstance(step, (InOrder, AnyOrder)):
        return sum(weight(inner) for inner in step.steps)
    if isinstance(step, OptionalStep):
        return 0.0
    if isinstance(step, Repeat):
        return float(step.at_least)
    assert isinstance(step, Either)
    return 1.0


_STEP_KEYS = {"call": {"arguments", "extra_arguments"}, "in_order": set(), "any_order": set(),
              "optional": set(), "repeat": {"at_least", "at_most"}, "either": set()}


def expectation_from_json(value: Any, path: str = "expectation") -> Expectation:
    """The Expectation a JSON form describes: ``{"steps": step or [steps],
    "never": [calls], "extra_calls": "forbid" | "allow"}``; errors name the path
    inside it."""
    if isinstance(value, Expectation):
        return value
    check_depth(value, path, fix="flatten the expectation: no step or matcher needs to nest so "
                "deep (steps and argument matchers are read recursively).")
    if not isinstance(value, Mapping):
        raise _fail(path, 'an object {"steps": ..., "never": [...], "extra_calls": ...}', value,
                    'write e.g. {"steps": [{"call": "search"}, {"call": "book"}]}.')
    unknown = sorted(set(value) - {"steps", "never", "extra_calls"})
    if unknown or "steps" not in value:
        raise _fail(path, "the keys steps (required), never, extra_calls", sorted(value),
                    'write e.g. {"steps": [{"call": "search"}]}.')
    steps = value["steps"]
    root = (InOrder([step_from_json(s, f"{path}.steps[{k}]") for k, s in enumerate(steps)])
            if isinstance(steps, list) else step_from_json(steps, f"{path}.steps"))
    never = value.get("never", [])
    if not isinstance(never, list):
        raise _fail(f"{path}.never", "a list of call patterns", never, 'write [{"call": "delete"}].')
    calls = []
    for k, item in enumerate(never):
        call = step_from_json(item, f"{path}.never[{k}]")
        if not isinstance(call, Call):
            raise _fail(f"{path}.never[{k}]", "a call pattern", item, 'write {"call": "delete"}.')
        calls.append(call)
    try:
        return Expectation(root, calls, value.get("extra_calls", "forbid"))
    except InvalidCaseError as error:
        raise InvalidCaseError(f"{path}: {error}") from None


def step_from_json(value: Any, path: str) -> Step:
    if not isinstance(value, Mapping):
        raise _fail(path, f"a step object with one of the keys {sorted(_STEP_KEYS)}", value,
                    'write e.g. {"call": "search"} or {"any_order": [...]}.')
    kinds = [key for key in value if key in _STEP_KEYS]
    if len(kinds) != 1:
        raise _fail(path, f"exactly one of the keys {sorted(_STEP_KEYS)}", sorted(value),
                    "write one step per object.")
    kind = kinds[0]
    unknown = sorted(set(value) - {kind} - _STEP_KEYS[kind])
    if unknown:
        raise _fail(path, f"the options of {kind}: {sorted(_STEP_KEYS[kind]) or 'none'}", unknown,
                    "remove the unknown keys.")
    body = value[kind]
    try:
        if kind == "call":
            arguments = value.get("arguments")
            if arguments is not None and not isinstance(arguments, Mapping):
                raise _fail(f"{path}.arguments", "an object of argument matchers", arguments,
                            'write {"city": "Paris"}.')
            matchers = (None if arguments is None else
                        {key: matcher_from_json(item, f"{path}.arguments.{key}")
                         for key, item in arguments.items()})
            return Call(body, matchers, value.get("extra_arguments", "forbid"))
        if kind in ("in_order", "any_order", "either"):
            if not isinstance(body, list):
                raise _fail(f"{path}.{kind}", "a list of steps", body, f'write "{kind}": [...].')
            inner = [step_from_json(item, f"{path}.{kind}[{k}]") for k, item in enumerate(body)]
            return {"in_order": InOrder, "any_order": AnyOrder, "either": Either}[kind](inner)
        if kind == "optional":
            return OptionalStep(step_from_json(body, f"{path}.optional"))
        call = step_from_json(body, f"{path}.repeat")
        return Repeat(call, value.get("at_least", 1), value.get("at_most"))  # type: ignore[arg-type]
    except InvalidCaseError as error:
        if str(error).startswith(path):
            raise
        raise InvalidCaseError(f"{path}: {error}") from None
