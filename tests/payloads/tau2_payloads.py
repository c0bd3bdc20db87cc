"""Small SYNTHETIC tau2-bench result payloads, hand-written to follow the
schemas described in FINDINGS.md (tau2-bench main @ a2c0247).

No data in here comes from the tau2-bench repository: the conversations, ids,
arguments and task texts are invented. Only the *shape* (key names, nesting,
which values are null/[] by default) follows tau2's pydantic models.

Every public builder returns ``(payload, truth)`` (``write_dir_tree`` writes
files and returns ``truth``). ``truth`` is a list with one entry per
simulation, in the order a tau2 loader yields them (list order for the
monolithic JSON; sorted ``simulations/*.json`` file names for the dir format):

    {
      "simulation_id": str, "task_id": str, "trial": int,
      "case_id": "<domain>-<task_id>",   # what cases_from_tau2 uses as metadata["id"]
      "reward": float,
      "input": str | None,               # first thing the user said (text)
      "agent_calls": [(name, arguments, id), ...],   # requestor == "assistant", in order
      "user_calls":  [(name, arguments, id), ...],   # requestor == "user" (must NOT be counted)
      "expected_actions": [(name, arguments), ...],  # evaluation_criteria.actions, requestor assistant
      "expected_user_actions": [(name, arguments), ...],
    }

Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "classic_results",
    "full_duplex_results",
    "telecom_results",
    "write_dir_tree",
]


# --------------------------------------------------------------------------- builders
# Each builder emits every key that tau2's model_dump_json would emit for that
# model (defaults included), so payloads look like real files.

def _ts(second: float) -> str:
    """ISO timestamp (tau2 uses datetime.isoformat-like 'YYYY-MM-DDTHH:MM:SS.ffffff')."""
    whole = int(second)
    micro = int(round((second - whole) * 1_000_000))
    return f"2026-04-02T10:{whole // 60:02d}:{whole % 60:02d}.{micro:06d}"


def _call(call_id: str, name: str, arguments: dict, requestor: str = "assistant") -> dict:
    return {"id": call_id, "name": name, "arguments": arguments, "requestor": requestor}


def _participant(role: str, content: str | None, t: float, *, tool_calls: list | None = None,
                 turn_idx: int | None = None, **overrides: Any) -> dict:
    """AssistantMessage / UserMessage as serialised (audio_content is never written)."""
    msg = {
        "role": role, "content": content, "tool_calls": tool_calls, "is_audio": False,
        "turn_idx": turn_idx, "timestamp": _ts(t), "cost": None, "usage": None,
        "raw_data": None, "generation_time_seconds": None, "audio_format": None,
        "audio_path": None, "audio_script_gold": None, "speech_effects": None,
        "source_effects": None, "channel_effects": None, "turn_taking_action": None,
        "utterance_ids": None, "chunk_id": None, "is_final_chunk": True, "source": None,
        "contains_speech": True,
    }
    msg.update(overrides)
    return msg


def _tool_result(call_id: str, content: str, t: float, requestor: str = "assistant",
                 turn_idx: int | None = None, error: bool = False) -> dict:
    return {"id": call_id, "role": "tool", "content": content, "requestor": requestor,
            "error": error, "turn_idx": turn_idx, "timestamp": _ts(t)}


def _number(messages: list[dict]) -> list[dict]:
    """Half-duplex trajectories are sorted by timestamp and turn_idx = position."""
    for i, m in enumerate(messages):
        m["turn_idx"] = i
    return messages


def _action(action_id: str, name: str, arguments: dict, requestor: str = "assistant",
            compare_args: list | None = None) -> dict:
    return {"action_id": action_id, "requestor": requestor, "name": name,
            "arguments": arguments, "info": None, "compare_args": compare_args}


def _task(task_id: str, domain: str, reason: str, actions: list[dict],
          reward_basis: list[str] | None = None) -> dict:
    return {
        "id": task_id,
        "description": {"purpose": f"synthetic task {task_id}", "relevant_policies": None,
                        "notes": None},
        "user_scenario": {"persona": None, "instructions": {
            "domain": domain, "reason_for_call": reason, "known_info": None,
            "unknown_info": None, "task_instructions": "Be brief."}},
        "ticket": None,
        "initial_state": None,
        "evaluation_criteria": {"actions": actions, "env_assertions": None,
                                "communicate_info": [], "nl_assertions": None,
                                "reward_basis": reward_basis or ["DB", "COMMUNICATE"]},
        "issues": None, "required_documents": None, "user_tools": None,
    }


def _info(domain: str, *, voice: bool = False) -> dict:
    return {
        "git_commit": "0000000000000000000000000000000000000000",
        "num_trials": 2 if not voice else 1, "max_steps": 200, "max_errors": 10,
        "user_info": {"implementation": "voice_streaming_user_simulator" if voice else "user_simulator",
                      "llm": "example-user-llm", "llm_args": {"temperature": 0.0},
                      "global_simulation_guidelines": None, "voice_settings": None,
                      "persona_config": None},
        "agent_info": {"implementation": "discrete_time_audio_native_agent" if voice else "llm_agent",
                       "llm": "example-agent-llm", "llm_args": {"temperature": 0.0},
                       "voice_settings": None},
        "environment_info": {"domain_name": domain, "policy": "Synthetic policy text.",
                             "tool_defs": None},
        "seed": 300, "text_streaming_config": None,
        "speech_complexity": "regular" if voice else None,
        "audio_native_config": ({"provider": "openai", "model": "example-realtime-model",
                                 "tick_duration_seconds": 0.2} if voice else None),
        "retrieval_config": None, "retrieval_config_kwargs": None,
    }


def _reward(reward: float) -> dict:
    return {"reward": reward, "db_check": {"db_match": reward == 1.0, "db_reward": reward},
            "env_assertions": None, "action_checks": None, "nl_assertions": None,
            "communicate_checks": None, "reward_basis": ["DB", "COMMUNICATE"],
            "reward_breakdown": {"DB": reward, "COMMUNICATE": 1.0}, "info": None}


def _sim(sim_id: str, task_id: str, trial: int, reward: float, *, messages=None, ticks=None,
         mode: str = "half_duplex", termination: str = "user_stop") -> dict:
    return {
        "id": sim_id, "task_id": task_id, "timestamp": _ts(0), "start_time": _ts(0),
        "end_time": _ts(59), "duration": 59.0, "termination_reason": termination,
        "agent_cost": 0.01, "user_cost": 0.002, "agent_usage": None,
        "reward_info": _reward(reward), "messages": messages, "ticks": ticks,
        "trial": trial, "seed": 300 + trial, "mode": mode, "speech_environment": None,
        "review": None, "user_only_review": None, "info": None, "auth_classification": None,
        "hallucination_retries_used": 0, "hallucination_check": None,
        "provider_session_id": None, "policy": "Synthetic policy text.", "effect_timeline": None,
    }


def _results(domain: str, tasks: list, sims: list, *, voice: bool = False) -> dict:
    return {"timestamp": _ts(0), "info": _info(domain, voice=voice), "tasks": tasks,
            "simulations": sims, "simulation_index": None}


def _truth(domain, sim, inp, agent_calls, user_calls, task) -> dict:
    actions = task["evaluation_criteria"]["actions"] or []
    return {
        "simulation_id": sim["id"], "task_id": sim["task_id"], "trial": sim["trial"],
        "case_id": f"{domain}-{sim['task_id']}", "reward": sim["reward_info"]["reward"],
        "input": inp,
        "agent_calls": [(c["name"], c["arguments"], c["id"]) for c in agent_calls],
        "user_calls": [(c["name"], c["arguments"], c["id"]) for c in user_calls],
        "expected_actions": [(a["name"], a["arguments"]) for a in actions
                             if a["requestor"] == "assistant"],
        "expected_user_actions": [(a["name"], a["arguments"]) for a in actions
                                  if a["requestor"] == "user"],
    }


# --------------------------------------------------------------------------- 1. classic

_GREETING = "Hello, thanks for calling. What can I do for you?"


def classic_results(legacy: bool = False) -> tuple[dict, list[dict]]:
    """Monolithic half-duplex results (what a text run writes to results.json).

    Three simulations: task "7" trials 0 and 1, task "8" trial 0. Shows the
    default greeting, a single call, a parallel call (one assistant message,
    two ToolMessages), an erroring call and a stop message.
    ``legacy=True`` drops the keys added in tau2 1.0 (mode, ticks,
    simulation_index, ...) to mimic pre-1.0 files such as the vendored excerpt.
    """
    domain = "airline"
    t7 = _task("7", domain, "Cancel booking QX11.", [
        _action("7_0", "get_booking", {"booking_id": "QX11"}),
        _action("7_1", "cancel_booking", {"booking_id": "QX11", "reason": "change_of_plan"}),
    ])
    t8 = _task("8", domain, "Ask about baggage.", [])  # no expected actions

    a1 = _call("call_a1", "get_booking", {"booking_id": "QX11"})
    a2 = _call("call_a2", "get_profile", {"profile_id": "mia_77"})
    a3 = _call("call_a3", "get_flight", {"flight": "ZZ100", "date": "2026-05-01"})
    a4 = _call("call_a4", "cancel_booking", {"booking_id": "QX11", "reason": "change_of_plan"})
    s1 = _sim("5d0c1a52-0000-4000-8000-000000000001", "7", 0, 1.0, messages=_number([
        _participant("assistant", _GREETING, 1.0),
        _participant("user", "Hi, I need to cancel booking QX11.", 2.0),
        _participant("assistant", None, 3.0, tool_calls=[a1]),
        _tool_result("call_a1", '{"booking_id": "QX11", "profile_id": "mia_77"}', 3.5),
        _participant("assistant", None, 4.0, tool_calls=[a2, a3]),      # parallel calls
        _tool_result("call_a2", '{"profile_id": "mia_77"}', 4.5),
        _tool_result("call_a3", '{"status": "scheduled"}', 4.6),
        _participant("assistant", "I can cancel it. Shall I proceed?", 5.0),
        _participant("user", "Yes please.", 6.0),
        _participant("assistant", None, 7.0, tool_calls=[a4]),
        _tool_result("call_a4", '{"status": "cancelled"}', 7.5),
        _participant("assistant", "Done, it is cancelled.", 8.0),
        _participant("user", "Thanks! ###STOP###", 9.0),
    ]))

    b1 = _call("call_b1", "cancel_booking", {"booking_id": "QX99", "reason": "other"})
    s2 = _sim("5d0c1a52-0000-4000-8000-000000000002", "7", 1, 0.0, messages=_number([
        _participant("assistant", _GREETING, 1.0),
        _participant("user", "Cancel my booking please, QX11.", 2.0),
        _participant("assistant", None, 3.0, tool_calls=[b1]),
        _tool_result("call_b1", "Error: booking QX99 not found", 3.5, error=True),
        _participant("assistant", "Sorry, something went wrong.", 4.0),
        _participant("user", "###STOP###", 5.0),
    ]))

    s3 = _sim("5d0c1a52-0000-4000-8000-000000000003", "8", 0, 1.0, messages=_number([
        _participant("assistant", _GREETING, 1.0),
        _participant("user", "How many bags can I bring?", 2.0),
        _participant("assistant", "That depends on your fare.", 3.0),
        _participant("user", "OK. ###STOP###", 4.0),
    ]))

    payload = _results(domain, [t7, t8], [s1, s2, s3])
    if legacy:
        payload.pop("simulation_index")
        keep = {"id", "task_id", "timestamp", "start_time", "end_time", "duration",
                "termination_reason", "agent_cost", "user_cost", "reward_info", "messages",
                "trial", "seed"}
        for sim in payload["simulations"]:
            for key in set(sim) - keep:
                del sim[key]
    truth = [
        _truth(domain, s1, "Hi, I need to cancel booking QX11.", [a1, a2, a3, a4], [], t7),
        _truth(domain, s2, "Cancel my booking please, QX11.", [b1], [], t7),
        _truth(domain, s3, "How many bags can I bring?", [], [], t8),
    ]
    return payload, truth


# --------------------------------------------------------------------------- 4. telecom (half duplex)

def telecom_results() -> tuple[dict, list[dict]]:
    """Half-duplex telecom-style run where the USER simulator calls tools.

    User tool calls live on role="user" messages, each call with
    requestor="user"; their results are ToolMessages with requestor="user".
    The task's actions mix requestor "user" and "assistant".
    """
    domain = "telecom"
    task = _task("[roaming]abroad_no_data", domain, "Mobile data does not work abroad.", [
        _action("toggle_roaming_0", "toggle_roaming", {}, requestor="user"),
        _action("enable_roaming_1", "enable_roaming", {"customer_id": "C9", "line_id": "L3"}),
    ], reward_basis=["ENV_ASSERTION"])

    u1 = _call("call_u1", "check_status_bar", {}, requestor="user")
    a1 = _call("call_t1", "find_customer_by_phone", {"phone_number": "555-0100"})
    a2 = _call("call_t2", "enable_roaming", {"customer_id": "C9", "line_id": "L3"})
    u2 = _call("call_u2", "toggle_roaming", {}, requestor="user")
    sim = _sim("0a7e9d31-0000-4000-8000-0000000000aa", task["id"], 0, 1.0, messages=_number([
        _participant("assistant", _GREETING, 1.0),
        _participant("user", "My phone has no mobile data since I landed.", 2.0),
        _participant("assistant", "Could you check your status bar?", 3.0),
        _participant("user", None, 4.0, tool_calls=[u1]),                  # user's own tool
        _tool_result("call_u1", "Signal: 3 bars | Data: off", 4.5, requestor="user"),
        _participant("user", "It says data is off. My number is 555-0100.", 5.0),
        _participant("assistant", None, 6.0, tool_calls=[a1]),
        _tool_result("call_t1", '{"customer_id": "C9", "lines": ["L3"]}', 6.5),
        _participant("assistant", None, 7.0, tool_calls=[a2]),
        _tool_result("call_t2", "Roaming enabled for L3", 7.5),
        _participant("assistant", "Roaming is on for your line; please switch it on too.", 8.0),
        # the user simulator may put text next to its tool calls
        _participant("user", "Turning it on now.", 9.0, tool_calls=[u2]),
        _tool_result("call_u2", "Roaming: on", 9.5, requestor="user"),
        _participant("user", "Works now, thanks. ###STOP###", 10.0),
    ]))
    payload = _results(domain, [task], [sim])
    truth = [_truth(domain, sim, "My phone has no mobile data since I landed.",
                    [a1, a2], [u1, u2], task)]
    return payload, truth


# --------------------------------------------------------------------------- 2. full duplex

def _chunk(role: str, text: str | None, t: float, chunk_id: int, *, speech: bool = True) -> dict:
    """A streaming chunk as stored in a tick (tool_calls always stripped to null)."""
    return _participant(role, text, t, is_audio=True, chunk_id=chunk_id,
                        contains_speech=speech,
                        audio_format={"encoding": "ulaw", "sample_rate": 8000, "channels": 1})


def _tick(tick_id: int, *, agent: str | None = None, user: str | None = None,
          agent_calls=(), agent_results=(), user_calls=(), user_results=()) -> dict:
    t = 100 + tick_id * 0.2
    return {
        "tick_id": tick_id, "timestamp": _ts(t),
        "agent_chunk": _chunk("assistant", agent, t + 0.02, tick_id, speech=agent is not None),
        "user_chunk": _chunk("user", user, t + 0.01, tick_id, speech=user is not None),
        "agent_tool_calls": list(agent_calls), "user_tool_calls": list(user_calls),
        "agent_tool_results": list(agent_results), "user_tool_results": list(user_results),
        "user_transcript": None, "tick_duration_seconds": 0.2,
        "wall_clock_duration_seconds": 0.21,
    }


def _full_duplex_sims() -> tuple[str, list[dict], list[dict], list[dict]]:
    domain = "telecom"
    t1 = _task("v1", domain, "Roaming abroad.", [
        _action("v1_0", "find_customer_by_phone", {"phone_number": "555-0111"}),
        _action("v1_1", "toggle_roaming", {}, requestor="user"),
        _action("v1_2", "enable_roaming", {"customer_id": "C1", "line_id": "L1"}),
    ])
    t2 = _task("v2", domain, "Just chatting.", [
        _action("v2_0", "reboot_device", {}, requestor="user"),
    ])

    a1 = _call("call_v1", "find_customer_by_phone", {"phone_number": "555-0111"})
    a2 = _call("call_v2", "get_line", {"line_id": "L1"})
    a3 = _call("call_v3", "get_bill", {"customer_id": "C1"})
    a4 = _call("call_v4", "enable_roaming", {"customer_id": "C1", "line_id": "L1"})
    u1 = _call("call_vu1", "toggle_roaming", {}, requestor="user")
    r = _tool_result  # results are produced in the same tick as the call
    ticks_1 = [
        _tick(0, agent="Hi, how can I help?"),
        _tick(1),
        _tick(2, user="My data "),
        _tick(3, user="is dead abroad, "),
        _tick(4, user="number 555-0111."),
        _tick(5, agent_calls=[a1], agent_results=[r("call_v1", '{"customer_id": "C1"}', 101.0)]),
        # two agent calls in one tick (list order is call order)
        _tick(6, agent="One moment.", agent_calls=[a2, a3],
              agent_results=[r("call_v2", '{"roaming": false}', 101.2),
                             r("call_v3", '{"due": 0}', 101.2)]),
        _tick(7, agent="Please turn roaming on."),
        # user's own device call and an agent call in the SAME tick
        _tick(8, user="Done.", user_calls=[u1],
              user_results=[r("call_vu1", "Roaming: on", 101.6, requestor="user")],
              agent_calls=[a4], agent_results=[r("call_v4", "ok", 101.6)]),
        _tick(9, agent="All set."),
        _tick(10, user="Thanks, bye."),
    ]
    s1 = _sim("9f3b6c1e-0000-4000-8000-0000000000f1", "v1", 0, 1.0, ticks=ticks_1,
              mode="full_duplex")
    ticks_2 = [
        _tick(0, agent="Hi, how can I help?"),
        _tick(1, user="Hello, "),
        _tick(2, user="just testing."),
        _tick(3, agent="Sure, anything else?"),
        _tick(4, user="No, bye."),
    ]
    s2 = _sim("1c84e2d7-0000-4000-8000-0000000000f2", "v2", 0, 0.0, ticks=ticks_2,
              mode="full_duplex")
    truth = [
        _truth(domain, s1, "My data is dead abroad, number 555-0111.", [a1, a2, a3, a4], [u1], t1),
        _truth(domain, s2, "Hello, just testing.", [], [], t2),
    ]
    return domain, [t1, t2], [s1, s2], truth


def full_duplex_results() -> tuple[dict, list[dict]]:
    """Monolithic results whose simulations are full-duplex (voice) runs:
    ``messages`` is null, ``mode`` is "full_duplex" and everything lives in
    ``ticks`` (ordered by tick_id). Agent calls: ``ticks[].agent_tool_calls``;
    the user's: ``ticks[].user_tool_calls``. ``input`` in truth = the user's
    first contiguous run of speech chunks, concatenated (chunks carry their own
    spacing). tau2 writes such runs in dir format; this is the monolithic form
    (e.g. after ``tau2 convert-results --to json``)."""
    domain, tasks, sims, truth = _full_duplex_sims()
    return _results(domain, tasks, sims, voice=True), truth


# --------------------------------------------------------------------------- 3. dir format

def write_dir_tree(root: str | Path, kind: str = "full_duplex",
                   decoys: bool = True) -> list[dict]:
    """Write a dir-format run under ``root`` and return its truth.

    Layout (see FINDINGS.md §3)::

        root/results.json                 timestamp, info, tasks, simulation_index (NO "simulations")
        root/simulations/<sim id>.json    one SimulationRun per file
        root/artifacts/task_<id>/sim_<sim id>/sim_status.json      (decoy)
        root/hallucination_discarded/results_user_hallucination.json (decoy: a
                                          monolithic Results of a DISCARDED rerun)

    ``kind``: "full_duplex" (what voice runs write) or "classic" (a text run
    converted with ``tau2 convert-results --to dir``). Truth is in the order
    tau2's loaders read the files: sorted by file name, i.e. by simulation id,
    not in run order.
    """
    if kind == "full_duplex":
        domain, tasks, sims, truth = _full_duplex_sims()
        voice = True
    elif kind == "classic":
        payload, truth = classic_results()
        domain, tasks, sims, voice = "airline", payload["tasks"], payload["simulations"], False
    else:
        raise ValueError(f"kind must be 'full_duplex' or 'classic', got {kind!r}")

    root = Path(root)
    (root / "simulations").mkdir(parents=True, exist_ok=True)
    meta = _results(domain, tasks, [], voice=voice)
    del meta["simulations"]
    meta["simulation_index"] = [
        {"id": s["id"], "task_id": s["task_id"], "trial": s["trial"],
         "reward": s["reward_info"]["reward"], "termination_reason": s["termination_reason"],
         "agent_cost": s["agent_cost"], "duration": s["duration"]}
        for s in sims  # run (save) order
    ]
    (root / "results.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    for s in sims:
        (root / "simulations" / f"{s['id']}.json").write_text(json.dumps(s, indent=2),
                                                              encoding="utf-8")
    if decoys:
        for s in sims:
            status_dir = root / "artifacts" / f"task_{s['task_id']}" / f"sim_{s['id']}"
            status_dir.mkdir(parents=True, exist_ok=True)
            (status_dir / "sim_status.json").write_text('{"status": "used"}', encoding="utf-8")
        discarded = json.loads(json.dumps(sims[0]))
        discarded["id"] = "ffffffff-0000-4000-8000-00000000dead"
        stray = _call("call_discarded", "cancel_everything", {})
        if discarded["ticks"] is not None:
            discarded["ticks"][1]["agent_tool_calls"] = [stray]
        else:
            discarded["messages"][2]["tool_calls"] = [stray]
        ddir = root / "hallucination_discarded"
        ddir.mkdir(exist_ok=True)
        (ddir / "results_user_hallucination.json").write_text(
            json.dumps(_results(domain, [tasks[0]], [discarded], voice=voice), indent=2),
            encoding="utf-8")
    return sorted(truth, key=lambda t: t["simulation_id"])
