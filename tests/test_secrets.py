"""Issue 24: secrets never leave.

A metric that declares ``secret_params`` (and any metric with credentials in a
URL parameter) is run through every output channel agentmetrics has, with a
recognisable key; the key (in any form: as given, stripped, escaped,
percent-encoded) must appear in none: repr, labels, result keys, summary,
per-tool table, failures, error rows, exception text with its whole chain,
warnings, log records, the CLI's table/CSV/JSONL/JSON output and its error
messages, `describe` and `list` (text, JSON and Python: parameters, their defaults
and docs, a constructor's error), the pytest plugin's JSON report, junitxml and terminal output, and
the cache file. A pickled metric still carries the key (a worker needs it).
The real judge metric is swept the same way, over HTTP, in
plugins/agent-tool-metrics-judge/tests/test_judge_secrets.py.
"""

from __future__ import annotations

import base64
import builtins
import json
import logging
import pickle
import re
import sys
import traceback
import urllib.parse
import warnings

import numpy as np
import pytest

import agentmetrics
from agentmetrics import AgentTestCase, Metric, evaluate, register_metric, unregister_metric
from agentmetrics._secrets import mask_tokens, mask_urls, scrub, scrub_exception, secret_variants

KEY = "sk-sweep-KEY-9f3a7c1e"
URL_PASSWORD = "pw-sweep-URL-4b2d"
URL = f"https://svc:{URL_PASSWORD}@judge.example/v1?api_key=q-sweep-QUERY-77"
FRAGMENTS = ("KEY-9f3a7c1e", "sweep-KEY", "URL-4b2d", "QUERY-77")


def leaks(text):
    return [fragment for fragment in FRAGMENTS if fragment in text]


class Custom(Exception):
    """An exception whose text comes from an attribute, not its args."""

    def __init__(self, header):
        super().__init__()
        self.header = header

    def __str__(self):
        return f"Illegal header value {self.header!r}"


class Keyed(Metric):
    """Scores by the number of calls; fails in every way that could quote its key."""

    name = "keyed"
    required_fields = ("tool_calls",)
    secret_params = ("api_key",)

    def __init__(self, threshold=None, api_key=None, base_url=URL, mode="plain"):
        super().__init__(threshold)
        self.api_key = api_key
        self.base_url = base_url
        self.mode = mode

    def measure(self, case):
        failure = case.metadata.get("fail")
        if failure == "header":
            raise ValueError(f"Illegal header value b'Bearer {self.api_key}'")
        if failure == "custom":
            raise Custom(f"Bearer {self.api_key}".encode())
        if failure == "chained":
            try:
                raise ConnectionError(f"could not reach {self.base_url} with {self.api_key!r}")
            except ConnectionError as error:
                raise agentmetrics.MetricServiceError("the judge failed") from error
        if failure == "context":
            try:
                raise Custom(self.api_key)
            except Custom:
                raise RuntimeError(f"while sending to {self.base_url}") from None
        return min(len(case.tool_calls), 2) / 2, f"{len(case.tool_calls)} calls"


def cases():
    made = [AgentTestCase(input=f"q{i}", tool_calls=["A"] * (i % 3), expected_tool_calls=["A"],
                          metadata={"id": f"c{i}"}) for i in range(6)]
    for failure in ("header", "custom", "chained", "context"):
        made.append(AgentTestCase(input=failure, tool_calls=["A"], expected_tool_calls=["A"],
                                  metadata={"id": failure, "fail": failure}))
    return made


@pytest.fixture
def everything(caplog):
    """Every warning and log record while the test runs, as text."""
    caplog.set_level(logging.DEBUG)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield lambda: "\n".join([str(w.message) for w in caught]
                                + [record.getMessage() for record in caplog.records]
                                + [caplog.text])


# --- the tools -------------------------------------------------------------------------------------

def test_secret_variants_cover_the_forms_an_error_quotes():
    variants = secret_variants([KEY + "\n"])
    for form in (KEY + "\n", KEY, KEY + "\\n", "sk-sweep-KEY-9f3a7c1e"):
        assert scrub(f"value b'Bearer {form}' here", variants) == "value b'Bearer ***' here"
    assert scrub("percent sk-sweep-KEY-9f3a7c1e%0A", secret_variants(["sk-sweep-KEY-9f3a7c1e\n"])) \
        == "percent ***"  # the encoded newline with it
    assert secret_variants(["abc"]) == ()  # too short to search for: it would mask words


