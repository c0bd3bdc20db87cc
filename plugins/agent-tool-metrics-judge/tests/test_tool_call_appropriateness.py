"""ToolCallAppropriateness against a real OpenAI-compatible server (tests/judge_server.py):
scoring, the request it sends, configuration, strict verdicts, HTTP failures, event loops."""

from __future__ import annotations

import asyncio
import gc
import json
import pickle
import socket
import threading
import time

import pytest

from agentmetrics import AgentTestCase, ToolCall, get_metric, list_metrics
from agentmetrics.errors import (
    InvalidParameterError,
    MetricServiceError,
    MissingFieldError,
    TransientMetricError,
)
from agentmetrics.testing import check_metric
from agentmetrics_judge import (
    DEFAULT_RUBRIC,
    VERDICT_SCHEMA,
    JudgeConfigurationError,
    ToolCallAppropriateness,
)
from judge_server import BAD_BODIES, MALFORMED, WRONG_SHAPES, JudgeServer, eventually

ENV = ("AGENTMETRICS_JUDGE_MODEL", "AGENTMETRICS_JUDGE_BASE_URL", "AGENTMETRICS_JUDGE_API_KEY",
       "OPENAI_BASE_URL", "OPENAI_API_KEY")


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch):
    """The developer's own OPENAI_API_KEY and friends never leak into a test."""
    for variable in ENV:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def server():
    with JudgeServer() as running:
        yield running
        assert running.errors == []


def judge(server, **params):
    return ToolCallAppropriateness(model="judge-model", base_url=server.url, **params)


def case(text="Cancel order 7 and refund me", calls=None):
    return AgentTestCase(input=text, tool_calls=[
        ToolCall("GetOrder", {"order_id": 7}),
        ToolCall("CancelOrder", {"order_id": 7}),
        ToolCall("IssueRefund", {"order_id": 7, "amount": 12.5}),
    ] if calls is None else calls)


def failure(metric, text, calls=("GetOrder",)):
    with pytest.raises(MetricServiceError) as caught:
        metric.evaluate(AgentTestCase(input=text, tool_calls=list(calls)))
    return caught.value


# -- scoring ---------------------------------------------------------------------------------


def test_scores_the_share_of_appropriate_calls_and_names_the_others(server):
    score = judge(server).evaluate(case(calls=[
        ToolCall("GetOrder", {"order_id": 7}),
        ToolCall("DeleteOrder", {"order_id": 7}),
        ToolCall("IssueRefund", {"reason": "bad customer"}),
        ToolCall("CancelOrder", {"order_id": 7}),
    ]))
    assert score.value == 0.5 and score.passed is False and score.threshold == 0.8
    assert score.reason == (
        "2 of 4 calls appropriate; inappropriate: "
        "call 2 DeleteOrder: DeleteOrder deletes data, which the request did not ask for; "
        "call 3 IssueRefund: The arguments of IssueRefund contain 'bad'")
    assert server.total == 1


def test_all_appropriate(server):
    metric = judge(server)
    score = metric.evaluate(case())
    assert (score.value, score.passed, score.reason) == (1.0, True, "all 3 calls appropriate")
    assert metric.evaluate(case(calls=["GetOrder"])).reason == "the 1 call is appropriate"
    one_bad = metric.evaluate(case(calls=["DeleteOrder"]))
    assert (one_bad.value, one_bad.reason) == (0.0, "0 of 1 call appropriate; inappropriate: "
                                               "call 1 DeleteOrder: DeleteOrder deletes data, "
                                               "which the request did not ask for")


def test_reason_names_five_inappropriate_calls_and_counts_the_rest(server):
    score = judge(server).evaluate(case(calls=[f"Delete{i}" for i in range(8)] + ["GetOrder"]))
    assert score.value == 1 / 9
    assert score.reason.startswith("1 of 9 calls appropriate; inappropriate: call 1 Delete0: ")
    assert "call 5 Delete4" in score.reason and "Delete5" not in score.reason
    assert score.reason.endswith("; and 3 more")


def test_threshold_decides_passed(server):
    calls = ["GetOrder", "A", "B", "DeleteOrder"]  # 0.75
    assert judge(server).evaluate(case(calls=calls)).passed is False
    assert judge(server, threshold=0.75).evaluate(case(calls=calls)).passed is True


