"""Types shared across modules (no runtime dependencies)."""

from __future__ import annotations

from typing import Literal

__all__ = ["ErrorsMode"]

#: What to do with a case that cannot be read or scored: stop at the first
#: ("raise"), or report it as an error row and go on ("record").
ErrorsMode = Literal["raise", "record"]
