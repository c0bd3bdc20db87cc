"""A pattern parsed by Python's own parser into a Thompson automaton:
single-character tests (each decided by re itself, compiled from the parsed
piece with the flags in force there), zero-width assertions, choices; built
back to front, refused past :data:`MAX_STATES` states or where a construct is
not regular."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterable
from typing import Any

__all__ = ["ASSERT", "CHAR", "MATCH", "MAX_STATES", "SPLIT", "Builder", "RegexRefused", "Test",
           "build"]

#: Python's own regex parser and its constants (``re._parser`` since 3.11, ``sre_parse``
#: before): a pattern means here exactly what it means to re.
_p: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_c: Any = importlib.import_module("re._constants" if sys.version_info >= (3, 11)
                                  else "sre_constants")

#: The most states a pattern's automaton may have.
MAX_STATES = 20_000
#: A character test with at most this many characters is enumerated.
_MAX_FINITE = 4096
#: The most characters a test remembers its answer for before it starts again.
_MAX_SEEN = 50_000

CHAR, SPLIT, ASSERT, MATCH = range(4)
_AT = {_c.AT_BEGINNING: "^", _c.AT_END: "$", _c.AT_BEGINNING_STRING: r"\A",
       _c.AT_END_STRING: r"\Z", _c.AT_BOUNDARY: r"\b", _c.AT_NON_BOUNDARY: r"\B"}
_CATEGORIES = {_c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_NOT_DIGIT: r"\D",
               _c.CATEGORY_SPACE: r"\s", _c.CATEGORY_NOT_SPACE: r"\S",
               _c.CATEGORY_WORD: r"\w", _c.CATEGORY_NOT_WORD: r"\W"}
_UNSUPPORTED = {
    "GROUPREF": "a backreference", "GROUPREF_EXISTS": "a conditional group",
    "ATOMIC_GROUP": "an atomic group", "POSSESSIVE_REPEAT": "a possessive repeat",
}
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT"}
#: Flags a piece is compiled with (VERBOSE and MULTILINE's line anchors are the parser's
#: and the assertions' business; DEBUG and TEMPLATE are no matching flags).
_PIECE_FLAGS = re.IGNORECASE | re.DOTALL | re.ASCII | re.UNICODE | re.MULTILINE


class RegexRefused(ValueError):
    """A pattern that cannot be matched in bounded time: ``reason`` says why,
    ``fix`` what to write instead."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fix = fix


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


def _flags(flags: int) -> int:
    flags &= _PIECE_FLAGS
    return flags & ~re.UNICODE if flags & re.ASCII else flags


class Test:
    """One character test: the piece's own regex (with the flags in force where
    it stands), its answers memoized per character, and the characters it
    accepts when they are few and known without case folding."""

    __slots__ = ("compiled", "finite", "seen")

    def __init__(self, source: str, flags: int, finite: frozenset[str] | None) -> None:
        self.compiled = re.compile(source, _flags(flags))
        self.finite = finite
        self.seen: dict[str, bool] = {}

    def __call__(self, char: str) -> bool:
        known = self.seen.get(char)
        if known is None:
            known = self.seen[char] = self.compiled.fullmatch(char) is not None
            if len(self.seen) > _MAX_SEEN:
                self.seen = {}
        return known


def _class_source(items: list[tuple[Any, Any]]) -> tuple[str, frozenset[str] | None]:
    """An ``IN`` node's class as regex text, and its characters when it is a
    small set of literals and ranges, not negated."""
    parts: list[str] = []
    chars: set[str] = set()
    finite = True
    for op, value in items:
        name = str(op)
        if name == "NEGATE":
            parts.insert(0, "^")
            finite = False
        elif name == "LITERAL":
            parts.append(_escape(value))
            chars.add(chr(value))
        elif name == "RANGE":
            low, high = value
            parts.append(f"{_escape(low)}-{_escape(high)}")
            if high - low < _MAX_FINITE:
                chars.update(map(chr, range(low, high + 1)))
            else:
                finite = False
        elif name == "CATEGORY":
            parts.append(_CATEGORIES[value])
            finite = False
        else:  # pragma: no cover - the parser gives no other item inside a class
            raise RegexRefused(f"a character class item the matcher does not know ({name})",
                               "write the class with literals, ranges and \\d \\w \\s.")
    known = frozenset(chars) if finite and len(chars) <= _MAX_FINITE else None
    return "[" + "".join(parts) + "]", known


