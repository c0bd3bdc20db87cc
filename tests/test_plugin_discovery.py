"""Discovery end to end: real distributions built and installed into a fresh
virtual environment, then used from subprocesses, as a user would.

Installed there: agentmetrics itself, plugins/agent-tool-metrics-trajectory, a plugin
whose module fails to import, and two distributions that both claim the name
``clash_metric``. Nothing from this test process leaks in: the environment has
no access to the suite's site-packages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

from conftest import REPO

PLUGIN = REPO / "plugins" / "agent-tool-metrics-trajectory"

METRIC = '''
from agentmetrics import Metric

class Clash(Metric):
    name = "clash_metric"
    description = "Always {value}."

    def measure(self, case):
        return {value}, "constant"
'''


def throwaway(root: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> Path:
    project = root / dist
    project.mkdir()
    package_names = ", ".join(f'"{name}.py"' for name in modules)
    lines = "\n".join(f'{name} = "{target}"' for name, target in entry_points.items())
    (project / "pyproject.toml").write_text(textwrap.dedent(f"""\
        [build-system]
        requires = ["hatchling>=1.18"]
        build-backend = "hatchling.build"

        [project]
        name = "{dist}"
        version = "0.3.0"
        dependencies = ["agent-tool-metrics"]

        [project.entry-points."agentmetrics.metrics"]
        """) + lines + textwrap.dedent(f"""

        [tool.hatch.build.targets.wheel]
        include = [{package_names}]
        """))
    for name, source in modules.items():
        (project / f"{name}.py").write_text(textwrap.dedent(source))
    return project


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory):
    root = tmp_path_factory.mktemp("discovery")
    projects = [
        throwaway(root, "broken-demo", {"broken_demo": "broken_demo_mod:Broken"},
                  {"broken_demo_mod": "import a_module_that_is_not_installed\n"}),
        throwaway(root, "clash-a", {"clash_metric": "clash_a:Clash"}, {"clash_a": METRIC.format(value=0.25)}),
        throwaway(root, "clash-b", {"clash_metric": "clash_b:Clash"}, {"clash_b": METRIC.format(value=0.75)}),
    ]
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # The build backend once in the venv, and every project built with it there,
    # rather than in an isolated build environment of its own for each of five.
    for arguments in (["hatchling>=1.18"],
                      ["--no-build-isolation", str(REPO), str(PLUGIN), *map(str, projects),
                       "pytest"]):
        install = subprocess.run([*pip, *arguments], capture_output=True, text=True)
        assert install.returncode == 0, install.stdout + install.stderr
    return python


def run(python, *args, env=None, check=True):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTMETRICS_", "PYTEST_"))}
    environment.update(env or {})
    result = subprocess.run([str(python), *args], capture_output=True, text=True, env=environment,
                            cwd=python.parent)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_the_environment_is_really_fresh(fresh_env):
    location = run(fresh_env, "-c", "import agentmetrics_trajectory as m; print(m.__file__)").stdout
    assert str(Path(sys.prefix)) not in location and "site-packages" in location
    assert run(fresh_env, "-c", "import hypothesis", check=False).returncode != 0


def test_cli_lists_plugin_metrics_with_distribution_and_version(fresh_env):
    agentmetrics = fresh_env.parent / "agentmetrics"
    records = {r["name"] + "@" + str(r["distribution"]): r
               for r in json.loads(run(agentmetrics, "list", "--json").stdout)}
    f1 = records["tool_call_f1@agent-tool-metrics-trajectory"]
    assert (f1["class"], f1["version"], f1["error"]) == ("ToolCallF1", "0.1.0", None)
    assert f1["required_fields"] == ["tool_calls", "expected_tool_calls"]
    assert records["trajectory_match@agent-tool-metrics-trajectory"]["parameters"]["mode"] == "strict"
    assert "ModuleNotFoundError" in records["broken_demo@broken-demo"]["error"]
    assert {records["clash_metric@clash-a"]["version"], records["clash_metric@clash-b"]["version"]} == {"0.3.0"}
    described = run(agentmetrics, "describe", "TrajectoryMatch").stdout
    assert "distribution:       agent-tool-metrics-trajectory 0.1.0" in described
    broken = run(agentmetrics, "describe", "broken_demo", check=False)
    assert broken.returncode == 1 and "status:             broken: cannot load metric 'broken_demo' " \
        "from distribution broken-demo 0.3.0" in broken.stdout


def test_python_api_finds_plugins_by_name_and_class_name(fresh_env):
    code = textwrap.dedent("""
        import sys
        import agentmetrics as am
        from agentmetrics.metrics import TrajectoryMatch
        assert "agentmetrics_trajectory" in sys.modules
        f1 = am.get_metric("tool_call_f1", threshold=0.5)
        assert type(f1).__name__ == "ToolCallF1" and f1.threshold == 0.5
        assert am.get_metric("TrajectoryMatch", mode="unordered").mode == "unordered"
        assert TrajectoryMatch is am.get_metric_class("trajectory_match")
        case = am.AgentTestCase(tool_calls=["A", "A", "B"], expected_tool_calls=["B", "A"])
        result = am.evaluate([case] * 3, ["tool_call_f1", ("trajectory_match", {"mode": "superset"})])
        print(result["tool_call_f1"].values.tolist(), result["trajectory_match"].values.tolist())
        try:
            am.get_metric("broken_demo")
        except am.MetricLoadError as error:
            assert isinstance(error.__cause__, ModuleNotFoundError)
            print("LOAD:", error)
        try:
            am.get_metric("clash_metric")
        except am.DuplicateMetricError as error:
            print("CLASH:", error)
        print("PICK:", am.get_metric("clash-b/clash_metric").evaluate(case).value)
    """)
    out = run(fresh_env, "-c", code).stdout
    assert "[0.8, 0.8, 0.8] [1.0, 1.0, 1.0]" in out
    assert "LOAD: cannot load metric 'broken_demo' from distribution broken-demo 0.3.0" in out
    assert "CLASH: metric 'clash_metric' is provided by more than one distribution" in out
    assert "clash-a 0.3.0" in out and "clash-b 0.3.0" in out
    assert "Fix: ask for 'clash-a/clash_metric' or 'clash-b/clash_metric'" in out
    assert "PICK: 0.75" in out


def test_pytest_marker_uses_plugin_metrics_by_name(fresh_env, tmp_path):
    test_file = tmp_path / "test_agent.py"
    test_file.write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.agent_metric("tool_call_f1", threshold=0.9)
        @pytest.mark.agent_metric("trajectory_match", mode="unordered", args="ignore")
        def test_agent(agent_eval):
            agent_eval.record_run(tool_calls=["GetOrder", "Refund"], expected_tool_calls=["Refund", "GetOrder"])

        @pytest.mark.agent_metric("tool_call_f1")
        def test_retry(agent_eval):
            agent_eval.record_run(tool_calls=["GetOrder", "GetOrder"], expected_tool_calls=["GetOrder"])
    """))
    result = run(fresh_env, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file), check=False)
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed" in result.stdout
    assert "tool_call_f1  0.67" in result.stdout and "extra: GetOrder" in result.stdout


def test_disabling_autoload_hides_third_party_metrics(fresh_env):
    agentmetrics = fresh_env.parent / "agentmetrics"
    names = [r["name"] for r in json.loads(
        run(agentmetrics, "list", "--json", env={"AGENTMETRICS_DISABLE_PLUGIN_AUTOLOAD": "1"}).stdout)]
    assert names == ["answer_match", "cost", "expectation_match", "latency", "per_turn",
                     "tool_call_micro_f1", "tool_selection_accuracy", "weighted"]  # the built-ins
    hidden = run(fresh_env, "-c", "import agentmetrics as am; am.get_metric('tool_call_f1')",
                 env={"AGENTMETRICS_DISABLE_PLUGIN_AUTOLOAD": "1"}, check=False)
    assert "plugins are disabled by AGENTMETRICS_DISABLE_PLUGIN_AUTOLOAD" in hidden.stderr
