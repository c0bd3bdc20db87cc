"""Text protocols (placeholder until the readers land): no calls read from text."""

from __future__ import annotations

from typing import Any

__all__ = ["calls_in_text", "text_results"]


def calls_in_text(text: str) -> Any:
    return None


def text_results(messages: Any) -> list[Any]:
    return []
