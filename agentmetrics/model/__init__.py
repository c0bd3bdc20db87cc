"""The model layer: a case and its calls, a metric's result and the one
validator, the batch of cases as columns, the canonical encoding of values."""

__all__: list[str] = []
