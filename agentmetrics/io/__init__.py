"""Case files and comparison sides: the JSONL and Arrow line readers, datasets
of cases, the sides of a comparison and the comparison itself."""

__all__: list[str] = []
