"""Issue 24: the judge's API key and the credentials in its base URL never leave.

The real metric against real servers on 127.0.0.1 (tests/judge_server.py, and
a server of this file's own that repeats the Authorization header it received
in its 401 answer, as a careless or hostile one would), through every output
channel: repr, labels, summaries, error rows, raised errors with their whole
chain, httpx's own log lines, warnings, the CLI in every output format, the
pytest plugin's JSON report and junitxml, and the cache file. And a badly
formed key (a trailing newline, a non-ASCII character) is a configuration
error naming where it came from, never a metric bug and never repeated.
"""

from __future__ import annotations

import base64
import http.server
import json
import logging
import pickle
import threading
import traceback
import warnings

import pytest

from agentmetrics import AgentTestCase, evaluate
from agentmetrics.errors import InvalidParameterError
from agentmetrics_judge import JudgeConfigurationError, ToolCallAppropriateness
from judge_server import JudgeServer

KEY = "sk-judge-SWEEP-5e6f7a8b"
OTHER_KEY = "sk-judge-OTHER-1c2d3e4f"
PASSWORD = "pw-judge-URL-9a8b"
FRAGMENTS = ("SWEEP-5e6f7a8b", "OTHER-1c2d3e4f", "URL-9a8b", "QUERY-3c4d")
ENV = ("AGENTMETRICS_JUDGE_MODEL", "AGENTMETRICS_JUDGE_BASE_URL", "AGENTMETRICS_JUDGE_API_KEY",
       "OPENAI_BASE_URL", "OPENAI_API_KEY")


def leaks(text):
    return [fragment for fragment in FRAGMENTS if fragment in text]


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch):
    for variable in ENV:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture(scope="module")
def server():
    with JudgeServer() as running:
        yield running


