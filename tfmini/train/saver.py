"""``tm.train.Saver``: TensorFlow 1's checkpoint saver (``tensorflow/python/training/saver.py``).

The Saver builds its save and restore ops into the graph when it is made, with TensorFlow's
names, so a graph (and its ``.meta`` file) is interchangeable with TensorFlow's:

* ``save/filename/input`` (Const), ``save/filename`` and ``save/Const``
  (PlaceholderWithDefault: the prefix to write, fed by :meth:`Saver.save`);
* ``save/SaveV2`` over the variables sorted by checkpoint name, and ``save/control_dependency``
  (the prefix, after the save);
* ``save/RestoreV2``, then per variable ``save/Assign_k`` (reference variables) or
  ``save/Identity_k`` + ``save/AssignVariableOp_k`` (resource variables), and
  ``save/restore_all``.

With ``sharded=True`` variables are grouped by device, each group is saved to
``PREFIX_temp/part-0000k-of-0000n`` and ``MergeV2Checkpoints`` merges them into ``PREFIX``.

Restoring is one ``Session.run``: ``RestoreV2`` reads and checks every tensor before any
assignment runs, and a failing run rolls back the assignments it made, so variables are never
left half restored. Before running, :meth:`Saver.restore` checks that every key exists with
the variable's shape and names the closest keys when one does not.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.dtypes import int32, string
from tfmini.core.graph import Output
from tfmini.core.scope import Scope, current_scope, get_default_graph
from tfmini.core.shapes import TensorShape
from tfmini.ops import io as io_family
from tfmini.ops import variables as variables_lib
from tfmini.ops.common.build_util import exact_sub_scope
from tfmini.train import checkpoint_management as cm
from tfmini.train.meta_graph import export_meta_graph as _export_meta_graph
from tfmini.train.meta_graph import import_meta_graph_def

bundle, protos = io_family.bundle, io_family.protos

__all__ = ["Saver", "import_meta_graph"]

V1, V2 = 1, 2


def _const(scope: Scope, value: Any, name: str) -> Output:
    arr = np.array(value, dtype=object) if not isinstance(value, np.ndarray) else value
    dtype = string if arr.dtype == object else int32
    return build_op(scope, "Const", [], {"dtype": dtype, "value": arr}, name=name).outputs[0]


def _var_list_to_dict(var_list: Any) -> dict[str, Any]:
    """``{checkpoint name: variable}`` (TensorFlow's op_list_to_dict)."""
    if isinstance(var_list, Mapping):
        out = dict(var_list)
        for name, var in out.items():
            if not isinstance(name, str):
                raise TypeError(f"var_list keys must be names, got {name!r}")
            if not isinstance(var, variables_lib.Variable):
                raise TypeError(f"Variable to save is not a Variable: {var!r}")
        return out
    out: dict[str, Any] = {}
    for var in var_list:
        if not isinstance(var, variables_lib.Variable):
            raise TypeError(f"Variable to save is not a Variable: {var!r}")
        name = var.op.name
        if name in out:
            if out[name] is var:
                raise ValueError(f"Duplicate variable passed to Saver: {name}")
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = var
    return out


def _save_tensor(var: Any) -> Output:
    """What the save op reads: a reference variable's ref output, a resource variable's
    ``Read/ReadVariableOp`` snapshot (TensorFlow's choice for each)."""
    if var.op.type == "VarHandleOp":
        return var._graph_element
    return var.op.outputs[0]


class Saver:
    """Saves and restores variables in TensorFlow's V2 checkpoint format.

    Example::

        saver = tm.train.Saver(max_to_keep=2)
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            path = saver.save(sess, "/tmp/run/model.ckpt", global_step=41)  # ".../model.ckpt-41"
            saver.restore(sess, tm.train.latest_checkpoint("/tmp/run"))

    Args:
        var_list: Variables (checkpoint names = their op names) or ``{name: variable}``;
            default: all global variables (plus the ``SAVEABLE_OBJECTS`` collection's).
        reshape, restore_sequentially, builder, write_version, pad_step_number: accepted
            for compatibility (V2 only).
        sharded: Save one bundle per device, merged into one checkpoint.
        max_to_keep: How many recent checkpoints to keep (None or 0: all, unrecorded).
        keep_checkpoint_every_n_hours: Also keep one checkpoint per this many hours.
        name: The name scope of the saver's ops (default ``save``).
        saver_def: Re-create a saver from a ``SaverDef`` (its ops are already in the graph).
        defer_build: Build the ops at :meth:`build` instead of now.
        allow_empty: Allow no variables (then ``save``/``restore`` do nothing).
        save_relative_paths: Write paths in the ``checkpoint`` file relative to its directory.
        filename: The default prefix (the ``save/filename/input`` constant).

    Raises:
        ValueError: no variables (without ``allow_empty``), duplicate names.
        TypeError: something in ``var_list`` that is not a variable.
    """

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: int | None = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: str | None = None, restore_sequentially: bool = False,
                 saver_def: Any = None, builder: Any = None, defer_build: bool = False,
                 allow_empty: bool = False, write_version: int = V2,
                 pad_step_number: bool = False, save_relative_paths: bool = False,
                 filename: str | None = None):
        del reshape, restore_sequentially, builder, pad_step_number
        if write_version != V2:
            raise errors.UnimplementedError(None, None, "tfmini writes V2 checkpoints only")
        self._var_list = var_list
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._allow_empty = allow_empty
        self._filename = filename
        self._save_relative_paths = save_relative_paths
        self._is_empty = False
        self._vars: dict[str, Any] = {}
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self.saver_def = saver_def
        if saver_def is not None:
            if not isinstance(saver_def, protos.SaverDef):
                saver_def = protos.SaverDef.FromString(saver_def.SerializeToString())
                self.saver_def = saver_def
            self._sharded = saver_def.sharded
            self._max_to_keep = saver_def.max_to_keep
            self._keep_hours = saver_def.keep_checkpoint_every_n_hours
        elif not defer_build:
            self.build()

    # -- building -----------------------------------------------------------------------------
    def build(self) -> None:
        """Builds the save and restore ops (done at construction unless ``defer_build``)."""
        if self.saver_def is not None:
            return
        var_list = self._var_list
        if var_list is None:
            var_list = variables_lib.global_variables() + \
                get_default_graph().get_collection("saveable_objects")
        self._vars = _var_list_to_dict(var_list)
        if not self._vars:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._is_empty = True
            return
        graph = next(iter(self._vars.values())).op.graph
        outer = current_scope()
        if outer.graph is not graph:
            outer = Scope(graph)
        scope = outer.with_sub_scope(self._name or "save")
        names = sorted(self._vars)
        default = _const(exact_sub_scope(scope, "filename"), self._filename or "model", "input")
        filename = build_op(scope, "PlaceholderWithDefault", [default],
                            {"shape": TensorShape(())}, name="filename").outputs[0]
        filename = build_op(scope, "PlaceholderWithDefault", [filename],
                            {"shape": TensorShape(())}, name="Const").outputs[0]
        if self._sharded:
            save_tensor, restore_op = self._build_sharded(scope, filename, names)
        else:
            save_tensor, restore_op = self._build_single(scope, filename, names)
        self.saver_def = protos.SaverDef(
            filename_tensor_name=filename.name, save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name, max_to_keep=self._max_to_keep or 0,
            sharded=self._sharded, keep_checkpoint_every_n_hours=self._keep_hours, version=V2)

    def _add_save(self, scope: Scope, prefix: Output, names: Sequence[str], suffix: str = ""):
        sub = exact_sub_scope(scope, "SaveV2" + suffix)
        tensor_names = _const(sub, np.array(names, dtype=object), "tensor_names")
        slices = _const(sub, np.array([""] * len(names), dtype=object), "shape_and_slices")
        tensors = [_save_tensor(self._vars[n]) for n in names]
        return build_op(scope, "SaveV2", [prefix, tensor_names, slices, tensors],
                        name="SaveV2" + suffix)

    def _add_restore(self, scope: Scope, prefix: Output, names: Sequence[str],
                     suffix: str = "") -> list:
        sub = exact_sub_scope(scope, "RestoreV2" + suffix)
        tensor_names = _const(sub, np.array(names, dtype=object), "tensor_names")
        slices = _const(sub, np.array([""] * len(names), dtype=object), "shape_and_slices")
        dtypes = tuple(self._vars[n].dtype.base_dtype for n in names)
        restore = build_op(scope, "RestoreV2", [prefix, tensor_names, slices],
                           {"dtypes": dtypes}, name="RestoreV2" + suffix)
        assigns = []
        for i, n in enumerate(names):
            var = self._vars[n]
            var_scope = scope.with_device(var.op.device) if var.op.device else scope
            value = restore.outputs[i]
            if var.op.type == "VarHandleOp":
                ident = build_op(var_scope, "Identity", [value], name="Identity")
                assigns.append(build_op(var_scope, "AssignVariableOp",
                                        [var.handle, ident.outputs[0]],
                                        {"validate_shape": False}, name="AssignVariableOp"))
            else:
                validate = var.shape.is_fully_defined()
                assigns.append(build_op(var_scope, "Assign", [var.op.outputs[0], value],
                                        {"validate_shape": validate, "use_locking": True},
                                        name="Assign"))
        return assigns

    def _build_single(self, scope: Scope, filename: Output, names: list[str]):
        save = self._add_save(scope, filename, names)
        save_tensor = build_op(scope.with_control_dependencies([save]), "Identity", [filename],
                               name="control_dependency").outputs[0]
        assigns = self._add_restore(scope, filename, names)
        restore_op = build_op(scope.with_control_dependencies(assigns), "NoOp", [],
                              name="restore_all")
        return save_tensor, restore_op

    def _build_sharded(self, scope: Scope, filename: Output, names: list[str]):
        by_device: dict[str, list[str]] = {}
        for n in names:
            by_device.setdefault(self._vars[n].op.device or "", []).append(n)
        devices = sorted(by_device)
        cpu = scope.with_device("/device:CPU:*")
        match = build_op(cpu, "StaticRegexFullMatch", [filename], {"pattern": "^s3://.*"},
                         name="StaticRegexFullMatch").outputs[0]
        part = _const(cpu, ".part", "Const_1")
        temp = _const(cpu, "_temp/part", "Const_2")
        suffix = build_op(cpu, "Select", [match, part, temp], name="Select").outputs[0]
        tmp_prefix = build_op(cpu, "StringJoin", [[filename, suffix]], name="StringJoin") \
            .outputs[0]
        num_shards = _const(scope, np.array(len(devices), np.int32), "num_shards")
        shard_files, saves = [], []
        for k, device in enumerate(devices):
            sfx = f"_{k}" if k else ""
            dev_scope = scope.with_device(device)
            shard = _const(exact_sub_scope(dev_scope, "ShardedFilename" + sfx),
                           np.array(k, np.int32), "shard")
            fname = build_op(dev_scope, "ShardedFilename", [tmp_prefix, shard, num_shards],
                             name="ShardedFilename" + sfx).outputs[0]
            save = self._add_save(dev_scope, fname, by_device[device], sfx)
            saves.append(build_op(dev_scope.with_control_dependencies([save]), "Identity",
                                  [fname], name="control_dependency" + sfx))
            shard_files.append(fname)
        first = scope.with_device(devices[0])
        merge_scope = exact_sub_scope(first, "MergeV2Checkpoints").with_control_dependencies(saves)
        prefixes = build_op(merge_scope, "Pack", [shard_files], {"axis": 0},
                            name="checkpoint_prefixes").outputs[0]
        merge = build_op(first, "MergeV2Checkpoints", [prefixes, filename],
                         {"delete_old_dirs": True}, name="MergeV2Checkpoints")
        save_tensor = build_op(first.with_control_dependencies(saves + [merge]), "Identity",
                               [filename], name="Identity").outputs[0]
        shard_restores = []
        for k, device in enumerate(devices):
            sfx = f"_{k}" if k else ""
            dev_scope = scope.with_device(device)
            assigns = self._add_restore(dev_scope, filename, by_device[device], sfx)
            shard_restores.append(build_op(dev_scope.with_control_dependencies(assigns), "NoOp",
                                           [], name="restore_shard" + sfx))
        all_scope = exact_sub_scope(scope, "restore_all")
        noops = [build_op(all_scope.with_device(d).with_control_dependencies([r]), "NoOp", [],
                          name="NoOp") for d, r in zip(devices, shard_restores)]
        restore_op = build_op(scope.with_control_dependencies(noops), "NoOp", [],
                              name="restore_all")
        return save_tensor, restore_op

    # -- the SaverDef -------------------------------------------------------------------------
    def as_saver_def(self) -> Any:
        """The ``SaverDef`` message naming this saver's tensors and ops."""
        return self.saver_def

    def to_proto(self, export_scope: str | None = None) -> Any:
        """The ``SaverDef`` (``export_scope`` stripped from the names)."""
        if export_scope is None:
            return self.saver_def
        out = protos.SaverDef()
        out.CopyFrom(self.saver_def)
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            value = getattr(out, field)
            if value.startswith(export_scope + "/"):
                setattr(out, field, value[len(export_scope) + 1:])
        return out

    @staticmethod
    def from_proto(saver_def: Any, import_scope: str | None = None) -> Saver:
        """A Saver over the ops a ``SaverDef`` names (``import_scope`` prefixed)."""
        if import_scope:
            copy = protos.SaverDef()
            copy.CopyFrom(protos.SaverDef.FromString(saver_def.SerializeToString()))
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(copy, field, f"{import_scope}/{getattr(copy, field)}")
            saver_def = copy
        return Saver(saver_def=saver_def)

    # -- checkpoints kept -----------------------------------------------------------------------
    @property
    def last_checkpoints(self) -> list[str]:
        """The kept checkpoint prefixes, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: Sequence) -> None:
        """Sets the kept checkpoints as ``[(prefix, timestamp)]``."""
        self._last_checkpoints = [(str(p), float(t)) for p, t in last_checkpoints_with_time]

    def set_last_checkpoints(self, last_checkpoints: Sequence[str]) -> None:
        """Deprecated in TensorFlow: sets the kept checkpoints (with no timestamps)."""
        self._last_checkpoints = [(str(p), None) for p in last_checkpoints]

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        """Takes the existing ones of ``checkpoint_paths`` as the kept checkpoints (after a
        restart), with their files' modification times."""
        present = [p for p in checkpoint_paths if cm.checkpoint_exists(p)]
        times = cm.get_checkpoint_mtimes(present)
        self.set_last_checkpoints_with_time(list(zip(present, times)))

    def _record_last_checkpoint(self, path: str) -> None:
        if not self._max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, time.time()))
        while len(self._last_checkpoints) > self._max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str) -> None:
        while self._checkpoints_to_be_deleted:
            path, stamp = self._checkpoints_to_be_deleted.pop(0)
            if self._keep_hours and stamp is not None and stamp >= self._next_checkpoint_time:
                self._next_checkpoint_time += self._keep_hours * 3600
                continue
            cm.remove_checkpoint(path, meta_graph_suffix=meta_graph_suffix)

    # -- save / restore -----------------------------------------------------------------------
    def save(self, sess: Any, save_path: str, global_step: Any = None,
             latest_filename: str | None = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
        """Saves the variables; returns the checkpoint prefix (``save_path-<step>``).

        Args:
            sess: The Session holding the variables' values.
            save_path: The prefix (``dir/model.ckpt``); its directory must exist.
            global_step: An int, or a tensor/variable whose value is run, appended as
                ``-<step>``.
            latest_filename: The state file's name (default ``checkpoint``).
            meta_graph_suffix: The meta graph file's extension.
            write_meta_graph: Also write ``PREFIX.meta`` (a binary MetaGraphDef).
            write_state: Update the state file.

        Raises:
            ValueError: the directory of ``save_path`` does not exist.
            TypeError: ``sess`` is not a Session.
        """
        del strip_default_attrs, save_debug_info
        if not hasattr(sess, "run"):
            raise TypeError(f"'sess' must be a Session; {sess!r}")
        if self._is_empty:
            return None
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = sess.run(global_step)
            checkpoint_file = f"{save_path}-{int(global_step)}"
        else:
            checkpoint_file = save_path
        save_dir = os.path.dirname(save_path)
        if save_dir and not os.path.isdir(save_dir):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        result = sess.run(self.saver_def.save_tensor_name,
                          {self.saver_def.filename_tensor_name: checkpoint_file})
        model_checkpoint_path = result.decode("utf-8") if isinstance(result, bytes) \
            else str(result)
        if write_state:
            self._record_last_checkpoint(model_checkpoint_path)
            cm.update_checkpoint_state(
                save_dir or ".", model_checkpoint_path, self.last_checkpoints, latest_filename,
                save_relative_paths=self._save_relative_paths)
            self._maybe_delete_old_checkpoints(meta_graph_suffix)
        if write_meta_graph:
            _export_meta_graph(checkpoint_file + "." + meta_graph_suffix, saver_def=self.saver_def,
                              graph=sess.graph)
        return model_checkpoint_path

    def _check_against(self, save_path: str) -> None:
        """NotFoundError / InvalidArgumentError naming a missing or mis-shaped variable."""
        if not self._vars:
            return
        reader = bundle.BundleReader(save_path)
        for name, var in sorted(self._vars.items()):
            if not reader.has_tensor(name):
                close = reader.closest_keys(name)
                hint = f" Closest keys in the checkpoint: {', '.join(close)}." if close else ""
                raise errors.NotFoundError(
                    None, None,
                    f"Restoring from checkpoint failed: Key {name} (variable {var.op.name}) not "
                    f"found in checkpoint {save_path}.{hint}")
            shape = reader.shape(name)
            if not var.shape.is_compatible_with(TensorShape(shape)):
                raise errors.InvalidArgumentError(
                    None, None,
                    f"Restoring from checkpoint failed: variable {var.op.name} has shape "
                    f"{var.shape.as_list()} but checkpoint key {name} in {save_path} has shape "
                    f"{shape}")

    def restore(self, sess: Any, save_path: str) -> None:
        """Restores the variables from the checkpoint ``save_path``, all or nothing.

        Raises:
            ValueError: ``save_path`` is None or not a checkpoint.
            NotFoundError: a variable the checkpoint lacks (naming the closest keys).
            InvalidArgumentError: a variable whose shape or dtype differs.
            DataLossError: a corrupted checkpoint.
        """
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not cm.checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        self._check_against(save_path)
        sess.run(self.saver_def.restore_op_name,
                 {self.saver_def.filename_tensor_name: save_path})

    def export_meta_graph(self, filename: str | None = None, collection_list: Any = None,
                          as_text: bool = False, export_scope: str | None = None,
                          clear_devices: bool = False, clear_extraneous_savers: bool = False,
                          strip_default_attrs: bool = False, save_debug_info: bool = False):
        """Writes (if ``filename``) and returns the graph's MetaGraphDef with this saver."""
        del clear_extraneous_savers, strip_default_attrs, save_debug_info
        return _export_meta_graph(filename, saver_def=self.saver_def,
                                 collection_list=collection_list, as_text=as_text,
                                 export_scope=export_scope, clear_devices=clear_devices)


def import_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False,
                      import_scope: str | None = None, **kwargs: Any) -> Saver | None:
    """Imports a MetaGraphDef (a message or a binary/text ``.meta`` file) into the default
    graph with its collections, as ``tf.compat.v1.train.import_meta_graph``.

    Returns:
        A :class:`Saver` over the meta graph's ``saver_def``, or None if it has none.
    """
    del kwargs
    meta = import_meta_graph_def(meta_graph_or_file, clear_devices, import_scope)
    if meta.HasField("saver_def") and meta.saver_def.restore_op_name:
        return Saver.from_proto(meta.saver_def, import_scope=import_scope)
    return None