@pytest.mark.parametrize(("text", "masked"), [
    ("https://user:pass@host/v1", "https://***@host/v1"),
    ("http://sk-abcdef@host", "http://***@host"),
    # A query with a credential-named parameter: every value masked.
    ("https://host/v1?api_key=abc&x=1", "https://host/v1?api_key=***&x=***"),
    ("https://host/v1?x=1&y=2", "https://host/v1?x=1&y=2"),
    ("https://h/p?key=AIza0123&sig=zz", "https://h/p?key=***&sig=***"),
    ("see https://host/path and mail a@b.c", "see https://host/path and mail a@b.c"),
    # S1: any character a URL takes in its user information ("'" is an RFC 3986 sub-delim).
    ("http://judge:it's-PW-5521@host/v1", "http://***@host/v1"),
    ("http://u:a!$&()*+,;=b@host/v1", "http://***@host/v1"),
    ("'http://judge:it\\'s-PW@host/v1'", "'http://***@host/v1'"),
    ("http://u:pa@ss@host/v1", "http://***@host/v1"),  # up to the last @ before the path
    ("reach //admin:pw-1234@db:5432/x", "reach //***@db:5432/x"),  # scheme-relative
    # S2: any credential-like name, whatever its case, separators or percent-encoding.
    *((f"https://h/v1?{name}=QSECRET-4242", f"https://h/v1?{name}=***") for name in (
        "api_token", "access_key", "private_token", "subscription-key", "secret_key", "jwt",
        "authorization", "api%5Fkey", "API-KEY", "X-Amz-Signature", "sslpassword",
        "client_secret", "session_id", "code", "apiKey")),
    ("https://h/v1#access_token=QSECRET-4242&state=x", "https://h/v1#access_token=***&state=***"),
    ("GET /v1/chat?model=m&api_token=QSECRET-4242 failed",
     "GET /v1/chat?model=***&api_token=*** failed"),
])
def test_urls_lose_their_credentials(text, masked):
    assert mask_urls(text) == masked


@pytest.mark.parametrize(("value", "masked"), [
    # A whole value: a URL runs to its end, quotes and angle brackets included.
    ('http://u:a"S3CRETVALUE@127.0.0.1:9/v1', "http://***@127.0.0.1:9/v1"),
    ("http://u:a<S3CRETVALUE@127.0.0.1:9/v1", "http://***@127.0.0.1:9/v1"),
    ("http://h/v1?api_key=ab'cd&x=1", "http://h/v1?api_key=***&x=***"),
    # S3: user:password@host without a scheme (a DSN, a base_url missing http://).
    ("admin:S3cret-pw@localhost:8000/v1", "***@localhost:8000/v1"),
    (":S3cret-pw@redis:6379", "***@redis:6379"),
    ("claude-3-5-sonnet@20240620", "claude-3-5-sonnet@20240620"),  # a model, no password
    ("api_key=S3cret-pw&model=m", "api_key=***&model=***"),  # a value that is a query
])
def test_a_whole_parameter_value_loses_its_credentials(value, masked):
    from agentmetrics._secrets import mask_value

    assert mask_value(value) == masked


def test_tokens_from_outside_are_masked():
    assert mask_tokens("Incorrect key sk-proj-abcdefghij, Bearer eyJ.x.y") == \
        "Incorrect key ***, Bearer ***"
    assert mask_tokens("Incorrect key: https://svc:hunter2pass@api.example.com/v1.") == \
        "Incorrect key: https://***@api.example.com/v1."
    assert mask_tokens("sent subscription-key=AbCd1234 and model=m, x-api-key=QWER5678") == \
        "sent subscription-key=*** and model=m, x-api-key=***"


def test_an_exception_chain_is_scrubbed_and_a_custom_str_cut_out():
    variants = secret_variants([KEY])
    try:
        try:
            raise Custom(KEY)
        except Custom as inner:
            raise ValueError(f"outer {KEY}") from inner
    except ValueError as error:
        cleaned = scrub_exception(error, variants)
    assert cleaned is not None and not leaks("".join(traceback.format_exception(cleaned)))
    assert str(cleaned) == "outer ***"


# --- every channel ---------------------------------------------------------------------------------

