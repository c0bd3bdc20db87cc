"""Pairing calls with expected calls: maximum bipartite matching without
recursion, the first-fit order of the original algorithm (whose choice of
unpaired calls the reasons name), and grouping of interchangeable calls."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["canonical_json", "connected", "first_fit_order_matching", "maximum_matching"]

_PLAIN_BUDGET = 10_000  # values in one call's arguments, beyond which it is not grouped
_FLAT = frozenset({str, int, type(None)})  # argument values written as they are
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical_json(arguments: Mapping[str, Any]) -> str | None:
    """A JSON text, equal for two argument dicts exactly when they compare
    equal, when both hold plain JSON data; None for anything else.

    Plain: exact ``dict`` with str keys, ``list``, ``str``, ``int``, finite
    ``float``, ``bool`` and None, at most ``_PLAIN_BUDGET`` values. Numbers
    are written as their value (``True``, ``1`` and ``1.0`` alike, as ``==``
    has it); keys are sorted. Equality of plain data is transitive, so calls
    with the same text fit the same calls under every rule but a callable.
    Tuples (JSON would write them as lists, but ``(1,) != [1]``), subclasses,
    sets, objects with their own ``==``, NaN and infinities give None: such
    calls are not grouped. Nothing but the text is hashed.
    """
    if all(type(key) is str and type(value) in _FLAT for key, value in arguments.items()):
        # Flat, the common case: written as it is.
        try:
            return _ENCODER.encode(arguments)
        except ValueError:  # an int past the str conversion limit
            return None
    top: list[Any] = [None]
    pending: list[tuple[Any, Any, Any]] = [(arguments, top, 0)]  # (value, into, at)
    budget = _PLAIN_BUDGET
    while pending:
        value, into, at = pending.pop()
        budget -= 1
        if budget < 0:
            return None
        kind = type(value)
        if kind is dict:
            mapping: dict[str, Any] = {}
            for key, item in value.items():
                if type(key) is not str:
                    return None
                mapping[key] = None
                pending.append((item, mapping, key))
            value = mapping
        elif kind is list:
            items: list[Any] = [None] * len(value)
            pending.extend((item, items, k) for k, item in enumerate(value))
            value = items
        elif kind is float or kind is bool:
            if not math.isfinite(value):
                return None
            if kind is bool or value.is_integer():
                value = int(value)
        elif kind is not int and kind is not str and value is not None:
            return None
        into[at] = value
    try:
        return _ENCODER.encode(top[0])
    except (ValueError, RecursionError):  # an int past the str conversion limit, deep nesting
        return None


def maximum_matching(compatible: Sequence[Sequence[int]], right_size: int) -> list[int]:
    """Maximum bipartite matching (Hopcroft-Karp, without recursion).

    ``compatible[i]`` lists the right-side indices left item ``i`` may pair
    with. Returns ``match`` with ``match[j]`` = the left index paired with
    right item ``j``, or -1. The size is maximal whatever the input order,
    unlike a greedy first-fit pairing. Each phase layers the graph by a
    breadth-first search from the unpaired left items, then augments along
    shortest paths by depth-first searches on an explicit stack:
    O(E sqrt(V)) time, O(V + E) memory, any size.
    """
    left_size = len(compatible)
    match = [-1] * right_size
    mate = [-1] * left_size  # mate[i]: the right item left item i is paired with
    # A first-fit start, the left items with fewest options first. Left items
    # that share one list object share how far into it every item is paired.
    paired_up_to: dict[int, int] = {}
    for left in sorted(range(left_size), key=lambda left: len(compatible[left])):
        rights = compatible[left]
        k = paired_up_to.get(id(rights), 0)
        while k < len(rights) and match[rights[k]] != -1:
            k += 1
        paired_up_to[id(rights)] = k
        if k < len(rights):
            match[rights[k]], mate[left] = left, rights[k]
    while True:
        free = [left for left in range(left_size) if mate[left] == -1]
        layer = [-1] * left_size
        for left in free:
            layer[left] = 0
        queue, head, limit = free[:], 0, -1  # limit: the layer that reaches a free right item
        while head < len(queue):
            left = queue[head]
            head += 1
            if limit != -1 and layer[left] >= limit:
                break
            for right in compatible[left]:
                owner = match[right]
                if owner == -1:
                    limit = layer[left]
                elif limit == -1 and layer[owner] == -1:
                    layer[owner] = layer[left] + 1
                    queue.append(owner)
        if limit == -1:
            return match
        position = [0] * left_size  # next edge to try, per left item, for this phase
        for root in free:
            stack = [root]
            while stack:
                left = stack[-1]
                rights = compatible[left]
                k, child = position[left], -1
                while k < len(rights):
                    owner = match[rights[k]]
                    if owner == -1:
                        if layer[left] == limit:
                            break
                    elif layer[owner] == layer[left] + 1:
                        child = owner
                        break
                    k += 1
                position[left] = k
                if child != -1:
                    stack.append(child)
                elif k < len(rights):  # a free right item: flip the path on the stack
                    for node in stack:
                        right = compatible[node][position[node]]
                        match[right], mate[node] = node, right
                    break
                else:  # a dead end for the rest of the phase
                    layer[left] = -2
                    stack.pop()
                    if stack:
                        position[stack[-1]] += 1


def first_fit_order_matching(
    compatible: Sequence[Sequence[int]], right_size: int, kinds: Sequence[int]
) -> list[int]:
    """The maximum matching Kuhn's algorithm finds, taking the left items in
    order and each one's right items in list order (what ``maximum_matching``
    computed recursively up to 0.1.0), on an explicit stack.

    Maximum matchings can differ in which items stay unpaired, and reasons
    name them; this one reproduces those reasons. ``kinds[i] == kinds[k]``
    promises equal lists for left items i and k: within one search a list
    is scanned past items already seen only once, whichever item holds it.
    """
    match = [-1] * right_size
    seen = [0] * right_size
    for root in range(len(compatible)):
        stamp = root + 1
        start: dict[int, int] = {}  # per kind: every earlier position is seen
        stack = [root]
        via: list[int] = []  # via[d]: the right item through which stack[d + 1] was reached
        while stack:
            left = stack[-1]
            rights, kind = compatible[left], kinds[left]
            k = start.get(kind, 0)
            while k < len(rights) and seen[rights[k]] == stamp:
                k += 1
            start[kind] = k
            if k == len(rights):
                stack.pop()
                if via:
                    via.pop()
                continue
            right = rights[k]
            seen[right] = stamp
            if match[right] == -1:
                match[right] = left
                for depth, passed in enumerate(via):
                    match[passed] = stack[depth]
                break
            via.append(right)
            stack.append(match[right])
    return match


def connected(fits: Sequence[Sequence[int]], right_size: int) -> list[tuple[list[int], list[int]]]:
    """The connected sets of a bipartite graph, as (left items, right items),
    each ascending; ``fits[i]`` lists the right items left item i is joined to."""
    parent = list(range(len(fits) + right_size))  # right item j is node len(fits) + j

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for left, rights in enumerate(fits):
        for right in rights:
            parent[root(len(fits) + right)] = root(left)
    sets: dict[int, tuple[list[int], list[int]]] = {}
    for node in range(len(parent)):
        lefts, rights = sets.setdefault(root(node), ([], []))
        if node < len(fits):
            lefts.append(node)
        else:
            rights.append(node - len(fits))
    return list(sets.values())
