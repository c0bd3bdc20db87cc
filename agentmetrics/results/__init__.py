"""Results: `EvaluationResult`, the summary table, aggregates, trials."""

__all__: list[str] = []
