"""Optimal one-to-one pairing: the assignment of rows to columns with the
largest total weight (the Hungarian method, in its shortest-augmenting-path
form). Pure Python: the matrices here are the calls of one tool in one case."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["best_assignment"]


def best_assignment(weights: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs ``(row, column)``, each row and column used at most once, as many
    pairs as the smaller side has, with the largest sum of ``weights[row][column]``.

    Ties are broken towards lower indices in a fixed way, so the result is
    deterministic. ``weights`` is a rectangular list of finite numbers.
    """
    rows = len(weights)
    columns = len(weights[0]) if rows else 0
    if not rows or not columns:
        return []
    if rows > columns:  # the method needs rows <= columns: solve the transpose
        flipped = [[weights[i][j] for i in range(rows)] for j in range(columns)]
        return sorted((i, j) for j, i in best_assignment(flipped))
    # Minimum cost on cost = -weight, potentials u (rows) and v (columns);
    # index 0 is a virtual column, rows and columns are numbered from 1.
    cost = [[-float(value) for value in row] for row in weights]
    u = [0.0] * (rows + 1)
    v = [0.0] * (columns + 1)
    owner = [0] * (columns + 1)  # owner[j]: the row assigned to column j (0: none)
    way = [0] * (columns + 1)
    for row in range(1, rows + 1):
        owner[0] = row
        column = 0
        least = [math.inf] * (columns + 1)
        used = [False] * (columns + 1)
        while True:
            used[column] = True
            current = owner[column]
            delta, nearest = math.inf, 0
            for j in range(1, columns + 1):
                if used[j]:
                    continue
                reduced = cost[current - 1][j - 1] - u[current] - v[j]
                if reduced < least[j]:
                    least[j], way[j] = reduced, column
                if least[j] < delta:
                    delta, nearest = least[j], j
            for j in range(columns + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            column = nearest
            if owner[column] == 0:
                break
        while column:  # flip the augmenting path
            previous = way[column]
            owner[column] = owner[previous]
            column = previous
    return sorted((owner[j] - 1, j - 1) for j in range(1, columns + 1) if owner[j])
