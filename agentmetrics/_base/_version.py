"""The version of agentmetrics: one place, read by the package, the registry and the build."""

__all__ = ["__version__"]

__version__ = "0.1.0"
