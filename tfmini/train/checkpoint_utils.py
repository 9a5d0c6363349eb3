"""Reading checkpoints directly: ``load_checkpoint``, ``NewCheckpointReader``,
``list_variables``, ``load_variable`` and ``init_from_checkpoint`` (TensorFlow's
``tensorflow/python/training/checkpoint_utils.py`` and ``py_checkpoint_reader``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.dtypes import DType, as_dtype, string
from tfmini.core.scope import Scope
from tfmini.ops import io as io_family
from tfmini.ops import variables as variables_lib
from tfmini.train.checkpoint_management import latest_checkpoint

__all__ = [
    "CheckpointReader", "NewCheckpointReader", "init_from_checkpoint", "list_variables",
    "load_checkpoint", "load_variable",
]


class CheckpointReader:
    """Reads the tensors of one checkpoint (TensorFlow's ``CheckpointReader``).

    Args:
        prefix: The checkpoint prefix.

    Raises:
        NotFoundError: no checkpoint at ``prefix``.
        DataLossError: the checkpoint's index is corrupted.
    """

    def __init__(self, prefix: str):
        self._reader = io_family.bundle.BundleReader(prefix)
        self.prefix = prefix

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """``{name: shape}``."""
        return self._reader.variable_to_shape_map()

    def get_variable_to_dtype_map(self) -> dict[str, DType]:
        """``{name: DType}``."""
        return {k: as_dtype(v) for k, v in self._reader.variable_to_dtype_map().items()}

    def has_tensor(self, name: str) -> bool:
        """Whether the checkpoint holds ``name``."""
        return self._reader.has_tensor(name)

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of ``name`` (NotFoundError naming the closest keys if absent)."""
        return self._reader.get_tensor(name)

    def closest_keys(self, name: str) -> list[str]:
        """Keys that look like ``name``."""
        return self._reader.closest_keys(name)

    def debug_string(self) -> bytes:
        """``name (DT_FLOAT) [2,3]`` lines, as TensorFlow's ``DebugString``."""
        lines = []
        for name in sorted(self._reader.keys()):
            shape = ",".join(str(d) for d in self._reader.shape(name))
            lines.append(f"{name} ({io_family.bundle.dtype_name(self._reader.dtype_enum(name))}) "
                         f"[{shape}]\n")
        return "".join(lines).encode("utf-8")


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 (TF's name)
    """A :class:`CheckpointReader` for the checkpoint prefix ``filepattern``."""
    return CheckpointReader(filepattern)


def _prefix_of(ckpt_dir_or_file: str) -> str:
    if os.path.isdir(ckpt_dir_or_file):
        found = latest_checkpoint(ckpt_dir_or_file)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {ckpt_dir_or_file}")
        return found
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader for a checkpoint prefix, or for the newest checkpoint of a directory.

    Raises:
        ValueError: a directory without checkpoints.
        NotFoundError: no checkpoint at the prefix.
    """
    return CheckpointReader(_prefix_of(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """``[(name, shape)]`` of a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The value of ``name`` (a trailing ``:0`` is dropped) in a checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def _variables_by_name() -> dict[str, Any]:
    return {v.op.name: v for v in variables_lib.global_variables()}


def _set_checkpoint_initializer(variable: Any, prefix: str, tensor_name: str,
                                dtype: DType) -> None:
    """Makes the variable's initializer read ``tensor_name`` from the checkpoint."""
    op = variable.op
    scope = Scope(op.graph).with_sub_scope(op.name).with_device(op.device)
    names = build_op(scope, "Const", [], {"dtype": string,
                                          "value": np.array([tensor_name], object)},
                     name="checkpoint_initializer/tensor_names").outputs[0]
    slices = build_op(scope, "Const", [], {"dtype": string, "value": np.array([""], object)},
                      name="checkpoint_initializer/shape_and_slices").outputs[0]
    path = build_op(scope, "Const", [], {"dtype": string, "value": np.array(prefix, object)},
                    name="checkpoint_initializer/prefix").outputs[0]
    value = build_op(scope, "RestoreV2", [path, names, slices], {"dtypes": (dtype,)},
                     name="checkpoint_initializer").outputs[0]
    if op.type == "VarHandleOp":
        init = build_op(scope, "AssignVariableOp", [variable.handle, value],
                        {"validate_shape": False}, name="Assign_checkpoint")
    else:
        init = build_op(scope, "Assign", [op.outputs[0], value],
                        {"validate_shape": True, "use_locking": True},
                        name="Assign_checkpoint")
    variable._initializer_op = init
    variable._initial_value = value


def init_from_checkpoint(ckpt_dir_or_file: str, assignment_map: Mapping[str, Any]) -> None:
    """Replaces variables' initializers so that they load values from a checkpoint.

    ``assignment_map`` maps checkpoint names to variables: ``{"old/w": "new/w"}`` or
    ``{"old/w": variable}`` for one tensor, ``{"old_scope/": "new_scope/"}`` for every
    variable under a scope (``"/"`` is the root).

    Raises:
        ValueError: a name the checkpoint or the graph lacks, or shapes that differ.
    """
    prefix = _prefix_of(ckpt_dir_or_file)
    reader = CheckpointReader(prefix)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    graph_vars = _variables_by_name()
    pairs: list[tuple[str, Any]] = []
    for ckpt_name, current in assignment_map.items():
        if isinstance(current, str) and current.endswith("/") or ckpt_name.endswith("/"):
            ckpt_scope = "" if ckpt_name == "/" else ckpt_name
            var_scope = "" if current == "/" else str(current)
            for var_name, var in graph_vars.items():
                if not var_name.startswith(var_scope):
                    continue
                full = ckpt_scope + var_name[len(var_scope):]
                if full in shapes:
                    pairs.append((full, var))
            continue
        if ckpt_name not in shapes:
            close = reader.closest_keys(ckpt_name)
            raise ValueError(f"Tensor {ckpt_name} is not found in {prefix} checkpoint "
                             f"(closest: {close})")
        var = graph_vars.get(current) if isinstance(current, str) else current
        if var is None:
            raise ValueError(f"Variable {current} is not in the graph's global variables")
        pairs.append((ckpt_name, var))
    for ckpt_name, var in pairs:
        if not var.shape.is_compatible_with(shapes[ckpt_name]):
            raise ValueError(f"Shape of variable {var.op.name} ({var.shape}) doesn't match "
                             f"with shape of tensor {ckpt_name} ({shapes[ckpt_name]}) from "
                             "checkpoint reader.")
        if var.dtype.base_dtype != dtypes[ckpt_name]:
            raise ValueError(f"dtype of variable {var.op.name} ({var.dtype.name}) differs "
                             f"from tensor {ckpt_name} ({dtypes[ckpt_name].name})")
        _set_checkpoint_initializer(var, prefix, ckpt_name, dtypes[ckpt_name])


