"""What an expected argument may be: matchers, their JSON form, and their checks.

A matcher says whether one argument value is acceptable (``matches``) and
whether the argument may be left out (``omittable``). Every matcher is a
frozen, slotted attrs class: hashable, picklable, equal when it accepts the
same thing written the same way. ``from_json`` reads the JSON form (a plain
value means "equal to this"; an object whose one key starts with ``$`` is a
matcher), ``to_json`` writes it back.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import attrs

from agentmetrics._base._lines import check_depth
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations._regex import BoundedPattern, RegexRefused, RegexTooCostly, bounded

__all__ = [
    "AnyValue", "Close", "Equals", "Items", "Matcher", "MayOmit", "Object", "OneOf", "Regex",
    "Text", "equal_values", "fields_match", "matcher_from_json", "matching", "named_matchers", "perfect_matching",
    "to_matcher",
]

_NUMBERS = ("equal", "typed")
_EXTRA = ("forbid", "allow")


def _fail(path: str, expected: str, got: Any, fix: str) -> InvalidCaseError:
    return InvalidCaseError(f"{path}: expected {expected}, got {_shown(got)}. Fix: {fix}")


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) or (isinstance(value, (int, float)) and not isinstance(value, bool))


def equal_values(a: Any, b: Any, typed: bool) -> bool:
    """JSON values equal: objects key by key, lists item by item; a bool is
    never a number; with ``typed``, an int never equals a float (else ``1`` and
    ``1.0`` are equal); NaN equals nothing."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        if typed and isinstance(a, float) != isinstance(b, float):
            return False
        return bool(a == b)
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(equal_values(a[k], b[k], typed) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal_values(x, y, typed) for x, y in zip(a, b))
    return False


def _check_json_value(value: Any, path: str) -> None:
    """A value an Equals may hold: JSON's types, finite numbers, str keys."""
    if value is None or isinstance(value, (bool, str)):
        return
    if _is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise _fail(path, "a finite number", value, "NaN and infinities equal nothing; use a "
                        "matcher such as {'$any': true}.")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _fail(path, "an object with string keys", key, "write the keys as strings.")
            _check_json_value(item, f"{path}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            _check_json_value(item, f"{path}[{k}]")
        return
    raise _fail(path, "a JSON value (null, bool, number, string, list, object)", value,
                "convert it to a JSON value.")


def _thaw(value: Any) -> Any:
    """A JSON value as a fresh plain one (tuples become lists, mappings dicts)."""
    if isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(item) for item in value]
    return value


class Matcher:
    """The base of argument matchers."""

    __slots__ = ()
    omittable: ClassVar[bool] = False

    def matches(self, value: Any) -> bool:
        raise NotImplementedError

    def to_json(self) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        """A short text for reasons."""
        text = json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True)
        return text if len(text) <= 60 else text[:57] + "..."


