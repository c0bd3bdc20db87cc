"""Regular expressions matched in time linear in the text, whatever the pattern.

Python's :mod:`re` backtracks: ``(a+)+`` against ``"a" * 40 + "!"`` tries every
way of splitting the a's before it fails, and holds the GIL while it does, so
no timeout can stop it. An expectation's ``$regex`` comes from a user's file,
so its matching must be bounded by construction. A pattern is parsed once, by
Python's own parser (it means here what it means to :mod:`re`), into a
Thompson automaton: single-character tests, zero-width assertions and
choices. Then:

- **Refused** when it is built, saying why: lookarounds, backreferences,
  conditionals, atomic groups and possessive repeats (they are not regular,
  and cannot be matched in linear time); an automaton of more than
  :data:`MAX_STATES` states (``(a{1000}){1000}``); and a pattern that can match
  one text in exponentially many ways inside a repeat (``(a+)+``,
  ``(\\w+\\s?)+``, ``(a|ab)(c|bcd)...`` looped): a backtracking engine, Python's
  among them, takes exponential time on it, so it is refused with a rewrite
  rather than kept in an expectation that other tools would hang on. The check
  is exact for what it refuses (two really different paths over one text,
  found in the automaton squared); a pattern too large to check is kept, and
  matched by the automaton below, linearly.
- **Deterministic** patterns, where at every point at most one character test
  can take the next character (``\\d{4}-\\d{2}``, ``[^,]+,\\w+``, ``(?i)yes|no``),
  are matched by :func:`re.fullmatch` itself: backtracking never has a choice
  to undo, so it is linear.
- **Every other** pattern is matched by running the automaton over the text
  once, all its states at a time, with the sets of states met built lazily into
  a cached table (a lazy DFA): time ``O(len(text) x states)``, memory bounded
  (the table is dropped and rebuilt past :data:`MAX_CACHED` entries). A match
  that would visit more than :data:`MAX_WORK` states while building its table (a
  value of thousands of characters against a pattern of thousands of states)
  raises :class:`RegexTooCostly` instead of running for minutes.

Each character test and assertion is decided by :mod:`re` itself, compiled
from the parsed piece with the flags in force there, so case folding,
``\\w``, ``\\b``, ``$`` before a final newline and the ASCII flag mean exactly
what they mean to :mod:`re`; a differential test checks the whole against
:func:`re.fullmatch` on patterns re answers quickly.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Iterable
from typing import Any

#: Python's own regex parser and its constants (``re._parser`` since 3.11, ``sre_parse``
#: before): a pattern means here exactly what it means to re.
_p: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_c: Any = importlib.import_module("re._constants" if sys.version_info >= (3, 11)
                                  else "sre_constants")

__all__ = ["MAX_CACHED", "MAX_STATES", "MAX_WORK", "BoundedPattern", "RegexRefused",
           "RegexTooCostly", "bounded"]

#: The most states a pattern's automaton may have.
MAX_STATES = 20_000
#: The most entries a pattern's lazy table keeps before it starts again.
MAX_CACHED = 50_000
#: The most automaton states one match may visit while it builds its table (about a
#: second): a value of 5,000 characters against a pattern of 10,000 states is refused.
MAX_WORK = 5_000_000
#: The most pairs of states the ambiguity check looks at; a larger pattern is kept
#: unchecked (and matched linearly by its automaton).
_MAX_PAIRS = 200_000
#: A character test with at most this many characters is enumerated.
_MAX_FINITE = 4096
#: Characters tried when two tests' overlap is looked for and neither is a small set:
#: Latin, the common punctuation and spaces, and a few letters, digits and spaces
#: of other scripts.
_SAMPLE = "".join(map(chr, range(0x300))) + "\u0660\u0966\u2028\u3000\u4e00\u0391\u03b1\uff10"

_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)
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


class RegexTooCostly(ValueError):
    """A text too long for a pattern this large: matching it would visit more
    than :data:`MAX_WORK` automaton states."""


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


class _Test:
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
            if len(self.seen) > MAX_CACHED:
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


class _Builder:
    """The Thompson automaton of a parsed pattern, built back to front: each
    piece is compiled with the state that follows it already made."""

    def __init__(self) -> None:
        self.kind: list[int] = []
        self.test: list[int] = []  # a CHAR's test, an ASSERT's assertion
        self.out: list[list[int]] = []
        self.tests: list[_Test] = []
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
            self.tests.append(_Test(source, flags, finite if not flags & re.IGNORECASE else None))
        return index

    def sequence(self, items: Iterable[tuple[Any, Any]], after: int, flags: int) -> int:
        for op, value in reversed(list(items)):
            after = self.item(str(op), value, after, flags)
        return after

    def item(self, name: str, value: Any, after: int, flags: int) -> int:
        if name == "LITERAL":
            test = self._char_test(_escape(value), flags, frozenset(chr(value)))
            return self.state(_CHAR, test, [after])
        if name == "NOT_LITERAL":
            return self.state(_CHAR, self._char_test(f"[^{_escape(value)}]", flags, None), [after])
        if name == "ANY":
            return self.state(_CHAR, self._char_test(".", flags, None), [after])
        if name == "IN":
            source, finite = _class_source(value)
            return self.state(_CHAR, self._char_test(source, flags, finite), [after])
        if name == "BRANCH":
            return self.state(_SPLIT, -1, [self.sequence(alt, after, flags) for alt in value[1]])
        if name == "SUBPATTERN":
            _, add, remove, inner = value
            return self.sequence(inner, after, (flags | add) & ~remove)
        if name in _REPEATS:
            return self.repeat(value, after, flags)
        if name == "AT":
            self.assertions.append(re.compile(_AT[value], _flags(flags)))
            return self.state(_ASSERT, len(self.assertions) - 1, [after])
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
            loop = self.state(_SPLIT, -1, [])
            self.loops.add(loop)
            self.out[loop][:] = [self.sequence(inner, loop, flags), after]
            start = loop
        else:
            start = after
            for _ in range(high - low):  # x{0,2} is (x(x)?)?: each optional inside the last
                start = self.state(_SPLIT, -1, [self.sequence(inner, start, flags), after])
        for _ in range(low):
            start = self.sequence(inner, start, flags)
        return start


class _Paths:
    """The empty moves out of each state: the CHAR and MATCH states they reach,
    each with how many different ways (counted to 2), as a backtracking engine
    would walk them. Assertions are taken as passable. A repeat's iteration
    must consume something: a walk that enters a loop's body and comes back to
    its head without a character is cut there (an empty iteration, which
    backtracking engines also cut); ``cut`` records that one was."""

    def __init__(self, builder: _Builder) -> None:
        self.builder = builder
        self.cut = False
        self.budget = _MAX_PAIRS
        self._memo: dict[tuple[int, frozenset[int]], dict[int, int]] = {}

    def from_state(self, start: int) -> dict[int, int]:
        return self._walk(start, frozenset())

    def _walk(self, state: int, inside: frozenset[int]) -> dict[int, int]:
        builder = self.builder
        kind = builder.kind[state]
        if kind in (_CHAR, _MATCH):
            return {state: 1}
        key = (state, inside)
        known = self._memo.get(key)
        if known is not None:
            return known
        found: dict[int, int] = {}
        if state in builder.loops:
            if state in inside:  # back at the head of a loop whose body consumed nothing
                self.cut = True
                return found
            body, after = builder.out[state]
            branches = [(body, inside | {state}), (after, inside)]
        else:
            branches = [(nxt, inside) for nxt in builder.out[state]]
        for nxt, within in branches:
            reached = self._walk(nxt, within)
            self.budget -= 1 + len(reached)
            if self.budget < 0:
                raise _TooLarge
            for target, ways in reached.items():
                found[target] = min(2, found.get(target, 0) + ways)
        self._memo[key] = found
        return found


class _TooLarge(Exception):
    """A pattern too large for the ambiguity check: kept, and matched by its automaton."""


class BoundedPattern:
    """A pattern matched in full in linear time (see the module's text)."""

    __slots__ = ("_assertions", "_cache", "_kinds", "_outs", "_start", "_state_tests",
                 "_test_of", "pattern", "strategy")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            parsed = _p.parse(pattern)
        except re.error as error:
            raise RegexRefused(f"a valid regular expression ({error})",
                               "correct the pattern.") from None
        except RecursionError:
            raise RegexRefused("a pattern nested at most a few hundred groups deep",
                               "flatten the pattern.") from None
        flags = parsed.state.flags
        builder = _Builder()
        try:
            match = builder.state(_MATCH, -1, [])
            start = builder.sequence(list(parsed), match, flags)
        except RecursionError:
            raise RegexRefused("a pattern nested at most a few hundred groups deep",
                               "flatten the pattern.") from None
        self._kinds, self._outs, self._start = builder.kind, builder.out, start
        self._test_of = builder.test
        self._state_tests = [builder.tests[t] if k == _CHAR else None
                             for k, t in zip(builder.kind, builder.test)]
        self._assertions = builder.assertions
        paths = _Paths(builder)
        try:
            edges = {state: paths.from_state(builder.out[state][0])
                     for state, kind in enumerate(builder.kind) if kind == _CHAR}
            edges[-1] = paths.from_state(start)
        except _TooLarge:
            edges = {}
        if edges:
            _refuse_exponential(builder, edges)
        if edges and not paths.cut and _deterministic(builder, edges):
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
            if kind == _SPLIT:
                stack.extend(outs[state])
            elif kind == _ASSERT:
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
            self.accepting.append(any(kinds[state] == _MATCH for state in states))
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
                   if kinds[state] == _CHAR and tests[state](char)]  # type: ignore[misc]
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


