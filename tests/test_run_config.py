"""A run's configuration (issue 53): what a run was made with (model, agent and
prompt versions, commit, any other key), checked, kept in every saved form and
the run history, read back from old files and histories as empty, given on the
command line, compared, and shown (escaped, secrets masked) on the pages."""

from __future__ import annotations

import gzip
import html.parser
import json
import re
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import agentmetrics as am
from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError
from agentmetrics.cli import main
from agentmetrics.runs import NOT_SET, RunConfig, RunStore, load_result
from conftest import TESTS

DATA = TESTS / "data" / "runs"

#: Every JSON scalar type a configuration keeps, each to come back as itself.
TYPED = {"model": "gpt-4o", "agent_version": "2.1", "prompt_version": 7, "temperature": 0.25,
         "streaming": True, "seed": None, "commit": "a1b2c3d", "big": 2**70, "zero": 0.0}

HOSTILE = '<script>alert("x")</script>&amp; "quoted" \'single\' <img src=x onerror=alert(1)>'
#: A name as hostile as a name may be (no '=', no spaces at either end).
HOSTILE_KEY = '<i>"name"</i>&lt;\'x\'</td>'


def _cases(n: int = 4) -> list[AgentTestCase]:
    return [AgentTestCase(tool_calls=["GetOrder"] + (["CancelOrder"] if i % 2 else []),
                          expected_tool_calls=["GetOrder", "CancelOrder"],
                          metadata={"id": f"case-{i}"}) for i in range(n)]


def _run(config=None, **options):
    return am.evaluate(_cases(), am.ToolSelectionAccuracy(threshold=0.8), config=config,
                       progress=False, **options)


# --------------------------------------------------------------------------- checking


@pytest.mark.parametrize(("config", "message"), [
    ([("model", "x")], r"^evaluate: config: expected a mapping of names \(non-empty str\) to "
                       r"values that are str, int, float, bool or None.*; got list "
                       r"\[\('model', 'x'\)\]\. Fix: pass a dict"),
    ({1: "x"}, r"^evaluate: config: each name must be a str .*; got the name int 1\. Fix: "
               r"name each value with a str"),
    ({"": "x"}, r"^evaluate: config: each name must be non-empty printable text without "
                r"spaces at either end and without '='.*; got the name ''\. Fix: use a plain "
                r"name"),
    ({" model": "x"}, r"got the name ' model'\. Fix: use a plain name"),
    ({"a=b": "x"}, r"without '=' \(the command line reads KEY=VALUE\); got the name 'a=b'"),
    ({"k" * 101: 1}, r"each name must be at most 100 characters; got a name of 101 characters"),
    ({"https://u:pw-in-name@host": 1}, r"^evaluate: config: a name must not hold a credential "
                                       r"\(a URL with its user and password, a key\).*; got the "
                                       r"name 'https://\*\*\*@host'\. Fix: name the value"),
    ({"sk-live-0123456789abcdef": 1}, r"a name must not hold a credential.*got the name '\*\*\*'"),
    ({f"k{i}": i for i in range(65)}, r"^evaluate: config: expected at most 64 names; got 65 "
                                      r"names\. Fix: keep what a run was made with"),
    ({"temperature": np.float64(0.2)}, r"^evaluate: config\['temperature'\]: expected a str, "
                                       r"int, float, bool or None \(the exact type: a numpy "
                                       r"scalar or a str subclass is not one\); got "
                                       r"numpy\.float64 .*Fix: convert it first"),
    ({"tags": ["a", "b"]}, r"config\['tags'\]: expected a str, int, float, bool or None.*; "
                           r"got list \['a', 'b'\]"),
    ({"t": float("nan")}, r"config\['t'\]: expected a finite number \(NaN and infinities are "
                          r"not kept\); got float nan\. Fix: give a finite number"),
    ({"t": float("-inf")}, r"config\['t'\]: expected a finite number .*; got float -inf"),
    ({"prompt": "x" * 2001}, r"config\['prompt'\]: expected at most 2000 characters \(a "
                             r"configuration says what a run was made with, not its data\); "
                             r"got a str of 2001 characters\. Fix: keep a short name"),
    ({"n": 10**5000}, r"config\['n'\]: expected at most 2000 characters .*; got an int of "
                      r"more than 2000 digits"),
    ({"n": 10**2000}, r"config\['n'\]: .*; got an int of 2001 characters"),
])
def test_a_configuration_is_checked_and_each_error_says_what_and_how_to_fix(config, message):
    with pytest.raises(InvalidParameterError, match=message):
        _run(config)


