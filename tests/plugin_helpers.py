"""Throwaway distributions: a dist-info folder and modules on a sys.path entry."""

from __future__ import annotations

import textwrap
from pathlib import Path

GOOD_METRIC = '''
from agentmetrics import Metric

class {cls}(Metric):
    name = "{name}"
    required_fields = ("tool_calls",)
    description = "Counts calls, for tests."

    def __init__(self, threshold=None, cap=4):
        super().__init__(threshold)
        self.cap = cap

    def measure(self, case):
        return min(len(case.tool_calls), self.cap) / self.cap, "counted"
'''


def make_distribution(
    root: Path,
    dist: str,
    version: str,
    entry_points: dict[str, str],
    modules: dict[str, str] | None = None,
) -> Path:
    """Write ``dist``'s metadata and modules into ``root`` (a sys.path entry)."""
    root.mkdir(parents=True, exist_ok=True)
    info = root / f"{dist}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = ["[agentmetrics.metrics]", *(f"{k} = {v}" for k, v in entry_points.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for module, source in (modules or {}).items():
        (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return root
