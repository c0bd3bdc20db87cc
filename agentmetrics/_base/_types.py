"""Types shared across modules, and the check of the errors mode."""

from __future__ import annotations

from typing import Literal

from agentmetrics.errors import InvalidParameterError

__all__ = ["ErrorsMode", "check_errors_mode"]

#: What to do with a case that cannot be read or scored: stop at the first
#: ("raise"), or report it as an error row and go on ("record").
ErrorsMode = Literal["raise", "record"]


def check_errors_mode(errors: str) -> ErrorsMode:
    """``errors`` as the mode it names (``"raise"`` or ``"record"``), or
    InvalidParameterError saying what the two do."""
    if errors == "raise":
        return "raise"
    if errors == "record":
        return "record"
    raise InvalidParameterError(
        f"errors must be 'raise' or 'record', got {errors!r}. 'record' keeps going "
        f"and reports each case that cannot be scored; 'raise' stops at the first."
    )
