"""The foundation: small tools every layer uses, with no agentmetrics dependency beyond `errors`."""

__all__: list[str] = []
