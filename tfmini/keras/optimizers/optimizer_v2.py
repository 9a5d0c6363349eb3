"""The Keras-2 optimizer base (``tf.keras.optimizers.legacy.Optimizer``, OptimizerV2), in
graph mode as TF1 Keras runs it.

An optimizer keeps its hyper-parameters as variables (created on first use, named
``<optimizer name>/learning_rate``...), one set of slot variables per trained variable
(``<optimizer name>/<variable>/<slot>``), and an int64 step counter ``iterations``
(``<optimizer name>/iter``). :meth:`OptimizerV2.apply_gradients` clips the gradients
(clipvalue, then clipnorm, then global_clipnorm), applies each through the subclass's dense
or sparse update, and returns the op that increments ``iterations`` once every update ran.

``get_weights``/``set_weights`` and assignments to hyper-parameters that are already
variables (``opt.learning_rate = 0.05``) run in the default session, as TF1 Keras does.
"""

from __future__ import annotations

import abc
import logging
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from tfmini.core import context
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype, float32, int64
from tfmini.core.graph import Operation, Output
from tfmini.core.scope import control_dependencies, name_scope, scope_context
from tfmini.gradients import gradients
from tfmini.keras.optimizers import schedules
from tfmini.ops import math as tm_math
from tfmini.ops.array import (
    identity,
    no_op,
    ones_like,
    placeholder,
    shape,
    strided_slice,
    unique,
    unsorted_segment_sum,
)
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.control_flow import group

# Keras clips with TensorFlow's own clip_ops (tf_keras optimizer_v2/utils.py), so does this.
from tfmini.ops.nn import clip_by_global_norm, clip_by_norm, clip_by_value
from tfmini.ops.variables import Variable, init_scope

_log = logging.getLogger("tfmini.keras")

_VALID_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64", "complex64",
                           "complex128"})


class NotAVariableError(TypeError, NotImplementedError):
    """Raised when ``apply_gradients`` is given something other than a variable to update.

    TF-Keras documents a TypeError for malformed ``grads_and_vars`` while its own tests
    expect NotImplementedError for a Tensor in the variable position; this error is both.
    """


def filter_empty_gradients(grads_and_vars: Iterable) -> tuple:
    """The ``(gradient, variable)`` pairs whose gradient is not None.

    Raises:
        ValueError: every gradient is None.
        TypeError: an item is not a pair.
    """
    pairs = []
    for item in grads_and_vars:
        if not isinstance(item, (tuple, list)):
            raise NotAVariableError(
                f"apply_gradients expects (gradient, variable) pairs; received: {item!r}"
            )
        grad, var = item  # a 3-tuple: "too many values to unpack (expected 2)", as TF
        pairs.append((grad, var))
    if not pairs:
        return ()
    filtered = tuple((g, v) for g, v in pairs if g is not None)
    if not filtered:
        names = ([_name_of(v) for _, v in pairs],)
        raise ValueError(
            f"No gradients provided for any variable: {names}. "
            f"Provided `grads_and_vars` is {tuple(pairs)}."
        )
    empty = [_name_of(v) for g, v in pairs if g is None]
    if empty:
        _log.warning(
            "Gradients do not exist for variables %s when minimizing the loss. If you're "
            "using `model.compile()`, did you forget to provide a `loss` argument?", empty
        )
    return filtered


def _name_of(v: Any) -> str:
    return getattr(v, "name", repr(v))


def _deduplicate_indexed_slices(values: Output, indices: Output) -> tuple[Output, Output]:
    """``(summed values, unique indices)``: rows of repeated indices are added together."""
    unique_indices, positions = unique(indices)
    count = strided_slice(shape(unique_indices), [0], [1], [1], shrink_axis_mask=1)
    return unsorted_segment_sum(values, positions, count), unique_indices


# ----------------------------------------------------------------------------------------
# Default-session helpers (TF1 Keras's backend.batch_get_value / batch_set_value)


def _session_for(variables: list) -> Any:
    sess = context.get_default_session()
    if sess is None:
        raise RuntimeError(
            "This needs a default session: TF1 Keras reads and writes optimizer variables "
            "in it. Use `with tm.Session() as sess:` (or `sess.as_default()`)."
        )
    return sess


