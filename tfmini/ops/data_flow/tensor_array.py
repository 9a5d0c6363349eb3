"""``tm.TensorArray``: the ``tf.compat.v1.TensorArray`` class over the TensorArrayV3 ops.

The object is immutable in spirit, as TensorFlow's: every write-like method returns a new
TensorArray sharing the handle with a new ``flow``, and reads take the flow they are called
on, so the graph orders each read after the writes it should see. Op names follow
TensorFlow's graph-mode class (``tensorflow/python/ops/tensor_array_ops.py``):
``TensorArray``, ``TensorArrayWrite/TensorArrayWriteV3``, ``TensorArrayReadV3``,
``TensorArrayStack/TensorArrayGatherV3``, ``TensorArrayUnstack/TensorArrayScatter/...``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype, int32, int64
from tfmini.core.graph import Output
from tfmini.core.scope import control_dependencies, current_scope, name_scope
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.ops import array
from tfmini.ops.common.build_util import constant_value


def _op(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None):
    return build_op(current_scope(), op_type, inputs, attrs or {}, name=name)


class TensorArray:
    """A list of tensors of one dtype, written and read inside a graph (``tf.TensorArray``).

    Example::

        ta = tm.TensorArray(tm.float32, size=3)
        ta = ta.write(0, 1.0).write(1, 2.0).write(2, 3.0)
        total = tm.reduce_sum(ta.stack())

    Args:
        dtype: The element dtype.
        size: The number of elements (an int32 scalar); required unless ``handle`` is given.
        dynamic_size: Whether writes past the end grow the array.
        clear_after_read: Whether reading an element frees it (default True): a second read
            of it fails.
        tensor_array_name: The name of the resource (default: the op's name).
        handle: An existing TensorArray's handle (``flow`` is then required).
        flow: The flow scalar to start from (with ``handle``).
        infer_shape: Whether the first write fixes the element shape for later writes.
        element_shape: The (partial) shape of every element.
        colocate_with_first_write_call: Accepted for compatibility; no effect.
        name: Name scope of the creating op (default "TensorArray").

    Raises:
        ValueError: ``handle`` with ``size``/``dynamic_size``/``clear_after_read``, or no
            ``size`` without a handle, or ``handle`` without ``flow``.
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None,
                 clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None):
        del colocate_with_first_write_call  # one device per graph position: nothing to pin
        if handle is not None and (size is not None or dynamic_size is not None
                                   or clear_after_read is not None):
            what = "size" if size is not None else (
                "dynamic_size" if dynamic_size is not None else "clear_after_read")
            raise ValueError(
                f"Cannot provide both `handle` and `{what}` arguments at the same time."
            )
        if handle is not None and flow is None:
            raise ValueError("flow must not be None if handle is not None.")
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        if handle is not None and tensor_array_name is not None:
            raise ValueError(
                "Cannot provide both `handle` and `tensor_array_name` arguments at the same "
                "time."
            )
        self._dtype = as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._size = size
        shape = unknown_shape() if element_shape is None else as_shape(element_shape)
        # As TensorFlow: a list holding the inferred element shape once one is known, shared
        # by every TensorArray derived from this one.
        self._element_shape: list[TensorShape] = [] if shape.rank is None else [shape]
        if handle is not None:
            self._handle = handle
            self._flow = flow
            return
        # TensorFlow names the op like its name scope: "TensorArray", "TensorArray_1".
        op = _op(
            "TensorArrayV3",
            [convert_to_tensor(size, dtype=int32)],
            {
                "dtype": self._dtype,
                "element_shape": shape,
                "dynamic_size": self._dynamic_size,
                "clear_after_read": True if clear_after_read is None else clear_after_read,
                "identical_element_shapes": infer_shape,
                "tensor_array_name": tensor_array_name or "",
            },
            name=name or "TensorArray",
        )
        self._handle, self._flow = op.outputs

    # ------------------------------------------------------------------------------------
    # Properties

    @property
    def dtype(self):
        """The element dtype."""
        return self._dtype

    @property
    def handle(self) -> Output:
        """The resource handle."""
        return self._handle

    @property
    def flow(self) -> Output:
        """The flow scalar that orders the ops on this array."""
        return self._flow

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        """The (inferred) element shape; unknown until known."""
        return self._element_shape[0] if self._element_shape else unknown_shape()

    def _merge_element_shape(self, shape: TensorShape) -> None:
        if self._element_shape:
            if not shape.is_compatible_with(self._element_shape[0]):
                raise ValueError(
                    f"Inconsistent shapes: saw {shape} but expected {self._element_shape[0]} "
                )
            self._element_shape[0] = self._element_shape[0].merge_with(shape)
        else:
            self._element_shape.append(shape)

    def _with_flow(self, flow: Output) -> TensorArray:
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        return ta

    def _value(self, value: Any) -> Output:
        value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
        if value.dtype != self._dtype:
            # TensorFlow only logs here; its kernel fails at run time, as tfmini's does.
            pass
        return value

    # ------------------------------------------------------------------------------------
    # Methods

    def identity(self) -> TensorArray:
        """This array with its flow passed through an Identity (for control dependencies)."""
        return self._with_flow(array.identity(self._flow))

    def grad(self, source: str, flow: Any = None, name: str | None = None) -> TensorArray:
        """The gradient TensorArray for ``source`` (TensorArrayGradV3)."""
        flow = self._flow if flow is None else flow
        with name_scope(name, "TensorArrayGrad"):
            g_handle, _ = _op("TensorArrayGradV3", [self._handle, flow],
                              {"source": source}).outputs
            with control_dependencies([g_handle.op]):
                flow = array.identity(flow, name="gradient_flow")
            g = TensorArray(self._dtype, handle=g_handle, flow=flow,
                            infer_shape=self._infer_shape)
            g._element_shape = self._element_shape
            return g

    def read(self, index: Any, name: str | None = None) -> Output:
        """The element at ``index`` (TensorArrayReadV3)."""
        value = _op("TensorArrayReadV3",
                    [self._handle, convert_to_tensor(index, dtype=int32), self._flow],
                    {"dtype": self._dtype}, name=name).outputs[0]
        if self._element_shape:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """A TensorArray with ``value`` written at ``index`` (TensorArrayWriteV3)."""
        with name_scope(name, "TensorArrayWrite"):
            value = self._value(value)
            if self._infer_shape:
                self._merge_element_shape(value.shape)
            flow = _op("TensorArrayWriteV3",
                       [self._handle, convert_to_tensor(index, dtype=int32), value,
                        self._flow]).outputs[0]
        return self._with_flow(flow)

    def stack(self, name: str | None = None) -> Output:
        """Every element stacked along a new first axis."""
        with name_scope(name, "TensorArrayStack"):
            return self.gather(array.range(0, self.size()), name=name)

    def gather(self, indices: Any, name: str | None = None) -> Output:
        """The elements at ``indices`` stacked along a new first axis (TensorArrayGatherV3)."""
        elem = self.element_shape
        value = _op("TensorArrayGatherV3",
                    [self._handle, convert_to_tensor(indices, dtype=int32), self._flow],
                    {"dtype": self._dtype, "element_shape": elem}, name=name).outputs[0]
        if elem.rank is not None:
            value.set_shape(TensorShape([None]).concatenate(elem))
        return value

    def concat(self, name: str | None = None) -> Output:
        """Every element concatenated along axis 0 (TensorArrayConcatV3)."""
        elem = self.element_shape
        rest = unknown_shape() if elem.rank is None else TensorShape(elem.dims[1:])
        value, _ = _op("TensorArrayConcatV3", [self._handle, self._flow],
                       {"dtype": self._dtype, "element_shape_except0": rest},
                       name=name).outputs
        if elem.rank is not None:
            value.set_shape(TensorShape([None]).concatenate(rest))
        return value

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """Writes ``value[i]`` at index i for every i (a scatter over ``range``)."""
        with name_scope(name, "TensorArrayUnstack"):
            value = self._value(value)
            num = array.strided_slice(array.shape(value), [0], [1], [1], shrink_axis_mask=1)
            return self.scatter(array.range(0, num), value, name=name)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """Writes ``value[i]`` at ``indices[i]`` (TensorArrayScatterV3)."""
        with name_scope(name, "TensorArrayScatter"):
            value = self._value(value)
            if self._infer_shape and value.shape.rank is not None:
                self._merge_element_shape(TensorShape(value.shape.dims[1:]))
            flow = _op("TensorArrayScatterV3",
                       [self._handle, convert_to_tensor(indices, dtype=int32), value,
                        self._flow]).outputs[0]
        return self._with_flow(flow)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """Splits ``value`` along axis 0 into ``lengths`` pieces (TensorArraySplitV3)."""
        with name_scope(name, "TensorArraySplit"):
            value = self._value(value)
            lengths = convert_to_tensor(lengths, dtype_hint=int64)
            if lengths.dtype != int64:
                lengths = build_op(current_scope(), "Cast", [lengths],
                                   {"DstT": int64}).outputs[0]
            if self._infer_shape and value.shape.rank is not None:
                known = constant_value(lengths)
                if known is not None and len(known) and np.all(known == known[0]):
                    self._merge_element_shape(
                        TensorShape([int(known[0])] + list(value.shape.dims[1:])))
            flow = _op("TensorArraySplitV3",
                       [self._handle, value, lengths, self._flow]).outputs[0]
        return self._with_flow(flow)

    def size(self, name: str | None = None) -> Output:
        """The number of elements: a constant for a fixed known size, else TensorArraySizeV3."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=int32)
        return _op("TensorArraySizeV3", [self._handle, self._flow], name=name).outputs[0]

    def close(self, name: str | None = None):
        """Closes the array (TensorArrayCloseV3); returns the op."""
        return _op("TensorArrayCloseV3", [self._handle], name=name)

    def __repr__(self) -> str:
        return (f"<tm.TensorArray {self._handle.op.name} dtype={self._dtype.name} "
                f"element_shape={self.element_shape}>")



__all__ = ["TensorArray"]
