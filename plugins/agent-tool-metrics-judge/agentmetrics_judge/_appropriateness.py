"""ToolCallAppropriateness: the share of an agent's tool calls that an LLM judge
finds appropriate for the user's request."""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Callable
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
    quote,
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
_USER_AGENT = "agent-tool-metrics-judge/0.1.0"


def _from_env(setting: str) -> str | None:
    for variable in ENV_VARS[setting]:
        value = os.environ.get(variable)
        if value:  # set but empty counts as unset, as in most CI systems
            return value
    return None


def _key_problem(value: str) -> str | None:
    """What is wrong with an API key's characters (an HTTP header carries
    printable ASCII only), described without repeating the key; None if fine."""
    for position, char in enumerate(value):
        if not "!" <= char <= "~":
            what = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab",
                    " ": "a space"}.get(char)
            if what is None:
                what = (f"the non-ASCII character U+{ord(char):04X}" if ord(char) > 127
                        else f"the control character U+{ord(char):04X}")
            where = ("at its end" if position == len(value) - 1 else
                     "at its start" if position == 0 else f"at position {position}")
            return f"a value of {len(value)} characters with {what} {where}"
    return None


def _checked_key(value: str | None, parameter: str) -> str | None:
    if value is not None:
        problem = _key_problem(value)
        if problem is not None:
            raise InvalidParameterError(
                f"tool_call_appropriateness: {parameter} must be an API key of printable ASCII "
                f"characters without spaces (what an HTTP header can carry), got {problem}. "
                f"Fix: strip it, e.g. api_key=open(path).read().strip().")
    return value


def _optional_text(value: object, parameter: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InvalidParameterError(
            f"tool_call_appropriateness: {parameter} must be a non-empty str or None, got "
            f"{value!r}.")
    return value


def _max_response_bytes(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) <= 0:
        raise InvalidParameterError(
            f"tool_call_appropriateness: max_response_bytes must be a positive int (a number "
            f"of bytes), got {value!r}. Fix: pass e.g. max_response_bytes={8 * 1024 * 1024} "
            f"(8 MiB, the default).")
    return int(value)


def _max_retry_wait(value: object) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                              or not math.isfinite(float(value)) or float(value) <= 0):
        raise InvalidParameterError(
            f"tool_call_appropriateness: max_retry_wait must be a positive number of seconds, "
            f"or None for the timeout, got {value!r}. Fix: pass e.g. max_retry_wait=60, or "
            f"None.")
    return None if value is None else float(value)


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
    the deadline, in seconds, for each request as a whole: connecting,
    sending, waiting for the answer and reading all of it.
    ``max_response_bytes`` (8 MiB) bounds the answer's body, counted as
    received and as decompressed; a larger body raises MetricServiceError
    without being read further. ``max_retry_wait`` (seconds; None: the
    ``timeout``) caps the ``retry_after`` reported for a server's
    Retry-After. Redirects are not followed. ``rubric`` replaces the
    built-in criteria (the schema is always sent).

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
    cache_exclude: ClassVar[tuple[str, ...]] = ("timeout", "max_response_bytes",
                                                "max_retry_wait")
    # Never in a repr, a label, a report, an error message or a cache key.
    secret_params: ClassVar[tuple[str, ...]] = ("api_key",)

    def __init__(
        self,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_response_bytes: int = 8 * 1024 * 1024,
        max_retry_wait: float | None = None,
        rubric: str | None = None,
    ) -> None:
        super().__init__(threshold)
        self.model: str | None = _optional_text(model, "model") or _from_env("model")
        self.base_url: str | None = _optional_text(base_url, "base_url") or _from_env("base_url")
        # A key given is checked now; one from the environment when it is used.
        self.api_key: str | None = _checked_key(
            _optional_text(api_key, "api_key"), "api_key") or _from_env("api_key")
        if (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)
                or not math.isfinite(float(timeout)) or float(timeout) <= 0):
            raise InvalidParameterError(
                f"tool_call_appropriateness: timeout must be a positive number of seconds, "
                f"got {timeout!r}. Fix: pass e.g. timeout=30.")
        self.timeout: float = float(timeout)
        self.max_response_bytes: int = _max_response_bytes(max_response_bytes)
        self.max_retry_wait: float | None = _max_retry_wait(max_retry_wait)
        self.rubric: str | None = _optional_text(rubric, "rubric")
        https = (self.base_url or "").strip().lower().startswith("https:")
        self._pool: ClientPool = ClientPool(self.timeout, https=https)
        if base_url is not None:  # a given URL is checked now; one from the environment when used
            _endpoint(base_url, self.scrub)

    def __repr__(self) -> str:
        params = self.shown_params()  # the key as '***', URL credentials masked
        if params["rubric"] is not None:
            params["rubric"] = excerpt(params["rubric"], 40)
        args = ", ".join(f"{key}={value!r}" for key, value in params.items())
        return f"{type(self).__name__}({args})"

    async def ameasure(self, case: AgentTestCase) -> tuple[float, str]:
        calls = case.tool_calls
        assert calls is not None  # a required field: the base class checked it
        if not calls:
            return 1.0, "no calls to judge"
        url, basic = self._url()
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
        elif basic is not None:
            headers["authorization"] = f"Basic {basic}"
        body = await post_json(self._pool, url,
                               json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                               headers, self.timeout,
                               max_response_bytes=self.max_response_bytes,
                               max_retry_wait=self.max_retry_wait, scrub=self.scrub)
        verdicts = parse_verdicts(body, len(calls), self.scrub)
        return _score(verdicts, [call.name for call in calls], self.scrub)

    def _url(self) -> tuple[str, str | None]:
        """The endpoint without credentials, and the Basic credentials (base64)
        that its base URL carried, if any."""
        missing = [setting for setting in ("model", "base_url") if getattr(self, setting) is None]
        if missing:
            what = " and no ".join(setting.replace("_", " ") for setting in missing)
            needed = "; ".join(f"{setting}=... or {' or '.join(ENV_VARS[setting])}"
                               for setting in missing)
            raise JudgeConfigurationError(
                f"tool_call_appropriateness: no judge {what} configured. Fix: pass {needed} "
                f"(environment variables are read when the metric is built).")
        assert self.base_url is not None
        problem = None if self.api_key is None else _key_problem(self.api_key)
        if problem is not None:  # from the environment: a key given was checked when built
            variable = next((name for name in ENV_VARS["api_key"]
                             if os.environ.get(name) == self.api_key), "the environment")
            raise JudgeConfigurationError(
                f"tool_call_appropriateness: the API key from {variable} must be printable "
                f"ASCII characters without spaces (what an HTTP header can carry), got "
                f"{problem}. Fix: set {variable} to the key alone, without spaces or a "
                f"trailing newline.")
        url, basic = _endpoint(self.base_url, self.scrub)
        if basic is not None and self.api_key is not None:
            raise JudgeConfigurationError(
                f"tool_call_appropriateness: base_url carries credentials and an api_key is "
                f"set; one Authorization header carries one of them. Fix: drop the user and "
                f"password from base_url ({self.scrub(self.base_url)!r}), or unset api_key.")
        return url, basic


