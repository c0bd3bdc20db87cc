"""Score tool-call cases with the real peer libraries, fully offline.

Runs in its own venv (see requirements.txt and README.md in this folder):

    .venv-peers/bin/python tests/peers/drive.py < request.json > response.json

Request (stdin):  {"cases": [CASE, ...], "runs": [RUN, ...]}
    CASE = {"called": [CALL, ...], "expected": [CALL, ...]}
         | {"turns": [{"called": [...], "expected": [...]}, ...]}     (turns: adk only)
    CALL = {"name": str, "arguments": {...}, "output": any}           (output optional;
           a missing "arguments" means none given: None to the peer; any other value,
           text included, is passed to the peer as is; mlflow takes an expected CALL
           without "name" too, and gets its expected calls' keys as they are)
    RUN  = {"peer": "deepeval" | "ragas_f1" | "ragas_accuracy" | "agentevals" | "adk" | "mlflow",
            "options": {...}, "on": "cases"}
           "on" (optional, default "cases") names the top-level list of CASEs the run scores,
           e.g. {"cases": [...], "sessions": [...], "runs": [..., {"peer": "adk", "on": "sessions"}]}.
Response (stdout): {"results": [[RESULT per case] per run], "versions": {dist: version},
                    "network_attempts": N}
    A peer exception on one case gives {"error": "ExceptionType: message"} for that case.
A malformed request (unknown peer, unknown option key, ...) exits with status 2 and a
message on stderr, and prints nothing on stdout.

This file must not import agentmetrics: it runs in a venv that does not have it.
"""

from __future__ import annotations

import atexit
import ipaddress
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

# --------------------------------------------------------------------------- offline switches
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "1"  # else posthog DNS lookups and ~/.deepeval writes
os.environ["DEEPEVAL_DISABLE_DOTENV"] = "1"  # never read a .env from the cwd
os.environ["DEEPEVAL_UPDATE_WARNING_OPT_IN"] = "0"  # no PyPI version check
os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # else the ragas analytics batcher phones home
os.environ["LANGSMITH_TRACING"] = "false"  # agentevals/openevals @traceable
os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["DO_NOT_TRACK"] = "true"
os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"  # else one lookup of mlflow's telemetry config
for _key in (
    "OPENAI_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
):
    os.environ.pop(_key, None)

# --------------------------------------------------------------------------- socket guard
NETWORK_ATTEMPTS: list[str] = []
_orig_connect = socket.socket.connect
_orig_connect_ex = socket.socket.connect_ex
_orig_getaddrinfo = socket.getaddrinfo
_orig_create_connection = socket.create_connection
_orig_gethostbyname = socket.gethostbyname
_orig_gethostbyname_ex = socket.gethostbyname_ex


