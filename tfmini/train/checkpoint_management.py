"""The ``checkpoint`` state file and finding checkpoints (TensorFlow's
``tensorflow/python/training/checkpoint_management.py``).

``DIR/checkpoint`` is a text-format ``CheckpointState``: ``model_checkpoint_path`` (the newest
prefix) and ``all_model_checkpoint_paths`` (the kept ones, oldest first). Relative paths in it
are relative to ``DIR``; absolute ones are used as they are.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

from google.protobuf import text_format

from tfmini import errors
from tfmini.ops import io as io_family

bundle, protos = io_family.bundle, io_family.protos

__all__ = [
    "checkpoint_exists", "get_checkpoint_mtimes", "get_checkpoint_state", "latest_checkpoint",
    "remove_checkpoint", "update_checkpoint_state",
]

CHECKPOINT_FILENAME = "checkpoint"
# The state file is a few lines; a larger one is not a state file.
_MAX_STATE_BYTES = 16 << 20


def _state_path(checkpoint_dir: str, latest_filename: str | None) -> str:
    return os.path.join(checkpoint_dir, latest_filename or CHECKPOINT_FILENAME)


def get_checkpoint_state(checkpoint_dir: str, latest_filename: str | None = None):
    """The ``CheckpointState`` of ``checkpoint_dir`` with paths made absolute, or None.

    Returns None when there is no state file or it cannot be parsed (as TensorFlow does).

    Raises:
        ValueError: the file parses but names no ``model_checkpoint_path``.
    """
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        if os.path.getsize(path) > _MAX_STATE_BYTES:
            return None
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    state = protos.CheckpointState()
    try:
        text_format.Parse(text, state)
    except text_format.ParseError:
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def update_checkpoint_state(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    latest_filename: str | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
    save_relative_paths: bool = False,
) -> None:
    """Writes ``save_dir/checkpoint`` (atomically: a temporary file, then a rename).

    ``model_checkpoint_path`` is appended to ``all_model_checkpoint_paths`` when missing
    (TensorFlow's rule); ``save_relative_paths`` writes paths relative to ``save_dir``.
    """
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        if model_checkpoint_path in paths:
            paths.remove(model_checkpoint_path)
        paths.append(model_checkpoint_path)
    if save_relative_paths:
        def rel(p: str) -> str:
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths]
    state = protos.CheckpointState(model_checkpoint_path=model_checkpoint_path,
                                   all_model_checkpoint_paths=paths)
    if all_model_checkpoint_timestamps:
        state.all_model_checkpoint_timestamps.extend(all_model_checkpoint_timestamps)
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    path = _state_path(save_dir, latest_filename)
    if os.path.abspath(path) == os.path.abspath(model_checkpoint_path):
        raise errors.InvalidArgumentError(
            None, None, f"Save path '{model_checkpoint_path}' conflicts with path used for "
            "checkpoint state.  Please use a different save path.")
    os.makedirs(save_dir or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text_format.MessageToString(state))
    os.replace(tmp, path)


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a V2 checkpoint (``PREFIX.index``) exists for the prefix."""
    return os.path.isfile(checkpoint_prefix + ".index") or (
        os.path.isfile(checkpoint_prefix) and not checkpoint_prefix.endswith(".meta"))


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The newest checkpoint prefix recorded in ``checkpoint_dir``, or None if its files
    are missing (e.g. a moved folder whose state holds absolute paths) or there is no state.

    Raises:
        ValueError: the state file parses but names no checkpoint.
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
    return None


def checkpoint_files(prefix: str) -> list[str]:
    """The files of checkpoint ``prefix``: index, data shards and meta graph."""
    found = glob.glob(glob.escape(prefix) + ".data-?????-of-?????")
    for suffix in (".index", ".meta"):
        if os.path.exists(prefix + suffix):
            found.append(prefix + suffix)
    return sorted(found)


def remove_checkpoint(checkpoint_prefix: str, checkpoint_format_version: int = 2,
                      meta_graph_suffix: str = "meta") -> None:
    """Removes a checkpoint's files (index, data, meta graph)."""
    del checkpoint_format_version
    for name in checkpoint_files(checkpoint_prefix):
        if name.endswith(".meta") and not name.endswith("." + meta_graph_suffix):
            continue
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


def get_checkpoint_mtimes(checkpoint_prefixes: Sequence[str]) -> list[float]:
    """The modification times of the checkpoints' index files (missing ones skipped)."""
    out = []
    for prefix in checkpoint_prefixes:
        try:
            out.append(os.path.getmtime(prefix + ".index"))
        except OSError:
            pass
    return out


def data_files_exist(prefix: str) -> bool:
    """Whether every data shard the index names exists (used by tests and the CLI)."""
    try:
        reader = bundle.BundleReader(prefix)
    except errors.OpError:
        return False
    return all(os.path.exists(bundle.data_filename(prefix, i, reader.num_shards))
               for i in range(reader.num_shards))