def test_repr_labels_summary_tables_and_error_rows_show_no_secret(everything):
    first, second = Keyed(api_key=KEY), Keyed(api_key=KEY + "-other")
    third = Keyed(api_key=KEY, base_url=URL.replace("judge", "other"))
    assert repr(first) == ("Keyed(threshold=0.5, api_key='***', base_url='https://***@judge.example/v1"
                           "?api_key=***', mode='plain')")
    result = evaluate(cases(), [first, second, third], errors="record")
    shown_url = "base_url='https://***@judge.example/v1?api_key=***'"
    assert list(result.metrics) == [f"keyed({shown_url}, #1)", f"keyed({shown_url}, #2)",
                                    "keyed(base_url='https://***@other.example/v1?api_key=***')"]
    shown = [repr(first), str(first), repr(result), str(result), result._repr_html_(),
             str(result.summary()), str(result.per_tool()), str(result.failures(limit=None)),
             json.dumps(result.summary().to_dicts(), default=str)]
    for label in result.metrics:
        metric_result = result[label]
        shown += [repr(metric_result), *metric_result.errors.values(), *map(str, metric_result.reasons)]
    assert not leaks("\n".join(shown) + everything())
    errors = result[f"keyed({shown_url}, #1)"].errors
    assert len(errors) == 4 and "Illegal header value b'Bearer ***'" in errors[6]
    assert "metric bug" in errors[6]  # the test metric's own bug: said so, without the key


@pytest.mark.parametrize("failure", ["header", "custom", "chained", "context"])
def test_a_raised_error_and_its_whole_traceback_show_no_secret(failure):
    case = next(c for c in cases() if c.metadata.get("fail") == failure)
    for run in (lambda: Keyed(api_key=KEY).evaluate(case),
                lambda: evaluate([case], Keyed(api_key=KEY))):
        with pytest.raises(Exception) as info:
            run()
        text = "".join(traceback.format_exception(info.value))
        seen, error = set(), info.value
        while error is not None and id(error) not in seen:  # what a reporter walking the chain sees
            seen.add(id(error))
            text += repr(error) + str(error) + "".join(getattr(error, "__notes__", []))
            error = error.__cause__ or error.__context__
        assert not leaks(text), text


def test_a_pickled_metric_keeps_its_key_and_never_prints_it():
    metric = Keyed(api_key=KEY)
    data = pickle.dumps(metric)
    assert KEY.encode() in data  # a Dask worker needs the key
    restored = pickle.loads(data)
    assert restored.api_key == KEY and restored == metric and not leaks(repr(restored))


def test_the_cache_file_and_key_hold_no_secret(tmp_path):
    path = tmp_path / "scores.sqlite"
    evaluate(cases()[:6], Keyed(api_key=KEY), cache=path)
    for file in tmp_path.iterdir():
        assert not leaks(file.read_bytes().decode("latin-1"))


@pytest.fixture
def registered():
    register_metric(Keyed)
    yield
    unregister_metric("keyed")


@pytest.mark.parametrize("output", ["table", "csv", "jsonl", "json", "summary"])
def test_the_command_line_shows_no_secret(tmp_path, capsys, registered, everything, output):
    from agentmetrics.cli import main

    data = tmp_path / "cases.jsonl"
    data.write_text("\n".join(json.dumps({
        "id": c.metadata["id"], "tool_calls": [call.name for call in c.tool_calls],
        "expected_tool_calls": [call.name for call in c.expected_tool_calls],
        "metadata": c.metadata}) for c in cases()) + "\n")
    specs = [f"keyed:api_key={KEY}", f"keyed:api_key={KEY}x,base_url={URL.replace('judge', 'b')}"]
    argv = ["evaluate", str(data), "--format", output, "--errors", "record"]
    for spec in specs:
        argv += ["--metric", spec]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status in (0, 1) and "Traceback" not in err
    assert "keyed" in (out + err).lower()
    assert not leaks(out + err), out + err
    # Tables wrap a long cell over lines: a secret cut in two must not pass unseen.
    assert not leaks("".join((out + err).split())), out + err
    assert not leaks(everything()), everything()


#: A run's configuration holding credentials in every way it may: under a
#: credential's name, in a URL's user information and query, as a provider's key.
SECRET_CONFIG = {"model": "gpt-4o", "api_key": KEY, "endpoint": URL, "note": f"made with {KEY}",
                 "dsn": f"postgres://svc:{URL_PASSWORD}@db.example/runs"}


