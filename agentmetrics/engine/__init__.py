"""Scoring a batch: `evaluate`, its concurrency, the score cache, streaming in chunks."""

__all__: list[str] = []