class _Echo(http.server.BaseHTTPRequestHandler):
    """Answers every POST with 401 and the Authorization header it was sent."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": {"message": f"Incorrect API key provided: "
                                                f"{self.headers.get('authorization')} for {self.path}"}})
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def echo():
    running = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{running.server_address[1]}/v1"
    running.shutdown()
    running.server_close()


def with_userinfo(url):
    return url.replace("http://", f"http://svc:{PASSWORD}@")


def cases():
    return [AgentTestCase(input=f"[[case:s{i}]] Cancel order {i}", tool_calls=["GetOrder", "CancelOrder"],
                          metadata={"id": f"s{i}"}) for i in range(4)]


@pytest.fixture
def everything(caplog):
    caplog.set_level(logging.DEBUG)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield lambda: "\n".join([str(w.message) for w in caught] + [caplog.text]
                                + [record.getMessage() for record in caplog.records])


def test_credentials_in_the_base_url_are_sent_as_basic_auth_and_never_in_the_url(server, everything):
    metric = ToolCallAppropriateness(model="judge", base_url=with_userinfo(server.url))
    assert "***@127.0.0.1" in repr(metric) and not leaks(repr(metric))
    score = metric.evaluate(cases()[0])
    assert score.value == 1.0
    request = server.requests[-1]
    expected = base64.b64encode(f"svc:{PASSWORD}".encode()).decode()
    assert request.headers["authorization"] == f"Basic {expected}"
    assert request.path == "/v1/chat/completions"
    assert not leaks(everything())


def test_the_judge_sweep_shows_no_secret(server, echo, everything):
    judges = [ToolCallAppropriateness(model="judge", base_url=server.url, api_key=KEY),
              ToolCallAppropriateness(model="judge", base_url=server.url, api_key=OTHER_KEY),
              ToolCallAppropriateness(model="judge", base_url=echo, api_key=KEY),
              ToolCallAppropriateness(model="judge", base_url=with_userinfo(echo)),
              ToolCallAppropriateness(model="judge", base_url=echo + "?api_key=q-QUERY-3c4d",
                                      api_key=KEY)]
    result = evaluate(cases(), judges, errors="record")
    labels = list(result.metrics)
    assert len(labels) == 5 and not leaks(" ".join(labels))
    shown = [repr(result), result._repr_html_(), str(result.summary()), str(result.per_tool()),
             str(result.failures(limit=None)), *map(repr, judges)]
    for label in labels:
        shown += [repr(result[label]), *result[label].errors.values(), *map(str, result[label].reasons)]
    text = "\n".join(shown)
    assert not leaks(text), leaks(text)
    echoed = result[labels[2]].errors[0]
    assert "HTTP 401" in echoed and "Incorrect API key provided: Bearer ***" in echoed
    assert "Basic" in result[labels[3]].errors[0]  # the header it repeated, without its value
    assert not leaks(everything())


@pytest.mark.parametrize("base", ["echo", "closed"])
def test_a_raised_judge_error_and_its_chain_show_no_secret(echo, base):
    url = echo if base == "echo" else "http://127.0.0.1:9/v1"
    for metric in (ToolCallAppropriateness(model="judge", base_url=url, api_key=KEY, timeout=2),
                   ToolCallAppropriateness(model="judge", base_url=with_userinfo(url), timeout=2)):
        for run in (lambda: metric.evaluate(cases()[0]), lambda: evaluate(cases()[:1], metric)):
            with pytest.raises(Exception) as info:
                run()
            text = "".join(traceback.format_exception(info.value))
            error, seen = info.value, set()
            while error is not None and id(error) not in seen:
                seen.add(id(error))
                text += repr(error) + str(error) + "".join(getattr(error, "__notes__", []))
                error = error.__cause__ or error.__context__
            assert not leaks(text), text


@pytest.mark.parametrize(("key", "problem"), [
    (KEY + "\n", "with a newline at its end"),
    (" " + KEY, "with a space at its start"),
    (KEY[:6] + "é" + KEY[6:], "with the non-ASCII character U+00E9 at position 6"),
    (KEY[:6] + "\x00" + KEY[6:], "with the control character U+0000 at position 6"),
])
def test_a_badly_formed_key_given_is_refused_when_built_naming_the_parameter(key, problem):
    with pytest.raises(InvalidParameterError, match="api_key must be an API key of printable ASCII") as info:
        ToolCallAppropriateness(model="judge", base_url="http://127.0.0.1:9/v1", api_key=key)
    assert problem in str(info.value) and "strip" in str(info.value) and not leaks(str(info.value))


@pytest.mark.parametrize("key", [KEY + "\n", KEY[:6] + "é" + KEY[6:]])
def test_a_badly_formed_key_from_the_environment_is_a_configuration_error_row(server, monkeypatch, key):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    metric = ToolCallAppropriateness(model="judge", base_url=server.url)
    assert not leaks(repr(metric))
    result = evaluate(cases()[:2], metric, errors="record")
    message = result["tool_call_appropriateness"].errors[0]
    assert "the API key from OPENAI_API_KEY must be printable ASCII" in message
    assert "metric bug" not in message and not leaks(message)
    with pytest.raises(JudgeConfigurationError):
        metric.evaluate(cases()[0])


def test_a_key_and_url_credentials_together_are_a_configuration_error(server):
    metric = ToolCallAppropriateness(model="judge", base_url=with_userinfo(server.url), api_key=KEY)
    with pytest.raises(JudgeConfigurationError, match="carries credentials and an api_key") as info:
        metric.evaluate(cases()[0])
    assert not leaks(str(info.value))


def test_a_pickled_judge_keeps_its_key_and_the_cache_never_holds_it(server, tmp_path):
    metric = ToolCallAppropriateness(model="judge", base_url=server.url, api_key=KEY)
    assert KEY.encode() in pickle.dumps(metric)
    restored = pickle.loads(pickle.dumps(metric))
    assert restored.api_key == KEY and not leaks(repr(restored))
    path = tmp_path / "judge.sqlite"
    first = evaluate(cases(), metric, cache=path)
    again = evaluate(cases(), ToolCallAppropriateness(model="judge", base_url=server.url,
                                                      api_key=OTHER_KEY), cache=path)
    assert again.cache_stats["tool_call_appropriateness"].hits == 4  # the key changes no score
    assert list(again["tool_call_appropriateness"].values) == list(first["tool_call_appropriateness"].values)
    for file in tmp_path.iterdir():
        assert not leaks(file.read_bytes().decode("latin-1"))


@pytest.mark.parametrize("output", ["table", "csv", "jsonl", "json", "summary"])
def test_the_command_line_shows_no_judge_secret(server, echo, tmp_path, capsys, everything, output):
    from agentmetrics.cli import main

    data = tmp_path / "cases.jsonl"
    data.write_text("\n".join(json.dumps({"id": c.metadata["id"], "input": c.input,
                                          "tool_calls": ["GetOrder", "CancelOrder"]})
                              for c in cases()) + "\n")
    argv = ["evaluate", str(data), "--format", output, "--errors", "record",
            "--metric", f"tool_call_appropriateness:model=judge,base_url={server.url},api_key={KEY}",
            "--metric", f"tool_call_appropriateness:model=judge,base_url={with_userinfo(echo)}"]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status in (0, 1) and "Traceback" not in err and out
    assert not leaks(out + err), out + err
    assert not leaks(everything())


def test_a_bad_judge_spec_on_the_command_line_shows_no_key(tmp_path, capsys):
    from agentmetrics.cli import main

    data = tmp_path / "cases.jsonl"
    data.write_text('{"input": "hi", "tool_calls": ["A"]}\n')
    for spec in (f"tool_call_appropriateness:api_key={KEY},timeout=-1",
                 f"tool_call_appropriateness:api_key={KEY}é",
                 f"tool_call_appropriateness:base_url=ftp://svc:{PASSWORD}@host/v1"):
        assert main(["evaluate", str(data), "--metric", spec]) == 2
        out, err = capsys.readouterr()
        assert err and "Traceback" not in err and not leaks(out + err), err


PYTEST_FILE = """
import pytest
from agentmetrics_judge import ToolCallAppropriateness