def test_a_run_configuration_shows_no_secret_in_any_channel(tmp_path, capsys, everything):
    """The configuration (issue 53) through every channel it reaches: the
    result's repr and HTML repr, every saved form, the history's file, the run
    and comparison pages and text, and the command line (evaluate --config
    with --save, runs list as a table and JSON, compare)."""
    from agentmetrics.cli import main
    from agentmetrics.runs import RunStore

    history = RunStore(tmp_path / "runs.sqlite")
    result = evaluate(cases()[:6], "tool_selection_accuracy", config=SECRET_CONFIG)
    assert result.config["model"] == "gpt-4o" and result.config["api_key"] == "***"
    other = evaluate(cases()[:6], "tool_selection_accuracy", config={"model": "gpt-4.1"})
    shown = [repr(result), result._repr_html_(), repr(result.config), result.to_html()]
    saved = [result.save(tmp_path / name, history=history)
             for name in ("run.jsonl", "run.json.gz", "run.parquet")]
    comparison = agentmetrics.compare(saved[0], other)
    shown += [comparison.report(), comparison.to_html(), repr(comparison.config_differences)]
    shown += [agentmetrics.load_result(path).to_html() for path in saved]
    shown += [repr(run.config) for run in history.list()]
    with pytest.raises(agentmetrics.InvalidParameterError) as conflict:
        result.save(tmp_path / "again.jsonl", history=False, config={"endpoint": URL.replace("judge", "other")})
    shown.append(str(conflict.value))
    files = [path.read_bytes() for path in saved] + [history.path.read_bytes()]
    shown += [gzip_text(data) for data in files]

    data = tmp_path / "cases.jsonl"
    data.write_text('{"id": "a", "tool_calls": ["A"], "expected_tool_calls": ["A"]}\n')
    argv = ["evaluate", str(data), "--save", str(tmp_path / "cli.jsonl"), "--history",
            str(history.path)]
    for key, value in SECRET_CONFIG.items():
        argv += ["--config", f"{key}={value}"]
    assert main(argv) == 0
    assert main(["runs", "list", "--history", str(history.path)]) == 0
    assert main(["runs", "list", "--history", str(history.path), "--format", "json"]) == 0
    main(["compare", str(tmp_path / "cli.jsonl"), str(saved[0])])
    assert main([*argv[:-2], "--no-history", "--config", URL]) == 2  # refused, without it
    out, err = capsys.readouterr()
    shown += [out, err, (tmp_path / "cli.jsonl").read_text(), gzip_text(history.path.read_bytes())]
    assert "gpt-4o" in out and "***" in out
    text = "\n".join(shown)
    assert not leaks(text) and not leaks("".join(text.split())), leaks(text)
    assert not leaks(everything())


def gzip_text(data: bytes) -> str:
    """A file's text, gunzipped when gzipped (bytes as latin-1: nothing lost)."""
    import gzip

    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("latin-1")


class KeyedByDefault(Metric):
    """Holds its credentials in its defaults.

    Parameters
    ----------
    api_key : str
        The service key.
    token
        A credential by its name, not declared.
    base_url : str
        Where the service is.
    """

    name = "keyed_by_default"
    required_fields = ("tool_calls",)
    secret_params = ("api_key",)

    def __init__(self, threshold=None, api_key=KEY, token=KEY + "t", base_url=URL, headers=None):
        super().__init__(threshold)
        if headers is None:  # fails with its defaults, quoting them
            raise ValueError(f"no headers for {self.name} with {api_key!r}, {token}, {base_url}")
        self.api_key, self.token, self.base_url, self.headers = api_key, token, base_url, headers

    def measure(self, case):
        return 1.0, "ok"


@pytest.mark.parametrize("argv", [["describe", "keyed_by_default"],
                                  ["describe", "keyed_by_default", "--json"],
                                  ["describe", "keyed"], ["describe", "keyed", "--json"],
                                  ["list"], ["list", "--json"]])
def test_describe_and_list_show_no_secret_default(capsys, registered, everything, argv):
    """Every describe field (parameters with types, defaults and docs, the error of a
    metric that cannot be built with its defaults) on every channel: text, JSON, Python."""
    from agentmetrics.cli import main
    from agentmetrics.registry import describe_metric

    with agentmetrics.registry.isolated():
        register_metric(KeyedByDefault)
        described = describe_metric("keyed_by_default")
        status = main(argv)
        out, err = capsys.readouterr()
    assert status in (0, 1) and "Traceback" not in err
    assert "keyed" in out
    assert not leaks(out + err) and not leaks("".join((out + err).split())), out + err
    assert not leaks(repr(described)) and not leaks(repr(describe_metric("keyed")))
    shown = {detail.name: detail for detail in described.parameter_details}
    assert (shown["api_key"].default, shown["api_key"].secret) == ("***", True)
    assert (shown["token"].default, shown["token"].secret) == ("***", True)
    assert shown["base_url"].default == "https://***@judge.example/v1?api_key=***"
    assert described.error.startswith("it cannot be built with its defaults")
    assert not leaks(everything()), everything()


@pytest.mark.parametrize("spec", [
    f"keyed:api_key={KEY},mode",  # not key=value
    f"keyed:api_key={KEY},no_such_parameter=1",  # the constructor refuses it
    f"keyed:base_url={URL},threshold=7",
])
def test_a_bad_metric_spec_is_reported_without_its_secret(capsys, registered, tmp_path, spec):
    from agentmetrics.cli import main

    data = tmp_path / "cases.jsonl"
    data.write_text('{"tool_calls": ["A"], "expected_tool_calls": ["A"]}\n')
    assert main(["evaluate", str(data), "--metric", spec]) == 2
    out, err = capsys.readouterr()
    assert err and "Traceback" not in err and not leaks(out + err), err


