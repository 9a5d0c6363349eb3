"""The TF1 layer base class (``tf.compat.v1.layers.Layer``) and ``InputSpec``.

A layer owns a variable scope, made unique from its base name (``dense``, ``dense_1``, ...)
the first time it is called or creates a weight; its weights come from ``get_variable``
inside that scope, so ``reuse`` and ``tm.AUTO_REUSE`` work as with any variable. Ops built by
``call`` sit in the name scope first opened for that variable scope (``dense/BiasAdd``).
Follows tf_keras ``legacy_tf_layers/base.py`` and ``engine/input_spec.py``.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype, float32
from tfmini.core.function import root_graph
from tfmini.core.scope import get_default_graph, name_scope
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.ops import array, math
from tfmini.ops.variables import (
    GraphKeys,
    get_collection_ref,
    trainable_variables,
    variable_scope,
)

__all__ = ["InputSpec", "Layer"]

_NAME_UIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_NAME_LOCK = threading.Lock()


def to_snake_case(name: str) -> str:
    """``Conv2DTranspose`` -> ``conv2d_transpose``, as Keras names layers."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def _unique_layer_name(base: str) -> str:
    # Keras's backend.unique_object_name as the TF1 layers call it (one-based: the first
    # Dense of a graph is named "dense_1", though its variable scope is "dense").
    graph = root_graph(get_default_graph())
    with _NAME_LOCK:
        uids = _NAME_UIDS.setdefault(graph, {})
        n = uids.get(base, 0) + 1
        uids[base] = n
    return f"{base}_{n}"


def add_elements_to_collection(elements: list, key: str) -> None:
    """Appends each element not already in collection ``key`` (by identity)."""
    collection = get_collection_ref(key)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


def _shape_text(shape: TensorShape) -> str:
    dims = shape.as_list()
    if len(dims) == 1:
        return f"({dims[0]},)"
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ")"


class InputSpec:
    """Constraints on a layer's input: dtype, rank and the size of some axes.

    Args:
        dtype: The expected dtype, or None.
        shape: The expected shape (None entries match anything), or None.
        ndim: The exact rank, or None.
        max_ndim, min_ndim: Bounds on the rank, or None.
        axes: ``{axis: size}`` for axes whose size is fixed.
    """

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: int | None = None,
                 max_ndim: int | None = None, min_ndim: int | None = None,
                 axes: dict | None = None, allow_last_axis_squeeze: bool = False,
                 name: str | None = None):
        self.dtype = as_dtype(dtype).name if dtype is not None else None
        self.shape = tuple(as_shape(shape).as_list()) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = dict(axes or {})
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name

    def __repr__(self) -> str:
        parts = [f"{k}={v}" for k, v in (
            ("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
            ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim), ("axes", self.axes or None),
        ) if v is not None]
        return f"InputSpec({', '.join(parts)})"


