"""A saved run's identity: the run history loads a run back only from the file
it saved (issue 48, item 2).

Each saved run carries its provenance's random ``uid``; the history records it
with the digest of the file (the text of a JSON form before gzip, a Parquet
file's bytes). Loading checks both: a file saved over since (in the same
second, by the same cases, the same metric with another threshold or other
values) holds another uid; a file edited by hand or replaced by a copy of
another form of the same run holds other bytes. Runs recorded before either
was kept are checked as before (fingerprint and creation time). Files are
written with the user's umask, and several processes saving into one history
lose nothing.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import agentmetrics as am
from agentmetrics import errors
from agentmetrics.runs import Provenance, RunStore, load_result
from conftest import TESTS

pyarrow = pytest.importorskip("pyarrow")

FORMS = ["run.jsonl", "run.jsonl.gz", "run.json", "run.json.gz", "run.parquet"]
LABEL = "tool_selection_accuracy"


def _cases(n: int = 6) -> list[am.AgentTestCase]:
    return [am.AgentTestCase(tool_calls=["A"] if i % 2 else ["A", "B"],
                             expected_tool_calls=["A", "B"],
                             metadata={"id": f"c{i}", "task": f"t{i % 2}"})
            for i in range(n)]


def _same_second(first: am.EvaluationResult, second: am.EvaluationResult) -> None:
    """Give ``second`` the creation time of ``first`` (before either provenance
    is taken): the two runs are made in the same second."""
    second.created = first.created
    assert first.provenance.created == second.provenance.created


def _with_values(result: am.EvaluationResult, values: list[float]) -> am.EvaluationResult:
    """``result`` with other values for its one metric (same metric, same threshold)."""
    scores = result[LABEL]
    array = np.array(values, dtype=np.float64)
    other = am.MetricResult(scores.metric, array, array >= scores.metric.threshold, {},
                            lambda row: f"value {values[row]}")
    return am.EvaluationResult(result.batch, {LABEL: other}, result.sources)


def _other_run(kind: str, first: am.EvaluationResult) -> am.EvaluationResult:
    if kind == "another threshold":
        return am.evaluate(_cases(), [am.ToolSelectionAccuracy(threshold=0.4)], progress=False)
    if kind == "other values":
        return _with_values(first, [0.25] * len(first))
    assert kind == "the same evaluation again"
    return am.evaluate(_cases(), [am.ToolSelectionAccuracy(threshold=0.8)], progress=False)


# -- saved over since ------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["another threshold", "other values",
                                  "the same evaluation again"])
@pytest.mark.parametrize("form", FORMS)
def test_a_run_saved_over_in_the_same_second_by_the_same_cases_is_refused(tmp_path, form,
                                                                          kind):
    store = RunStore(tmp_path / "runs.sqlite")
    first = am.evaluate(_cases(), [am.ToolSelectionAccuracy(threshold=0.8)], progress=False)
    second = _other_run(kind, first)
    _same_second(first, second)
    path = first.save(tmp_path / form, history=store)
    second.save(path, history=False)  # the same name, the same second, the same cases
    # What the history checked before: the data's fingerprint and the second it was made.
    assert second.provenance.fingerprint == first.provenance.fingerprint
    assert second.provenance.created == store.get(1).created
    message = (rf"run history {re.escape(str(store.path))}: run 1's saved file "
               rf"{re.escape(str(path))} now holds another run: recorded uid "
               rf"{first.provenance.uid} \(created {re.escape(first.provenance.created)}\), "
               rf"found uid {second.provenance.uid}, created .*saved over since\. Fix: save "
               rf"each run to a file of its own")
    with pytest.raises(errors.InvalidParameterError, match=message):
        store.load(1)
    with pytest.raises(errors.InvalidParameterError, match="now holds another run"):
        am.runs.load_run(1, store)
    # The file itself is a good run (the second), and loads as such.
    assert load_result(path).provenance.uid == second.provenance.uid


@pytest.mark.parametrize("form", FORMS)
def test_the_run_that_saved_the_file_loads(tmp_path, form):
    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    path = result.save(tmp_path / form, history=store)
    run = store.get(1)
    assert run.provenance.uid == result.provenance.uid and re.fullmatch(r"[0-9a-f]{32}",
                                                                         run.provenance.uid)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", run.digest)
    loaded = store.load(1)
    assert loaded.provenance == result.provenance
    assert loaded[LABEL].values.tolist() == result[LABEL].values.tolist()
    # The digest recorded is the file's: its text (before gzip), or a Parquet file's bytes.
    data = path.read_bytes()
    if form.endswith(".gz"):
        data = gzip.decompress(data)
    import hashlib

    assert run.digest == "sha256:" + hashlib.sha256(data).hexdigest()
    # The history keeps it across reads (a new RunStore on the same file).
    assert RunStore(store.path).get(1) == run


def test_two_evaluations_of_the_same_cases_differ_by_their_uid():
    one, two = (am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
                for _ in range(2))
    _same_second(one, two)
    assert one.provenance.uid != two.provenance.uid
    assert one.provenance.uid == one.provenance.uid  # made once, with the provenance


# -- changed since ---------------------------------------------------------------------


def _edit_a_reason(path, form: str) -> None:
    """Change one case's reason: the file still loads (it is a well-formed run)."""
    if form.endswith(".parquet"):
        table = pyarrow.parquet.read_table(path)
        reasons = table.column("m0.reason").to_pylist()
        reasons[0] = "edited by hand"
        index = table.column_names.index("m0.reason")
        table = table.set_column(index, "m0.reason", pyarrow.array(reasons, pyarrow.string()))
        pyarrow.parquet.write_table(table, path)
        return
    data = path.read_bytes()
    packed = form.endswith(".gz")
    text = (gzip.decompress(data) if packed else data).decode("utf-8")
    text = text.replace("All expected tools called: A, B", "edited by hand", 1)
    out = text.encode("utf-8")
    path.write_bytes(gzip.compress(out) if packed else out)