REPORTED = f"""
import pytest
from agentmetrics import Metric

class Keyed(Metric):
    name = "keyed"
    required_fields = ("tool_calls",)
    secret_params = ("api_key",)

    def __init__(self, threshold=None, api_key=None, base_url=None):
        super().__init__(threshold)
        self.api_key = api_key
        self.base_url = base_url

    def measure(self, case):
        if case.input == "boom":
            raise ValueError(f"Illegal header value b'Bearer {{self.api_key}}\\\\n'")
        return 1.0 if case.tool_calls else 0.0, "scored"

@pytest.mark.agent_metric(Keyed(api_key={KEY!r}, base_url={URL!r}))
@pytest.mark.agent_metric(Keyed(api_key={KEY + 'b'!r}, base_url={URL!r}))
def test_scored(agent_eval):
    agent_eval.record_run(input="ok", tool_calls=["A"], expected_tool_calls=["A"])
    agent_eval.record_run(input="no", tool_calls=[], expected_tool_calls=["A"])

@pytest.mark.agent_metric(Keyed, api_key={KEY!r}, base_url={URL!r})
def test_raises(agent_eval):
    agent_eval.record_run(input="boom", tool_calls=["A"], expected_tool_calls=["A"])

@pytest.mark.agent_metric(Keyed, api_key={KEY!r}, no_such={URL!r})
def test_bad_marker(agent_eval):
    agent_eval.record_run(input="ok", tool_calls=["A"], expected_tool_calls=["A"])

@pytest.mark.agent_metric(Keyed, api_key={KEY!r})
def test_nothing_recorded(agent_eval):
    pass
"""