def test_the_request_is_one_openai_chat_completion(server):
    calls = [ToolCall("GetOrder", {"order_id": 7, "note": "line one\nline two"}),
             ToolCall("Search", {"q": "検索"}),
             ToolCall("Broken", raw_arguments="{not json")]
    judge(server).evaluate(AgentTestCase(input="Where is order 7?", tool_calls=calls))
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["content-type"] == "application/json"
    assert "authorization" not in request.headers
    body = request.body
    assert set(body) == {"model", "temperature", "response_format", "messages"}
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert system["content"].startswith(DEFAULT_RUBRIC)
    assert json.dumps(VERDICT_SCHEMA, separators=(", ", ": ")) in system["content"]
    assert user["content"] == "\n".join([
        "The user's request:",
        "Where is order 7?",
        "",
        "The agent made 3 tool calls, in this order. Give one verdict per call, numbered 1 to 3:",
        '1. {"name": "GetOrder", "arguments": {"order_id": 7, "note": "line one\\nline two"}}',
        '2. {"name": "Search", "arguments": {"q": "検索"}}',
        '3. {"name": "Broken", "unparsed_arguments": "{not json"}',
    ])


def test_a_rubric_replaces_the_criteria_but_not_the_schema(server):
    judge(server, rubric="Only read-only calls are appropriate.").evaluate(case())
    system = server.requests[0].body["messages"][0]["content"]
    assert system.startswith("Only read-only calls are appropriate.\n\n")
    assert DEFAULT_RUBRIC not in system and '"additionalProperties": false' in system


def test_input_that_is_not_text_is_sent_as_json(server):
    judge(server).evaluate(AgentTestCase(input=[{"role": "user", "content": "hi"}],
                                         tool_calls=["GetOrder"]))
    user = server.requests[0].body["messages"][1]["content"]
    assert user.splitlines()[1] == '[{"role": "user", "content": "hi"}]'


def test_a_case_without_calls_scores_one_and_makes_no_request(server):
    score = judge(server).evaluate(AgentTestCase(input="hello", tool_calls=[]))
    assert (score.value, score.passed, score.reason) == (1.0, True, "no calls to judge")
    # Not even a configured judge is needed for it.
    assert ToolCallAppropriateness().evaluate(AgentTestCase(input="hi", tool_calls=[])).value == 1.0
    assert server.total == 0


def test_required_fields(server):
    metric = judge(server)
    with pytest.raises(MissingFieldError, match="'input'"):
        metric.evaluate(AgentTestCase(tool_calls=["GetOrder"]))
    with pytest.raises(MissingFieldError, match="'tool_calls'"):
        metric.evaluate(AgentTestCase(input="hi"))
    assert server.total == 0


def test_the_conformance_kit_passes_against_the_server(server):
    extra = [case(calls=["GetOrder", "DeleteOrder"]),
             case(calls=[ToolCall("Refund", {"why": "bad"})] * 3)]
    check_metric(ToolCallAppropriateness, {"model": "judge-model", "base_url": server.url},
                 cases=extra)
    assert server.total > 60  # the ~60 generated cases with calls and input, several times
    assert {request.outcome for request in server.requests} == {"answered"}


def test_found_by_name_through_the_entry_point(server):
    (info,) = [i for i in list_metrics() if i.name == "tool_call_appropriateness"]
    assert (info.distribution, info.version, info.error) == ("agent-tool-metrics-judge", "0.1.0", None)
    assert info.target == "agentmetrics_judge:ToolCallAppropriateness"
    metric = get_metric("tool_call_appropriateness", model="judge-model", base_url=server.url)
    assert isinstance(metric, ToolCallAppropriateness)
    assert metric.evaluate(case()).value == 1.0


def test_pickles_and_masks_the_key_in_repr(server):
    metric = judge(server, api_key="sk-secret", rubric="Be strict. " * 20)
    metric.evaluate(case())  # a used metric pickles too
    clone = pickle.loads(pickle.dumps(metric))
    assert clone == metric and clone.api_key == "sk-secret"
    assert clone.evaluate(case()) == metric.evaluate(case())
    text = repr(metric)
    assert "sk-secret" not in text and "api_key='***'" in text and len(text) < 300
    assert text.startswith("ToolCallAppropriateness(threshold=0.8, model='judge-model', ")