@pytest.mark.parametrize("form", FORMS)
def test_a_file_edited_by_hand_is_refused_by_its_digest(tmp_path, form):
    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    path = result.save(tmp_path / form, history=store)
    recorded = store.get(1).digest
    _edit_a_reason(path, form)
    loaded = load_result(path)  # a well-formed run, with the run's uid...
    assert loaded.provenance == result.provenance
    assert loaded[LABEL].reason(0) == "edited by hand"
    with pytest.raises(errors.InvalidParameterError, match=(
            rf"run 1's saved file {re.escape(str(path))} was changed since it was saved: "
            rf"recorded digest {recorded}, found sha256:[0-9a-f]{{64}} \(the run's uid "
            rf"{result.provenance.uid} is the recorded one.*Fix: put back the file")):
        store.load(1)


def test_a_copy_of_another_saved_run_is_refused_and_a_copy_of_the_same_run_loads(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    second = am.evaluate(_cases(4), "tool_selection_accuracy", progress=False)
    a = first.save(tmp_path / "a.jsonl", history=store)
    b = second.save(tmp_path / "b.jsonl", history=store)
    kept = first.save(tmp_path / "backup.jsonl", history=False)  # the same run, the same text
    shutil.copyfile(b, a)
    with pytest.raises(errors.InvalidParameterError, match=rf"run 1's saved file.*now holds "
                       rf"another run: recorded uid {first.provenance.uid}.*found uid "
                       rf"{second.provenance.uid}"):
        store.load(1)
    shutil.copyfile(kept, a)  # put back: the same bytes as saved
    assert store.load(1).provenance == first.provenance
    # A copy of the same run saved another way (without its metadata): same uid, other bytes.
    first.save(tmp_path / "lean.jsonl", history=False, metadata=False)
    shutil.copyfile(tmp_path / "lean.jsonl", a)
    with pytest.raises(errors.InvalidParameterError, match="was changed since it was saved"):
        store.load(1)
    # A Parquet copy of the same run in place of its JSON lines: other bytes too.
    first.save(tmp_path / "same.parquet", history=False)
    shutil.copyfile(tmp_path / "same.parquet", a)
    with pytest.raises(errors.InvalidParameterError, match="was changed since it was saved"):
        store.load(1)
    assert store.load(2).provenance == second.provenance


def test_gzip_and_plain_text_share_a_digest(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    plain = result.save(tmp_path / "run.jsonl", history=store)
    packed = result.save(tmp_path / "run.jsonl.gz", history=store)
    assert store.get(1).digest == store.get(2).digest
    # Gzipped again another way (other bytes, the same text): still the run saved.
    packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=9, mtime=12345))
    assert store.load(2).provenance == result.provenance
    # Unzipped in place: the same text as well.
    packed.write_bytes(plain.read_bytes())
    assert store.load(2).provenance == result.provenance


