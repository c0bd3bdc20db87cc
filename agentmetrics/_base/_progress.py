"""A progress bar on stderr: tqdm's when installed, a plain one otherwise."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any

__all__ = ["AUTO_PROGRESS_MIN_CASES", "Progress"]

#: With progress=None, runs of at least this many cases show a bar.
AUTO_PROGRESS_MIN_CASES = 200_000


class Progress:
    """Counts work done out of ``total`` (None: unknown, as for a stream);
    draws nothing when disabled."""

    def __init__(
        self, total: int | None, enabled: bool, description: str = "agentmetrics"
    ) -> None:
        self.total = total
        self.done = 0
        self._tqdm: Any = None
        self._plain = False
        self._description = description
        self._last_draw = 0.0
        self._status = ""
        self._width = 0
        if not enabled or (total is not None and total <= 0):
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            self._plain = True
        else:
            self._tqdm = tqdm(total=total, desc=description, unit="case", file=sys.stderr,
                              leave=False, unit_scale=True)

    def update(self, amount: int, status: str | None = None) -> None:
        """Count ``amount`` more cases done; ``status`` is shown beside the count
        (failed, retrying and rate, for metrics that wait)."""
        self.done += amount
        if status is not None:
            self._status = status
        if self._tqdm is not None:
            if status is not None:
                self._tqdm.set_postfix_str(status, refresh=False)
            self._tqdm.update(amount)
        elif self._plain:
            now = time.monotonic()
            if now - self._last_draw >= 0.2 or (self.total and self.done >= self.total):
                self._last_draw = now
                self._draw()

    def _draw(self) -> None:
        if self.total:
            text = f"{self.done / self.total:4.0%} ({self.done:,}/{self.total:,} cases)"
        else:
            text = f"{self.done:,} cases"
        if self._status:
            text += f", {self._status}"
        line = f"{self._description}: {text}"
        sys.stderr.write("\r" + line.ljust(self._width))  # spaces cover a longer last line
        self._width = len(line)
        sys.stderr.flush()

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None
        elif self._plain:
            self._draw()  # the final count, whatever the throttling skipped
            sys.stderr.write("\n")
            self._plain = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
