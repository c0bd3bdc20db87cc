"""Many cases as columns: ``ToolCallBatch``, built from cases, records, frames
and Arrow tables through the columnar readers below it."""

__all__: list[str] = []
