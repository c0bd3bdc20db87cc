"""Optional dependencies, imported when first needed."""

from __future__ import annotations

import importlib
from typing import Any

from agentmetrics.errors import MissingDependencyError

__all__ = ["require"]


def require(module: str, extra: str) -> Any:
    """``module`` imported, or MissingDependencyError naming the extra that
    installs it (``pip install 'agent-tool-metrics[<extra>]'``)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependencyError(
            f"this needs the optional dependency {module!r}, which is not installed. "
            f"Fix: pip install 'agent-tool-metrics[{extra}]'."
        ) from error