def test_the_pytest_report_junitxml_and_terminal_show_no_secret(pytester):
    pytester.makepyfile(test_keyed=REPORTED)
    result = pytester.runpytest("--agentmetrics-report=report.json", "--junitxml=junit.xml", "-rA",
                                "-p", "no:randomly", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 3, result.stdout.str()
    texts = [result.stdout.str(), result.stderr.str(), (pytester.path / "report.json").read_text(),
             (pytester.path / "junit.xml").read_text()]
    report = json.loads(texts[2])
    assert any(record.get("params", {}).get("api_key") == "***"
               for record in report.get("evaluations", report if isinstance(report, list) else []))
    assert not leaks("\n".join(texts)), [leaks(text) for text in texts]


def test_declaring_secret_params_is_checked():
    class Wrong(Keyed):
        name = "wrong"
        secret_params = "api_key"  # a str, not a tuple

    with pytest.raises(agentmetrics.InvalidMetricError, match=r"secret_params must be a tuple"):
        Wrong()


def test_metrics_without_secrets_keep_their_errors_word_for_word():
    class Plain(Metric):
        name = "plain"

        def measure(self, case):
            raise ValueError("key=value in text, Bearer of news, sk-not-a-secret-really")

    with pytest.raises(ValueError, match=re.escape("key=value in text, Bearer of news, "
                                                   "sk-not-a-secret-really")):
        Plain().evaluate(AgentTestCase(tool_calls=[]))


def test_a_metric_shipped_to_dask_workers_by_name_shows_no_secret():
    from agentmetrics.dask._metrics import Shipped

    shipped = Shipped("keyed", name="keyed", params=(("api_key", KEY), ("base_url", URL)))
    assert not leaks(repr(shipped)) and "api_key='***'" in repr(shipped)
    assert shipped.params[0][1] == KEY  # it still travels


# --- the review of issue 24 (findings S1-S12) -------------------------------------------------------

SWEEP_SECRET = "QSECRET-4242-zz"
URL_FORMS = [
    f"http://judge:it's-{SWEEP_SECRET}@judge.example/v1",  # S1: "'" is legal in user information
    f'http://u:a"{SWEEP_SECRET}@judge.example/v1',  # S1: what urllib would send, quotes and all
    f"http://u:a<{SWEEP_SECRET}@judge.example/v1",
    *(f"https://judge.example/v1?{name}={SWEEP_SECRET}" for name in (  # S2
        "api_token", "access_key", "private_token", "subscription-key", "secret_key", "jwt",
        "api%5Fkey", "X-Amz-Signature")),
    f"https://judge.example/v1?authorization=Bearer%20{SWEEP_SECRET}",
    f"https://judge.example/v1#access_token={SWEEP_SECRET}&state=s",  # S2: a fragment
]


class Echoing(Metric):
    """Quotes its parameters in its reasons (S6) and its errors."""

    name = "echoing"
    secret_params = ("api_key",)

    def __init__(self, threshold=None, api_key=None, base_url=URL):
        super().__init__(threshold)
        self.api_key = api_key
        self.base_url = base_url

    def measure(self, case):
        if case.input == "fail":
            raise ConnectionError(f"no answer from {self.base_url} for {self.api_key}")
        return 1.0, f"authenticated as {self.api_key} at {self.base_url}"


def _channels(result, tmp_path):
    """Every text a result reaches: tables, HTML, exports, saved runs and the run history."""
    from agentmetrics.runs import RunStore

    texts = [repr(result), str(result.summary()), str(result.failures(limit=None)),
             result.to_html(), json.dumps(result.to_dicts(), default=str)]
    for label in result.metrics:
        texts += [*result[label].errors.values(), *map(str, result[label].reasons)]
    history = RunStore(tmp_path / "history.sqlite")
    for name in ("run.jsonl", "run.parquet"):
        path = result.save(tmp_path / name, history=history)
        texts.append(path.read_bytes().decode("latin-1"))
    texts.append((tmp_path / "history.sqlite").read_bytes().decode("latin-1"))
    return "\n".join(texts)


@pytest.mark.parametrize("url", URL_FORMS)
def test_every_url_form_is_masked_in_every_channel(tmp_path, url, everything):
    metric = Echoing(api_key=KEY, base_url=url)
    assert SWEEP_SECRET not in repr(metric) and "***" in repr(metric)
    cases = [AgentTestCase(input="ok", tool_calls=["A"], metadata={"id": "a"}),
             AgentTestCase(input="fail", tool_calls=["A"], metadata={"id": "b"})]
    result = evaluate(cases, [metric, Echoing(api_key=KEY + "2", base_url=url)], errors="record",
                      cache=tmp_path / "scores.sqlite")
    text = _channels(result, tmp_path) + everything()
    text += "".join(file.read_bytes().decode("latin-1") for file in tmp_path.glob("scores.sqlite*"))
    assert SWEEP_SECRET not in text and not leaks(text)
    assert "authenticated as ***" in text  # the reason is kept, scrubbed


@pytest.mark.parametrize("mode", ["scalar", "batch"])
def test_reasons_are_scrubbed_like_errors_before_they_are_kept_or_cached(tmp_path, mode):
    # S6: a reason quoting the key reaches reasons, failures, HTML, saved runs and the cache.
    class BatchEchoing(Echoing):
        name = "echoing"

        def evaluate_batch(self, batch, *, errors="raise"):
            n = len(batch)
            return agentmetrics.MetricResult(
                self, np.zeros(n), np.zeros(n, bool), {},
                lambda row: f"row {row}: sent {self.api_key!r} to {self.base_url}")

    metric = (Echoing if mode == "scalar" else BatchEchoing)(api_key=KEY)
    cases = [AgentTestCase(input=f"q{i}", tool_calls=["A"], metadata={"id": f"c{i}"})
             for i in range(3)]
    cache = tmp_path / "scores.sqlite"
    result = evaluate(cases, metric, cache=cache if mode == "scalar" else None)
    text = _channels(result, tmp_path)
    text += "".join(file.read_bytes().decode("latin-1") for file in tmp_path.glob("scores.sqlite*"))
    assert not leaks(text), leaks(text)
    assert "***" in str(result["echoing"].reasons[0])
    if mode == "scalar":  # and served from the cache as it was kept
        again = evaluate(cases, Echoing(api_key=KEY), cache=cache)
        assert again.cache_stats["echoing"].hits == 3
        assert list(again["echoing"].reasons) == list(result["echoing"].reasons)
        score = Echoing(api_key=KEY).evaluate(cases[0])
        assert not leaks(score.reason) and score.reason.startswith("authenticated as ***")


class Headered(Metric):
    """Declares secrets that are not text: a dict of headers, a number, a list."""

    name = "headered"
    secret_params = ("headers", "pin", "tokens")

    def __init__(self, threshold=None, headers=None, pin=None, tokens=None):
        super().__init__(threshold)
        self.headers, self.pin, self.tokens = headers, pin, tokens

    def measure(self, case):
        if case.input == "headers":
            raise ValueError(f"Illegal header value {self.headers['Authorization']!r}")
        if case.input == "bare":  # the credentials of the header alone
            raise ValueError(f"key {self.headers['Authorization'].split()[1]} revoked")
        if case.input == "pin":
            raise ValueError(f"account {self.pin} refused the request")
        if case.input == "tokens":
            raise ValueError(f"tokens {self.tokens} expired")
        return 1.0, f"signed with pin {self.pin}"


@pytest.mark.parametrize("failure", ["headers", "bare", "pin", "tokens"])
def test_a_declared_secret_that_is_not_text_is_scrubbed_by_every_string_and_number(failure):
    # S4: the repr hid them; the error row and the traceback quoted them whole.
    metric = Headered(headers={"Authorization": f"Bearer {KEY}"}, pin=90210731,
                      tokens=["tok-first-1111", ("tok-second-2222",)])
    assert repr(metric) == "Headered(threshold=0.5, headers='***', pin='***', tokens='***')"
    case = AgentTestCase(input=failure, tool_calls=[])
    row = evaluate([case], metric, errors="record")["headered"].errors[0]
    with pytest.raises(ValueError) as info:
        metric.evaluate(case)
    text = row + "".join(traceback.format_exception(info.value))
    assert not leaks(text) and "90210731" not in text and "tok-" not in text, text
    assert "***" in row
    assert "90210731" not in metric.evaluate(AgentTestCase(input="ok", tool_calls=[])).reason


def test_a_basic_authorization_header_is_scrubbed_by_its_credentials_too():
    encoded = base64.b64encode(b"judge:hunter2-pw").decode()
    variants = secret_variants([f"Basic {encoded}"])
    assert scrub(f"echo {encoded}: bad", variants) == "echo ***: bad"
    assert scrub("user judge:hunter2-pw, password hunter2-pw", variants) == "user ***, password ***"


def test_url_credentials_include_the_basic_form_the_judge_sends():
    # S5: a server echoing the Authorization header shows base64 of user:password.
    from agentmetrics._secrets import url_credentials

    found = url_credentials("http://judge:hunter2-pw@host/v1", whole=True)
    encoded = base64.b64encode(b"judge:hunter2-pw").decode()
    assert encoded in found and "hunter2-pw" in found
    assert "judge" not in found  # a name beside a password is no secret (S11: it spells words)
    assert scrub(f"Incorrect API key provided: {encoded}.", secret_variants(found)) == \
        "Incorrect API key provided: ***."


@pytest.mark.parametrize("form", [
    lambda key: json.dumps({"x-api-key": key}),  # JSON: \u00e9, \"
    lambda key: json.dumps({"x-api-key": key}, ensure_ascii=False),
    lambda key: re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), urllib.parse.quote(key, safe="")),
    lambda key: urllib.parse.quote(key),  # "/" kept
    lambda key: repr(key.encode()),
])
@pytest.mark.parametrize("key", ["clé-secrète-2024", 'pa"ss-word-2024', "AbC/dEf+GhI=jk\n"])
def test_secret_variants_cover_json_escapes_and_lower_case_percent_encoding(form, key):
    # S10
    text = f"request failed: {form(key)}"
    cleaned = scrub(text, secret_variants([key]))
    assert "secr" not in cleaned and "word" not in cleaned and "GhI" not in cleaned, cleaned


