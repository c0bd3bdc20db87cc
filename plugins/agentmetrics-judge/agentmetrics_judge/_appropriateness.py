"""ToolCallAppropriateness: the share of an agent's tool calls that an LLM judge
finds appropriate for the user's request."""

from __future__ import annotations

import json
import math
import numbers
import os
from typing import ClassVar, Literal

from agentmetrics import AgentTestCase, Metric
from agentmetrics.errors import InvalidParameterError

from agentmetrics_judge._errors import JudgeConfigurationError
from agentmetrics_judge._http import ClientPool, post_json
from agentmetrics_judge._verdict import (
    DEFAULT_RUBRIC,
    Verdict,
    excerpt,
    parse_verdicts,
    system_message,
    user_message,
)

__all__ = ["JudgeConfigurationError", "ToolCallAppropriateness"]

#: Where each connection setting comes from when it is not given, first found wins.
ENV_VARS: dict[str, tuple[str, ...]] = {
    "model": ("AGENTMETRICS_JUDGE_MODEL",),
    "base_url": ("AGENTMETRICS_JUDGE_BASE_URL", "OPENAI_BASE_URL"),
    "api_key": ("AGENTMETRICS_JUDGE_API_KEY", "OPENAI_API_KEY"),
}
#: Inappropriate calls named in a reason; the rest are counted.
_NAMED = 5
_USER_AGENT = "agentmetrics-judge/0.1.0"


def _from_env(setting: str) -> str | None:
    for variable in ENV_VARS[setting]:
        value = os.environ.get(variable)
        if value:  # set but empty counts as unset, as in most CI systems
            return value
    return None


