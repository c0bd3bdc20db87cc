"""Repeated trials: several runs of each task, and how reliably the agent succeeds."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from agentmetrics.errors import InvalidParameterError
from agentmetrics.results._summary import case_labels
from agentmetrics.results._table import Table
from agentmetrics.stats._intervals import mean_interval
from agentmetrics.stats._trials import pass_k_values

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.results._results import EvaluationResult

__all__ = ["Trials", "default_ks"]

#: Every k up to here is shown; beyond, the steps of :func:`default_ks`.
_EVERY_K_UP_TO = 10


def default_ks(max_k: int) -> list[int]:
    """The k a summary shows when none are asked for: every k from 1 to 10,
    then 20, 50, 100, 200, 500, 1,000, ... (1, 2 and 5 per power of ten)
    below ``max_k``, and ``max_k`` itself (all of the fewest trials): about
    ten rows plus three per power of ten, however many trials there are."""
    ks = list(range(1, min(max_k, _EVERY_K_UP_TO) + 1))
    scale = _EVERY_K_UP_TO
    while ks and ks[-1] < max_k:
        for step in (2, 5, 10):
            k = min(step * scale, max_k)
            if k > ks[-1]:
                ks.append(k)
        scale *= 10
    return ks


class Trials:
    """One metric's outcomes grouped by task: ``trials[i]`` runs of ``tasks[i]``,
    ``passes[i]`` of them passed.

    For k up to :attr:`max_k` (the fewest trials any task has), computed by
    :mod:`agentmetrics.stats` (exact up to 1,000 trials, within 1e-12
    relatively beyond):

    - :meth:`pass_at_k`: the chance that at least one of k trials passes
      (the unbiased estimator 1 - C(n-c, k) / C(n, k)), averaged over tasks;
    - :meth:`pass_hat_k`: the chance that all k pass (tau-bench's pass^k,
      C(c, k) / C(n, k)), averaged over tasks.

    Each has ``per_task=True`` for the value of every task. :meth:`summary`
    gives both with intervals (tasks being the independent units) and
    :meth:`table` the per-task consistency table, for the k of ``ks``: by
    default :func:`default_ks`, every k up to 10 then 20, 50, 100, ... and
    :attr:`max_k`, so that both stay short for thousands of trials.
    """

    __slots__ = ("metric", "passes", "tasks", "trials")

    def __init__(self, metric: str, tasks: Sequence[Any], trials: Sequence[int] | npt.ArrayLike,
                 passes: Sequence[int] | npt.ArrayLike) -> None:
        self.metric = metric
        self.tasks = tuple(tasks)
        self.trials = np.asarray(trials, dtype=np.int64)
        self.passes = np.asarray(passes, dtype=np.int64)
        if not (len(self.tasks) == len(self.trials) == len(self.passes)):
            raise InvalidParameterError("tasks, trials and passes: expected one of each per task.")
        if len(self.tasks) and (self.trials.min() < 1 or (self.passes < 0).any()
                                or (self.passes > self.trials).any()):
            raise InvalidParameterError("trials and passes: expected 0 <= passes <= trials "
                                        "and at least one trial per task.")

    @classmethod
    def from_result(cls, result: EvaluationResult, by: str | Sequence[Any],
                    metric: str) -> Trials:

        scores = result[metric]
        labels = case_labels(result.batch, by, "by")
        index: dict[Any, int] = {}
        codes = np.fromiter((index.setdefault(label, len(index)) for label in labels),
                            dtype=np.intp, count=len(labels))
        trials = np.bincount(codes, minlength=len(index))
        passes = np.bincount(codes, weights=scores.passed, minlength=len(index)).astype(np.int64)
        return cls(metric, list(index), trials, passes)

    @property
    def max_k(self) -> int:
        """The largest k every task allows: its fewest trials (0 with no tasks)."""
        return int(self.trials.min()) if len(self.trials) else 0

    def __len__(self) -> int:
        return len(self.tasks)

    def _check_k(self, k: object) -> int:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise InvalidParameterError(f"k: expected a whole number, got {k!r}.")
        if not len(self.tasks):
            raise InvalidParameterError("k: there are no tasks, so no k to ask for.")
        if not 1 <= k <= self.max_k:
            fewest = self.tasks[int(np.argmin(self.trials))]
            raise InvalidParameterError(
                f"k: expected between 1 and {self.max_k}, the fewest trials of any task "
                f"(task {fewest!r}), got {k}. Fix: ask for a smaller k, or run every task at "
                f"least {k} times.")
        return int(k)

    def _per_task(self, k: int, all_pass: bool) -> npt.NDArray[np.float64]:
        at, hat = pass_k_values(self.trials, self.passes, [k])
        return (hat if all_pass else at)[:, 0]

    def _ks(self, ks: Sequence[int] | None) -> list[int]:
        if ks is None:
            return default_ks(self.max_k)
        if isinstance(ks, (str, bytes)) or not isinstance(ks, Sequence):
            raise InvalidParameterError(
                f"ks: expected a list of whole numbers k, got {type(ks).__name__}. Fix: e.g. "
                f"ks=[1, 2, 4].")
        return list(dict.fromkeys(self._check_k(k) for k in ks))  # each k once, in order

    def pass_at_k(self, k: int, *, per_task: bool = False) -> Any:
        """The chance that at least one of ``k`` trials passes, averaged over
        tasks (an array, one value per task, with ``per_task=True``)."""
        values = self._per_task(self._check_k(k), all_pass=False)
        return values if per_task else float(values.mean())

    def pass_hat_k(self, k: int, *, per_task: bool = False) -> Any:
        """The chance that all ``k`` trials pass (pass^k), averaged over tasks
        (an array, one value per task, with ``per_task=True``)."""
        values = self._per_task(self._check_k(k), all_pass=True)
        return values if per_task else float(values.mean())

    def summary(self, ci: float | None = 0.95, ks: Sequence[int] | None = None) -> Table:
        """Per k of ``ks`` (default: :func:`default_ks`, every k up to 10, then
        20, 50, 100, ... and :attr:`max_k`): pass@k and pass^k averaged over
        tasks, each with a t interval over tasks, clipped to [0, 1] as both
        are chances (``ci=None``: without)."""

        shown = self._ks(ks)
        at, hat = pass_k_values(self.trials, self.passes, shown)
        rows = []
        for column, k in enumerate(shown):
            row: list[Any] = [k]
            for values in (at[:, column], hat[:, column]):
                if ci is None:
                    row.append(float(values.mean()))
                else:
                    bar = mean_interval(values, ci=ci, bounds=(0.0, 1.0))
                    row.extend([bar.estimate, bar.low, bar.high])
            rows.append(tuple(row))
        if ci is None:
            return Table(("k", "pass@k", "pass^k"), rows, title=self._title())
        columns = ("k", "pass@k", "pass@k_low", "pass@k_high", "pass^k", "pass^k_low",
                   "pass^k_high")
        return Table(columns, rows, title=f"{self._title()}, {ci:.0%} CI over tasks")

    def _title(self) -> str:
        fewest = self.max_k
        most = int(self.trials.max()) if len(self.trials) else 0
        runs = f"{fewest}" if fewest == most else f"{fewest} to {most}"
        plural = "" if most == 1 else "s"
        tasks = f"{len(self.tasks)} task{'' if len(self.tasks) == 1 else 's'}"
        return f"Repeated trials of {self.metric}: {tasks}, {runs} trial{plural} each"

    def table(self, ks: Sequence[int] | None = None) -> Table:
        """Per task: trials, passes, the pass rate, whether its outcome is
        consistent (``always``, ``never``) or ``mixed``, and pass^k for each k
        of ``ks`` (default: :func:`default_ks`); least reliable tasks first."""
        shown = self._ks(ks)
        _, hats = pass_k_values(self.trials, self.passes, shown)
        rows = []
        for task, n, c, hat in zip(self.tasks, self.trials.tolist(), self.passes.tolist(),
                                   hats.tolist()):
            outcome = "always" if c == n else "never" if c == 0 else "mixed"
            rows.append((task, n, c, c / n, outcome, *hat))
        order = {"mixed": 0, "never": 1, "always": 2}
        rows.sort(key=lambda r: (order[r[4]], r[3]))
        columns = ("task", "trials", "passed", "pass_rate", "outcome",
                   *(f"pass^{k}" for k in shown))
        return Table(columns, rows, title=f"Consistency of {self.metric} per task")

    def to_pandas(self) -> Any:
        """The per-task table as a DataFrame (needs pandas)."""
        return self.table().to_pandas()

    def __repr__(self) -> str:
        if not len(self.tasks):
            return f"Trials({self.metric}: no tasks)"
        return self.summary().render()

    def _repr_html_(self) -> str:
        if not len(self.tasks):
            return f"<p>{html.escape(repr(self))}</p>"
        return self.summary()._repr_html_()

