"""The entry-point registry, with throwaway distributions on sys.path."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

import agentmetrics
from agentmetrics import (
    AgentTestCase,
    DuplicateMetricError,
    InvalidMetricError,
    InvalidParameterError,
    Metric,
    MetricLoadError,
    MetricNotFoundError,
    ToolSelectionAccuracy,
    get_metric,
    get_metric_class,
    list_metrics,
    refresh,
    register_metric,
    unregister_metric,
)
from agentmetrics import registry
from conftest import REPO
from plugin_helpers import GOOD_METRIC, make_distribution


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A sys.path folder for throwaway distributions; their modules are forgotten after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for module in set(sys.modules) - before:
        del sys.modules[module]


def names():
    return [(info.name, info.distribution) for info in list_metrics()]


# --- the built-in goes through the entry point ---------------------------------

def test_builtin_is_found_through_its_installed_entry_point():
    (info,) = [i for i in list_metrics() if i.name == "tool_selection_accuracy"]
    assert info.distribution == "agent-tool-metrics"
    assert info.version == agentmetrics.__version__
    assert info.target == "agentmetrics.metrics._tool_selection:ToolSelectionAccuracy"
    assert info.class_name == "ToolSelectionAccuracy" and info.error is None
    assert get_metric_class("tool_selection_accuracy") is ToolSelectionAccuracy


def test_pyproject_and_the_source_tree_fallback_agree():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["agentmetrics.metrics"] == registry._BUILTIN_TARGETS
    assert set(project["project"]["dependencies"]) == {"attrs>=23.1", "entrypoints>=0.4", "numpy>=1.24"}


def test_get_metric_by_registry_name_or_class_name_with_parameters():
    assert get_metric("tool_selection_accuracy", threshold=0.9) == ToolSelectionAccuracy(0.9)
    assert get_metric("ToolSelectionAccuracy", order_matters=True) == ToolSelectionAccuracy(
        order_matters=True)


def test_bad_parameters_suggest_the_right_spelling():
    with pytest.raises(InvalidParameterError, match=r"unknown parameter \['treshold'\]; expected some of \['threshold', 'order_matters'\]\. Fix: rename 'treshold' -> 'threshold'"):
        get_metric("tool_selection_accuracy", treshold=0.9)
    with pytest.raises(InvalidParameterError, match="threshold must be between 0 and 1"):
        get_metric("tool_selection_accuracy", threshold=2)


# --- third-party plugins ------------------------------------------------------

def test_plugin_is_listed_without_import_and_loaded_alone(site):
    make_distribution(
        site, "demo_plugin", "1.2.3",
        {"count_calls": "demo_count:CountCalls", "other_metric": "demo_other:OtherMetric"},
        {"demo_count": GOOD_METRIC.format(cls="CountCalls", name="count_calls"),
         "demo_other": GOOD_METRIC.format(cls="OtherMetric", name="other_metric")},
    )
    refresh()
    assert ("count_calls", "demo-plugin") in names()
    (info,) = [i for i in list_metrics() if i.name == "count_calls"]
    assert (info.version, info.target, info.class_name) == ("1.2.3", "demo_count:CountCalls", "CountCalls")
    assert "demo_count" not in sys.modules and "demo_other" not in sys.modules

    metric = get_metric("count_calls", cap=2)
    assert type(metric).__name__ == "CountCalls" and metric.cap == 2
    assert "demo_count" in sys.modules and "demo_other" not in sys.modules
    assert get_metric_class("CountCalls") is type(metric)

    from agentmetrics.metrics import CountCalls, OtherMetric

    assert CountCalls is type(metric) and issubclass(OtherMetric, Metric)


def test_scan_is_lazy_cached_and_refreshable(site, monkeypatch):
    calls = []
    real_scan = registry.scan
    monkeypatch.setattr(registry, "scan", lambda: calls.append(1) or real_scan())
    refresh()
    assert calls == []
    list_metrics()
    get_metric("tool_selection_accuracy")
    assert calls == [1]

    make_distribution(site, "late_plugin", "0.1", {"late_metric": "late_mod:Late"},
                      {"late_mod": GOOD_METRIC.format(cls="Late", name="late_metric")})
    with pytest.raises(MetricNotFoundError):
        get_metric("late_metric")
    refresh()
    assert get_metric("late_metric").name == "late_metric"
    assert calls == [1, 1]


def test_broken_import_is_reported_and_everything_else_keeps_working(site):
    make_distribution(site, "broken_plugin", "0.3", {"broken_metric": "broken_mod:Broken"},
                      {"broken_mod": "import not_a_module_anywhere_xyz\n"})
    refresh()
    assert ("broken_metric", "broken-plugin") in names()
    with pytest.raises(MetricLoadError) as info:
        get_metric("broken_metric")
    message = str(info.value)
    assert "broken-plugin 0.3" in message and "ModuleNotFoundError" in message
    assert "Fix: reinstall or upgrade broken-plugin" in message
    assert isinstance(info.value.__cause__, ModuleNotFoundError)
    assert isinstance(info.value, ImportError)
    error = info.value  # the parts of the message, as fields
    assert (error.metric, error.distribution, error.target) == (
        "broken_metric", "broken-plugin", "broken_mod:Broken")
    assert error.problem.startswith("importing it raised ModuleNotFoundError")
    again = __import__("pickle").loads(__import__("pickle").dumps(error))
    assert (str(again), again.metric, again.target) == (message, "broken_metric", error.target)
    (listed,) = [i for i in list_metrics() if i.name == "broken_metric"]
    assert "ModuleNotFoundError" in listed.error
    assert get_metric("tool_selection_accuracy").threshold == 0.8
    with pytest.raises(ImportError, match="broken-plugin"):
        from agentmetrics.metrics import Broken  # noqa: F401


@pytest.mark.parametrize(
    ("module", "target", "message"),
    [
        ("x = 1\n", "bad_mod:x", "points to 1, which is not a subclass of agentmetrics.Metric"),
        ("class NotAMetric:\n    pass\n", "bad_mod:NotAMetric", "not a subclass of agentmetrics.Metric"),
        (GOOD_METRIC.format(cls="Named", name="another_name"), "bad_mod:Named",
         "declares name = 'another_name', but the entry point registers it as 'bad_metric'"),
        ("", "bad_mod:Missing", "AttributeError"),
        ("", "bad_mod", "malformed entry point target 'bad_mod'"),
    ],
)
def test_entry_points_that_are_not_metrics_fail_to_load_clearly(site, module, target, message):
    make_distribution(site, "bad_plugin", "1.0", {"bad_metric": target}, {"bad_mod": module})
    refresh()
    assert "bad_metric" in [i.name for i in list_metrics()]
    with pytest.raises(MetricLoadError, match=message):
        get_metric("bad_metric")
    (listed,) = [i for i in list_metrics() if i.name == "bad_metric"]
    assert listed.error is not None


def test_invalid_entry_point_name_is_listed_and_refused(site):
    make_distribution(site, "odd_plugin", "1.0", {"Odd-Name": "odd_mod:Odd"},
                      {"odd_mod": GOOD_METRIC.format(cls="Odd", name="odd")})
    refresh()
    with pytest.raises(MetricLoadError, match=r"does not match \^\[a-z\]"):
        get_metric("Odd-Name")


def test_one_name_from_two_distributions_is_refused_and_can_be_picked(site):
    source = GOOD_METRIC.format(cls="Dup", name="dup_metric")
    make_distribution(site, "dist_a", "1.0", {"dup_metric": "dup_a:Dup"}, {"dup_a": source})
    make_distribution(site, "dist_b", "2.0", {"dup_metric": "dup_b:Dup"}, {"dup_b": source})
    refresh()
    assert {d for n, d in names() if n == "dup_metric"} == {"dist-a", "dist-b"}
    with pytest.raises(DuplicateMetricError) as info:
        get_metric("dup_metric")
    message = str(info.value)
    assert "dist-a 1.0" in message and "dist-b 2.0" in message
    assert "'dist-a/dup_metric' or 'dist-b/dup_metric'" in message
    assert get_metric_class("dist_b/dup_metric").__module__ == "dup_b"
    assert get_metric_class("Dist-A/dup_metric").__module__ == "dup_a"  # spelling normalised
    with pytest.raises(DuplicateMetricError):
        get_metric("Dup")
    with pytest.raises(MetricNotFoundError):
        get_metric("dist_c/dup_metric")


def test_a_distribution_found_twice_on_the_path_is_not_a_clash(site):
    source = {"twice_mod": GOOD_METRIC.format(cls="Twice", name="twice_metric")}
    make_distribution(site / "first", "twice_dist", "1.0", {"twice_metric": "twice_mod:Twice"}, source)
    make_distribution(site / "second", "twice_dist", "0.9", {"twice_metric": "twice_mod:Twice"}, source)
    sys.path[:0] = [str(site / "first"), str(site / "second")]
    try:
        refresh()
        assert [i.version for i in list_metrics() if i.name == "twice_metric"] == ["1.0"]
        assert get_metric("twice_metric").name == "twice_metric"
    finally:
        del sys.path[:2]


def test_ambiguous_class_name_is_refused(site):
    make_distribution(site, "amb_plugin", "1.0",
                      {"first_one": "amb_a:Same", "second_one": "amb_b:Same"},
                      {"amb_a": GOOD_METRIC.format(cls="Same", name="first_one"),
                       "amb_b": GOOD_METRIC.format(cls="Same", name="second_one")})
    refresh()
    with pytest.raises(DuplicateMetricError, match=r"\['first_one', 'second_one'\]") as info:
        get_metric("Same")
    assert (info.value.metric, info.value.candidates) == ("Same", ("first_one", "second_one"))


def test_unknown_name_suggests_close_matches():
    with pytest.raises(MetricNotFoundError) as info:
        get_metric("tool_selection_acuracy")
    assert isinstance(info.value, LookupError)
    assert "Did you mean 'tool_selection_accuracy'" in str(info.value)  # first of the close names
    assert "`agentmetrics list`" in str(info.value)
    assert info.value.metric == "tool_selection_acuracy"
    assert info.value.suggestions[0] == "tool_selection_accuracy"
    again = pickle.loads(pickle.dumps(info.value))  # the fields survive pickling
    assert (str(again), again.metric, again.suggestions) == (
        str(info.value), info.value.metric, info.value.suggestions)
    with pytest.raises(MetricNotFoundError) as info:
        get_metric("zzzz")
    assert "Did you mean" not in str(info.value)
    assert (info.value.metric, info.value.suggestions) == ("zzzz", ())


def test_at_most_three_suggestions(site):
    entries = {f"score_{c}": f"many_mod:M{c}" for c in "abcde"}
    make_distribution(site, "many", "1.0", entries)
    refresh()
    with pytest.raises(MetricNotFoundError) as info:
        get_metric("score_x")
    suggestions = str(info.value).partition("Did you mean ")[2].partition("?")[0]
    assert suggestions.count("'score_") == 3


def test_disable_autoload_keeps_only_builtins(site, monkeypatch):
    make_distribution(site, "demo_plugin", "1.0", {"count_calls": "demo_count:CountCalls"},
                      {"demo_count": GOOD_METRIC.format(cls="CountCalls", name="count_calls")})
    monkeypatch.setenv(registry.DISABLE_AUTOLOAD_ENV, "1")
    refresh()
    assert [n for n, _ in names()] == ["answer_match", "cost", "expectation_match", "latency",
                                       "per_turn", "tool_call_micro_f1", "tool_selection_accuracy",
                                       "weighted"]  # the built-ins
    with pytest.raises(MetricNotFoundError, match="plugins are disabled by AGENTMETRICS_DISABLE_PLUGIN_AUTOLOAD"):
        get_metric("count_calls")
    monkeypatch.setenv(registry.DISABLE_AUTOLOAD_ENV, "0")
    refresh()
    assert get_metric("count_calls").name == "count_calls"


# --- in-process registration ----------------------------------------------------

def _local_metric(metric_name):
    class Local(Metric):
        name = metric_name

        def measure(self, case):
            return 1.0, "always"

    return Local


def test_register_metric_as_decorator_and_function():
    Local = register_metric(_local_metric("local_metric"))
    assert get_metric_class("local_metric") is Local
    assert get_metric_class("Local") is Local
    assert ("local_metric", None) in names()
    (info,) = [i for i in list_metrics() if i.name == "local_metric"]
    assert info.class_name == "Local" and info.qualified_name == "local_metric"

    @register_metric(replace=True)
    class Other(Metric):
        name = "local_metric"

        def measure(self, case):
            return 0.0, "never"

    assert get_metric_class("local_metric") is Other
    unregister_metric("local_metric")
    with pytest.raises(MetricNotFoundError):
        get_metric("local_metric")
    with pytest.raises(MetricNotFoundError, match="installed metrics cannot be unregistered"):
        unregister_metric("tool_selection_accuracy")


def test_taken_names_need_replace():
    register_metric(_local_metric("taken"))
    register_metric(get_metric_class("taken"))  # the same class again is fine
    with pytest.raises(DuplicateMetricError, match="already registered in this process"):
        register_metric(_local_metric("taken"))
    with pytest.raises(DuplicateMetricError, match="already provided by distribution agent-tool-metrics") as info:
        register_metric(_local_metric("tool_selection_accuracy"))
    assert info.value.candidates == ("agent-tool-metrics/tool_selection_accuracy",)
    again = pickle.loads(pickle.dumps(info.value))
    assert (again.metric, again.candidates) == ("tool_selection_accuracy", info.value.candidates)


def test_shadowing_an_installed_metric_takes_naming_it_and_stays_visible():
    # An import-time replace=True in one plugin must not take over another's metric.
    with pytest.raises(DuplicateMetricError,
                       match=r"pass replace='agent-tool-metrics/tool_selection_accuracy' to shadow"):
        register_metric(_local_metric("tool_selection_accuracy"), replace=True)
    with pytest.raises(DuplicateMetricError):
        register_metric(_local_metric("tool_selection_accuracy"), replace="other/tool_selection_accuracy")
    shadow = register_metric(_local_metric("tool_selection_accuracy"),
                             replace="agent-tool-metrics/tool_selection_accuracy")
    assert get_metric_class("tool_selection_accuracy") is shadow
    assert get_metric_class("agent-tool-metrics/tool_selection_accuracy") is ToolSelectionAccuracy
    installed, local = sorted((i for i in list_metrics() if i.name == "tool_selection_accuracy"),
                              key=lambda i: i.distribution is None)
    assert installed.distribution == "agent-tool-metrics"
    assert installed.shadowed_by == f"{shadow.__module__}:{shadow.__qualname__}"
    assert local.distribution is None and local.shadows == "agent-tool-metrics/tool_selection_accuracy"
    assert registry.source_of(shadow).endswith(", shadowing agent-tool-metrics/tool_selection_accuracy")
    result = agentmetrics.evaluate([AgentTestCase(tool_calls=[], expected_tool_calls=[])],
                                   "tool_selection_accuracy")
    assert result.sources["tool_selection_accuracy"] == registry.source_of(shadow)


def test_register_refuses_non_metrics_and_bad_names():
    with pytest.raises(InvalidMetricError, match="expects a Metric subclass"):
        register_metric(object)  # type: ignore[arg-type]
    with pytest.raises(InvalidMetricError, match="Local.name must be a str matching"):
        register_metric(_local_metric("Bad Name"))


def test_metric_names_must_be_strings():
    from agentmetrics import MetricNameError, RegistryError

    with pytest.raises(MetricNameError, match="must be a str") as raised:
        get_metric(ToolSelectionAccuracy)  # type: ignore[arg-type]
    assert isinstance(raised.value, (TypeError, RegistryError))  # both, as before and now


def test_metrics_module_only_resolves_capitalised_names():
    import agentmetrics.metrics as metrics

    with pytest.raises(AttributeError):
        metrics.pytest_plugins  # noqa: B018
    with pytest.raises(AttributeError, match="no installed metric has that class name"):
        metrics.NoSuchMetric  # noqa: B018


# --- start-up cost ------------------------------------------------------------

def test_import_scans_nothing_and_imports_no_optional_dependency():
    code = (
        "import sys, agentmetrics\n"
        "from agentmetrics import registry\n"
        "heavy = [m for m in ('entrypoints', 'numpy', 'pandas', 'pyarrow', 'tqdm', 'matplotlib')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert registry._registry._specs is None\n"
        "agentmetrics.get_metric('tool_selection_accuracy')\n"
        "assert 'entrypoints' in sys.modules\n"
        "assert registry._registry._specs is not None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_isolated_undoes_registrations_and_replacements_made_inside():
    from agentmetrics import list_metrics

    Outer = _local_metric("outer_metric")
    registry.register_metric(Outer)
    before = [info.name for info in list_metrics()]
    Inner, Replacement = _local_metric("inner_metric"), _local_metric("outer_metric")
    with registry.isolated():
        registry.register_metric(Inner)
        registry.register_metric(Replacement, replace=True)
        assert get_metric_class("inner_metric") is Inner
        assert get_metric_class("outer_metric") is Replacement
    assert get_metric_class("outer_metric") is Outer
    assert "inner_metric" not in [info.name for info in list_metrics()]
    assert [info.name for info in list_metrics()] == before
    with pytest.raises(RuntimeError), registry.isolated():  # undone on an error too
        registry.register_metric(Inner)
        raise RuntimeError("the test body failed")
    assert "inner_metric" not in [info.name for info in list_metrics()]
