"""A file written whole or not at all: into a new file beside it, then renamed
over it, so a reader never opens half of one (a saved run, a report)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from agentmetrics.errors import InvalidParameterError

__all__ = ["atomic_write"]

#: Names tried for the temporary file before giving up (each is random).
_TRIES = 100


def _mode_of(target: Path) -> int | None:
    """The permission bits of the file at ``target``, None when there is none."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return None


def _create_beside(target: Path, mode: int) -> tuple[int, str]:
    """A new file in the folder of ``target``, open for writing, made with
    ``mode`` less the umask (applied by the system as it creates the file, so
    the umask is never read or changed: reading it means setting it, a
    process-wide change another thread could see)."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
             | getattr(os, "O_CLOEXEC", 0))
    for _ in range(_TRIES):
        name = os.path.join(target.parent, f".{target.name}.{secrets.token_hex(8)}.tmp")
        try:
            return os.open(name, flags, mode), name
        except FileExistsError:
            continue
    raise InvalidParameterError(f"{os.fspath(target)}: cannot make a temporary file beside it "
                                f"({_TRIES} names taken). Fix: clear the folder's .*.tmp files.")


@contextmanager
def atomic_write(target: str | os.PathLike[str]) -> Iterator[tuple[BinaryIO, str]]:
    """Write ``target`` whole or not at all: gives a new file beside it, open
    for writing in binary, and that file's path; on leaving without an error
    the file is closed, given the permissions a plain write would leave, and
    renamed over ``target``; on an error it is removed and ``target`` is as it
    was. The permissions: those of the file it replaces, exactly (umask or
    not, and never wider while it is written); a new file's are 0666 less the
    umask. Nothing is synced to disk (a rename is atomic, not durable).

    Close the file first to write it by its path instead (as pyarrow does)."""
    target = Path(target)
    before = _mode_of(target)
    # The owner may always write and read back the new file (by its path too); no one
    # else may do more with it than with the file it replaces.
    handle, temporary = _create_beside(target, 0o666 if before is None else before | 0o600)
    try:
        with os.fdopen(handle, "wb") as out:
            yield out, temporary
        mode = _mode_of(target)  # the file replaced as it is now, if there is one
        if mode is not None:
            os.chmod(temporary, mode)  # exactly its permissions, umask or not
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
