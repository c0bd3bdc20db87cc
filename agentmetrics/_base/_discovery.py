"""Reading the ``agentmetrics.metrics`` entry points: the registry's only I/O.

It reads entry-point metadata files and imports nothing from the plugins.
A malformed entry is kept with its problem, never dropped, so that listing
shows it and asking for it explains it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

__all__ = ["ENTRY_POINT_GROUP", "EntryPointSpec", "normalize_distribution", "scan"]

ENTRY_POINT_GROUP = "agentmetrics.metrics"


def normalize_distribution(name: str) -> str:
    """PEP 503 normalisation: ``Agent_Metrics.X`` and ``agent-metrics-x`` match."""
    return re.sub(r"[-_.]+", "-", name).lower()


@attrs.frozen(slots=True)
class EntryPointSpec:
    """One entry point as written in a distribution's metadata."""

    name: str
    target: str
    distribution: str | None
    version: str | None
    problem: str | None = None

    @property
    def module(self) -> str:
        return self.target.partition(":")[0].strip()

    @property
    def attribute(self) -> str:
        """The object path after the colon (``Outer.Inner``), or '' if absent."""
        return self.target.partition(":")[2].split("[")[0].strip()

    @property
    def class_name(self) -> str:
        return self.attribute.rpartition(".")[2]


_TARGET = re.compile(r"^\s*[\w.]+\s*:\s*[\w.]+\s*(\[[^\]]*\])?\s*$")


def scan(path: Sequence[str] | None = None) -> list[EntryPointSpec]:
    """Every entry point of the group found on ``path`` (default ``sys.path``).

    A distribution found twice on the path is read once, from its first
    location, as the import system would use it.
    """
    import entrypoints  # deferred: importing agentmetrics must stay light

    found: list[EntryPointSpec] = []
    for config, distro in entrypoints.iter_files_distros(path=list(path) if path else None):
        if ENTRY_POINT_GROUP not in config:
            continue
        for name, target in config[ENTRY_POINT_GROUP].items():
            problem = None
            if not _TARGET.match(target):
                problem = (
                    f"malformed entry point target {target!r}; expected 'module:Class'"
                )
            found.append(
                EntryPointSpec(
                    name=name,
                    target=target.strip(),
                    # As PEP 503 spells it (``agent-tool-metrics-judge``), whatever
                    # the metadata directory's spelling (``agent_tool_metrics_judge``).
                    distribution=normalize_distribution(distro.name),
                    version=distro.version,
                    problem=problem,
                )
            )
    return found