def test_the_limits_themselves_are_kept():
    config = {f"k{i}": "v" * 2000 for i in range(63)} | {"k" * 100: 10**1999}
    assert len(_run(config).config) == 64


def test_a_wrong_value_under_a_credential_name_is_said_without_its_text():
    with pytest.raises(InvalidParameterError) as info:
        _run({"api_key": b"sk-live-abcdef123456"})
    assert "not shown: the name 'api_key' holds a credential" in str(info.value)
    assert "abcdef123456" not in str(info.value)


def test_the_configuration_is_checked_before_any_case_is_scored():
    class Counting(am.Metric):
        name = "counting_for_config"
        seen = 0

        def measure(self, case):
            Counting.seen += 1
            return 1.0, "ok"

    with pytest.raises(InvalidParameterError, match=r"^aevaluate: config"):
        import asyncio
        asyncio.run(am.aevaluate(_cases(), Counting(), config={"t": float("nan")}))
    with pytest.raises(InvalidParameterError, match=r"^evaluate: config"):
        am.evaluate(_cases(), Counting(), config={"t": float("nan")})
    assert Counting.seen == 0


def test_config_is_a_read_only_mapping_empty_when_none_was_given():
    result = _run()
    assert result.config == {} and isinstance(result.config, RunConfig)
    assert "config" not in repr(result).splitlines()[1]
    given = _run(TYPED)
    assert given.config == TYPED and list(given.config) == list(TYPED)
    assert [type(value) for value in given.config.values()] == [type(v) for v in TYPED.values()]
    with pytest.raises(TypeError):
        given.config["model"] = "other"  # type: ignore[index]
    with pytest.raises(AttributeError):
        given.config = {}  # type: ignore[misc]
    assert repr(given.config).startswith("RunConfig({'model': 'gpt-4o', ")
    assert "config: model=gpt-4o, agent_version=2.1, prompt_version=7" in repr(given)
    assert "config: model=gpt-4o" in given._repr_html_()


def test_secrets_are_masked_when_the_configuration_is_made():
    config = _run({"api_key": "live-key-123456", "db": "postgres://admin:hunter2pw@db:5432/x",
                   "endpoint": "https://judge.example/v1?token=tok-77777&model=m",
                   "note": "called with sk-proj-abcdefghijklmnop", "max_tokens": 512,
                   "author": "alice", "model": "gpt-4o"}).config
    assert config == {"api_key": "***", "db": "postgres://***@db:5432/x",
                      "endpoint": "https://judge.example/v1?token=***&model=***",
                      "note": "called with ***", "max_tokens": 512,
                      "author": "***",  # the credential rule is conservative: "auth"
                      "model": "gpt-4o"}


# --------------------------------------------------------------------------- concatenation and save


def test_concatenated_parts_keep_the_items_they_all_agree_on():
    a = _run({"model": "gpt-4o", "commit": "abc", "temperature": 1})
    b = _run({"model": "gpt-4o", "commit": "def", "temperature": 1.0})
    c = _run({"model": "gpt-4o", "commit": "abc", "temperature": 1, "extra": True})
    assert am.EvaluationResult.concat([a, c]).config == {"model": "gpt-4o", "commit": "abc",
                                                         "temperature": 1}
    # A value of another type disagrees (1 is not 1.0), as does a key one part lacks.
    assert am.EvaluationResult.concat([a, b, c]).config == {"model": "gpt-4o"}
    assert am.EvaluationResult.concat([a, _run()]).config == {}


