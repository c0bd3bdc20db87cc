"""The metric contract: the abstract `Metric` every metric implements."""

__all__: list[str] = []
