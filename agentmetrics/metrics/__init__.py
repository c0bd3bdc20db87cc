"""Metric classes.

The built-in ones are importable directly; any other installed metric is
importable here by its class name, which loads just that plugin::

    from agentmetrics.metrics import ToolSelectionAccuracy
    from agentmetrics.metrics import TrajectoryMatch  # from an installed plugin
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentmetrics.metrics._per_turn import PerTurn, per_turn
from agentmetrics.metrics._tool_selection import ToolSelectionAccuracy
from agentmetrics.registry import find_by_class_name

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.metric._metric import Metric
    from agentmetrics.metrics._expectation_match import ExpectationMatch as ExpectationMatch

__all__ = ["PerTurn", "ToolSelectionAccuracy", "per_turn"]  # ExpectationMatch: imported when asked for


def __getattr__(attribute: str) -> type[Metric]:
    if attribute == "ExpectationMatch":  # imported when asked for: it brings the expectations
        from agentmetrics.metrics._expectation_match import ExpectationMatch

        return ExpectationMatch
    # Only CapWords names can be metric classes; anything else (tools probing
    # for pytest_plugins, __path__, ...) must not trigger an entry-point scan.
    if attribute[:1].isupper():

        found = find_by_class_name(attribute)
        if found is not None:
            return found
    raise AttributeError(
        f"module 'agentmetrics.metrics' has no attribute {attribute!r}; no installed "
        f"metric has that class name (run `agentmetrics list`)."
    )