def test_save_adds_to_the_configuration_and_refuses_a_conflicting_key(tmp_path):
    result = _run({"model": "gpt-4o"})
    path = result.save(tmp_path / "run.jsonl", history=False,
                       config={"commit": "a1b2c3d", "model": "gpt-4o"})  # the same value: fine
    assert result.config == {"model": "gpt-4o", "commit": "a1b2c3d"}
    assert load_result(path).config == result.config
    target = tmp_path / "other.jsonl"
    with pytest.raises(InvalidParameterError, match=(
            r"^save: config\['model'\]: the run's configuration has model=gpt-4o; got gpt-4\.1\. "
            r"A configuration says what the run was made with, and is not rewritten when it is "
            r"saved\. Fix: leave 'model' out \(the run keeps gpt-4o\), or evaluate again with "
            r"config=\{'model': \.\.\.\}\.")):
        result.save(target, history=False, config={"model": "gpt-4.1"})
    assert not target.exists() and result.config["model"] == "gpt-4o"
    with pytest.raises(InvalidParameterError, match=r"save: config\['seed'\]: .*got 1\.0"):
        _run({"seed": 1}).save(target, history=False, config={"seed": 1.0})
    with pytest.raises(InvalidParameterError, match=r"save: config\['t'\]: expected a finite"):
        result.save(target, history=False, config={"t": float("inf")})
    assert not target.exists()


def test_a_save_that_fails_leaves_the_configuration_as_it_was(tmp_path):
    result = _run({"model": "gpt-4o"})
    with pytest.raises(InvalidParameterError, match="does not exist"):
        result.save(tmp_path / "missing" / "run.jsonl", history=False, config={"commit": "x"})
    assert result.config == {"model": "gpt-4o"}


# --------------------------------------------------------------------------- saved runs


def _forms() -> list[str]:
    forms = ["run.jsonl", "run.jsonl.gz", "run.json", "run.json.gz"]
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return forms
    return [*forms, "run.parquet"]


def _header(path: Path) -> dict:
    if path.name.endswith(".parquet"):
        import pyarrow.parquet as pq

        return json.loads(pq.read_schema(path).metadata[b"agentmetrics_run"])
    data = path.read_bytes()
    text = (gzip.decompress(data) if path.name.endswith(".gz") else data).decode("utf-8")
    if path.name.endswith((".json", ".json.gz")):
        document = json.loads(text)
        document.pop("rows")
        return document
    return json.loads(text.splitlines()[0])


@pytest.mark.parametrize("name", _forms())
def test_every_saved_form_keeps_the_configuration_with_its_types(tmp_path, name):
    result = _run(TYPED)
    path = result.save(tmp_path / name, history=False)
    header = _header(path)
    assert header["agentmetrics_run"] == 3 and header["config"] == TYPED
    loaded = load_result(path)
    assert loaded.config == TYPED
    assert [type(value) for value in loaded.config.values()] == [type(v) for v in TYPED.values()]
    # A run without a configuration is written as format 2, which older versions read.
    plain = _run().save(tmp_path / f"plain-{name}", history=False)
    assert _header(plain)["agentmetrics_run"] == 2 and "config" not in _header(plain)
    assert load_result(plain).config == {}


@pytest.mark.parametrize("name", ["format1.jsonl", "format1.parquet"])
def test_runs_saved_before_configurations_load_with_an_empty_one(tmp_path, name):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    copy = tmp_path / name
    shutil.copyfile(DATA / name, copy)
    loaded = load_result(copy)
    assert loaded.config == {} and len(loaded) == 7
    assert "config" not in _Page(loaded.to_html()).sections
    # Saved again, it stays a run of no configuration (format 2), or gains one (format 3).
    again = loaded.save(tmp_path / "again.jsonl", history=False)
    assert _header(again)["agentmetrics_run"] == 2 and load_result(again).config == {}
    added = loaded.save(tmp_path / "added.jsonl", history=False, config={"model": "old"})
    assert _header(added)["agentmetrics_run"] == 3
    assert load_result(added).config == {"model": "old"}
    assert am.compare(again, added, on=None).config_differences == {"model": (NOT_SET, "old")}


def _edit_header(path: Path, edit) -> None:
    header, *rows = path.read_text(encoding="utf-8").splitlines(keepends=True)
    fields = json.loads(header)
    edit(fields)
    path.write_text(json.dumps(fields) + "\n" + "".join(rows), encoding="utf-8")


