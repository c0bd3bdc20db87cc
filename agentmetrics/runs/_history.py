"""The run history: :class:`RunStore`, the runs recorded in one SQLite file
(kept by :mod:`agentmetrics.runs._store`), and loading a run back from its
saved file."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agentmetrics.report._browser import Compare, browser_html, write_browser
from agentmetrics.runs._load import load_recorded
from agentmetrics.runs._store import MetricSummary, RunRecord, StoreFile, default_store_path

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.results._results import EvaluationResult

__all__ = ["MetricSummary", "RunRecord", "RunStore", "default_store_path", "open_store"]


class RunStore(StoreFile):
    """The runs recorded in one SQLite file: ``RunStore()`` is the default one
    (``$AGENTMETRICS_HISTORY``, else ``.agentmetrics/runs.sqlite`` under the
    current directory), ``RunStore(path)`` another. The file is made on the
    first write; reading never makes it.

    ``EvaluationResult.save(path)`` records each saved run in the default
    history (or the one it is given); so does :meth:`record`. A run keeps its
    provenance, the absolute path of its saved file, a label and each metric's
    summary (a :class:`~agentmetrics.runs.RunRecord`): :meth:`list`, :meth:`get` and
    :meth:`trend` read them, :meth:`load` reads a run's saved file back as an
    EvaluationResult. Nothing here holds a secret: parameters are kept as the
    metric shows them (masked).

    Several processes may record into one file at once: a run is one
    transaction, and a writer waits up to 30 s for another's.
    """

    __slots__ = ()

    def load(self, ref: int | str) -> EvaluationResult:
        """The run ``ref`` (an id, ``"last"`` or ``"last~N"``) read back from its
        saved file with :func:`~agentmetrics.load_result`. An error if the run
        was recorded without a file, if the file is gone, or if it now holds
        another run (saved over since: save each run to a file of its own)."""

        return load_recorded(self, ref)

    def to_html(self, path: str | os.PathLike[str] | None = None, *, title: str | None = None,
                reports: bool = True, compare: Compare | None = None) -> Any:
        """The run browser: one self-contained HTML page over every run of the
        history, newest first: per run its label, time, configuration, cases,
        and per metric its mean and pass rate (sortable, filtered by text);
        each metric's mean with its interval over the runs, in one grid of
        charts; two runs picked link to their comparison, or give the command
        that makes it.

        Written to ``path`` (returned as a Path), or returned as a string
        without one. With a path, each run whose saved file is there gets its
        own report beside the page, in ``<stem>_runs/<id>.html`` (``reports=False``
        skips them), and with ``compare=agentmetrics.compare`` the comparisons
        (``<stem>_runs/compare-<A>-<B>.html``): of every two runs in a history
        of at most 10 runs, else of each run with the run before it.
        The links are relative: the page and its folder can be moved together.
        A run whose file is gone is listed without a link, and says why."""
        if path is None:
            return browser_html(self, title=title)
        return write_browser(self, path, title=title, reports=reports, compare=compare)


def open_store(path: str | os.PathLike[str] | None = None) -> RunStore:
    """The run history at ``path`` (None: the default one, see
    :func:`default_store_path`)."""
    return RunStore(path)