URL = {url!r}
ECHO = {echo!r}

@pytest.mark.agent_metric(ToolCallAppropriateness(model="judge", base_url=URL, api_key={key!r}))
@pytest.mark.agent_metric(ToolCallAppropriateness(model="judge", base_url=ECHO, api_key={key!r}))
def test_judged(agent_eval):
    agent_eval.record_run(input="[[case:p1]] Cancel order 1", tool_calls=["GetOrder"])

@pytest.mark.agent_metric("tool_call_appropriateness", model="judge", base_url={userinfo!r})
def test_by_name(agent_eval):
    agent_eval.record_run(input="[[case:p2]] Cancel order 2", tool_calls=["GetOrder"])
"""


def test_the_pytest_report_and_junitxml_show_no_judge_secret(server, echo, pytester):
    pytester.makepyfile(test_judged=PYTEST_FILE.format(url=server.url, echo=echo, key=KEY,
                                                       userinfo=with_userinfo(echo)))
    result = pytester.runpytest("--agentmetrics-report=report.json", "--junitxml=junit.xml", "-rA",
                                "-p", "no:randomly", "-p", "no:cacheprovider")
    texts = [result.stdout.str(), result.stderr.str(), (pytester.path / "report.json").read_text(),
             (pytester.path / "junit.xml").read_text()]
    assert "tool_call_appropriateness" in texts[2]
    assert '"api_key": "***"' in texts[2]
    assert not leaks("\n".join(texts)), [leaks(text) for text in texts]


def test_a_key_from_the_environment_stays_out_of_the_pytest_report(server, pytester, monkeypatch):
    # The finding: --agentmetrics-report wrote the key read from OPENAI_API_KEY under params.
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    pytester.makepyfile(test_env="""
import pytest

@pytest.mark.agent_metric("tool_call_appropriateness", model="judge", base_url=%r)
def test_judged(agent_eval):
    agent_eval.record_run(input="[[case:e1]] Cancel order 1", tool_calls=["GetOrder"])