def _optional_text(value: object, parameter: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InvalidParameterError(
            f"tool_call_appropriateness: {parameter} must be a non-empty str or None, got "
            f"{value!r}.")
    return value


class ToolCallAppropriateness(Metric):
    """Share of the tool calls an LLM judge finds appropriate for the request.

    One POST to ``{base_url}/chat/completions`` per case (any OpenAI-compatible
    server: OpenAI, vLLM, Ollama, LiteLLM), at temperature 0 in JSON mode: the
    system message is the rubric and the verdict's JSON schema, the user message
    the case's ``input`` and its numbered tool calls with their arguments. The
    judge answers ``{"verdicts": [{"call": i, "appropriate": bool, "reason": str},
    ...]}``, one verdict per call; the value is appropriate calls / calls, and the
    reason names each inappropriate call with the judge's reason. A case with no
    calls scores 1.0 without a request. An answer of any other shape raises
    MetricServiceError, never a guessed score.

    ``model``, ``base_url`` and ``api_key`` default to the environment variables
    AGENTMETRICS_JUDGE_MODEL, AGENTMETRICS_JUDGE_BASE_URL (then OPENAI_BASE_URL)
    and AGENTMETRICS_JUDGE_API_KEY (then OPENAI_API_KEY), read when the metric
    is built, so the parameters (and the cache key) say which judge scored. A
    missing model or base URL is reported when a case is scored
    (JudgeConfigurationError), so the metric always builds. ``timeout`` is
    httpx's timeout, in seconds, for connecting, sending and waiting for the
    answer. ``rubric`` replaces the built-in criteria (the schema is always sent).

    Errors: HTTP 408, 429 and 5xx, timeouts and connection failures raise
    TransientMetricError (with ``retry_after`` from Retry-After); the runner
    retries those (``evaluate(..., retries=R)``), the metric never does. Any
    other HTTP error and any invalid verdict raise MetricServiceError.
    """

    name: ClassVar[str] = "tool_call_appropriateness"
    required_fields: ClassVar[tuple[str, ...]] = ("input", "tool_calls")
    requires_llm_judge: ClassVar[bool] = True
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = (
        "Share of tool calls an LLM judge finds appropriate for the user's request.")
    # At most one call in five may be judged inappropriate: one bad call in a
    # trajectory of up to four fails it, and one judge's slip on a long
    # trajectory does not.
    default_threshold: ClassVar[float] = 0.8
    concurrency: ClassVar[Literal["serial", "threads", "async"] | None] = "async"
    # Bump with any change to the default rubric, the prompt or the scoring.
    version: ClassVar[str] = "1"
    cache_fields: ClassVar[tuple[str, ...]] = ("input", "tool_calls")
    cache_exclude: ClassVar[tuple[str, ...]] = ("api_key", "timeout")

    def __init__(
        self,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        rubric: str | None = None,
    ) -> None:
        super().__init__(threshold)
        self.model: str | None = _optional_text(model, "model") or _from_env("model")
        self.base_url: str | None = _optional_text(base_url, "base_url") or _from_env("base_url")
        self.api_key: str | None = _optional_text(api_key, "api_key") or _from_env("api_key")
        if base_url is not None:
            _endpoint(base_url)  # a given URL is checked now; one from the environment when used
        if (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)
                or not math.isfinite(float(timeout)) or float(timeout) <= 0):
            raise InvalidParameterError(
                f"tool_call_appropriateness: timeout must be a positive number of seconds, "
                f"got {timeout!r}. Fix: pass e.g. timeout=30.")
        self.timeout: float = float(timeout)
        self.rubric: str | None = _optional_text(rubric, "rubric")
        https = (self.base_url or "").strip().lower().startswith("https:")
        self._pool: ClientPool = ClientPool(self.timeout, https=https)

    def __repr__(self) -> str:
        params = self.get_params()
        if params["api_key"] is not None:
            params["api_key"] = "***"  # never print a credential
        if params["rubric"] is not None:
            params["rubric"] = excerpt(params["rubric"], 40)
        args = ", ".join(f"{key}={value!r}" for key, value in params.items())
        return f"{type(self).__name__}({args})"

    async def ameasure(self, case: AgentTestCase) -> tuple[float, str]:
        calls = case.tool_calls
        assert calls is not None  # a required field: the base class checked it
        if not calls:
            return 1.0, "no calls to judge"
        url = self._url()
        payload = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": system_message(self.rubric or DEFAULT_RUBRIC)},
                {"role": "user", "content": user_message(case.input, calls)},
            ],
        }
        headers = {"content-type": "application/json", "accept": "application/json",
                   "user-agent": _USER_AGENT}
        if self.api_key is not None:
            headers["authorization"] = f"Bearer {self.api_key}"
        body = await post_json(self._pool, url,
                               json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                               headers, self.timeout)
        verdicts = parse_verdicts(body, len(calls))
        return _score(verdicts, [call.name for call in calls])

    def _url(self) -> str:
        missing = [setting for setting in ("model", "base_url") if getattr(self, setting) is None]
        if missing:
            what = " and no ".join(setting.replace("_", " ") for setting in missing)
            needed = "; ".join(f"{setting}=... or {' or '.join(ENV_VARS[setting])}"
                               for setting in missing)
            raise JudgeConfigurationError(
                f"tool_call_appropriateness: no judge {what} configured. Fix: pass {needed} "
                f"(environment variables are read when the metric is built).")
        assert self.base_url is not None
        return _endpoint(self.base_url)


def _endpoint(base_url: str) -> str:
    """``{base_url}/chat/completions``; JudgeConfigurationError for a URL that is not http(s)."""
    import urllib.parse

    parts = urllib.parse.urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise JudgeConfigurationError(
            f"tool_call_appropriateness: base_url must be an http(s) URL such as "
            f"'https://api.openai.com/v1' or 'http://localhost:11434/v1', got {base_url!r}.")
    return base_url.strip().rstrip("/") + "/chat/completions"


def _score(verdicts: list[Verdict], names: list[str]) -> tuple[float, str]:
    n = len(verdicts)
    bad = [verdict for verdict in verdicts if not verdict.appropriate]
    if not bad:
        return 1.0, "the 1 call is appropriate" if n == 1 else f"all {n} calls appropriate"
    listed = "; ".join(
        f"call {v.call} {names[v.call - 1]}: {excerpt(v.reason).rstrip('.')}"
        for v in bad[:_NAMED])
    more = f"; and {len(bad) - _NAMED} more" if len(bad) > _NAMED else ""
    good = n - len(bad)
    return good / n, (f"{good} of {n} call{'s' if n > 1 else ''} appropriate; "
                      f"inappropriate: {listed}{more}")