# -- runs recorded before the identity was kept ----------------------------------------


def _forget_identity(store: RunStore, run_id: int) -> None:
    """Make run ``run_id`` look recorded by an agentmetrics that kept neither
    uid nor digest (its provenance without uid, no run_files row)."""
    with sqlite3.connect(store.path) as connection:
        (text,) = connection.execute("SELECT provenance FROM runs WHERE id = ?",
                                     (run_id,)).fetchone()
        provenance = json.loads(text)
        del provenance["uid"]
        connection.execute("UPDATE runs SET provenance = ? WHERE id = ?",
                           (json.dumps(provenance), run_id))
        connection.execute("DELETE FROM run_files WHERE run = ?", (run_id,))
    connection.close()


def test_a_run_recorded_without_identity_is_checked_as_before(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    path = first.save(tmp_path / "run.jsonl", history=store)
    _forget_identity(store, 1)
    run = store.get(1)
    assert run.digest is None and run.provenance.uid == ""
    assert store.load(1)[LABEL].values.tolist() == first[LABEL].values.tolist()
    other = am.evaluate(_cases(4), "tool_selection_accuracy", progress=False)
    other.save(path, history=False)
    with pytest.raises(errors.InvalidParameterError, match=r"run 1's saved file.*now holds "
                       r"another run \(created .*recorded without a uid or a digest, so only "
                       r"its data's fingerprint and creation time are checked\)"):
        store.load(1)


def test_a_history_without_the_digest_table_reads_and_gains_it_on_a_write(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    result.save(tmp_path / "run.jsonl", history=store)
    with sqlite3.connect(store.path) as connection:
        connection.execute("DROP TABLE run_files")  # a history written before it was kept
    connection.close()
    (run,) = store.list()
    assert run.digest is None and run.provenance.uid == result.provenance.uid
    assert store.load(1).provenance == result.provenance  # checked by its uid
    result.save(tmp_path / "again.jsonl", history=store)
    assert store.get(2).digest is not None and store.get(1).digest is None
    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT run FROM run_files").fetchall() == [(2,)]
    connection.close()


@pytest.mark.parametrize("name", ["format1.jsonl", "format1.parquet"])
def test_a_stored_run_of_an_older_version_records_and_loads_with_its_digest(tmp_path, name):
    copy = tmp_path / name
    shutil.copyfile(TESTS / "data" / "runs" / name, copy)
    loaded = load_result(copy)
    assert loaded.provenance.uid == ""  # saved before a uid was kept
    store = RunStore(tmp_path / "runs.sqlite")
    run = store.record(loaded, copy)  # read back and hashed: this process did not write it
    assert run.digest is not None
    assert store.load(1).provenance == loaded.provenance
    data = bytearray(copy.read_bytes())
    if name.endswith(".jsonl"):
        copy.write_bytes(bytes(data).replace(b'"trial": 1', b'"trial": 2', 1))
    else:
        table = pyarrow.parquet.read_table(copy)
        pyarrow.parquet.write_table(table, copy, compression="gzip")
    with pytest.raises(errors.InvalidParameterError, match="was changed since it was saved"):
        store.load(1)


# -- record ------------------------------------------------------------------------------


def test_record_refuses_a_file_that_holds_another_run(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    second = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    path = first.save(tmp_path / "run.jsonl", history=False)
    with pytest.raises(errors.InvalidParameterError, match=(
            rf"cannot record {re.escape(str(path))} as this run's file: it holds another run "
            rf"\(uid {first.provenance.uid}, created .*not this one \(uid "
            rf"{second.provenance.uid}.*Fix: save the result there")):
        store.record(second, path)
    (tmp_path / "notes.jsonl").write_text('{"tool_calls": []}\n', encoding="utf-8")
    with pytest.raises(errors.InvalidParameterError, match=r"cannot record .*notes\.jsonl as "
                       r"this run's file: .*not a saved run"):
        store.record(first, tmp_path / "notes.jsonl")
    assert store.list() == []
    # The same run, read back (another object: the file is read and hashed).
    loaded = load_result(path)
    run = store.record(loaded, path)
    assert run.digest == store.record(first, path).digest
    # A path with no file yet: recorded with its uid only.
    later = store.record(first, tmp_path / "later.jsonl")
    assert later.digest is None
    first.save(tmp_path / "later.jsonl", history=False)
    assert store.load(later.id).provenance == first.provenance
    second.save(tmp_path / "later.jsonl", history=False)
    with pytest.raises(errors.InvalidParameterError, match="now holds another run"):
        store.load(later.id)


def test_a_file_saved_over_between_save_and_record_is_not_recorded_as_the_run(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    first = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    second = am.evaluate(_cases(), [am.ToolSelectionAccuracy(threshold=0.4)], progress=False)
    _same_second(first, second)
    path = first.save(tmp_path / "run.jsonl", history=False)
    second.save(path, history=False)  # another process, say, between the save and the record
    with pytest.raises(errors.InvalidParameterError, match="it holds another run"):
        store.record(first, path)


def test_record_takes_the_digest_its_own_save_made(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    path = result.save(tmp_path / "run.jsonl", history=False)
    data = path.read_bytes()
    import hashlib

    saved = "sha256:" + hashlib.sha256(data).hexdigest()
    # Bytes changed in place (same size, the modification time put back): the
    # file looks unchanged, and recording reads nothing back ...
    before = path.stat()
    path.write_bytes(data.replace(b'"c0"', b'"x0"', 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert store.record(result, path).digest == saved
    # ... but the history has the digest of what was saved, so loading sees the change.
    with pytest.raises(errors.InvalidParameterError, match="was changed since it was saved"):
        store.load(1)


# -- processes and threads ----------------------------------------------------------------


def test_three_processes_saving_into_one_history_lose_nothing(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        import agentmetrics as am
        from agentmetrics.runs import RunStore
        store = RunStore({str(tmp_path / "runs.sqlite")!r})
        worker = int(sys.argv[1])
        for i in range(6):
            result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"],
                                                   metadata={{"id": f"w{{worker}}-{{i}}"}})],
                                 am.ToolSelectionAccuracy(threshold=0.1 * (i + 1)),
                                 progress=False)
            result.save({str(tmp_path)!r} + f"/w{{worker}}-{{i}}.jsonl", history=store,
                        label=f"w{{worker}}-{{i}}")
            result.save({str(tmp_path)!r} + "/shared.jsonl", history=store,
                        label=f"shared w{{worker}}-{{i}}")
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script, str(k)]) for k in range(3)]
    assert [worker.wait(timeout=180) for worker in workers] == [0, 0, 0]
    store = RunStore(tmp_path / "runs.sqlite")
    runs = store.list()
    assert sorted(r.id for r in runs) == list(range(1, 37))
    assert all(len(r.metrics) == 1 and r.digest is not None for r in runs)
    assert len({r.provenance.uid for r in runs if not r.label.startswith("shared")}) == 18
    for run in runs:
        if not run.label.startswith("shared"):
            assert store.load(run.id).batch.case_ids == (run.label,)
    # The shared file holds the last run saved there; every other run of it is refused.
    held = load_result(tmp_path / "shared.jsonl").provenance.uid
    shared = [r for r in runs if r.label.startswith("shared")]
    assert sum(r.provenance.uid == held for r in shared) == 1
    for run in shared:
        if run.provenance.uid == held:
            assert store.load(run.id).provenance.uid == held
        else:
            with pytest.raises(errors.InvalidParameterError, match="now holds another run"):
                store.load(run.id)


@pytest.fixture
def umask():
    """Set the process's umask for a test, and put it back after."""
    before = os.umask(0o022)
    os.umask(before)
    yield os.umask
    os.umask(before)


def _current_umask() -> int:
    value = os.umask(0o022)
    os.umask(value)
    return value


@pytest.mark.parametrize("mask", [0o027, 0o077, 0o002])
def test_saved_files_and_the_history_follow_the_umask(tmp_path, umask, mask):
    umask(mask)
    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    for form in FORMS:
        path = result.save(tmp_path / form, history=store)
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask, form
    # SQLite makes its file 0644 less the umask.
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o644 & ~mask
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*FORMS, "runs.sqlite"])
    # A file saved over keeps its own permissions.
    target = tmp_path / "run.jsonl"
    os.chmod(target, 0o600)
    result.save(target, history=False)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert _current_umask() == mask