def test_a_format_2_header_with_a_config_is_refused(tmp_path):
    path = _run({"model": "gpt-4o"}).save(tmp_path / "run.jsonl", history=False)
    _edit_header(path, lambda fields: fields.update(agentmetrics_run=2))
    with pytest.raises(InvalidCaseError, match=r"run\.jsonl:1: the header field config is an "
                       r"object with the keys \['model'\].*; expected no such field"):
        load_result(path)


@pytest.mark.parametrize(("config", "message"), [
    (["model"], r"the header field config is the list \[\"model\"\]; expected an object of "
                r"what the run was made with"),
    ({"model": ["a"]}, r"the header field config\['model'\] is list \['a'\]; expected an "
                       r"object of what the run was made with.*\(expected a str, int"),
    ({"": 1}, r"the header field config is the name ''; expected an object"),
])
def test_a_damaged_config_in_a_saved_run_is_refused_with_its_place(tmp_path, config, message):
    path = _run({"model": "gpt-4o"}).save(tmp_path / "run.jsonl", history=False)
    _edit_header(path, lambda fields: fields.update(config=config))
    with pytest.raises(InvalidCaseError, match=message):
        load_result(path)


def test_a_secret_written_into_a_saved_run_by_hand_is_masked_when_loaded(tmp_path):
    path = _run({"model": "gpt-4o"}).save(tmp_path / "run.jsonl", history=False)
    _edit_header(path, lambda fields: fields["config"].update(password="hunter2-by-hand"))
    assert load_result(path).config == {"model": "gpt-4o", "password": "***"}


# --------------------------------------------------------------------------- the history


def test_the_history_keeps_each_runs_configuration(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first = _run({"model": "gpt-4o", "commit": "abc"})
    first.save(tmp_path / "a.jsonl", history=store, label="a")
    _run().save(tmp_path / "b.jsonl", history=store, label="b")
    recorded = store.record(_run(TYPED))
    assert recorded.config == TYPED
    assert [run.config for run in store.list()] == [TYPED, {}, {"model": "gpt-4o",
                                                            "commit": "abc"}]
    assert [type(v) for v in store.get("last").config.values()] == [type(v) for v in
                                                                     TYPED.values()]
    assert store.get(1).config == {"model": "gpt-4o", "commit": "abc"}
    assert store.load(1).config == first.config
    assert [run.config for run, _ in store.trend("tool_selection_accuracy")] == [first.config, {}, TYPED]
    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM run_configs").fetchone() == (2,)


def _old_history(path: Path) -> None:
    """A history as an agentmetrics before configurations wrote it: schema 1,
    no run_configs table."""
    store = RunStore(path)
    _run().save(path.parent / "old.jsonl", history=store, label="old")
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE run_configs")
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "run_configs" not in tables and "runs" in tables


def test_an_older_history_still_reads_and_gains_the_table_on_its_next_write(tmp_path):
    path = tmp_path / "runs.sqlite"
    _old_history(path)
    store = RunStore(path)
    assert [(run.label, run.config) for run in store.list()] == [("old", {})]
    with sqlite3.connect(path) as connection:  # reading changed nothing
        assert connection.execute("SELECT name FROM sqlite_master WHERE name = "
                                  "'run_configs'").fetchone() is None
    _run({"model": "gpt-4.1"}).save(tmp_path / "new.jsonl", history=store, label="new")
    assert [(run.label, run.config) for run in store.list()] == [("new", {"model": "gpt-4.1"}),
                                                                 ("old", {})]
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
        # What an agentmetrics that does not know the table reads is as it was.
        assert connection.execute("SELECT COUNT(*) FROM runs").fetchone() == (2,)


def test_a_damaged_configuration_in_the_history_is_said(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    store.record(_run({"model": "gpt-4o"}))
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE run_configs SET config = ?", (json.dumps({"model": [1]}),))
    with pytest.raises(InvalidParameterError, match=r"run history .*runs\.sqlite: run 1's "
                       r"config\['model'\]: expected a str, .*The history is damaged\."):
        store.list()
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE run_configs SET config = 'not json'")
    with pytest.raises(InvalidParameterError, match=r"run 1's config cannot be read .*The file "
                       r"is damaged\."):
        store.get(1)


# --------------------------------------------------------------------------- the command line


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({
        "id": case.metadata["id"], "tool_calls": list(case.tool_names),
        "expected_tool_calls": [call.name for call in case.expected_tool_calls]}) + "\n"
        for case in _cases()), encoding="utf-8")
    return path


