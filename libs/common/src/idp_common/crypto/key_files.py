"""The key directory on disk: which files are keys, how a new one is written, how a
retired one is removed.

- A key file is a regular file (or a symbolic link to one, as a Kubernetes Secret volume
  holds them) named ``*.pem`` that is not hidden. Other entries are ignored: the
  ``..data`` links of a Secret volume, editor backups, sub-directories.
- A new file is written whole under a hidden temporary name, then linked into place, so
  a process re-reading the directory (:mod:`idp_common.web.key_ring`) never sees half a
  key and a concurrent writer is never overwritten.

Problems are reported as :class:`KeySetError` naming the file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = [
    "KEY_FILE_SUFFIX",
    "KeySetError",
    "ensure_directory",
    "free_name",
    "key_files",
    "remove_key_file",
    "write_new_file",
]

#: Files in the key directory that are read as keys.
KEY_FILE_SUFFIX = ".pem"


class KeySetError(Exception):
    """The key directory or one of its files cannot be used. The message names the file."""


def key_files(directory: Path) -> list[Path]:
    """The key files of ``directory``, sorted by name (oldest first)."""
    if not directory.is_dir():
        raise KeySetError(f"{directory}: key directory does not exist or is not a directory")
    try:
        entries = list(directory.iterdir())
    except OSError as exc:
        raise KeySetError(f"{directory}: cannot list key directory ({exc.strerror})") from exc
    files = [
        path
        for path in entries
        if path.name.endswith(KEY_FILE_SUFFIX) and not path.name.startswith(".") and path.is_file()
    ]
    return sorted(files, key=lambda path: path.name)


def ensure_directory(directory: Path) -> None:
    """Create ``directory`` (mode 0700) when missing."""
    if directory.exists():
        if not directory.is_dir():
            raise KeySetError(f"{directory}: exists and is not a directory")
        return
    directory.mkdir(mode=0o700, parents=True)
    directory.chmod(0o700)  # mkdir's mode is masked by the umask


def free_name(directory: Path, stem: str) -> Path:
    """``{stem}.pem``, else ``{stem}_001.pem`` … (``_`` sorts after ``.``, so order holds)."""
    candidate = directory / f"{stem}{KEY_FILE_SUFFIX}"
    counter = 0
    while candidate.exists():
        counter += 1
        candidate = directory / f"{stem}_{counter:03d}{KEY_FILE_SUFFIX}"
    return candidate


def write_new_file(target: Path, data: bytes) -> None:
    """Write ``data`` to a hidden temporary file, then link it to ``target`` atomically.

    ``os.link`` refuses to replace an existing file, so a concurrent writer cannot be
    overwritten and a reader never sees a half-written key.
    """
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError as exc:
            raise KeySetError(f"{target}: already exists") from exc
    finally:
        temporary.unlink(missing_ok=True)


def remove_key_file(path: Path) -> None:
    """Delete one key file (pruning a retired key); a file already gone is no error."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise KeySetError(f"{path}: cannot remove key file ({exc.strerror})") from exc