def _batch_get_value(variables: list) -> list:
    if not variables:
        return []
    return list(_session_for(variables).run(list(variables)))


_ASSIGN_CACHE_ATTR = "_tm_keras_assign"


def _batch_set_value(pairs: list) -> None:
    """Assigns each ``(variable, value)`` in one run of the default session, through one
    placeholder and assignment per variable (built once and reused, so repeated calls do not
    grow the graph)."""
    if not pairs:
        return
    sess = _session_for([v for v, _ in pairs])
    ops, feeds = [], {}
    for var, value in pairs:
        cached = getattr(var, _ASSIGN_CACHE_ATTR, None)
        if cached is None:
            with scope_context(init_scope()), name_scope(None):
                ph = placeholder(var.dtype, shape=var.shape)
                cached = (ph, var.assign(ph, read_value=False))
            setattr(var, _ASSIGN_CACHE_ATTR, cached)
        ph, op = cached
        ops.append(op)
        feeds[ph] = np.asarray(value, dtype=var.dtype.as_numpy_dtype)
    sess.run(ops, feed_dict=feeds)


# ----------------------------------------------------------------------------------------
# OptimizerV2


class OptimizerV2(abc.ABC):
    """Base class of the Keras-2 optimizers (``tf.keras.optimizers.legacy.Optimizer``).

    A subclass sets its hyper-parameters with :meth:`_set_hyper` in ``__init__`` and
    implements ``_create_slots``, ``_resource_apply_dense``, ``_resource_apply_sparse``
    (given de-duplicated indices) and ``get_config``.

    Args:
        name: The optimizer's name: the name scope of its variables and ops.
        gradient_aggregator: A function of the ``(gradient, variable)`` pairs applied before
            clipping (default: the identity, as with a single replica).
        gradient_transformers: Functions of the pairs applied after clipping.
        **kwargs: ``clipnorm`` (clip each gradient to this L2 norm), ``clipvalue`` (clip each
            element to ``[-clipvalue, clipvalue]``), ``global_clipnorm`` (clip all gradients
            together to this global norm), ``lr`` (deprecated alias of ``learning_rate``),
            ``decay`` (learning rate ``lr / (1 + decay * iterations)``).

    Raises:
        TypeError: an unknown keyword argument.
        ValueError: a negative keyword argument; both ``clipnorm`` and ``global_clipnorm``.
    """

    _HAS_AGGREGATE_GRAD = True
    _ALLOWED_KWARGS = ("clipnorm", "clipvalue", "lr", "decay", "global_clipnorm")

    def __init__(self, name: str, gradient_aggregator: Callable | None = None,
                 gradient_transformers: list | None = None, **kwargs: Any):
        allowed = set(self._ALLOWED_KWARGS)
        for k in kwargs:
            if k not in allowed:
                raise TypeError(
                    f"Unexpected keyword argument passed to optimizer: {k}. "
                    f"Allowed kwargs are {allowed}."
                )
            if kwargs[k] is not None and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
            if k == "lr":
                warnings.warn("The `lr` argument is deprecated, use `learning_rate` instead.",
                              stacklevel=3)
        if not name:
            raise ValueError("An optimizer needs a non-empty name.")
        self._use_locking = True
        self._name = name
        self._hyper: dict[str, Any] = {}
        self._hyper_values: dict[str, Any] = {}  # the last Python value of each hyper
        self._slots: dict[Any, dict[str, Variable]] = {}
        self._slot_names: list[str] = []
        self._weights: list[Variable] = []
        self._iterations: Variable | None = None
        self._hypers_created = False
        self._initial_decay = kwargs.pop("decay", 0.0)
        self.gradient_aggregator = gradient_aggregator or (lambda pairs: pairs)
        self.gradient_transformers = list(gradient_transformers or [])
        self._clipnorm = self._global_clipnorm = self._clipvalue = None
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(
                "Cannot accept both `clipnorm` and `global_clipnorm`. Received: "
                f"`clipnorm`={self.clipnorm}, `global_clipnorm`={self.global_clipnorm}."
            )
        self.clipvalue = kwargs.pop("clipvalue", None)

    # -- clipping options ---------------------------------------------------------------------
    def _check_no_transformers(self, what: str, val: Any) -> None:
        if val is not None and self.gradient_transformers:
            raise ValueError(
                f"`{what}` cannot be set when `gradient_transformers` is set. Instead, use the "
                "`gradient_transformers` to specify clipping and other transformations. "
                f"Received: val={val}, gradient_transformers={self.gradient_transformers}."
            )

    @property
    def clipnorm(self) -> float | None:
        """If set, each gradient is clipped to this L2 norm."""
        return self._clipnorm

    @clipnorm.setter
    def clipnorm(self, val: float | None) -> None:
        self._check_no_transformers("clipnorm", val)
        self._clipnorm = val

    @property
    def global_clipnorm(self) -> float | None:
        """If set, all gradients are clipped together to this global norm."""
        return self._global_clipnorm

    @global_clipnorm.setter
    def global_clipnorm(self, val: float | None) -> None:
        self._check_no_transformers("global_clipnorm", val)
        self._global_clipnorm = val

    @property
    def clipvalue(self) -> float | None:
        """If set, each gradient element is clipped to ``[-clipvalue, clipvalue]``."""
        return self._clipvalue

    @clipvalue.setter
    def clipvalue(self, val: float | None) -> None:
        self._check_no_transformers("clipvalue", val)
        self._clipvalue = val

    def _transform_gradients(self, grads_and_vars: list) -> list:
        """Clipping in TF-Keras's order: clipvalue, clipnorm, global_clipnorm, then the
        user's transformers."""
        pairs = list(grads_and_vars)
        if self._clipvalue is not None:
            pairs = [(clip_by_value(g, -self._clipvalue, self._clipvalue), v) for g, v in pairs]
        if self._clipnorm is not None:
            pairs = [(clip_by_norm(g, self._clipnorm), v) for g, v in pairs]
        if self._global_clipnorm is not None and pairs:
            grads, _ = clip_by_global_norm([g for g, _ in pairs], self._global_clipnorm)
            pairs = list(zip(grads, [v for _, v in pairs]))
        for fn in self.gradient_transformers:
            pairs = fn(pairs)
        return pairs

    # -- gradients ----------------------------------------------------------------------------
    def minimize(self, loss: Any, var_list: Any, grad_loss: Any = None, name: str | None = None,
                 tape: Any = None) -> Operation:
        """Computes the gradients of ``loss`` and applies them.

        Args:
            loss: A callable of no arguments returning the loss (called here, in the
                current graph), or a tensor together with ``tape``.
            var_list: Variables to update, or a callable returning them (called after
                ``loss``).
            grad_loss: Optional gradient of ``loss``.
            name: Name of the returned op's scope.
            tape: Required with a tensor ``loss``, as in TF-Keras. Graph mode needs no tape:
                any value is accepted and the tensor is differentiated with
                ``tm.gradients``.

        Returns:
            The op that applies the updates and increments ``iterations``.

        Raises:
            ValueError: a tensor loss without ``tape``; no gradient for any variable.
        """
        grads_and_vars = self._compute_gradients(loss, var_list, grad_loss=grad_loss, tape=tape)
        return self.apply_gradients(grads_and_vars, name=name)

    def _compute_gradients(self, loss: Any, var_list: Any, grad_loss: Any = None,
                           tape: Any = None) -> list:
        if not callable(loss) and tape is None:
            raise ValueError(
                "`tape` is required when a `Tensor` loss is passed. "
                f"Received: loss={loss}, tape={tape}."
            )
        if callable(loss):
            loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = _flatten(var_list)
        with name_scope(self._name + "/gradients"):
            grads = gradients(loss, var_list, grad_ys=grad_loss)
        pairs = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in pairs if g is not None])
        return pairs

    def get_gradients(self, loss: Any, params: Any) -> list:
        """The gradients of ``loss`` for ``params`` (TF1 Keras).

        Raises:
            ValueError: a parameter has no gradient.
        """
        params = _flatten(params)
        with name_scope(self._name + "/gradients"):
            grads = gradients(loss, params)
        for grad, param in zip(grads, params):
            if grad is None:
                raise ValueError(
                    f"Variable {param} has `None` for gradient. Please make sure that all of "
                    "your ops have a gradient defined (i.e. are differentiable). Common ops "
                    "without gradient: K.argmax, K.round, K.eval."
                )
        return grads

    def get_updates(self, loss: Any, params: Any) -> list:
        """``[apply_gradients(zip(get_gradients(loss, params), params))]`` (TF1 Keras)."""
        params = _flatten(params)
        grads = self.get_gradients(loss, params)
        pairs = list(zip(grads, params))
        self._assert_valid_dtypes([v for g, v in pairs if g is not None])
        return [self.apply_gradients(pairs)]

    def _assert_valid_dtypes(self, tensors: list) -> None:
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype.name not in _VALID_DTYPES:
                raise ValueError(
                    f"Invalid type {dtype.name} for {t.name}, expected: "
                    f"{sorted(_VALID_DTYPES)}."
                )

    # -- applying -----------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable, name: str | None = None,
                        experimental_aggregate_gradients: bool = True) -> Operation:
        """Applies gradients to variables.

        Pairs whose gradient is None are dropped (with a warning). The gradients are
        aggregated (``gradient_aggregator``), clipped, and applied: a dense gradient through
        ``_resource_apply_dense``, an IndexedSlices through ``_resource_apply_sparse`` after
        its repeated indices are summed.

        Args:
            grads_and_vars: ``(gradient, variable)`` pairs.
            name: Name scope of the update ops (default: the optimizer's name).
            experimental_aggregate_gradients: Apply ``gradient_aggregator`` first.

        Returns:
            The op that increments ``iterations`` after every update (a ``NoOp`` for an
            empty list).

        Raises:
            ValueError: no pair has a gradient; a pair has more than two items.
            TypeError: an item is not a pair, or a variable is not a ``tm.Variable``
                (:class:`NotAVariableError`, also a NotImplementedError).
            RuntimeError: a constrained variable gets a sparse gradient.
        """
        grads_and_vars = filter_empty_gradients(grads_and_vars)
        var_list = [v for _, v in grads_and_vars]
        for v in var_list:
            if not isinstance(v, Variable):
                raise NotAVariableError(
                    f"Updating a `Tensor` is not implemented: only variables can be updated. "
                    f"Received: var={v!r}."
                )
        with name_scope(self._name):
            with scope_context(init_scope()):
                self._create_all_weights(var_list)
            if not grads_and_vars:
                return no_op()
            apply_state = self._prepare(var_list)
            if experimental_aggregate_gradients:
                grads_and_vars = self.gradient_aggregator(list(grads_and_vars))
            grads_and_vars = self._transform_gradients(grads_and_vars)
            return self._distributed_apply(grads_and_vars, apply_state, name)

    def _distributed_apply(self, grads_and_vars: list, apply_state: dict,
                           name: str | None) -> Operation:
        update_ops = []
        with name_scope(name or self._name):
            for grad, var in grads_and_vars:
                with name_scope("update_" + var.op.name):
                    update_ops.append(self._apply_one(grad, var, apply_state))
            with control_dependencies([group(*update_ops)]):
                return self.iterations.assign_add(1, read_value=False)

    def _apply_one(self, grad: Any, var: Variable, apply_state: dict) -> Any:
        if isinstance(grad, IndexedSlices):
            if var.constraint is not None:
                raise RuntimeError(
                    "Cannot use a constraint function on a sparse variable. Received: "
                    f"grad={grad}, var.constraint={var.constraint}."
                )
            return self._resource_apply_sparse_duplicate_indices(
                grad.values, var, grad.indices, apply_state=apply_state
            )
        update = self._resource_apply_dense(convert_to_tensor(grad), var,
                                            apply_state=apply_state)
        if var.constraint is None:
            return update
        with control_dependencies([update]):
            return var.assign(var.constraint(var), read_value=False)

    def _resource_apply_sparse_duplicate_indices(self, grad: Output, var: Variable,
                                                 indices: Output, **kwargs: Any) -> Any:
        """Sums the rows of repeated indices, then calls ``_resource_apply_sparse``."""
        summed, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, var, unique_indices, **kwargs)

    @abc.abstractmethod
    def _resource_apply_dense(self, grad: Output, var: Variable,
                              apply_state: dict | None = None) -> Any:
        """Builds the update of ``var`` by the dense ``grad``."""

    @abc.abstractmethod
    def _resource_apply_sparse(self, grad: Output, var: Variable, indices: Output,
                               apply_state: dict | None = None) -> Any:
        """Builds the update of the rows ``indices`` (unique) of ``var`` by ``grad``."""

    # -- learning rate ------------------------------------------------------------------------
    def _prepare(self, var_list: list) -> dict:
        apply_state: dict = {}
        for var in var_list:
            key = (var.device, var.dtype.base_dtype)
            if key not in apply_state:
                apply_state[key] = {}
                self._prepare_local(key[0], key[1], apply_state)
        return apply_state

    def _prepare_local(self, var_device: str, var_dtype: DType, apply_state: dict) -> None:
        if "learning_rate" in self._hyper:
            apply_state[(var_device, var_dtype)]["lr_t"] = identity(self._decayed_lr(var_dtype))

    def _fallback_apply_state(self, var_device: str, var_dtype: DType) -> dict:
        state: dict = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, state)
        return state[(var_device, var_dtype)]

    def _coefficients(self, var: Variable, apply_state: dict | None) -> dict:
        key = (var.device, var.dtype.base_dtype)
        return (apply_state or {}).get(key) or self._fallback_apply_state(*key)

    def _decayed_lr(self, var_dtype: Any) -> Output:
        """The learning rate of this step in ``var_dtype``: the schedule at ``iterations``
        if it is a schedule, then divided by ``1 + decay * iterations`` (the step count read
        before this step's increment)."""
        var_dtype = as_dtype(var_dtype)
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if isinstance(lr_t, schedules.LearningRateSchedule):
            local_step = tm_math.cast(self.iterations, var_dtype)
            lr_t = tm_math.cast(lr_t(local_step), var_dtype)
        if self._initial_decay > 0.0:
            local_step = tm_math.cast(self.iterations, var_dtype)
            decay_t = tm_math.cast(self._initial_decay, var_dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    # -- hyper-parameters ---------------------------------------------------------------------
    def _set_hyper(self, name: str, value: Any) -> None:
        """Sets hyper-parameter ``name``: a float, tensor, callable or schedule replaces the
        stored value until variables exist; afterwards a number is assigned to the variable
        in the default session."""
        if isinstance(value, (int, float, np.number)):
            self._hyper_values[name] = value
        if name not in self._hyper:
            self._hyper[name] = value
            return
        prev = self._hyper[name]
        if (
            callable(prev)
            or isinstance(prev, (Output, int, float, np.number,
                                 schedules.LearningRateSchedule))
            or isinstance(value, schedules.LearningRateSchedule)
        ) and not isinstance(prev, Variable):
            self._hyper[name] = value
        else:
            _batch_set_value([(prev, value)])

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return value
        if callable(value) and not isinstance(value, Variable):
            value = value()
        if dtype is not None:
            return tm_math.cast(value, as_dtype(dtype))
        return value

    def _create_hypers(self) -> None:
        if self._hypers_created:
            return
        for name, value in sorted(self._hyper.items()):
            if isinstance(value, (Output, Variable)) or callable(value):
                continue
            self._hyper[name] = self.add_weight(name, shape=[], trainable=False,
                                                initializer=value)
        self._hypers_created = True

    def _serialize_hyperparameter(self, name: str) -> Any:
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return schedules.serialize(value)
        if isinstance(value, Variable):
            # TF1 Keras reads the variable in its session; without a default session (or
            # before initialisation) the last value set from Python is the same number.
            sess = context.get_default_session()
            if sess is not None and getattr(sess, "graph", None) is value.graph:
                try:
                    return sess.run(value)
                except Exception:  # noqa: BLE001  (uninitialised: fall back, as documented)
                    pass
            return self._hyper_values.get(name)
        if callable(value):
            return value()
        if isinstance(value, Output):
            return _batch_get_value([value])[0]
        return value

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: hyper-parameters read as attributes.
        if name.startswith("_"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        hyper = self.__dict__.get("_hyper", {})
        key = "learning_rate" if name == "lr" else name
        if key in hyper:
            return self._get_hyper(key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        if name in self.__dict__.get("_hyper", {}):
            self._set_hyper(name, value)
        else:
            super().__setattr__(name, value)

    def __dir__(self) -> list:
        result = set(super().__dir__()) | set(self._hyper)
        if "learning_rate" in self._hyper:
            result.add("lr")
        return sorted(result)

    # -- variables ----------------------------------------------------------------------------
    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = "zeros",
                   trainable: bool | None = None) -> Variable:
        """Creates an optimizer variable (not added to :attr:`weights`).

        Args:
            name: The variable name (under the current name scope).
            shape: Its shape.
            dtype: Its dtype (default float32).
            initializer: ``"zeros"``, ``"ones"``, a number, or a callable of
                ``(shape, dtype)``.
            trainable: Default True, as in TF-Keras.
        """
        dtype = as_dtype(dtype) if dtype is not None else float32
        init = _initial_value_fn(initializer, shape, dtype)
        with scope_context(init_scope()):
            return Variable(init, name=name, dtype=dtype,
                            trainable=True if trainable is None else trainable)

    @property
    def iterations(self) -> Variable:
        """The int64 step counter (``<name>/iter``), created at 0 when first read."""
        if self._iterations is None:
            self._iterations = self.add_weight("iter", shape=[], dtype=int64, trainable=False)
            self._weights.append(self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable: Variable) -> None:
        if self._iterations is not None:
            raise RuntimeError(
                "Cannot set `iterations` to a new Variable after the Optimizer weights have "
                f"been created. Here it is attempting to set `iterations` to {variable}."
            )
        self._iterations = variable
        self._weights.append(variable)

    def _create_all_weights(self, var_list: list) -> None:
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def _create_slots(self, var_list: list) -> None:
        """Creates the subclass's slots for ``var_list`` (none by default)."""
        del var_list  # an optimizer without slots (plain SGD) needs nothing here

    def add_slot(self, var: Variable, slot_name: str, initializer: Any = "zeros",
                 shape: Any = None) -> Variable:
        """The slot ``slot_name`` of ``var``, created if absent.

        The slot is a non-trainable variable named ``<var>/<slot_name>`` under the current
        name scope (``Adagrad/w/accumulator``), of ``var``'s dtype and (unless ``shape`` is
        given) shape.

        Args:
            var: The trained variable.
            slot_name: The slot's name.
            initializer: ``"zeros"``, ``"ones"``, a number (the fill value), a callable of
                ``(shape, dtype)``, or a tensor / array initial value.
            shape: The slot's shape (default: ``var``'s).
        """
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        slot_dict = self._slots.setdefault(_var_key(var), {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            dtype = var.dtype.base_dtype
            if isinstance(initializer, (str, int, float, np.number)) or callable(initializer):
                init = _initial_value_fn(initializer, shape if shape is not None else var,
                                         dtype)
            else:
                init = initializer
            with scope_context(init_scope()):
                weight = Variable(init, name=f"{var._shared_name}/{slot_name}", dtype=dtype,
                                  trainable=False)
            slot_dict[slot_name] = weight
            self._weights.append(weight)
        return weight

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The slot ``slot_name`` of ``var``.

        Raises:
            KeyError: ``var`` has no slots, or none of that name.
        """
        slots = self._slots.get(_var_key(var))
        if slots is None:
            raise KeyError(getattr(var, "_shared_name", var))
        return slots[slot_name]

    def get_slot_names(self) -> list[str]:
        """The slot names, in creation order."""
        return self._slot_names

    def variables(self) -> list[Variable]:
        """The optimizer's weights (``iterations``, then the slots), in creation order."""
        return self._weights

    @property
    def weights(self) -> list[Variable]:
        """``iterations`` and the slot variables, in creation order."""
        return self._weights

    def get_weights(self) -> list[np.ndarray]:
        """The values of :attr:`weights`, read in the default session."""
        return _batch_get_value(self.weights)

    def set_weights(self, weights: list) -> None:
        """Assigns :attr:`weights` from a list of arrays, in the default session.

        Raises:
            ValueError: the list's length or an array's shape does not match.
        """
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self._name} "
                f"with a  weight list of length {len(weights)}, "
                f"but the optimizer was expecting {len(params)} "
                f"weights. Provided weights: {str(weights)[:50]}..."
            )
        if not params:
            return
        # Shapes come from the variables where they are static; otherwise from their values.
        static = [p.shape.as_list() if p.shape.is_fully_defined() else None for p in params]
        unknown = [p for p, s in zip(params, static) if s is None]
        read = iter(_batch_get_value(unknown))
        pairs = []
        for p, s, w in zip(params, static, weights):
            have = tuple(s) if s is not None else np.shape(next(read))
            w = np.asarray(w)
            if have != w.shape:
                raise ValueError(
                    f"Optimizer weight shape {have} not compatible with provided weight "
                    f"shape {w.shape}."
                )
            pairs.append((p, w))
        _batch_set_value(pairs)

    # -- config -------------------------------------------------------------------------------
    @abc.abstractmethod
    def get_config(self) -> dict:
        """The optimizer's configuration: name and the clipping options that are set."""
        config: dict[str, Any] = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> OptimizerV2:
        """An optimizer made from :meth:`get_config`'s output (``lr`` is read as
        ``learning_rate``; a serialised schedule is deserialised)."""
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects=custom_objects)
        return cls(**config)


def _var_key(var: Any) -> Any:
    # A variable is identified by its handle: two Python objects for one variable (e.g.
    # re-created from its proto) share slots, as TF keys them by the handle's unique id.
    handle = getattr(var, "handle", None)
    return handle if handle is not None else id(var)


def _flatten(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        out = []
        for item in x:
            out.extend(_flatten(item))
        return out
    if isinstance(x, dict):
        return _flatten([x[k] for k in sorted(x)])
    return [x]


def _initial_value_fn(initializer: Any, shape_or_var: Any, dtype: DType) -> Callable:
    """A callable building the initial value (called inside the variable's Initializer
    scope, so its ops are named as TF names them)."""
    np_dtype = dtype.as_numpy_dtype

    def static_shape() -> tuple | None:
        if isinstance(shape_or_var, Variable):
            s = shape_or_var.shape
            return tuple(s.as_list()) if s.is_fully_defined() else None
        return tuple(shape_or_var)

    if isinstance(initializer, str):
        fills = {"zeros": 0, "ones": 1}
        if initializer not in fills:
            raise ValueError(f"Unknown initializer: '{initializer}'")
        initializer = fills[initializer]
    if isinstance(initializer, (int, float, np.number)):
        fill_value = initializer
        if dtype.is_integer and not float(fill_value).is_integer():
            raise TypeError(
                f"Expected {dtype.name}, but got {fill_value} of type "
                f"'{type(fill_value).__name__}'."
            )
        if not (dtype.is_floating or dtype.is_integer or dtype.name.startswith("complex")):
            raise TypeError(f"Cannot create an optimizer variable of dtype {dtype.name}.")

        def make() -> Any:
            shape_ = static_shape()
            if shape_ is not None:
                return np.full(shape_, fill_value, dtype=np_dtype)
            # A variable of partly unknown shape: its slot takes the initial value's shape.
            like = shape_or_var.initial_value
            return tm_math.cast(ones_like(like), dtype) * convert_to_tensor(fill_value,
                                                                            dtype=dtype)

        return make

    def call() -> Any:
        shape_ = static_shape()
        return initializer(shape=list(shape_) if shape_ is not None else None, dtype=dtype)

    return call


__all__ = ["OptimizerV2"]