def test_saving_from_threads_never_changes_the_umask(tmp_path, umask):
    # The writer once read the umask by setting it (to 022) and back: threads
    # saving at once then made files 0644 under a umask of 027, and another
    # thread could see (or keep) 022. Threads are switched as often as Python
    # allows, and on Linux a watcher reads the umask without setting it.
    umask(0o027)
    result = am.evaluate(_cases(1), "tool_selection_accuracy", progress=False)
    status = "/proc/self/status"
    watched: set[str] = set()
    failures: list[BaseException] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            with open(status, encoding="ascii") as lines:
                watched.update(line.split()[1] for line in lines if line.startswith("Umask:"))

    def save(worker: int) -> None:
        try:
            for i in range(250):
                result.save(tmp_path / f"t{worker}-{i}.jsonl", history=False)
        except BaseException as error:  # reported below
            failures.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=save, args=(k,)) for k in range(4)]
        if os.path.exists(status):
            threads.append(threading.Thread(target=watch))
        for thread in threads:
            thread.start()
        for thread in threads[:4]:
            thread.join()
        done.set()
        for thread in threads[4:]:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not failures
    assert _current_umask() == 0o027
    assert {stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()} == {0o640}
    assert watched <= {"0027"}


def test_a_provenance_without_uid_is_saved_without_one(tmp_path):
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    import attrs

    bare = attrs.evolve(result.provenance, uid="")
    built = am.EvaluationResult(result.batch, result.results, result.sources, provenance=bare)
    path = built.save(tmp_path / "run.jsonl", history=False)
    assert "uid" not in json.loads(path.read_text(encoding="utf-8").splitlines()[0])["provenance"]
    assert load_result(path).provenance == bare
    assert Provenance.from_json(bare.to_json()) == bare