def test_the_command_line_keeps_config_with_save(tmp_path, capsys, cases_file):
    history = tmp_path / "runs.sqlite"
    saved = tmp_path / "run.parquet" if "run.parquet" in _forms() else tmp_path / "run.jsonl"
    status = main(["evaluate", str(cases_file), "--format", "summary", "--save", str(saved),
                   "--history", str(history), "--label", "configured", "--config",
                   "model=gpt-4o", "--config", "commit=a1b2c3d", "--config",
                   "temperature=0.2", "--config", "note=a=b", "--config", "empty="])
    assert status == 0, capsys.readouterr().err
    expected = {"model": "gpt-4o", "commit": "a1b2c3d", "temperature": "0.2", "note": "a=b",
                "empty": ""}
    assert load_result(saved).config == expected  # the values are kept as text
    assert RunStore(history).get("last").config == expected
    capsys.readouterr()
    assert main(["runs", "list", "--history", str(history)]) == 0
    out = capsys.readouterr().out
    assert "config" in out.splitlines()[1] and "model=gpt-4o," in out
    assert main(["runs", "list", "--history", str(history), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["config"] == expected


@pytest.mark.parametrize(("argv", "message"), [
    (["--config", "model"], r"--config: expected KEY=VALUE \(a name, '=', then the value\), got "
                            r"'model'\. Fix: e\.g\. --config model=gpt-4o"),
    (["--config", "=x"], r"--config: expected KEY=VALUE .*got '=x'"),
    (["--config", "https://user:pw-secret-1@host"], r"got 'https://\*\*\*@host'"),
    (["--config", "model=a", "--config", "model=b"], r"--config: 'model' is given twice, as "
                                                     r"'a' and 'b'; expected each key once"),
    (["--config", "k=" + "x" * 2001], r"--config\['k'\]: expected at most 2000 characters"),
])
def test_the_command_line_refuses_a_bad_config(tmp_path, capsys, cases_file, argv, message):
    saved = tmp_path / "run.jsonl"
    status = main(["evaluate", str(cases_file), "--save", str(saved), "--no-history", *argv])
    err = capsys.readouterr().err
    assert status == 2 and re.search(message, err), err
    assert "pw-secret-1" not in err and not saved.exists()


def test_config_on_the_command_line_needs_save(capsys, cases_file):
    assert main(["evaluate", str(cases_file), "--config", "model=x"]) == 2
    assert ("--config: it says how --save records the run, and no --save was given"
            in capsys.readouterr().err)


def test_the_command_line_compares_the_configurations(tmp_path, capsys, cases_file):
    paths = []
    for model in ("gpt-4o", "gpt-4.1"):
        paths.append(tmp_path / f"{model}.jsonl")
        assert main(["evaluate", str(cases_file), "--format", "summary", "--save",
                     str(paths[-1]), "--no-history", "--config", f"model={model}",
                     "--config", "commit=same"]) == 0
    capsys.readouterr()
    main(["compare", *map(str, paths)])
    out = capsys.readouterr().out
    assert "Configuration (baseline -> candidate)\n  model differs: gpt-4o -> gpt-4.1" in out
    assert "commit differs" not in out
    main(["compare", *map(str, paths), "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert document["config_differences"] == {"model": {"baseline": "gpt-4o",
                                                        "candidate": "gpt-4.1"}}


# --------------------------------------------------------------------------- comparison


def test_compare_gives_the_differences_with_keys_of_one_side(tmp_path):
    baseline = _run({"model": "gpt-4o", "commit": "abc", "seed": 1, "only_base": None})
    candidate = _run({"model": "gpt-4.1", "commit": "abc", "seed": 1.0, "only_cand": True})
    comparison = am.compare(baseline, candidate)
    assert comparison.config_differences == {
        "model": ("gpt-4o", "gpt-4.1"), "seed": (1, 1.0), "only_base": (None, NOT_SET),
        "only_cand": (NOT_SET, True)}
    text = comparison.report()
    assert ("Configuration (baseline -> candidate)\n  model differs: gpt-4o -> gpt-4.1\n"
            "  seed differs: 1 -> 1.0\n  only_base differs: null -> (not set)\n"
            "  only_cand differs: (not set) -> true") in text
    # The same through saved files, and none at all when both agree.
    paths = [r.save(tmp_path / f"{i}.jsonl", history=False)
             for i, r in enumerate((baseline, candidate))]
    assert am.compare(*paths).config_differences == comparison.config_differences
    same = am.compare(baseline, baseline)
    assert same.config_differences == {} and "Configuration" not in same.report()


def test_saved_rows_have_no_configuration(tmp_path, capsys, cases_file):
    rows = tmp_path / "rows.jsonl"
    assert main(["evaluate", str(cases_file), "--format", "jsonl"]) == 0
    rows.write_text(capsys.readouterr().out, encoding="utf-8")
    comparison = am.compare(rows, _run({"model": "gpt-4o"}))
    assert comparison.config_differences == {"model": (NOT_SET, "gpt-4o")}


# --------------------------------------------------------------------------- pages


class _Page(html.parser.HTMLParser):
    """The Configuration section of a page: its definition list and its
    differences table, as text (entities decoded)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.terms: list[str] = []
        self.details: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._where: str | None = None
        self.sections: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section":
            self.sections.append(attributes.get("id", ""))
            self.inside = attributes.get("id") == "config"
        elif self.inside and tag in ("dt", "dd", "td", "th"):
            self._where, self._cell = tag, []
        elif self.inside and tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag):
        if tag == "section":
            self.inside = False
        elif self._cell is not None and tag == self._where:
            text = "".join(self._cell)
            if tag == "dt":
                self.terms.append(text)
            elif tag == "dd":
                self.details.append(text)
            else:
                self.rows[-1].append(text)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_the_run_page_shows_the_configuration_escaped(tmp_path):
    config = {"custom": "x", "commit": "a1b2c3d", HOSTILE_KEY: HOSTILE, "model": "gpt-4o",
              "seed": None}
    result = _run(config)
    text = result.to_html()
    page = _Page(text)
    assert page.sections.index("config") == page.sections.index("provenance") - 1
    # The well-known keys first, then the others as given; every value as text.
    assert page.terms == ["model", "commit", "custom", HOSTILE_KEY, "seed"]
    assert page.details == ["gpt-4o", "a1b2c3d", "x", HOSTILE, "null"]
    assert text.count("<script>") == 1 and "<i>" not in text  # the page's own script alone
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    # A loaded run shows the same; a run without a configuration has no such section.
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False))
    assert _Page(loaded.to_html()).details == page.details
    assert "config" not in _Page(_run().to_html()).sections


def test_the_comparison_page_shows_what_differs_and_what_is_shared():
    baseline = _run({"model": "gpt-4o", "commit": "same", "prompt_version": HOSTILE})
    candidate = _run({"model": "gpt-4.1", "commit": "same", "only": 1})
    text = am.compare(baseline, candidate).to_html()
    page = _Page(text)
    assert page.sections[:2] == ["summary", "config"]
    assert page.rows == [["key", "baseline", "candidate"], ["model", "gpt-4o", "gpt-4.1"],
                         ["prompt_version", HOSTILE, "(not set)"], ["only", "(not set)", "1"]]
    assert page.terms == ["commit"] and page.details == ["same"]
    assert "<img" not in text
    agreed = _Page(am.compare(baseline, baseline).to_html())
    assert agreed.rows == [] and agreed.terms == ["model", "prompt_version", "commit"]
    assert "same configuration" in am.compare(baseline, baseline).to_html()
    assert "config" not in _Page(am.compare(_run(), _run()).to_html()).sections


#: The strings of the hostile-string test of the pages, each trying to close
#: the markup it sits in, and its parser of a page's tags, attributes and text.
from test_report_escaping import HOSTILE as ESCAPING  # noqa: E402
from test_report_escaping import Markup as _Markup  # noqa: E402


def _hostile_config(side: int) -> dict:
    """Each hostile string as a value, and as a name where a name may hold it (no '=')."""
    config = {f"value{k}": f"{hostile}{side}" for k, hostile in enumerate(ESCAPING)}
    config.update({hostile: side for hostile in ESCAPING if "=" not in hostile})
    return config


@pytest.mark.parametrize("page", ["run", "comparison"])
def test_hostile_configurations_are_shown_as_text(page):
    baseline, candidate = _run(_hostile_config(0)), _run(_hostile_config(1))
    assert all(key in baseline.config for key in _hostile_config(0))  # nothing masked away
    text = (baseline.to_html() if page == "run"
            else am.compare(baseline, candidate).to_html())
    markup = _Markup(text)
    assert markup.tags["script"] == 1  # the page's own, and no other
    assert not {"img", "iframe", "textarea", "marquee"} & set(markup.tags)
    assert not {"onerror", "onload", "data-x"} & markup.attributes
    assert markup.tags["svg"] == text.count("<svg ")  # only the charts' own
    every = "".join(markup.text)
    for key, value in _hostile_config(0).items():
        assert key in every and str(value) in every, key
    if page == "comparison":
        assert all(f"{hostile}1" in every for hostile in ESCAPING)


# --------------------------------------------------------------------------- captured cases


def _captured(model, n=3, **extra):
    return [AgentTestCase(tool_calls=["GetOrder"], expected_tool_calls=["GetOrder"],
                          metadata={"id": f"run-{i}", "captured_turns": 2,
                                    **({} if model is None else {"captured_model": model}),
                                    **extra}) for i in range(n)]


def test_cases_captured_from_one_model_give_it_as_the_model():
    assert _captured_result(_captured("gpt-4o")).config == {"model": "gpt-4o"}
    # Records (dicts) read without building the cases give it too.
    records = [{"tool_calls": ["A"], "expected_tool_calls": ["A"],
                "metadata": {"captured_model": "m-1"}} for _ in range(3)]
    assert am.evaluate(records, "tool_selection_accuracy").config == {"model": "m-1"}
    # Given a model of its own, the configuration keeps it; other keys are added to.
    assert _captured_result(_captured("gpt-4o"), {"model": "mine"}).config == {"model": "mine"}
    assert _captured_result(_captured("gpt-4o"), {"commit": "c"}).config == {"commit": "c",
                                                                             "model": "gpt-4o"}


@pytest.mark.parametrize("cases", [
    _captured("gpt-4o") + _captured("gpt-4.1"),  # runs of two models: no one model
    _captured("gpt-4o") + _captured(None),  # a run that named no model
    _captured(None),
    _cases(),
])
def test_cases_of_several_models_or_none_give_no_model(cases):
    assert "model" not in _captured_result(cases).config


def _captured_result(cases, config=None):
    return am.evaluate(cases, "tool_selection_accuracy", config=config)


def test_a_captured_model_reaches_the_saved_run_through_the_command_line(tmp_path, capsys):
    path = tmp_path / "captured.jsonl"
    path.write_text("".join(json.dumps({
        "id": case.metadata["id"], "tool_calls": ["GetOrder"], "expected_tool_calls": ["GetOrder"],
        "metadata": case.metadata}) + "\n" for case in _captured("gpt-4o", n=5)))
    saved = tmp_path / "run.jsonl"
    assert main(["evaluate", str(path), "--save", str(saved), "--no-history", "--format",
                 "summary", "--chunk-size", "2", "--config", "commit=c"]) == 0
    assert load_result(saved).config == {"commit": "c", "model": "gpt-4o"}
    assert main(["evaluate", str(path), "--save", str(saved), "--no-history", "--format",
                 "summary", "--config", "model=mine"]) == 0
    assert load_result(saved).config == {"model": "mine"}
    capsys.readouterr()