# -- configuration ---------------------------------------------------------------------------


def test_builds_without_configuration_and_says_what_is_missing_when_used():
    metric = ToolCallAppropriateness()  # agentmetrics list builds every metric like this
    assert (metric.model, metric.base_url, metric.api_key) == (None, None, None)
    with pytest.raises(JudgeConfigurationError) as caught:
        metric.evaluate(case())
    error = caught.value
    assert isinstance(error, MetricServiceError) and isinstance(error, InvalidParameterError)
    assert not isinstance(error, TransientMetricError)
    for variable in ("AGENTMETRICS_JUDGE_MODEL", "AGENTMETRICS_JUDGE_BASE_URL", "OPENAI_BASE_URL"):
        assert variable in str(error)
    with pytest.raises(JudgeConfigurationError, match="no judge model configured"):
        ToolCallAppropriateness(base_url="http://127.0.0.1:9/v1").evaluate(case())


def test_environment_variables_fill_in_what_is_not_given(server, monkeypatch):
    monkeypatch.setenv("AGENTMETRICS_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("AGENTMETRICS_JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("AGENTMETRICS_JUDGE_API_KEY", "judge-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key")
    metric = ToolCallAppropriateness()
    assert (metric.model, metric.base_url, metric.api_key) == ("env-model", server.url, "judge-key")
    assert metric.evaluate(case()).value == 1.0
    request = server.requests[-1]
    assert request.body["model"] == "env-model"
    assert request.headers["authorization"] == "Bearer judge-key"


def test_openai_variables_are_the_fallback(server, monkeypatch):
    monkeypatch.setenv("AGENTMETRICS_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("AGENTMETRICS_JUDGE_BASE_URL", "")  # empty counts as unset
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key")
    metric = ToolCallAppropriateness()
    assert (metric.base_url, metric.api_key) == (server.url, "openai-key")
    metric.evaluate(case())
    assert server.requests[-1].headers["authorization"] == "Bearer openai-key"


def test_parameters_win_over_the_environment(server, monkeypatch):
    monkeypatch.setenv("AGENTMETRICS_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("AGENTMETRICS_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENTMETRICS_JUDGE_API_KEY", "env-key")
    metric = judge(server, api_key="given-key")
    assert (metric.model, metric.base_url, metric.api_key) == ("judge-model", server.url,
                                                               "given-key")
    metric.evaluate(case())
    assert server.requests[-1].headers["authorization"] == "Bearer given-key"


def test_the_environment_is_read_when_the_metric_is_built(server, monkeypatch):
    """So the parameters, the repr and the cache key say which judge scored."""
    monkeypatch.setenv("AGENTMETRICS_JUDGE_MODEL", "first")
    metric = ToolCallAppropriateness(base_url=server.url)
    monkeypatch.setenv("AGENTMETRICS_JUDGE_MODEL", "second")
    metric.evaluate(case())
    assert server.requests[-1].body["model"] == "first" and "model='first'" in repr(metric)
    assert metric.get_params()["model"] == "first"


@pytest.mark.parametrize("params, message", [
    ({"timeout": 0}, "timeout must be a positive number"),
    ({"timeout": -1.0}, "timeout must be a positive number"),
    ({"timeout": float("nan")}, "timeout must be a positive number"),
    ({"timeout": True}, "timeout must be a positive number"),
    ({"timeout": "30"}, "timeout must be a positive number"),
    ({"model": ""}, "model must be a non-empty str"),
    ({"model": 4}, "model must be a non-empty str"),
    ({"api_key": b"key"}, "api_key must be a non-empty str"),
    ({"rubric": "  "}, "rubric must be a non-empty str"),
    ({"base_url": "localhost:8000/v1"}, "base_url must be an http"),
    ({"base_url": "ftp://example.com"}, "base_url must be an http"),
])
def test_bad_parameters_are_refused_when_built(params, message):
    with pytest.raises(InvalidParameterError, match=message):
        ToolCallAppropriateness(**params)


def test_a_bad_url_from_the_environment_is_reported_when_used(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:8000/v1")
    metric = ToolCallAppropriateness(model="m")  # builds: the environment is not its fault
    with pytest.raises(JudgeConfigurationError, match="base_url must be an http"):
        metric.evaluate(case())


def test_a_trailing_slash_on_the_base_url_is_fine(server):
    assert judge(server).base_url == server.url
    ToolCallAppropriateness(model="m", base_url=server.url + "/").evaluate(case())
    assert server.requests[-1].path == "/v1/chat/completions"


def test_unloadable_certificates_are_a_configuration_error_for_https_only(server, monkeypatch,
                                                                          tmp_path):
    from agentmetrics_judge import _http

    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    _http._tls_context.cache_clear()
    try:
        assert judge(server).evaluate(case()).value == 1.0  # plain http loads no certificates
        metric = ToolCallAppropriateness(model="m", base_url="https://127.0.0.1:9/v1")
        with pytest.raises(JudgeConfigurationError, match="cannot load the TLS certificates"):
            metric.evaluate(case())
        assert metric._pool.open_clients() == 0
    finally:
        _http._tls_context.cache_clear()


# -- strict verdicts -------------------------------------------------------------------------

SPOILED = ([f"wrong-shape={kind}" for kind in WRONG_SHAPES]
           + [f"malformed={kind}" for kind in MALFORMED]
           + [f"bad-body={kind}" for kind in BAD_BODIES])


@pytest.mark.parametrize("fault", SPOILED)
def test_every_spoiled_verdict_is_an_error_never_a_score(server, fault):
    error = failure(judge(server), f"[[fault:{fault}]] Cancel order 7",
                    calls=("GetOrder", "CancelOrder"))
    assert type(error) is MetricServiceError
    assert str(error).startswith("judge gave an invalid verdict: ")


@pytest.mark.parametrize("fault, message", [
    ("wrong-shape=call-bool", "verdicts[0].call is true (a boolean); expected an int from 1 to 2"),
    ("wrong-shape=call-float", "verdicts[0].call is 1.0 (a float)"),
    ("wrong-shape=appropriate-string", "verdicts[0].appropriate is 'true' (a string); "
                                       "expected true or false"),
    ("wrong-shape=extra-key", "unexpected keys ['summary'] beside 'verdicts'"),
    ("wrong-shape=extra-field", "verdicts[0] has unexpected keys ['tool']"),
    ("wrong-shape=missing-reason", "verdicts[0] lacks ['reason']"),
    ("wrong-shape=missing-call", "1 verdicts for 2 calls; no verdict for call 2"),
    ("wrong-shape=duplicate-call", "call 1 has two verdicts"),
    ("wrong-shape=call-out-of-range", "verdicts[0].call is 3; expected an int from 1 to 2"),
    ("wrong-shape=blank-reason", "verdicts[0].reason is '' (a string); expected a non-empty"),
    ("malformed=duplicate-key", "repeats the key 'verdicts'"),
    ("malformed=nan", "NaN is not JSON"),
    ("bad-body=refusal", "the judge refused: I can't help with that."),
    ("bad-body=truncated", "the answer was cut off: finish_reason 'length'"),
    ("bad-body=not-json", "the response body (HTTP 200, text/html) is not JSON"),
])
def test_invalid_verdicts_say_what_is_wrong(server, fault, message):
    error = failure(judge(server), f"[[fault:{fault}]]", calls=("GetOrder", "CancelOrder"))
    assert message in str(error)


# -- HTTP failures ---------------------------------------------------------------------------


@pytest.mark.parametrize("fault, retry_after", [
    ("429:retry-after=0.2", 0.2),
    ("429:retry-after=3", 3.0),
    ("429:retry-after-ms=1500", 1.5),
    ("429:retry-after=7:retry-after-ms=250", 0.25),  # OpenAI's precise header wins
    ("429", None),
    ("429:retry-after=soon", None),
    ("503:retry-after=1", 1.0),
    ("500", None),
    ("502", None),
    ("408", None),
])
def test_rate_limits_and_server_errors_are_transient(server, fault, retry_after):
    error = failure(judge(server), f"[[fault:{fault}]]")
    assert isinstance(error, TransientMetricError)
    assert error.retry_after == retry_after
    assert f"answered HTTP {fault[:3]}: injected fault: HTTP {fault[:3]}" in str(error)


def test_retry_after_as_an_http_date(server):
    error = failure(judge(server), "[[fault:429:retry-after-date=30]]")
    assert isinstance(error, TransientMetricError) and 28.0 < error.retry_after <= 30.0
    error = failure(judge(server), "[[fault:503:retry-after-date=-100]] past")
    assert error.retry_after == 0.0


@pytest.mark.parametrize("status, hint", [
    ("400", None),
    ("401", "check the API key"),
    ("403", "check the API key"),
    ("404", "check base_url"),
    ("422", None),
])
def test_other_client_errors_are_not_transient(server, status, hint):
    error = failure(judge(server), f"[[fault:{status}]]")
    assert type(error) is MetricServiceError
    assert f"answered HTTP {status}: injected fault: HTTP {status}" in str(error)
    if hint:
        assert hint in str(error)


def test_the_servers_message_is_cut_to_200_characters(server):
    error = failure(judge(server), "[[fault:400:pad=5000]]")
    message = str(error).split("answered HTTP 400: ")[1]
    assert len(message) == 200 and message.startswith("injected fault: HTTP 400xxx")
    assert message.endswith("x…")


def test_a_wrong_base_url_path_is_a_clear_404(server):
    metric = ToolCallAppropriateness(model="m", base_url=server.url.removesuffix("/v1"))
    error = failure(metric, "hello")
    assert type(error) is MetricServiceError
    assert "HTTP 404: no route for /chat/completions" in str(error)
    assert "usually end it in /v1" in str(error)


@pytest.mark.parametrize("fault", ["drop", "reset"])
def test_a_dropped_connection_is_transient(server, fault):
    error = failure(judge(server), f"[[fault:{fault}]]")
    assert isinstance(error, TransientMetricError) and error.retry_after is None
    assert "could not reach the judge" in str(error)


def test_nobody_listening_is_transient():
    # A port bound and held, never listening: connecting is refused, and no other
    # process (another xdist worker's server, a dask worker) can take the port
    # between the bind and the request, as it could once the probe was closed.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        metric = ToolCallAppropriateness(model="m", base_url=f"http://127.0.0.1:{port}/v1")
        error = failure(metric, "hello")
    assert isinstance(error, TransientMetricError) and "ConnectError" in str(error)


def test_the_timeout_parameter_is_honoured(server):
    metric = judge(server, timeout=0.2)
    started = time.monotonic()
    error = failure(metric, "[[fault:timeout=5]]")
    assert time.monotonic() - started < 2.0
    assert isinstance(error, TransientMetricError)
    assert "did not answer within the timeout of 0.2 s (ReadTimeout)" in str(error)


def test_faults_for_the_first_attempts_only_then_a_score(server):
    metric = judge(server)
    text = "[[case:flaky]] [[fault:500:x1]][[fault:429:retry-after=0:x1]] Cancel order 7"
    for expected in (TransientMetricError, TransientMetricError):
        with pytest.raises(expected):
            metric.evaluate(case(text))
    assert metric.evaluate(case(text)).value == 1.0
    assert server.attempts["flaky"] == 3 and server.answered["flaky"] == 1
    assert [r.outcome for r in server.requests] == ["status 500", "status 429", "answered"]


def test_the_metric_never_retries_by_itself(server):
    with pytest.raises(TransientMetricError):
        judge(server).evaluate(case("[[case:once]] [[fault:503:x5]]"))
    assert server.attempts["once"] == 1


# -- event loops and threads -----------------------------------------------------------------


def test_sync_evaluate_outside_and_inside_a_running_loop(server):
    metric = judge(server)
    assert metric.evaluate(case()).value == 1.0  # asyncio.run, a fresh loop each time
    assert metric.evaluate(case()).value == 1.0

    async def in_a_notebook_cell():
        return metric.evaluate(case(calls=["DeleteOrder", "GetOrder"]))  # blocking, as in Jupyter

    assert asyncio.run(in_a_notebook_cell()).value == 0.5
    assert metric._pool.open_clients() == 0


def test_one_metric_on_many_loops_and_threads_at_once(server):
    server.latency = 0.05
    metric = judge(server)
    results: dict[int, list[float]] = {}

    def thread_body(number):
        async def main():
            scores = await asyncio.gather(*(
                metric.aevaluate(case(f"[[case:t{number}-{i}]]", ["GetOrder", "DeleteOrder"]))
                for i in range(20)))
            return [score.value for score in scores]

        results[number] = asyncio.run(main())

    threads = [threading.Thread(target=thread_body, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: [0.5] * 20 for n in range(4)}
    assert server.total == 80 and set(server.answered.values()) == {1}
    assert metric._pool.open_clients() == 0


def test_many_cases_at_once_on_one_loop_share_connections(server):
    server.latency = 0.05
    metric = judge(server)

    async def main():
        gate = asyncio.Semaphore(16)

        async def one(i):
            async with gate:
                return await metric.aevaluate(case(f"[[case:c{i}]] request {i}"))

        return await asyncio.gather(*(one(i) for i in range(160)))

    scores = asyncio.run(main())
    assert [s.value for s in scores] == [1.0] * 160
    assert 1 < server.max_in_flight <= 16
    assert server.connections < 160  # keep-alive connections were reused
    assert sorted(server.answered) == sorted(f"c{i}" for i in range(160))
    assert set(server.answered.values()) == {1}
    assert metric._pool.open_clients() == 0


def test_a_cancelled_request_leaves_nothing_open(server):
    metric = judge(server)

    async def main():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(metric.aevaluate(case("[[fault:timeout=5]]")), 0.1)
        assert metric._pool.open_clients() == 0
        return await metric.aevaluate(case())

    assert asyncio.run(main()).value == 1.0


# -- through the concurrent runner -----------------------------------------------------------


def _runner_ready():
    import inspect

    import agentmetrics

    parameters = inspect.signature(agentmetrics.evaluate).parameters
    return all(name in parameters for name in ("concurrency", "retries", "timeout", "cache"))


@pytest.mark.skipif(not _runner_ready(), reason="agentmetrics.evaluate has no concurrent runner")
def test_every_case_is_scored_once_or_recorded_through_the_runner(server, tmp_path, monkeypatch):
    import agentmetrics
    import agentmetrics.engine._concurrent

    monkeypatch.setattr(agentmetrics.engine._concurrent, "BACKOFF_BASE", 0.005, raising=False)
    recovers = ["", "[[fault:500:x1]]", "[[fault:429:retry-after=0.02:x2]]", "[[fault:drop:x1]]",
                "[[fault:reset:x1]]", "[[fault:timeout=5:x1]]"]
    fails = ["[[fault:400]]", "[[fault:wrong-shape=call-bool]]", "[[fault:503]]"]
    directives = recovers + fails
    cases = [AgentTestCase(input=f"[[case:{i}]] {directives[i % len(directives)]} request {i}",
                           tool_calls=["GetOrder", "DeleteOrder"] if i % 2 else ["GetOrder"])
             for i in range(45)]
    # 1 s an attempt: room for a loaded machine (two xdist workers and the peers'
    # driver) to answer a 503 in time, so that each attempt is one the server sees.
    metric = judge(server, timeout=1.0)
    cache = tmp_path / "judge.sqlite"
    result = agentmetrics.evaluate(cases, metric, errors="record", concurrency=8, retries=3,
                                   cache=cache)["tool_call_appropriateness"]
    failing = {i for i in range(45) if directives[i % len(directives)] in fails}
    assert set(result.errors) == failing
    for row in failing:
        assert result.errors[row].startswith("tool_call_appropriateness: ")
        assert server.answered[str(row)] == 0
    for row in set(range(45)) - failing:
        assert float(result.values[row]) == (0.5 if row % 2 else 1.0)
        assert server.answered[str(row)] == 1  # scored once: none twice, none lost
    for row in failing:  # transient failures were retried 3 times, the others never
        transient = "503" in directives[row % len(directives)]
        wanted = 4 if transient else 1
        assert eventually(lambda: server.attempts[str(row)] == wanted), (row, server.attempts[str(row)])
    server.settle()  # every attempt of the first run is read (and counted) before the reset
    server.reset()
    again = agentmetrics.evaluate(cases, metric, errors="record", concurrency=8,
                                  cache=cache)["tool_call_appropriateness"]
    server.settle()  # an attempt the client gave up on is counted once the server reads it
    assert set(again.errors) == failing and server.total == len(failing)  # the rest: cached
    # Anything the runs left open (Python 3.13 warns about unclosed sqlite3
    # connections) is reported here, by this test, not by whichever test runs
    # when the garbage collector happens to get to it.
    gc.collect()
