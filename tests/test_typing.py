"""The package is fully typed: mypy --strict passes and py.typed ships."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import agentmetrics
from conftest import REPO


def test_py_typed_marker_ships_with_the_package():
    assert (Path(agentmetrics.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize("package", ["agentmetrics", "plugins/agent-tool-metrics-trajectory/agentmetrics_trajectory",
                                     "plugins/agent-tool-metrics-judge/agentmetrics_judge",
                                     "plugins/agent-tool-metrics-tooluse/agentmetrics_tooluse",
                                     "plugins/agent-tool-metrics-compat/agentmetrics_compat"])
def test_mypy_strict_passes(package):
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", package],
        cwd=REPO, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