""" % server.url)
    result = pytester.runpytest("--agentmetrics-report=report.json", "--junitxml=junit.xml",
                                "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    report = (pytester.path / "report.json").read_text()
    assert '"api_key": "***"' in report and server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert not leaks(report + (pytester.path / "junit.xml").read_text() + result.stdout.str())


# -- the review of issue 24 (S1-S3, S5, S6 on the judge) ----------------------------------------

LONG_KEY = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"


def _pieces(secret, shortest=6):
    """Every piece of ``secret`` of ``shortest`` characters or more (a cut leaves one)."""
    return {secret[i:j] for i in range(len(secret)) for j in range(i + shortest, len(secret) + 1)}


@pytest.mark.parametrize("pad", [0, 100, 140, 160, 180])
def test_an_echoed_key_is_scrubbed_before_the_message_is_cut(server, pad):
    # S5: the server's message was cut to 200 characters, then scrubbed: a key across
    # the cut left its first 31 characters.
    metric = ToolCallAppropriateness(model="judge", base_url=server.url, api_key=LONG_KEY)
    row = evaluate([AgentTestCase(input=f"[[fault:401:pad={pad}:echo-auth]] x",
                                  tool_calls=["GetOrder"])], metric, errors="record")
    error = row["tool_call_appropriateness"].errors[0]
    assert "injected fault: HTTP 401" in error and "check the API key" in error
    assert not any(piece in error for piece in _pieces(LONG_KEY)), error
    if pad <= 140:
        assert ": ***" in error


def test_echoed_basic_credentials_are_scrubbed_in_their_base64_form(server):
    # S5: base_url credentials go out as Basic base64(user:password), and come back so.
    metric = ToolCallAppropriateness(model="judge", base_url=with_userinfo(server.url))
    error = evaluate([AgentTestCase(input="[[fault:401:echo-auth]] x", tool_calls=["GetOrder"])],
                     metric, errors="record")["tool_call_appropriateness"].errors[0]
    encoded = base64.b64encode(f"svc:{PASSWORD}".encode()).decode()
    assert encoded not in error and encoded.rstrip("=") not in error and ": ***" in error, error


@pytest.mark.parametrize("pad", [0, 150, 175])
@pytest.mark.parametrize("credentials", ["key", "userinfo"])
def test_a_reason_that_quotes_the_key_is_scrubbed_before_it_is_cut_kept_or_cached(
        server, tmp_path, pad, credentials):
    # S6: reasons were never scrubbed: the key reached reasons, failures, HTML, saved runs
    # and the cache file.
    metric = (ToolCallAppropriateness(model="judge", base_url=server.url, api_key=LONG_KEY)
              if credentials == "key" else
              ToolCallAppropriateness(model="judge", base_url=with_userinfo(server.url)))
    secret = LONG_KEY if credentials == "key" else base64.b64encode(
        f"svc:{PASSWORD}".encode()).decode()
    cache = tmp_path / "scores.sqlite"
    result = evaluate([AgentTestCase(input=f"[[fault:echo-reason={pad}]] go", tool_calls=["A"],
                                     metadata={"id": "a"})], metric, cache=cache)
    reason = result["tool_call_appropriateness"].reasons[0]
    assert result["tool_call_appropriateness"].values.tolist() == [0.0]
    path = result.save(tmp_path / "run.jsonl", history=False)
    texts = [reason, str(result.failures()), result.to_html(), path.read_text(encoding="utf-8"),
             *(file.read_bytes().decode("latin-1") for file in tmp_path.glob("scores.sqlite*"))]
    text = "\n".join(texts)
    assert not any(piece in text for piece in _pieces(secret)), reason
    if pad == 0:
        assert "request authenticated as ***" in reason


@pytest.mark.parametrize("base_url", [
    f"admin:{PASSWORD}@localhost:8000/v1",  # the README's own mistake, with credentials
    f"//admin:{PASSWORD}@localhost:8000/v1",
    "localhost:8000/v1?api_key=q-QUERY-3c4d",
    f"ftp://admin:{PASSWORD}@localhost/v1",
])
def test_a_refused_base_url_is_quoted_without_its_credentials(base_url):
    # S3: a base_url without a scheme was quoted whole when refused.
    with pytest.raises(JudgeConfigurationError, match="base_url must be an http") as info:
        ToolCallAppropriateness(model="judge", base_url=base_url)
    assert not leaks("".join(traceback.format_exception(info.value))), str(info.value)
    assert "localhost" in str(info.value)


@pytest.mark.parametrize("base_url", [
    f"http://svc:it's-{PASSWORD}@127.0.0.1:9/v1",  # S1
    "http://127.0.0.1:9/v1?api_token=q-QUERY-3c4d",  # S2
    "http://127.0.0.1:9/v1?subscription-key=q-QUERY-3c4d",
    "http://127.0.0.1:9/v1?api%5Fkey=q-QUERY-3c4d",
])
def test_the_cli_footer_shows_no_credential_of_the_environments_base_url(
        tmp_path, capsys, monkeypatch, base_url):
    from agentmetrics.cli import main

    monkeypatch.setenv("AGENTMETRICS_JUDGE_BASE_URL", base_url)
    monkeypatch.setenv("AGENTMETRICS_JUDGE_MODEL", "judge")
    data = tmp_path / "one.jsonl"
    data.write_text('{"input": "ok", "tool_calls": ["A"]}\n')
    main(["evaluate", str(data), "--metric", "tool_call_appropriateness:timeout=0.5",
          "--errors", "record"])
    out, err = capsys.readouterr()
    assert "127.0.0.1:9" in out + err and not leaks(out + err), out + err