def assert_input_compatibility(spec: InputSpec | None, x: Any, layer_name: str) -> None:
    """Raises TF's ``ValueError`` when ``x`` breaks ``spec`` (Keras's input_spec check)."""
    if spec is None:
        return
    head = f'Input 0 of layer "{layer_name}" is incompatible with the layer: '
    shape = x.shape
    if shape.dims is None:
        return
    ndim = len(shape.dims)
    full = f"Full shape received: {_shape_text(shape)}"
    if spec.ndim is not None and ndim != spec.ndim:
        raise ValueError(f"{head}expected ndim={spec.ndim}, found ndim={ndim}. {full}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(f"{head}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(f"{head}expected min_ndim={spec.min_ndim}, found ndim={ndim}. {full}")
    if spec.dtype is not None and x.dtype.name != spec.dtype:
        raise ValueError(f"{head}expected dtype={spec.dtype}, found dtype={x.dtype.name}")
    dims = shape.as_list()
    for axis, value in spec.axes.items():
        if value is None:
            continue
        real = dims[axis] if -ndim <= axis < ndim else None
        if real is not None and real != value:
            raise ValueError(
                f"{head}expected axis {axis} of input shape to have value {value}, but "
                f"received input with shape {_shape_text(shape)}"
            )


class Layer:
    """Base class of the TF1 layers (``tf.compat.v1.layers.Layer``).

    Subclasses implement ``build(input_shape)`` (creating weights with :meth:`add_weight`)
    and ``call(inputs, ...)``. Calling the layer enters its variable scope (reusing it
    after the first call), checks ``input_spec``, builds once, calls, applies the activity
    regularizer and puts the layer's updates in ``UPDATE_OPS``.

    Args:
        trainable: Whether the layer's weights are trainable.
        name: The layer's name and base of its variable scope (made unique when the
            layer picks its scope), default the snake-case class name.
        dtype: The weights' dtype (default: the first input's, else float32).
        activity_regularizer: ``fn(outputs) -> loss``; the loss over the batch size goes to
            ``REGULARIZATION_LOSSES``.
        _scope: A variable scope name entered now and used as the layer's scope.
        _reuse: Reuse the scope's variables.
    """

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 activity_regularizer: Callable | None = None, **kwargs: Any):
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        kwargs.pop("autocast", None)
        kwargs.pop("input_shape", None)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]!r}")
        self.trainable = trainable
        self.built = False
        self._dtype = as_dtype(dtype) if dtype is not None else None
        self._activity_regularizer = activity_regularizer
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._losses: list = []
        self._updates: list = []
        self.input_spec: InputSpec | None = None
        base = to_snake_case(type(self).__name__)
        if name:
            self._name, self._base_name = name, name
        else:
            self._name, self._base_name = _unique_layer_name(base), base
        if scope:
            with variable_scope(scope) as captured:
                self._scope = captured
        else:
            self._scope = None
        self._current_scope = None

    # ------------------------------------------------------------------ properties
    @property
    def name(self) -> str:
        """The layer's name."""
        return self._name

    @property
    def dtype(self):
        """The dtype of the layer's weights (None before the first call)."""
        return self._dtype

    @property
    def scope_name(self) -> str:
        """The full name of the layer's variable scope.

        Raises:
            ValueError: the layer has not been used yet.
        """
        if not self._scope:
            raise ValueError(
                f'No name available for layer scope because the layer "{self._name}" has not '
                f"been used yet. The scope name  is determined the first time the layer "
                f"instance is called. You must therefore call the layer before querying "
                f"`scope_name`."
            )
        return self._scope.name

    @property
    def activity_regularizer(self) -> Callable | None:
        """The activity regularizer, or None."""
        return self._activity_regularizer

    @property
    def trainable_weights(self) -> list:
        """The layer's trainable variables (none when the layer is not trainable)."""
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        """The layer's other variables (all of them when the layer is not trainable)."""
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self) -> list:
        """Trainable then non-trainable weights."""
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    @property
    def losses(self) -> list:
        """Regularization losses made by this layer (weights and activity)."""
        return list(self._losses)

    @property
    def updates(self) -> list:
        """Update ops made by this layer (batch normalization's moving averages)."""
        return list(self._updates) if self.trainable else []

    # ------------------------------------------------------------------ building
    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Adds loss tensors (or callables giving one) to ``losses`` and
        ``REGULARIZATION_LOSSES``."""
        del inputs
        new = []
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            if callable(loss):
                loss = loss()
            if loss is None:
                continue
            new.append(convert_to_tensor(loss))
        self._losses.extend(new)
        add_elements_to_collection(new, GraphKeys.REGULARIZATION_LOSSES)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Adds update ops (or callables building one) to ``updates``."""
        del inputs
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            if callable(update):
                update = update()
            self._updates.append(update)

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self._base_name) as vs:
                    self._scope = vs
            else:
                with variable_scope(scope, default_name=self._base_name) as vs:
                    self._scope = vs

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                   regularizer: Callable | None = None, trainable: bool | None = None,
                   constraint: Callable | None = None, **kwargs: Any):
        """Creates (or reuses) the variable ``<layer scope>/<name>`` with ``get_variable``.

        Args:
            name: The variable's name in the layer's scope.
            shape: Its shape.
            dtype: Default: the layer's dtype, else float32.
            initializer: Default: the scope's, else ``get_variable``'s (Glorot uniform
                for floats, zeros otherwise).
            regularizer: ``fn(variable) -> loss``, added under ``<name>/Regularizer``.
            trainable: Default True (and only when the layer is trainable).
            constraint: Applied by optimizers after each update.
            **kwargs: ``use_resource``, ``partitioner`` (must be None), ``synchronization``,
                ``aggregation``: accepted for TensorFlow compatibility.

        Returns:
            The variable.
        """
        from tfmini.ops.variables import get_variable, global_variables

        if kwargs.get("partitioner") is not None:
            raise NotImplementedError("Partitioned variables are not supported by tfmini")
        if trainable is None:
            trainable = True
        dtype = as_dtype(dtype) if dtype is not None else (self._dtype or float32)
        existing = set(map(id, global_variables()))
        self._set_scope(None)
        reuse = self.built or self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(scope.original_name_scope):
                if initializer is None:
                    initializer = scope.initializer
                variable = get_variable(
                    name, shape=shape, dtype=dtype, initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                )
                if trainable and self.trainable and any(
                        v is variable for v in trainable_variables()):
                    self._trainable_weights.append(variable)
                else:
                    self._non_trainable_weights.append(variable)
                if regularizer is not None and id(variable) not in existing:
                    def loss_for(v=variable, n=name):
                        with name_scope(f"{n}/Regularizer"):
                            return regularizer(v)

                    self.add_loss(loss_for)
        return variable

    def build(self, input_shape: TensorShape) -> None:
        """Creates the layer's weights; the base class has none."""
        del input_shape
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        """The layer's computation; the base class returns its inputs."""
        del kwargs
        return inputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        """The output shape for ``input_shape`` (here: the input shape)."""
        return as_shape(input_shape)

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Same as calling the layer."""
        return self(inputs, *args, **kwargs)

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Builds the layer on the first call, then applies ``call``.

        Raises:
            ValueError: ``inputs`` break the layer's ``input_spec``.
        """
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as vs:
            self._current_scope = vs
            with name_scope(vs.original_name_scope):
                if not isinstance(inputs, (list, tuple)):
                    inputs = convert_to_tensor(inputs)
                first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
                if self._dtype is None:
                    self._dtype = first.dtype.base_dtype if first.dtype.is_floating else float32
                assert_input_compatibility(self.input_spec, first, self._name)
                if not self.built:
                    self.build(first.shape)
                    self.built = True
                    assert_input_compatibility(self.input_spec, first, self._name)
                outputs = self.call(inputs, *args, **kwargs)
                if self._activity_regularizer is not None:
                    with name_scope("ActivityRegularizer"):
                        for out in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
                            loss = convert_to_tensor(self._activity_regularizer(out))
                            batch = math.cast(array.shape(out)[0], loss.dtype)
                            self.add_loss(math.truediv(loss, batch))
        add_elements_to_collection(self.updates, GraphKeys.UPDATE_OPS)
        return outputs