def test_runs_list_shows_each_runs_uid_and_digest(tmp_path, capsys):
    from agentmetrics.cli import main

    store = RunStore(tmp_path / "runs.sqlite")
    result = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    result.save(tmp_path / "run.jsonl", history=store)
    store.record(result)  # no file: no digest
    assert main(["runs", "list", "--history", str(store.path), "--format", "json"]) == 0
    newest, first = json.loads(capsys.readouterr().out)
    assert first["uid"] == newest["uid"] == result.provenance.uid
    assert first["digest"] == store.get(1).digest and newest["digest"] is None


def test_a_run_saved_over_by_another_process_before_it_is_recorded_is_still_recorded(tmp_path):
    """What save(history=...) does when another process saves over the file
    between the save and the record (seen in a clean-clone CI run): the run is
    recorded with the digest of the file it was saved as, never refused, so
    no run goes missing from the history; loading it then finds the other
    run's file and refuses it by name."""
    store = RunStore(tmp_path / "runs.sqlite")
    first = am.evaluate(_cases(), "tool_selection_accuracy", progress=False)
    path = first.save(tmp_path / "shared.jsonl", history=False)
    other = textwrap.dedent(f"""
        import agentmetrics as am
        result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"])],
                             "tool_selection_accuracy", progress=False)
        result.save({str(path)!r}, history=False)
    """)
    subprocess.run([sys.executable, "-c", other], check=True, timeout=120)
    run = store.record(first, path)
    assert run.digest is not None and store.list()[-1].id == run.id
    with pytest.raises(errors.InvalidParameterError, match="now holds another run"):
        store.load(run.id)