class Builder:
    """The Thompson automaton of a parsed pattern, built back to front: each
    piece is compiled with the state that follows it already made."""

    def __init__(self) -> None:
        self.kind: list[int] = []
        self.test: list[int] = []  # a CHAR's test, an ASSERT's assertion
        self.out: list[list[int]] = []
        self.tests: list[Test] = []
        self.assertions: list[re.Pattern[str]] = []
        #: The heads of unbounded repeats: out[0] enters the body, out[1] leaves.
        self.loops: set[int] = set()
        self._pieces: dict[tuple[str, int], int] = {}

    def state(self, kind: int, test: int, out: list[int]) -> int:
        if len(self.kind) >= MAX_STATES:
            raise RegexRefused(f"a pattern of at most {MAX_STATES:,} automaton states",
                               "use smaller repeat counts ({m,n}) or fewer nested repeats.")
        self.kind.append(kind)
        self.test.append(test)
        self.out.append(out)
        return len(self.kind) - 1

    def _char_test(self, source: str, flags: int, finite: frozenset[str] | None) -> int:
        key = (source, _flags(flags))
        index = self._pieces.get(key)
        if index is None:
            index = self._pieces[key] = len(self.tests)
            self.tests.append(Test(source, flags, finite if not flags & re.IGNORECASE else None))
        return index

    def sequence(self, items: Iterable[tuple[Any, Any]], after: int, flags: int) -> int:
        for op, value in reversed(list(items)):
            after = self.item(str(op), value, after, flags)
        return after

    def item(self, name: str, value: Any, after: int, flags: int) -> int:
        if name == "LITERAL":
            test = self._char_test(_escape(value), flags, frozenset(chr(value)))
            return self.state(CHAR, test, [after])
        if name == "NOT_LITERAL":
            return self.state(CHAR, self._char_test(f"[^{_escape(value)}]", flags, None), [after])
        if name == "ANY":
            return self.state(CHAR, self._char_test(".", flags, None), [after])
        if name == "IN":
            source, finite = _class_source(value)
            return self.state(CHAR, self._char_test(source, flags, finite), [after])
        if name == "BRANCH":
            return self.state(SPLIT, -1, [self.sequence(alt, after, flags) for alt in value[1]])
        if name == "SUBPATTERN":
            _, add, remove, inner = value
            return self.sequence(inner, after, (flags | add) & ~remove)
        if name in _REPEATS:
            return self.repeat(value, after, flags)
        if name == "AT":
            self.assertions.append(re.compile(_AT[value], _flags(flags)))
            return self.state(ASSERT, len(self.assertions) - 1, [after])
        what = _UNSUPPORTED.get(name, f"the construct {name}")
        if name in ("ASSERT", "ASSERT_NOT"):
            what = ("a negative " if name == "ASSERT_NOT" else "a ") + (
                "lookbehind" if value[0] < 0 else "lookahead")
        raise RegexRefused(
            f"a regular pattern, without {what}",
            "write it without lookarounds, backreferences, conditionals, atomic groups and "
            "possessive repeats; a value is matched in full, so ^ and $ are not needed either.")

    def repeat(self, value: tuple[int, int, Any], after: int, flags: int) -> int:
        low, high, inner = value
        if high == _c.MAXREPEAT:
            loop = self.state(SPLIT, -1, [])
            self.loops.add(loop)
            self.out[loop][:] = [self.sequence(inner, loop, flags), after]
            start = loop
        else:
            start = after
            for _ in range(high - low):  # x{0,2} is (x(x)?)?: each optional inside the last
                start = self.state(SPLIT, -1, [self.sequence(inner, start, flags), after])
        for _ in range(low):
            start = self.sequence(inner, start, flags)
        return start




def build(pattern: str) -> tuple[Builder, int]:
    """The automaton of ``pattern`` and its start state; RegexRefused when the
    pattern is not valid, not regular, nested too deep or too large."""
    try:
        parsed = _p.parse(pattern)
    except re.error as error:
        raise RegexRefused(f"a valid regular expression ({error})",
                           "correct the pattern.") from None
    except RecursionError:
        raise RegexRefused("a pattern nested at most a few hundred groups deep",
                           "flatten the pattern.") from None
    builder = Builder()
    try:
        match = builder.state(MATCH, -1, [])
        start = builder.sequence(list(parsed), match, parsed.state.flags)
    except RecursionError:
        raise RegexRefused("a pattern nested at most a few hundred groups deep",
                           "flatten the pattern.") from None
    return builder, start
