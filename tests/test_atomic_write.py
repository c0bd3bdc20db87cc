"""A file written whole or not at all (``_base._files.atomic_write``), which a
saved run and every report are written through."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from agentmetrics._base import _files
from agentmetrics._base._files import atomic_write
from agentmetrics.errors import InvalidParameterError

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def test_the_file_appears_whole_and_nothing_is_left_beside_it(tmp_path):
    target = tmp_path / "run.jsonl"
    with atomic_write(target) as (out, temporary):
        out.write(b"first\n")
        assert not target.exists() and os.path.dirname(temporary) == str(tmp_path)
    assert target.read_bytes() == b"first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]


def test_an_error_leaves_the_old_file_as_it_was_and_no_temporary(tmp_path):
    target = tmp_path / "report.html"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), atomic_write(target) as (out, _):
        out.write(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def _old_file(folder, name, mode):
    target = folder / name
    target.write_bytes(b"old")
    target.chmod(mode)
    return target


@posix_only
def test_a_file_written_over_keeps_its_permissions_and_is_never_wider_meanwhile(tmp_path):
    target = _old_file(tmp_path, "private.jsonl", 0o600)
    with atomic_write(target) as (out, temporary):
        out.write(b"new")
        assert stat.S_IMODE(os.stat(temporary).st_mode) & 0o077 == 0  # no one else reads it
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_bytes() == b"new"


@posix_only
def test_a_read_only_file_is_written_over_by_path_and_stays_read_only(tmp_path):
    target = _old_file(tmp_path, "run.parquet", 0o444)
    with atomic_write(target) as (out, temporary):
        out.close()  # written by its path, as pyarrow writes a Parquet file
        with open(temporary, "wb") as again:
            again.write(b"new")
        with open(temporary, "rb") as written:  # and read back, as a run's digest is
            assert written.read() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444 and target.read_bytes() == b"new"


def test_when_every_temporary_name_is_taken_it_says_so(tmp_path, monkeypatch):
    target = tmp_path / "run.jsonl"
    monkeypatch.setattr(_files.secrets, "token_hex", lambda n: "taken")
    (tmp_path / ".run.jsonl.taken.tmp").write_bytes(b"")
    taken = r"run\.jsonl: cannot make a temporary file beside it \(100 names taken\)"
    with pytest.raises(InvalidParameterError, match=taken), atomic_write(target):
        pass
    assert not target.exists()
