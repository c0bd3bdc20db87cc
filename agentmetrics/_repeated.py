"""Repeated trials: several runs of each task, and how reliably the agent succeeds."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from agentmetrics._table import Table
from agentmetrics.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._results import EvaluationResult

__all__ = ["Trials"]


class Trials:
    """One metric's outcomes grouped by task: ``trials[i]`` runs of ``tasks[i]``,
    ``passes[i]`` of them passed.

    For k up to :attr:`max_k` (the fewest trials any task has):

    - :meth:`pass_at_k`: the chance that at least one of k trials passes
      (the unbiased estimator 1 - C(n-c, k) / C(n, k)), averaged over tasks;
    - :meth:`pass_hat_k`: the chance that all k pass (tau-bench's pass^k,
      C(c, k) / C(n, k)), averaged over tasks.

    Each has ``per_task=True`` for the value of every task. :meth:`summary`
    gives both for every k with intervals (tasks being the independent units);
    :meth:`table` the per-task consistency table.
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
        from agentmetrics._summary import case_labels

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
        from agentmetrics.stats._trials import pass_at_k, pass_hat_k

        estimate = pass_hat_k if all_pass else pass_at_k
        return np.array([estimate(int(n), int(c), k)
                         for n, c in zip(self.trials.tolist(), self.passes.tolist())],
                        dtype=np.float64)

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

    def summary(self, ci: float | None = 0.95) -> Table:
        """Per k from 1 to :attr:`max_k`: pass@k and pass^k averaged over tasks,
        each with a t interval over tasks, clipped to [0, 1] as both are
        chances (``ci=None``: without)."""
        from agentmetrics.stats._intervals import mean_interval

        rows = []
        for k in range(1, self.max_k + 1):
            row: list[Any] = [k]
            for all_pass in (False, True):
                values = self._per_task(k, all_pass)
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
        return (f"Repeated trials of {self.metric}: {len(self.tasks)} tasks, {runs} "
                f"trial{plural} each")

    def table(self) -> Table:
        """Per task: trials, passes, the pass rate, whether its outcome is
        consistent (``always``, ``never``) or ``mixed``, and pass^k for every k
        up to :attr:`max_k`; least reliable tasks first."""
        ks = range(1, self.max_k + 1)
        hats = [self._per_task(k, all_pass=True) for k in ks]
        rows = []
        for i, task in enumerate(self.tasks):
            n, c = int(self.trials[i]), int(self.passes[i])
            outcome = "always" if c == n else "never" if c == 0 else "mixed"
            rows.append((task, n, c, c / n, outcome, *(float(h[i]) for h in hats)))
        order = {"mixed": 0, "never": 1, "always": 2}
        rows.sort(key=lambda r: (order[r[4]], r[3]))
        columns = ("task", "trials", "passed", "pass_rate", "outcome",
                   *(f"pass^{k}" for k in ks))
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

