"""What the modules of agentmetrics.dask share: the optional libraries, loaded when used,
and where code is running."""

from __future__ import annotations

import os
import socket
from typing import Any

from agentmetrics.errors import MissingDependencyError

__all__ = ["module", "require_dask", "where"]


def module(name: str) -> Any:
    """A module of the optional libraries, untyped (they ship no complete stubs)."""
    import importlib

    return importlib.import_module(name)


def require_dask() -> Any:
    try:
        dask = module("dask")
        module("dask.dataframe")  # the extra installs dask[dataframe] and distributed
    except ImportError as error:
        raise MissingDependencyError(
            "agentmetrics.dask needs the optional dependencies dask[dataframe] and "
            "distributed, which are not installed. Fix: pip install 'agent-tool-metrics[dask]'."
        ) from error
    return dask


def where() -> str:
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return f"process {os.getpid()} on {socket.gethostname()}"