def test_an_exception_group_and_a_context_behind_a_cause_are_scrubbed():
    # S7: scrub_exception followed one link per exception and never entered a group.
    group_type = getattr(builtins, "ExceptionGroup", None)
    variants = secret_variants([KEY])
    try:
        try:
            raise ValueError(f"bad key {KEY}")
        except ValueError:
            raise RuntimeError("judge call failed") from KeyError(f"choices {KEY}")
    except RuntimeError as error:
        chained = scrub_exception(error, variants)
    assert chained.__cause__ is not None and chained.__context__ is not None
    assert not leaks(repr(chained.__context__) + repr(chained.__cause__))
    if group_type is None:
        return  # Python 3.10: no ExceptionGroup
    inner = Custom(KEY.encode())  # a __str__ of its own: replaced, not cut out
    group = group_type(f"two failed for {KEY}", [ConnectionError(f"Bearer {KEY}"), inner])
    group.__notes__ = [f"note {KEY}"]
    cleaned = scrub_exception(group, variants)
    text = "".join(traceback.format_exception(cleaned))
    assert not leaks(text) and "Bearer ***" in text and "two failed for ***" in text, text
    assert isinstance(cleaned, group_type) and len(cleaned.exceptions) == 2
    assert type(cleaned.exceptions[0]) is ConnectionError