@attrs.frozen(slots=True, eq=False, repr=False)
class Equals(Matcher):
    """Equal to ``value`` (a JSON value): ``numbers="equal"`` (the default)
    takes ``1`` and ``1.0`` as equal, ``"typed"`` does not; a bool is never a
    number; objects and lists compare item by item."""

    value: Any
    numbers: str = "equal"
    _key: str = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        check_depth(self.value, "Equals.value", fix="flatten the value.")
        _check_json_value(self.value, "Equals.value")
        if self.numbers not in _NUMBERS:
            raise _fail("Equals.numbers", "'equal' or 'typed'", self.numbers,
                        "pass numbers='equal' (1 == 1.0) or numbers='typed'.")
        object.__setattr__(self, "_key", json.dumps(self.value, sort_keys=True) + "|" + self.numbers)
        object.__setattr__(self, "value", _thaw(self.value))

    def __eq__(self, other: object) -> bool:
        return type(other) is Equals and other._key == self._key

    def __hash__(self) -> int:
        return hash(("Equals", self._key))

    def __repr__(self) -> str:
        extra = "" if self.numbers == "equal" else ", numbers='typed'"
        return f"Equals({self.value!r}{extra})"

    def matches(self, value: Any) -> bool:
        if type(self.value) is str:  # the common case, as equal_values decides it
            return isinstance(value, str) and value == self.value
        return equal_values(self.value, value, self.numbers == "typed")

    def describe(self) -> str:
        shown = repr(self.value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return shown + (" (int and float apart)" if self.numbers == "typed" else "")

    def to_json(self) -> Any:
        if self.numbers == "typed":
            return {"$equals": self.value, "numbers": "typed"}
        if _plain(self.value):
            return self.value
        return {"$equals": self.value}


def _plain(value: Any) -> bool:
    """Whether ``value`` reads back as itself: no object key starts with $."""
    if isinstance(value, dict):
        return all(not key.startswith("$") and _plain(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return True


def _matchers(items: Any) -> tuple[Matcher, ...]:
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, (list, tuple)):
        raise _fail("matchers", "a list of matchers or values", items, "pass a list.")
    return tuple(map(to_matcher, items))


def _one_matcher(item: Any) -> Matcher:
    return to_matcher(item)


@attrs.frozen(slots=True)
class OneOf(Matcher):
    """Any of ``options`` (matchers; plain values mean Equals)."""

    options: tuple[Matcher, ...] = attrs.field(converter=_matchers)
    _texts: frozenset[str] | None = attrs.field(init=False, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        texts = None
        if all(type(o) is Equals and type(o.value) is str for o in self.options):
            texts = frozenset(o.value for o in self.options if isinstance(o, Equals))
        object.__setattr__(self, "_texts", texts)
        if not self.options:
            raise _fail("OneOf.options", "at least one acceptable value", [],
                        "list the acceptable values, or use AnyValue().")
        if any(option.omittable for option in self.options):
            raise _fail("OneOf.options", "matchers of present values", self.options,
                        "wrap the whole OneOf in MayOmit instead of one of its options.")

    def matches(self, value: Any) -> bool:
        if self._texts is not None:  # only strings: one set lookup
            return isinstance(value, str) and value in self._texts
        return any(option.matches(value) for option in self.options)

    def describe(self) -> str:
        return "one of " + ", ".join(option.describe() for option in self.options)

    def to_json(self) -> Any:
        return {"$one_of": [option.to_json() for option in self.options]}


@attrs.frozen(slots=True)
class AnyValue(Matcher):
    """Any value, as long as the argument is given."""

    def matches(self, value: Any) -> bool:
        return True

    def describe(self) -> str:
        return "any value"

    def to_json(self) -> Any:
        return {"$any": True}


@attrs.frozen(slots=True)
class MayOmit(Matcher):
    """``inner`` when the argument is given; it may also be left out."""

    inner: Matcher = attrs.field(converter=_one_matcher)
    omittable: ClassVar[bool] = True

    def __attrs_post_init__(self) -> None:
        if self.inner.omittable:
            raise _fail("MayOmit.inner", "a matcher of a present value", self.inner,
                        "MayOmit(MayOmit(...)) says nothing more: drop one.")

    def matches(self, value: Any) -> bool:
        return self.inner.matches(value)

    def describe(self) -> str:
        return f"{self.inner.describe()}, or omitted"

    def to_json(self) -> Any:
        return {"$optional": self.inner.to_json()}


def _check_tolerance(name: str, value: Any) -> float:
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise _fail(f"Close.{name}", "a finite number >= 0", value, f"pass {name}=0.01, say.")
    return float(value)


@attrs.frozen(slots=True)
class Close(Matcher):
    """A number (not a bool) within ``abs_tol`` or ``rel_tol`` of ``target``
    (as :func:`math.isclose`; both 0 means equal, 1 and 1.0 alike)."""

    target: float
    abs_tol: float = 0.0
    rel_tol: float = 0.0

    def __attrs_post_init__(self) -> None:
        if not _is_number(self.target) or not math.isfinite(self.target):
            raise _fail("Close.target", "a finite number", self.target, "pass the expected number.")
        _check_tolerance("abs_tol", self.abs_tol)
        _check_tolerance("rel_tol", self.rel_tol)

    def matches(self, value: Any) -> bool:
        return _is_number(value) and math.isclose(value, self.target, rel_tol=self.rel_tol,
                                                  abs_tol=self.abs_tol)

    def describe(self) -> str:
        return f"{self.target!r} within abs_tol={self.abs_tol:g}, rel_tol={self.rel_tol:g}"

    def to_json(self) -> Any:
        out: dict[str, Any] = {"$close": self.target}
        if self.abs_tol:
            out["abs_tol"] = self.abs_tol
        if self.rel_tol:
            out["rel_tol"] = self.rel_tol
        return out


_PUNCTUATION = str.maketrans("", "", string.punctuation)


@attrs.frozen(slots=True)
class Text(Matcher):
    """A string equal to ``value`` after the chosen normalisation: case
    folded, whitespace removed, punctuation removed (each off unless asked
    for). ``ignore_punctuation=True`` removes ASCII punctuation; a string
    removes exactly its characters (``" ,./-_*^"`` is BFCL's set, spaces
    included)."""

    value: str
    ignore_case: bool = False
    ignore_whitespace: bool = False
    ignore_punctuation: bool | str = False
    _table: dict[int, None] = attrs.field(init=False, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.value, str):
            raise _fail("Text.value", "a string", self.value, "pass the expected text.")
        for flag in ("ignore_case", "ignore_whitespace"):
            if not isinstance(getattr(self, flag), bool):
                raise _fail(f"Text.{flag}", "True or False", getattr(self, flag), f"pass {flag}=True.")
        chars = self.ignore_punctuation
        if not isinstance(chars, (bool, str)) or chars == "":
            raise _fail("Text.ignore_punctuation", "True, False or the characters to remove", chars,
                        "pass ignore_punctuation=True, or a string such as ',.-'.")
        table = _PUNCTUATION if chars is True else str.maketrans("", "", chars) if chars else {}
        object.__setattr__(self, "_table", table)

    def normalised(self, text: str) -> str:
        if self.ignore_punctuation:
            text = text.translate(self._table)
        if self.ignore_whitespace:
            text = "".join(text.split())
        if self.ignore_case:
            text = text.casefold()
        return text

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and self.normalised(value) == self.normalised(self.value)

    def to_json(self) -> Any:
        out: dict[str, Any] = {"$text": self.value}
        for flag in ("ignore_case", "ignore_whitespace", "ignore_punctuation"):
            if getattr(self, flag):
                out[flag] = getattr(self, flag)
        return out


def _bounded(pattern: Any) -> BoundedPattern:
    if not isinstance(pattern, str):
        raise _fail("Regex.pattern", "a regular expression (a string)", pattern,
                    "pass a pattern such as r'\\d{4}-\\d{2}-\\d{2}'.")
    try:
        return bounded(pattern)
    except RegexRefused as refused:
        raise _fail("Regex.pattern", refused.reason, pattern, refused.fix) from None


@attrs.frozen(slots=True)
class Regex(Matcher):
    """A string that ``pattern`` matches in full (as :func:`re.fullmatch`), in
    time linear in the string whatever the pattern: a pattern that cannot be
    matched so (lookarounds, backreferences, repeats that split a text in
    exponentially many ways such as ``(a+)+``) is refused when the matcher is
    built (see :mod:`agentmetrics.expectations._regex`)."""

    pattern: str
    _compiled: BoundedPattern = attrs.field(init=False, repr=False, eq=False, hash=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_compiled", _bounded(self.pattern))

    def __getstate__(self) -> dict[str, Any]:
        return {"pattern": self.pattern}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "pattern", state["pattern"])
        object.__setattr__(self, "_compiled", _bounded(state["pattern"]))

    def matches(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        try:
            return self._compiled.fullmatch(value)
        except RegexTooCostly as error:
            raise InvalidCaseError(
                f"$regex {_shown(self.pattern)}: expected a value this pattern can be matched "
                f"against in bounded time, got {error}. Fix: write a smaller pattern (fewer or "
                f"smaller repeat counts), or match a shorter value.") from None

    def describe(self) -> str:
        return f"a string matching {self.pattern!r}"

    def to_json(self) -> Any:
        return {"$regex": self.pattern}


def named_matchers(items: Any, where: str, example: str) -> tuple[tuple[str, Matcher], ...]:
    """A mapping of names to matchers (plain values mean Equals) as sorted
    ``(name, matcher)`` pairs; refused unless a mapping with string keys."""
    if not isinstance(items, Mapping):
        raise _fail(where, "a mapping of names to matchers", items, f"pass a dict such as {example}.")
    for key in items:
        if not isinstance(key, str):
            raise _fail(where, "string names", key, "write the names as strings.")
    return tuple((key, to_matcher(items[key])) for key in sorted(items))


def _fields(items: Mapping[str, Any]) -> tuple[tuple[str, Matcher], ...]:
    return named_matchers(items, "Object.fields", "{'city': 'Paris'}")


@attrs.frozen(slots=True)
class Object(Matcher):
    """An object whose listed keys match their matchers (an omittable one may
    be missing); other keys refused unless ``extra="allow"``."""

    fields: tuple[tuple[str, Matcher], ...] = attrs.field(converter=_fields)
    extra: str = "forbid"

    def __attrs_post_init__(self) -> None:
        if self.extra not in _EXTRA:
            raise _fail("Object.extra", "'forbid' or 'allow'", self.extra, "pass extra='allow'.")

    def matches(self, value: Any) -> bool:
        return isinstance(value, Mapping) and fields_match(self.fields, value, self.extra == "allow")

    def to_json(self) -> Any:
        inner = {key: matcher.to_json() for key, matcher in self.fields}
        return {"$object": inner, "extra": "allow"} if self.extra == "allow" else {"$object": inner}


def fields_match(fields: tuple[tuple[str, Matcher], ...], value: Mapping[str, Any], allow_extra: bool) -> bool:
    for key, matcher in fields:
        if key in value:
            try:
                if not matcher.matches(value[key]):
                    return False
            except InvalidCaseError as error:  # a value too costly to match: say whose it is
                message = str(error)
                if message.startswith("arguments."):  # from a nested object's own fields
                    raise InvalidCaseError(f"arguments.{key}.{message.removeprefix('arguments.')}"
                                           ) from None
                raise InvalidCaseError(f"arguments.{key}: {message}") from None
        elif not matcher.omittable:
            return False
    if not allow_extra:
        named = {key for key, _ in fields}
        if any(key not in named for key in value):
            return False
    return True


@attrs.frozen(slots=True)
class Items(Matcher):
    """A list of as many items as ``items``, each matching its matcher: in
    order, or (``ordered=False``) in any order, one item per matcher, paired
    optimally."""

    items: tuple[Matcher, ...] = attrs.field(converter=_matchers)
    ordered: bool = True

    def __attrs_post_init__(self) -> None:
        if any(item.omittable for item in self.items):
            raise _fail("Items.items", "matchers of present values", self.items,
                        "a list item cannot be omitted; use OneOf of two lists instead.")
        if not isinstance(self.ordered, bool):
            raise _fail("Items.ordered", "True or False", self.ordered, "pass ordered=False.")

    def matches(self, value: Any) -> bool:
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            return False
        if self.ordered:
            return all(m.matches(v) for m, v in zip(self.items, value))
        allowed = [[j for j, v in enumerate(value) if m.matches(v)] for m in self.items]
        return perfect_matching(allowed, len(value))

    def to_json(self) -> Any:
        inner = [item.to_json() for item in self.items]
        return {"$items": inner} if self.ordered else {"$items": inner, "ordered": False}


def matching(allowed: Mapping[int, Sequence[int]], n: int, order: Iterable[int]) -> tuple[list[int], int]:
    """A maximum bipartite matching by augmenting paths (exact, not greedy):
    left nodes tried in ``order`` (``allowed[i]``: the right nodes of ``n``
    that left node ``i`` may take). The owner of each right node (-1: none)
    and how many left nodes were matched. A left node once matched stays
    matched, so trying them by weight gives the heaviest maximum matching."""
    owner = [-1] * n

    def take(i: int, seen: set[int]) -> bool:
        for j in allowed.get(i, ()):
            if j in seen:
                continue
            seen.add(j)
            if owner[j] < 0 or take(owner[j], seen):
                owner[j] = i
                return True
        return False

    return owner, sum(1 for i in order if take(i, set()))


def perfect_matching(allowed: list[list[int]], n: int) -> bool:
    """Whether every left node gets its own right node (see :func:`matching`)."""
    return matching(dict(enumerate(allowed)), n, range(len(allowed)))[1] == len(allowed)


def to_matcher(value: Any) -> Matcher:
    """A matcher as it is; a plain value as :class:`Equals` (read as JSON, so
    an object with a ``$`` key is a matcher)."""
    if isinstance(value, Matcher):
        return value
    check_depth(value, "argument", fix="flatten the value.")
    return matcher_from_json(value, "argument")


_MATCHER_KEYS = {
    "$equals": {"numbers"}, "$one_of": set(), "$any": set(), "$optional": set(),
    "$close": {"abs_tol", "rel_tol"}, "$text": {"ignore_case", "ignore_whitespace", "ignore_punctuation"},
    "$regex": set(), "$object": {"extra"}, "$items": {"ordered"},
}


def matcher_from_json(value: Any, path: str) -> Matcher:
    """The matcher a JSON form describes; errors name ``path`` inside it."""
    if isinstance(value, dict):
        ops = [key for key in value if isinstance(key, str) and key.startswith("$")]
        if not ops:
            if all(_plain(item) for item in value.values()):
                return Equals(value)
            return Object({key: matcher_from_json(item, f"{path}.{key}") for key, item in value.items()})
        if len(ops) > 1 or ops[0] not in _MATCHER_KEYS:
            raise _fail(path, f"one matcher key of {sorted(_MATCHER_KEYS)}", sorted(ops),
                        "write one matcher per object; to expect a key that starts with $, "
                        "use {'$equals': {...}}.")
        op = ops[0]
        unknown = sorted(set(value) - {op} - _MATCHER_KEYS[op])
        if unknown:
            raise _fail(path, f"the options of {op}: {sorted(_MATCHER_KEYS[op]) or 'none'}", unknown,
                        "remove the unknown keys.")
        body = value[op]
        options = {key: item for key, item in value.items() if key != op}
        try:
            return _build(op, body, options, path)
        except InvalidCaseError as error:
            message = str(error)
            if message.startswith(path):
                raise
            raise InvalidCaseError(f"{path}: {message}") from None
    if isinstance(value, list):
        if all(_plain(item) for item in value):
            return Equals(value)
        return Items([matcher_from_json(item, f"{path}[{k}]") for k, item in enumerate(value)])
    try:
        return Equals(value)
    except InvalidCaseError as error:
        raise InvalidCaseError(str(error).replace("Equals.value", path, 1)) from None


def _build(op: str, body: Any, options: dict[str, Any], path: str) -> Matcher:
    if op == "$equals":
        return Equals(body, **options)
    if op == "$one_of":
        if not isinstance(body, list):
            raise _fail(f"{path}.$one_of", "a list of acceptable values", body, "write [v1, v2].")
        return OneOf([matcher_from_json(item, f"{path}.$one_of[{k}]") for k, item in enumerate(body)])
    if op == "$any":
        if body is not True:
            raise _fail(f"{path}.$any", "true", body, "write {'$any': true}.")
        return AnyValue()
    if op == "$optional":
        return MayOmit(matcher_from_json(body, f"{path}.$optional"))
    if op == "$close":
        return Close(body, **options)
    if op == "$text":
        return Text(body, **options)
    if op == "$regex":
        return Regex(body)
    if op == "$object":
        if not isinstance(body, dict):
            raise _fail(f"{path}.$object", "an object of argument matchers", body, "write {...}.")
        return Object({key: matcher_from_json(item, f"{path}.{key}") for key, item in body.items()},
                      **options)
    if not isinstance(body, list):
        raise _fail(f"{path}.$items", "a list of item matchers", body, "write [...].")
    return Items([matcher_from_json(item, f"{path}[{k}]") for k, item in enumerate(body)], **options)
