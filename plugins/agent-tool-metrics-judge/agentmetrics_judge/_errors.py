"""The plugin's own error."""

from __future__ import annotations

from agentmetrics.errors import InvalidParameterError, MetricServiceError

__all__ = ["JudgeConfigurationError"]


class JudgeConfigurationError(MetricServiceError, InvalidParameterError):
    """The judge cannot be called as configured: no model or no base URL, a
    base URL that is not http(s), or TLS settings (SSL_CERT_FILE, SSL_CERT_DIR)
    that cannot be loaded. Raised when a case is scored, never when the metric
    is built. A MetricServiceError (so ``evaluate(..., errors="record")``
    records it on the row, and never retries it) and an InvalidParameterError
    (a ValueError), since the fix is a parameter or an environment variable."""
