"""What a pattern's automaton allows: whether backtracking on it has a real
choice anywhere (if not, re matches it in linear time), and whether it can
match one text in exponentially many ways inside a repeat (then it is refused:
backtracking engines hang on it). Both read the empty moves out of each state,
counted as a backtracking engine walks them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentmetrics.expectations._regex._automaton import (
    CHAR,
    MATCH,
    Builder,
    RegexRefused,
    Test,
)

__all__ = ["analyse"]

#: The most pairs of states the ambiguity check looks at, and the most work the
#: empty moves' count may take; a larger pattern is kept unchecked (and matched
#: linearly by its automaton).
_MAX_PAIRS = 200_000
#: Characters tried when two tests' overlap is looked for and neither is a small set:
#: Latin, the common punctuation and spaces, and a few letters, digits and spaces
#: of other scripts.
_SAMPLE = "".join(map(chr, range(0x300))) + "\u0660\u0966\u2028\u3000\u4e00\u0391\u03b1\uff10"


def analyse(builder: Builder, start: int) -> bool:
    """Whether re may match the pattern (it is deterministic); RegexRefused
    when it is exponentially ambiguous."""
    paths = _Paths(builder)
    try:
        edges = {state: paths.from_state(builder.out[state][0])
                 for state, kind in enumerate(builder.kind) if kind == CHAR}
        edges[-1] = paths.from_state(start)
    except _TooLarge:
        return False
    _refuse_exponential(builder, edges)
    return not paths.cut and _deterministic(builder, edges)


class _Paths:
    """The empty moves out of each state: the CHAR and MATCH states they reach,
    each with how many different ways (counted to 2), as a backtracking engine
    would walk them. Assertions are taken as passable. A repeat's iteration
    must consume something: a walk that enters a loop's body and comes back to
    its head without a character is cut there (an empty iteration, which
    backtracking engines also cut); ``cut`` records that one was."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.cut = False
        self.budget = _MAX_PAIRS
        self._memo: dict[tuple[int, frozenset[int]], dict[int, int]] = {}

    def from_state(self, start: int) -> dict[int, int]:
        return self._walk(start, frozenset())

    def _walk(self, state: int, inside: frozenset[int]) -> dict[int, int]:
        builder = self.builder
        kind = builder.kind[state]
        if kind in (CHAR, MATCH):
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


def _surely_disjoint(a: Test, b: Test) -> bool:
    """Proven: no character passes both (one is a small known set, none of whose
    characters the other takes)."""
    if a.finite is not None and not any(b(char) for char in a.finite):
        return True
    return b.finite is not None and not any(a(char) for char in b.finite)


def _surely_overlap(a: Test, b: Test) -> bool:
    """Proven: some character passes both (found among a small known set, or
    among sample characters)."""
    candidates: Iterable[str] = a.finite if a.finite is not None else (
        b.finite if b.finite is not None else _SAMPLE)
    return any(a(char) and b(char) for char in candidates)


def _deterministic(builder: Builder, edges: dict[int, dict[int, int]]) -> bool:
    """Whether from every state at most one character test can take the next
    character, each reached one way: then backtracking never has a real choice."""
    tests, test_of = builder.tests, builder.test
    for targets in edges.values():
        if any(ways > 1 for ways in targets.values()):
            return False
        chars = [tests[test_of[state]] for state in targets if builder.kind[state] == CHAR]
        for i, first in enumerate(chars):
            for second in chars[i + 1:]:
                if not _surely_disjoint(first, second):
                    return False
    return True


def _useful(builder: Builder, edges: dict[int, dict[int, int]]) -> set[int]:
    """The CHAR states on some path from the start to a match."""
    reached, stack = set(), [-1]
    while stack:
        for target in edges[stack.pop()]:
            if target not in reached and builder.kind[target] == CHAR:
                reached.add(target)
                stack.append(target)
    back: dict[int, list[int]] = {}
    matching = set()
    for source, targets in edges.items():
        for target in targets:
            if builder.kind[target] == MATCH:
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


def _refuse_exponential(builder: Builder, edges: dict[int, dict[int, int]]) -> None:
    """Refuse a pattern with two different paths from one state back to itself
    over one text (exponential ambiguity: Weber and Seidl's criterion, read on
    the automaton squared), or a loop through a move made two ways."""
    useful = _useful(builder, edges)
    graph = {state: [t for t in edges[state] if t in useful] for state in useful}
    tests, test_of = builder.tests, builder.test

    def test(state: int) -> Test:
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


def _refuse(builder: Builder) -> None:
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