@pytest.mark.skipif(sys.version_info < (3, 11), reason="asyncio.TaskGroup is Python 3.11+")
@pytest.mark.parametrize("how", ["group", "context"])
def test_a_raised_task_group_or_hidden_context_shows_no_secret(how):
    import asyncio

    class Fanout(Metric):
        name = "fanout"
        secret_params = ("api_key",)

        def __init__(self, threshold=None, api_key=None):
            super().__init__(threshold)
            self.api_key = api_key

        async def ameasure(self, case):
            if how == "group":
                async def call():
                    raise ConnectionError(f"refused: Authorization: Bearer {self.api_key}")
                async with asyncio.TaskGroup() as tasks:
                    tasks.create_task(call())
            try:
                raise ValueError(f"bad key {self.api_key}")
            except ValueError:
                raise RuntimeError("judge call failed") from KeyError("choices")

    case = AgentTestCase(input="q", tool_calls=[])
    with pytest.raises(BaseException) as info:
        evaluate([case], Fanout(api_key=KEY))
    text = "".join(traceback.format_exception(info.value))
    error, seen = info.value, set()
    stack = [error]
    while stack:  # every link and member, as a reporter walking them sees it
        error = stack.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        text += repr(error) + str(error)
        stack += [error.__cause__, error.__context__, *getattr(error, "exceptions", ())]
    assert not leaks(text), text


def test_a_metric_shipped_to_dask_workers_by_name_masks_its_declared_secrets():
    # S8: the repr of a metric shipped by name masked parameters by their names only.
    from agentmetrics.cli._common import shown_spec
    from agentmetrics.dask._metrics import Shipped, ship

    class Pinned(Metric):
        name = "pinned"
        secret_params = ("pin", "dsn")

        def __init__(self, threshold=None, pin=None, dsn=None):
            super().__init__(threshold)
            self.pin, self.dsn = pin, dsn

        def measure(self, case):
            return 1.0, "ok"

    dsn = "postgresql://svc@db/x?sslpassword=Zq9-secret"
    params = {"pin": "73911", "dsn": dsn}
    shipped = ship(("pinned", params), Pinned(**params), "pinned")
    assert repr(shipped) == ("Shipped(label='pinned', name='pinned', params=(dsn='***', "
                             "pin='***'), pickled=None)")
    assert dict(shipped.params) == params  # it still travels
    register_metric(Pinned)
    try:
        assert "Zq9" not in repr(Shipped("pinned", name="pinned", params=(("dsn", dsn),)))
        assert shown_spec(f"pinned:dsn={dsn},threshold=0.5") == "pinned:dsn=***,threshold=0.5"
    finally:
        unregister_metric("pinned")
    # Undeclared, a query credential is masked by the query rule: every value of that query.
    assert "Zq9" not in repr(Shipped("x", name="unknown", params=(("dsn", dsn),)))


class Endpointed(Metric):
    name = "endpointed"

    def __init__(self, threshold=None, endpoint=None):
        super().__init__(threshold)
        self.endpoint = endpoint

    def measure(self, case):
        raise ConnectionError(f"cannot reach {self.endpoint!r}")


class Located:
    """An object of the application's that shows a URL in its repr."""

    def __init__(self, url):
        self.url = url

    def __repr__(self):
        return f"Located({self.url!r})"


@pytest.mark.parametrize("make", [
    lambda url: url.encode(),
    lambda url: bytearray(url.encode()),
    urllib.parse.urlsplit,
    urllib.parse.urlparse,
    lambda url: urllib.parse.urlsplit(url.encode()),
    lambda url: frozenset({url}),
    lambda url: {url},
    lambda url: {url: "primary"},
    lambda url: [("backup", url)],
    Located,
])
def test_url_credentials_in_a_parameter_of_any_type_are_masked(make):
    # S12: bytes, parsed URLs, sets and dict keys were shown whole.
    value = make("https://svc:PW-8899@judge.example/v1?api_key=KEY-8899")
    metric = Endpointed(endpoint=value)
    row = evaluate([AgentTestCase(tool_calls=[])], metric, errors="record")["endpointed"].errors[0]
    shown = repr(metric) + str(metric.shown_params()) + row
    assert "8899" not in shown, shown
    assert "judge.example" in repr(metric)
    assert metric.endpoint is value  # only shown masked


def test_a_parameter_changed_after_an_error_is_scrubbed_by_its_new_value():
    metric = Keyed(api_key=KEY)
    case = next(c for c in cases() if c.metadata.get("fail") == "header")
    with pytest.raises(ValueError, match=r"Bearer \*\*\*"):
        metric.evaluate(case)  # the secrets are worked out, and kept
    metric.api_key = "sk-another-KEY-00000000"
    with pytest.raises(ValueError) as info:
        metric.evaluate(case)
    assert "another" not in str(info.value) and "Bearer ***" in str(info.value)
