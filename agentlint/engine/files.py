"""Reading and writing files: whole reads that are cheap, writes that no reader ever
sees half of."""

from __future__ import annotations

import os
import tempfile


def atomic_write(path: str, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place
    (atomic on POSIX and Windows). ``mode`` sets the permission bits of the result.
    On any error the temporary file is removed and ``path`` is untouched."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path)[-16:])
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_bytes(path: str) -> bytes:
    """A file's bytes through ``os.read``: about half the cost of ``open().read()`` when
    a question reads every file of a big project."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