def _surely_disjoint(a: _Test, b: _Test) -> bool:
    """Proven: no character passes both (one is a small known set, none of whose
    characters the other takes)."""
    if a.finite is not None and not any(b(char) for char in a.finite):
        return True
    return b.finite is not None and not any(a(char) for char in b.finite)


def _surely_overlap(a: _Test, b: _Test) -> bool:
    """Proven: some character passes both (found among a small known set, or
    among sample characters)."""
    candidates: Iterable[str] = a.finite if a.finite is not None else (
        b.finite if b.finite is not None else _SAMPLE)
    return any(a(char) and b(char) for char in candidates)


def _deterministic(builder: _Builder, edges: dict[int, dict[int, int]]) -> bool:
    """Whether from every state at most one character test can take the next
    character, each reached one way: then backtracking never has a real choice."""
    tests, test_of = builder.tests, builder.test
    for targets in edges.values():
        if any(ways > 1 for ways in targets.values()):
            return False
        chars = [tests[test_of[state]] for state in targets if builder.kind[state] == _CHAR]
        for i, first in enumerate(chars):
            for second in chars[i + 1:]:
                if not _surely_disjoint(first, second):
                    return False
    return True


def _useful(builder: _Builder, edges: dict[int, dict[int, int]]) -> set[int]:
    """The CHAR states on some path from the start to a match."""
    reached, stack = set(), [-1]
    while stack:
        for target in edges[stack.pop()]:
            if target not in reached and builder.kind[target] == _CHAR:
                reached.add(target)
                stack.append(target)
    back: dict[int, list[int]] = {}
    matching = set()
    for source, targets in edges.items():
        for target in targets:
            if builder.kind[target] == _MATCH:
                matching.add(source)
            else:
                back.setdefault(target, []).append(source)
    alive, stack = set(matching), list(matching)
    while stack:
        for source in back.get(stack.pop(), ()):
            if source not in alive:
                alive.add(source)
                stack.append(source)
    return reached & alive


