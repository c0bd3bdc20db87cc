"""Matching a bounded pattern: by re.fullmatch where the pattern is
deterministic, else by a lazy DFA over the automaton's sets of states, read
once per character, with the work of building its table bounded."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from agentmetrics.expectations._regex._ambiguity import analyse
from agentmetrics.expectations._regex._automaton import ASSERT, CHAR, MATCH, SPLIT, build

__all__ = ["MAX_CACHED", "MAX_WORK", "BoundedPattern", "RegexTooCostly", "bounded"]

#: The most entries a pattern's lazy table keeps before it starts again.
MAX_CACHED = 50_000
#: The most automaton states one match may visit while it builds its table (about a
#: second): a value of 5,000 characters against a pattern of 10,000 states is refused.
MAX_WORK = 5_000_000


class RegexTooCostly(ValueError):
    """A text too long for a pattern this large: matching it would visit more
    than :data:`MAX_WORK` automaton states."""


class BoundedPattern:
    """A pattern matched in full in linear time (see :mod:`agentmetrics.expectations._regex`)."""

    __slots__ = ("_assertions", "_cache", "_kinds", "_outs", "_start", "_state_tests",
                 "_test_of", "pattern", "strategy")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        builder, start = build(pattern)
        self._kinds, self._outs, self._start = builder.kind, builder.out, start
        self._test_of = builder.test
        self._state_tests = [builder.tests[t] if k == CHAR else None
                             for k, t in zip(builder.kind, builder.test)]
        self._assertions = builder.assertions
        if analyse(builder, start):
            self.strategy = "re"
            self._cache: Any = re.compile(pattern)
        else:
            self.strategy = "automaton"
            self._cache = _Table()

    def __repr__(self) -> str:
        return f"BoundedPattern({self.pattern!r}, strategy={self.strategy!r})"

    # --- the automaton run over the text ------------------------------------------

    def _context(self, text: str, position: int) -> tuple[bool, ...]:
        return tuple(assertion.match(text, position) is not None for assertion in self._assertions)

    def _closure(self, states: Iterable[int], context: tuple[bool, ...]) -> frozenset[int]:
        """The CHAR and MATCH states reached from ``states`` by choices and the
        assertions that hold here."""
        kinds, outs, test_of = self._kinds, self._outs, self._test_of
        seen: set[int] = set()
        found: set[int] = set()
        stack = list(states)
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            kind = kinds[state]
            if kind == SPLIT:
                stack.extend(outs[state])
            elif kind == ASSERT:
                if context[test_of[state]]:
                    stack.append(outs[state][0])
            else:
                found.add(state)
        return frozenset(found)

    def fullmatch(self, text: str) -> bool:
        """Whether the pattern matches all of ``text`` (as :func:`re.fullmatch`)."""
        if self.strategy == "re":
            return self._cache.fullmatch(text) is not None
        table: _Table = self._cache
        if table.size > MAX_CACHED:
            table = self._cache = _Table()
        return table.run(self, text)


class _Table:
    """A pattern's lazy DFA: sets of automaton states, each given a number on
    first sight, and per set the moves found so far (by character, and by the
    assertions that hold at the next position when the pattern has any)."""

    __slots__ = ("accepting", "dead", "members", "numbers", "rows", "size", "starts")

    def __init__(self) -> None:
        self.numbers: dict[frozenset[int], int] = {}
        self.members: list[frozenset[int]] = []
        self.accepting: list[bool] = []
        self.dead: list[bool] = []
        self.rows: list[dict[Any, int]] = []
        self.starts: dict[tuple[bool, ...], int] = {}
        self.size = 0

    def number(self, states: frozenset[int], kinds: list[int]) -> int:
        found = self.numbers.get(states)
        if found is None:
            found = self.numbers[states] = len(self.members)
            self.members.append(states)
            self.accepting.append(any(kinds[state] == MATCH for state in states))
            self.dead.append(not states)
            self.rows.append({})
            self.size += 1
        return found

    def step(self, pattern: BoundedPattern, current: int, char: str, key: Any,
             following: tuple[bool, ...], work: int, length: int) -> tuple[int, int]:
        """The set after ``char`` from set ``current``, found and kept; and the
        work done so far in this match."""
        kinds, outs, tests = pattern._kinds, pattern._outs, pattern._state_tests
        members = self.members[current]
        stepped = [outs[state][0] for state in members
                   if kinds[state] == CHAR and tests[state](char)]  # type: ignore[misc]
        reached = pattern._closure(stepped, following)
        work += len(members) + len(reached)
        if work > MAX_WORK:
            raise RegexTooCostly(
                f"a value of {length:,} characters against a pattern of {len(kinds):,} "
                f"automaton states: matching it would visit more than {MAX_WORK:,} states")
        nxt = self.rows[current][key] = self.number(reached, kinds)
        self.size += 1
        return nxt, work

    def run(self, pattern: BoundedPattern, text: str) -> bool:
        contexts = pattern._assertions
        work = 0
        context: tuple[bool, ...] = pattern._context(text, 0) if contexts else ()
        current = self.starts.get(context)
        if current is None:
            current = self.starts[context] = self.number(
                pattern._closure([pattern._start], context), pattern._kinds)
        rows, dead = self.rows, self.dead
        if not contexts:  # the common case: a move depends on the character alone
            for char in text:
                nxt = rows[current].get(char)
                if nxt is None:
                    nxt, work = self.step(pattern, current, char, char, (), work, len(text))
                if dead[nxt]:
                    return False
                current = nxt
            return self.accepting[current]
        for position, char in enumerate(text, 1):
            following = pattern._context(text, position)
            key = (char, following)
            nxt = rows[current].get(key)
            if nxt is None:
                nxt, work = self.step(pattern, current, char, key, following, work, len(text))
            if dead[nxt]:
                return False
            current = nxt
        return self.accepting[current]


@functools.lru_cache(maxsize=1024)
def bounded(pattern: str) -> BoundedPattern:
    """The pattern compiled (once per text of a pattern); RegexRefused when it
    cannot be matched in bounded time."""
    return BoundedPattern(pattern)