def _endpoint(base_url: str, scrub: Callable[[str], str] | None = None) -> tuple[str, str | None]:
    """``{base_url}/chat/completions`` without the URL's user and password, and
    those as Basic credentials (base64 of ``user:password``) or None;
    JudgeConfigurationError for a URL that is not http(s)."""
    import base64
    import urllib.parse

    parts = urllib.parse.urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = base_url if scrub is None else scrub(base_url)
        raise JudgeConfigurationError(
            f"tool_call_appropriateness: base_url must be an http(s) URL such as "
            f"'https://api.openai.com/v1' or 'http://localhost:11434/v1', got {shown!r}.")
    basic = None
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        pair = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"
        basic = base64.b64encode(pair.encode("utf-8")).decode("ascii")
    path = parts.path.rstrip("/") + "/chat/completions"
    return urllib.parse.urlunsplit((parts.scheme, netloc, path, parts.query, "")), basic


def _score(verdicts: list[Verdict], names: list[str],
           scrub: Callable[[str], str] | None = None) -> tuple[float, str]:
    n = len(verdicts)
    bad = [verdict for verdict in verdicts if not verdict.appropriate]
    if not bad:
        return 1.0, "the 1 call is appropriate" if n == 1 else f"all {n} calls appropriate"
    # The judge's reasons, scrubbed of the metric's secrets before they are cut.
    listed = "; ".join(
        f"call {v.call} {names[v.call - 1]}: "
        f"{(quote(v.reason, scrub) if scrub else quote(v.reason)).rstrip('.')}"
        for v in bad[:_NAMED])
    more = f"; and {len(bad) - _NAMED} more" if len(bad) > _NAMED else ""
    good = n - len(bad)
    return good / n, (f"{good} of {n} call{'s' if n > 1 else ''} appropriate; "
                      f"inappropriate: {listed}{more}")