def _is_loopback_host(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in ("localhost", "localhost.localdomain", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _blocked(what: str) -> RuntimeError:
    NETWORK_ATTEMPTS.append(what)
    print(f"drive.py: blocked network access: {what}", file=sys.stderr)
    return RuntimeError(f"drive.py: network access attempted: {what}")


def _sock_allowed(sock: socket.socket, address: Any) -> bool:
    if getattr(socket, "AF_UNIX", None) is not None and sock.family == socket.AF_UNIX:
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    return _is_loopback_host(host)


def _guard_connect(self: socket.socket, address: Any) -> None:
    if not _sock_allowed(self, address):
        raise _blocked(f"connect {address!r}")
    return _orig_connect(self, address)


def _guard_connect_ex(self: socket.socket, address: Any) -> int:
    if not _sock_allowed(self, address):
        raise _blocked(f"connect_ex {address!r}")
    return _orig_connect_ex(self, address)


def _guard_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_loopback_host(host):
        raise _blocked(f"getaddrinfo {host!r}")
    return _orig_getaddrinfo(host, *args, **kwargs)


def _guard_create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_loopback_host(address[0] if isinstance(address, tuple) else address):
        raise _blocked(f"create_connection {address!r}")
    return _orig_create_connection(address, *args, **kwargs)


def _guard_gethostbyname(host: Any) -> Any:
    if not _is_loopback_host(host):
        raise _blocked(f"gethostbyname {host!r}")
    return _orig_gethostbyname(host)


def _guard_gethostbyname_ex(host: Any) -> Any:
    if not _is_loopback_host(host):
        raise _blocked(f"gethostbyname_ex {host!r}")
    return _orig_gethostbyname_ex(host)


socket.socket.connect = _guard_connect  # type: ignore[method-assign,assignment]
socket.socket.connect_ex = _guard_connect_ex  # type: ignore[method-assign,assignment]
socket.getaddrinfo = _guard_getaddrinfo  # type: ignore[assignment]
socket.create_connection = _guard_create_connection  # type: ignore[assignment]
socket.gethostbyname = _guard_gethostbyname  # type: ignore[assignment]
socket.gethostbyname_ex = _guard_gethostbyname_ex  # type: ignore[assignment]


# --------------------------------------------------------------------------- helpers
class RequestError(Exception):
    """The request itself is malformed (exit status 2)."""


Case = dict[str, Any]
Result = dict[str, Any]
Scorer = Callable[[Case], Result]


OPTIONS: dict[str, set[str]] = {
    "deepeval": {"evaluation_params", "should_consider_ordering", "should_exact_match", "strict_mode", "threshold"},
    "ragas_f1": set(),
    "ragas_accuracy": {"strict_order"},
    "agentevals": {"trajectory_match_mode", "tool_args_match_mode", "tool_args_match_overrides"},
    "adk": {"match_type", "ignore_args", "threshold"},
    "mlflow": {"should_consider_ordering"},
}
DEEPEVAL_PARAMS = ("input_parameters", "output")


def _check_run(run: Any, request: dict[str, Any]) -> None:
    if not isinstance(run, dict) or run.get("peer") not in OPTIONS:
        raise RequestError(f"unknown peer in run {run!r}; known: {sorted(OPTIONS)}")
    extra = set(run) - {"peer", "options", "on"}
    if extra:
        raise RequestError(f"run {run!r}: unknown key(s) {sorted(extra)}; allowed: on, options, peer")
    on = run.get("on", "cases")
    if not isinstance(on, str) or not isinstance(request.get(on), list):
        raise RequestError(f"run {run!r}: \"on\" must name a list in the request, got {on!r}")
    peer, options = run["peer"], run.get("options") or {}
    if not isinstance(options, dict):
        raise RequestError(f"{peer}: options must be an object, got {type(options).__name__}")
    unknown = set(options) - OPTIONS[peer]
    if unknown:
        raise RequestError(f"{peer}: unknown option(s) {sorted(unknown)}; allowed: {sorted(OPTIONS[peer])}")
    params = options.get("evaluation_params", [])
    if peer == "deepeval" and (not isinstance(params, list) or any(p not in DEEPEVAL_PARAMS for p in params)):
        raise RequestError(f"deepeval: evaluation_params must be a subset of {list(DEEPEVAL_PARAMS)}, got {params!r}")


def _flat(case: Case, peer: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if "turns" in case:
        raise ValueError(f"cases with 'turns' are only supported by the adk peer, not {peer}")
    return case.get("called") or [], case.get("expected") or []


def _args(call: dict[str, Any]) -> Any:
    return call.get("arguments")


#: Override functions for agentevals, named in a request as {"function": NAME}
#: (functions do not travel in JSON); tests/peers' callers define the same ones.
def _truthy_x(first: dict[str, Any], second: dict[str, Any]) -> Any:
    return first.get("x", 0) and "yes"


def _falsy_list(first: dict[str, Any], second: dict[str, Any]) -> Any:
    return [] if first == second else [1]


def _fails_on_y(first: dict[str, Any], second: dict[str, Any]) -> Any:
    if "y" in first:
        raise KeyError("no y here")
    return True


def _same_x(first: dict[str, Any], second: dict[str, Any]) -> Any:
    return first.get("x") == second.get("x")


FUNCTIONS: dict[str, Callable[[dict[str, Any], dict[str, Any]], Any]] = {
    "truthy_x": _truthy_x, "falsy_list": _falsy_list, "fails_on_y": _fails_on_y, "same_x": _same_x}


def _overrides(value: Any) -> Any:
    """agentevals' overrides with {"function": NAME} replaced by the function."""
    if not isinstance(value, dict):
        return value
    return {tool: FUNCTIONS[rule["function"]] if isinstance(rule, dict) and set(rule) == {"function"}
            else rule for tool, rule in value.items()}


# --------------------------------------------------------------------------- deepeval
def _deepeval(options: dict[str, Any]) -> Scorer:
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    param_map = {"input_parameters": ToolCallParams.INPUT_PARAMETERS, "output": ToolCallParams.OUTPUT}
    params = options.get("evaluation_params", [])

    class NoLLM(DeepEvalBaseLLM):
        """Stub judge. ToolCorrectnessMetric only calls it when available_tools is given (never here)."""

        def __init__(self) -> None:
            super().__init__(model="no-llm")

        def load_model(self) -> NoLLM:
            return self

        def generate(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("drive.py: the deepeval judge LLM was called")

        async def a_generate(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("drive.py: the deepeval judge LLM was called")

        def get_model_name(self) -> str:
            return "no-llm"

    # One metric per run, reused across cases: measure() recomputes and overwrites every piece
    # of per-case state (tools_called, expected_tools, score, reason, success, verbose_logs).
    metric = ToolCorrectnessMetric(
        model=NoLLM(),
        async_mode=False,
        evaluation_params=[param_map[p] for p in params],
        should_consider_ordering=bool(options.get("should_consider_ordering", False)),
        should_exact_match=bool(options.get("should_exact_match", False)),
        strict_mode=bool(options.get("strict_mode", False)),
        threshold=options.get("threshold", 0.5),
    )

    def tool(call: dict[str, Any]) -> Any:
        if "output" in call:
            return ToolCall(name=call["name"], input_parameters=_args(call), output=call["output"])
        return ToolCall(name=call["name"], input_parameters=_args(call))

    def score(case: Case) -> Result:
        called, expected = _flat(case, "deepeval")
        test_case = LLMTestCase(
            input="q",
            actual_output="",
            tools_called=[tool(c) for c in called],
            expected_tools=[tool(c) for c in expected],
        )
        value = metric.measure(test_case, _show_indicator=False)
        return {"score": float(value), "success": bool(metric.success)}

    return score


# --------------------------------------------------------------------------- ragas
def _ragas(options: dict[str, Any], accuracy: bool) -> Scorer:
    peer = "ragas_accuracy" if accuracy else "ragas_f1"
    from ragas.messages import AIMessage, HumanMessage, ToolCall
    from ragas.metrics.collections import ToolCallAccuracy, ToolCallF1

    metric: Any = ToolCallAccuracy(strict_order=options.get("strict_order", True)) if accuracy else ToolCallF1()
    human = HumanMessage(content="q")

    def score(case: Case) -> Result:
        called, expected = _flat(case, peer)
        calls = [ToolCall(name=c["name"], args=_args(c)) for c in called]
        ai = AIMessage(content="", tool_calls=calls) if calls else AIMessage(content="")
        ref = [ToolCall(name=c["name"], args=_args(c)) for c in expected]
        # score() is the sync API: asyncio.run(ascore(...)), ~0.15 ms of event-loop setup per case.
        return {"score": float(metric.score(user_input=[human, ai], reference_tool_calls=ref).value)}

    return score


# --------------------------------------------------------------------------- agentevals
def _agentevals(options: dict[str, Any]) -> Scorer:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    options = dict(options)
    if "tool_args_match_overrides" in options:
        options["tool_args_match_overrides"] = _overrides(options["tool_args_match_overrides"])
    evaluator = create_trajectory_match_evaluator(**options)

    def messages(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        assistant: dict[str, Any] = {"role": "assistant", "content": ""}
        if calls:
            assistant["tool_calls"] = [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(_args(c))},
                }
                for i, c in enumerate(calls)
            ]
        return [{"role": "user", "content": "q"}, assistant]

    def score(case: Case) -> Result:
        called, expected = _flat(case, "agentevals")
        result = evaluator(outputs=messages(called), reference_outputs=messages(expected))
        return {"score": result["score"], "key": result["key"]}

    return score


# --------------------------------------------------------------------------- google-adk
def _adk(options: dict[str, Any]) -> Scorer:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
    from google.genai import types as genai_types

    criterion: dict[str, Any] = {"threshold": options.get("threshold", 1.0)}
    if "match_type" in options:
        criterion["match_type"] = options["match_type"]
    if "ignore_args" in options:
        criterion["ignore_args"] = options["ignore_args"]
    evaluator = TrajectoryEvaluator(
        eval_metric=EvalMetric(
            metric_name="tool_trajectory_avg_score", criterion=ToolTrajectoryCriterion(**criterion)
        )
    )
    user_content = genai_types.Content(role="user", parts=[genai_types.Part(text="q")])

    def invocation(calls: list[dict[str, Any]]) -> Any:
        uses = [genai_types.FunctionCall(name=c["name"], args=_args(c)) for c in calls]
        return Invocation(user_content=user_content, intermediate_data=IntermediateData(tool_uses=uses))

    def score(case: Case) -> Result:
        turns = case["turns"] if "turns" in case else [case]
        actual = [invocation(t.get("called") or []) for t in turns]
        expected = [invocation(t.get("expected") or []) for t in turns]
        result = evaluator.evaluate_invocations(actual, expected)
        overall = result.overall_score
        return {
            "score": None if overall is None else float(overall),
            "status": result.overall_eval_status.name,
            "per_invocation": [None if p.score is None else float(p.score) for p in result.per_invocation_results],
        }

    return score


# --------------------------------------------------------------------------- mlflow
_MLFLOW_TRACES: dict[str, Any] = {}  # one trace per list of calls, shared by the runs


def _mlflow(options: dict[str, Any]) -> Scorer:
    """ToolCallCorrectness in its deterministic mode (should_exact_match=True),
    on real MLflow traces written to a throwaway SQLite store."""
    import logging
    import shutil
    import tempfile

    if "MLFLOW_TRACKING_URI" not in os.environ or not _MLFLOW_TRACES:
        work = tempfile.mkdtemp(prefix="drive-mlflow-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        atexit.register(shutil.rmtree, work, True)
        os.environ["MLFLOW_TRACKING_URI"] = "sqlite:///" + os.path.join(work, "mlflow.db")
        os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"  # else get_trace races the writer
        os.chdir(work)  # the SQLite store writes trace artifacts under ./mlruns
    import mlflow
    from mlflow.entities import SpanType
    from mlflow.genai.scorers import ToolCallCorrectness

    logging.getLogger("mlflow").setLevel(logging.ERROR)
    scorer = ToolCallCorrectness(should_exact_match=True,
                                 should_consider_ordering=bool(options.get("should_consider_ordering", False)))

    def trace_of(called: list[dict[str, Any]], names: list[str]) -> Any:
        key = json.dumps(called, sort_keys=True)
        if key not in _MLFLOW_TRACES:
            with mlflow.start_span("agent", span_type=SpanType.AGENT) as root:
                root.set_inputs({"question": "q"})
                # Declaring the tools on a chat span keeps MLflow from asking an LLM for them.
                with mlflow.start_span("llm", span_type=SpanType.CHAT_MODEL) as llm:
                    mlflow.tracing.set_span_chat_tools(llm, [
                        {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
                        for n in sorted(set(names)) or ["none"]])
                for call in called:
                    with mlflow.start_span(call["name"], span_type=SpanType.TOOL) as span:
                        span.set_inputs(_args(call))
                        span.set_outputs(call.get("output"))
                root.set_outputs("done")
            _MLFLOW_TRACES[key] = mlflow.get_trace(mlflow.get_last_active_trace_id())
        return _MLFLOW_TRACES[key]

    def score(case: Case) -> Result:
        called, expected = _flat(case, "mlflow")
        trace = trace_of(called, [c["name"] for c in called + expected if isinstance(c.get("name"), str)])
        # the expected calls as MLflow's expectations hold them: a key left out stays out
        wanted = [{key: c[key] for key in ("name", "arguments") if key in c} for c in expected]
        value = scorer(trace=trace, expectations={"expected_tool_calls": wanted}).value
        text = str(getattr(value, "value", value))
        return {"score": {"yes": 1.0, "no": 0.0}.get(text), "value": text}

    return score


# --------------------------------------------------------------------------- dispatch
PEERS: dict[str, tuple[str, Callable[[dict[str, Any]], Scorer]]] = {
    "deepeval": ("deepeval", _deepeval),
    "ragas_f1": ("ragas", lambda o: _ragas(o, accuracy=False)),
    "ragas_accuracy": ("ragas", lambda o: _ragas(o, accuracy=True)),
    "agentevals": ("agentevals", _agentevals),
    "adk": ("google-adk", _adk),
    "mlflow": ("mlflow", _mlflow),
}


def _error(exc: BaseException) -> Result:
    return {"error": f"{type(exc).__name__}: {exc}"}


def handle(request: Any) -> dict[str, Any]:
    if not isinstance(request, dict) or not isinstance(request.get("cases"), list):
        raise RequestError('request must be an object with a "cases" list and a "runs" list')
    runs = request.get("runs")
    if not isinstance(runs, list):
        raise RequestError('request must have a "runs" list')
    for run in runs:  # validate every run before spending time on any
        _check_run(run, request)
    timing = os.environ.get("PEERS_DRIVE_TIMING") == "1"

    import importlib.metadata

    results: list[list[Result]] = []
    versions: dict[str, str] = {}
    for run in runs:
        dist, factory = PEERS[run["peer"]]
        cases = request[run.get("on", "cases")]
        t0 = time.perf_counter()
        try:
            scorer: Scorer | None = factory(run.get("options") or {})
            build_error: Result | None = None
        except Exception as exc:  # the peer refused the options: every case reports it
            scorer, build_error = None, _error(exc)
        versions.setdefault(dist, importlib.metadata.version(dist))
        t1 = time.perf_counter()
        out: list[Result] = []
        for case in cases:
            if scorer is None:
                out.append(dict(build_error or {}))
                continue
            try:
                out.append(scorer(case))
            except Exception as exc:
                out.append(_error(exc))
        results.append(out)
        if timing:
            t2 = time.perf_counter()
            print(
                f"drive.py timing: {run['peer']} {json.dumps(run.get('options') or {}, sort_keys=True)} "
                f"setup {t1 - t0:.3f}s, {len(cases)} cases {t2 - t1:.3f}s",
                file=sys.stderr,
            )
    return {"results": results, "versions": versions, "network_attempts": len(NETWORK_ATTEMPTS)}


def main() -> int:
    # Keep fd 1 for the JSON answer only: anything the peers print (Python or C level) goes to stderr.
    real_stdout = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)
    response: dict[str, Any] = {}

    def emit() -> None:
        # Registered before any peer is imported, so it runs after every peer's own atexit hook
        # (telemetry flushes, thread joins): network_attempts counts those late attempts too.
        if response:
            response["network_attempts"] = len(NETWORK_ATTEMPTS)
            json.dump(response, real_stdout)
            real_stdout.write("\n")
        real_stdout.flush()

    atexit.register(emit)
    try:
        response.update(handle(json.load(sys.stdin)))
    except (RequestError, json.JSONDecodeError) as exc:
        print(f"drive.py: bad request: {exc}", file=sys.stderr)
        return 2
    finally:
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
