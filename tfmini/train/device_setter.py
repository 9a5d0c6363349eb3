"""``tm.train.replica_device_setter``: TF1's placement of variables on parameter servers.

The device function it returns puts every op of ``ps_ops`` (variables, hash tables,
accumulators) on ``/job:ps`` with a task chosen by ``ps_strategy`` (round robin by default)
and every other op on ``worker_device``; an op's own device fields win when merged
(tensorflow/python/training/device_setter.py). ``GreedyLoadBalancingStrategy`` and
``byte_size_load_fn`` are TF 1.15's (tensorflow/contrib/training/python/training/
device_setter.py), which TensorFlow 2 no longer ships.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from tfmini.core.devices import DeviceSpec
from tfmini.train.server_lib import ClusterSpec

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable",
                   "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2",
                   "MutableDenseHashTable", "MutableDenseHashTableV2",
                   "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp",
                   "ResourceConditionalAccumulator",
                   "DecisionTreeResource")

_logger = logging.getLogger(__name__)


class _RoundRobinStrategy:
    """Tasks 0, 1, ..., n-1, 0, ... in the order ps ops are built."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


def byte_size_load_fn(op: Any) -> int:
    """The load of a variable op: the byte size of its value (its ``shape`` and ``dtype``
    attrs; the first output's static shape otherwise).

    Raises:
        ValueError: the shape is not fully defined.
    """
    attrs = op.attrs
    shape = attrs.get("shape")
    if shape is None or not shape.is_fully_defined():
        shape = op.outputs[0].shape if op.outputs else shape
    if shape is None or not shape.is_fully_defined():
        raise ValueError(f"Variable {op.name} has an unknown shape; byte_size_load_fn needs "
                         "a fully defined one")
    dtype = attrs.get("dtype", op.outputs[0].dtype if op.outputs else None)
    itemsize = np.dtype(dtype.as_numpy_dtype).itemsize
    return int(np.prod(shape.as_list(), dtype=np.int64)) * itemsize


class GreedyLoadBalancingStrategy:
    """Puts each ps op on the task with the least load so far (ties: the lowest index).

    Args:
        num_tasks: Number of ps tasks.
        load_fn: ``fn(op) -> number``, the load the op adds (e.g. :func:`byte_size_load_fn`).
    """

    def __init__(self, num_tasks: int, load_fn: Callable[[Any], float]):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op: Any) -> int:
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks: int, ps_device: str, worker_device: str, merge_devices: bool,
                 ps_ops: Iterable[str], ps_strategy: Callable[[Any], int]):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = set(ps_ops)
        self._ps_strategy = ps_strategy

    def device_function(self, op: Any) -> str:
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            # The strategy picks the task only when the op's own job (if any) is the ps job;
            # a ps op pinned elsewhere keeps its job but still advances the strategy below.
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks: int = 0, ps_device: str = "/job:ps",
                          worker_device: str = "/job:worker", merge_devices: bool = True,
                          cluster: Any = None, ps_ops: Iterable[str] | None = None,
                          ps_strategy: Callable[[Any], int] | None = None):
    """A device function for ``tm.device`` placing variables on ps tasks.

    Args:
        ps_tasks: Number of ps tasks (ignored when ``cluster`` is given).
        ps_device: The ps job's device string.
        worker_device: Where every other op goes.
        merge_devices: Whether an op's own device is merged (True) or kept as is.
        cluster: A ClusterSpec or its dict; the number of ps tasks is the ps job's size.
        ps_ops: Op types placed on ps tasks (default :data:`STANDARD_PS_OPS`).
        ps_strategy: ``fn(op) -> task index`` (default: round robin).

    Returns:
        The device function, or None when there are no ps tasks.

    Raises:
        TypeError: ``ps_strategy`` is not callable.
    """
    if cluster is not None:
        cluster_spec = (cluster if isinstance(cluster, ClusterSpec)
                        else ClusterSpec(cluster)).as_dict()
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _logger.warning("DEPRECATION NOTE: replica_device_setter(merge_devices=False) is "
                        "deprecated; prefer merge_devices=True.")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices,
                                    ps_ops, ps_strategy)
    return chooser.device_function


__all__ = ["replica_device_setter", "GreedyLoadBalancingStrategy", "byte_size_load_fn",
           "STANDARD_PS_OPS"]