def _refuse_exponential(builder: _Builder, edges: dict[int, dict[int, int]]) -> None:
    """Refuse a pattern with two different paths from one state back to itself
    over one text (exponential ambiguity: Weber and Seidl's criterion, read on
    the automaton squared), or a loop through a move made two ways."""
    useful = _useful(builder, edges)
    graph = {state: [t for t in edges[state] if t in useful] for state in useful}
    tests, test_of = builder.tests, builder.test

    def test(state: int) -> _Test:
        return tests[test_of[state]]

    overlap: dict[tuple[int, int], bool] = {}

    def overlaps(a: int, b: int) -> bool:
        key = (min(test_of[a], test_of[b]), max(test_of[a], test_of[b]))
        if key not in overlap:
            overlap[key] = key[0] == key[1] or _surely_overlap(test(a), test(b))
        return overlap[key]

    # A loop through a move two ways: state -> target twice, target back to state.
    loops = _components(graph)
    for state in useful:
        for target, ways in edges[state].items():
            if ways > 1 and target in useful and loops[target] == loops[state]:
                _refuse(builder)
    # Pairs of states over one text, from the diagonal.
    pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    stack = [(state, state) for state in useful]
    budget = _MAX_PAIRS
    while stack:
        pair = stack.pop()
        if pair in pairs:
            continue
        budget -= 1 + len(graph[pair[0]]) * len(graph[pair[1]])
        if budget < 0:
            return  # too large to check: matched by the automaton, linearly, all the same
        nexts = [(a, b) for a in graph[pair[0]] for b in graph[pair[1]] if overlaps(a, b)]
        pairs[pair] = nexts
        stack.extend(nexts)
    components = _components(pairs)
    diagonal = {components[(s, s)] for s in useful if (s, s) in components}
    for (a, b), component in components.items():
        if a != b and component in diagonal:
            _refuse(builder)


def _refuse(builder: _Builder) -> None:
    raise RegexRefused(
        "a pattern that matches a text in one way only inside its repeats (this one can "
        "match some texts in exponentially many ways, which makes backtracking engines, "
        "Python's re among them, hang)",
        "rewrite the repeated part so that each repetition can only split the text one "
        "way: (a+)+ matches what a+ matches; (\\w+\\s?)+ is \\w+(\\s\\w+)*\\s?; "
        "(a|aa)+ is a+.")


def _components(graph: dict[Any, list[Any]]) -> dict[Any, int]:
    """Each node's strongly connected component, numbered (Tarjan, iterative)."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    component: dict[Any, int] = {}
    stack: list[Any] = []
    on_stack: set[Any] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = index[node]
                    if member == node:
                        break
    return component


@functools.lru_cache(maxsize=1024)
def bounded(pattern: str) -> BoundedPattern:
    """The pattern compiled (once per text of a pattern); RegexRefused when it
    cannot be matched in bounded time."""
    return BoundedPattern(pattern)
