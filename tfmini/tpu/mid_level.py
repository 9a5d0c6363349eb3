"""A mid-level embedding API in the spirit of ``tf.tpu.experimental.embedding``.

``TableConfig``, ``FeatureConfig`` and the optimizers ``SGD``, ``Adagrad``, ``Adam`` and ``FTRL``
take TensorFlow's arguments, defaults and errors. :class:`TPUEmbedding` turns them into a
:class:`~tfmini.tpu.TPUEmbeddingConfiguration` (as TensorFlow's
``TPUEmbedding._create_config_proto`` does: tables in order of first use, feature descriptors,
mode TRAINING, DIV sharding), keeps host copies of the tables and optimizer slots as
variables, and builds the raw embedding ops of the simulated TPU device::

    table = tm.tpu.TableConfig(vocabulary_size=1000, dim=8, name="users")
    emb = tm.tpu.TPUEmbedding({"user": tm.tpu.FeatureConfig(table)},
                              optimizer=tm.tpu.Adagrad(0.1), batch_size=32)
    ids = tm.placeholder(tm.int32, [32])
    enqueue = emb.enqueue({"user": ids})
    act = emb.dequeue()["user"]                  # [32, 8]
    loss = tm.reduce_sum(tm.square(act))
    train = emb.apply_gradients({"user": tm.gradients(loss, act)[0]})
    with tm.Session() as sess:
        sess.run(emb.initializer)                # variables, ConfigureTPUEmbedding, Load ops
        sess.run([enqueue, train], {ids: ...})

With ``cluster=`` (a ClusterSpec) the tables are sharded over its ps tasks, one shard per
task (MOD by default), and each step makes one lookup and one update call per shard
(``tfmini/ops/tpu_embedding/ps_shards.py``; docs/distributed.md).

Differences from TensorFlow, which needs a TPUStrategy: there is one replica, so the
``batch_size`` given here is the per-core batch; ``num_hosts`` and ``num_tensor_cores`` only
shape the simulated device's sharding; a learning-rate callable is called once, when
:meth:`TPUEmbedding.apply_gradients` builds its graph, and must return something convertible
to a float32 scalar tensor (a placeholder, a variable, a float).
"""

from __future__ import annotations

import inspect
import logging
import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np

from tfmini.core.graph import Operation, Output
from tfmini.core.scope import control_dependencies, device, name_scope
from tfmini.core.shapes import TensorShape
from tfmini.core.wrappers import raw_op_function
from tfmini.ops import tpu_embedding as cfg
from tfmini.ops.array import concat, constant, gather, identity, reshape, zeros
from tfmini.ops.control_flow import group
from tfmini.ops.math import cast
from tfmini.ops.variables import Variable, constant_initializer, truncated_normal_initializer

__all__ = [
    "SGD",
    "FTRL",
    "Adagrad",
    "Adam",
    "FeatureConfig",
    "RaggedInput",
    "SparseInput",
    "TPUEmbedding",
    "TableConfig",
]

_log = logging.getLogger("tfmini.tpu")

# --------------------------------------------------------------------------------------------
# Optimizers
# --------------------------------------------------------------------------------------------


def _check_learning_rate(inst: Any, attribute: attrs.Attribute, value: Any) -> None:
    if callable(value):
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"Argument `learning_rate` must be a float or a callable returning one. "
            f"Received: {value!r}"
        )
    if not math.isfinite(value):
        raise ValueError(f"Argument `learning_rate` must be finite. Received: {value}")


def _clip_pair(clipvalue: Any) -> tuple[float | None, float | None]:
    # TensorFlow: a scalar c means (-c, c); a tuple is (min, max), either may be None.
    if clipvalue is None:
        return None, None
    if isinstance(clipvalue, tuple):
        if len(clipvalue) != 2:
            raise ValueError(
                f"Argument `clipvalue` must be a scalar or a (min, max) tuple. "
                f"Received: {clipvalue}"
            )
        return clipvalue
    return -1.0 * clipvalue, clipvalue


class _Optimizer:
    """Behaviour shared by the mid-level optimizers (TensorFlow's ``_Optimizer``).

    Each concrete optimizer is a frozen attrs class declaring TensorFlow's arguments in
    TensorFlow's order; this mixin holds no fields, so positional calls keep that order.
    """

    learning_rate: Any
    use_gradient_accumulation: bool
    clip_weight_min: float | None
    clip_weight_max: float | None
    weight_decay_factor: float | None
    multiply_weight_decay_factor_by_learning_rate: bool | None
    clipvalue: Any

    def _check_common(self) -> None:
        if not self.use_gradient_accumulation and self.clipvalue is not None:
            raise ValueError(
                "When `use_gradient_accumulation` is False, gradient clipping "
                "cannot be used and `clipvalue` should be left as None. "
                f"Received value {self.clipvalue} for argument `clipvalue`."
            )
        _clip_pair(self.clipvalue)

    @property
    def clip_gradient_min(self) -> float | None:
        """The lower gradient clip (from ``clipvalue``), None for none."""
        return _clip_pair(self.clipvalue)[0]

    @property
    def clip_gradient_max(self) -> float | None:
        """The upper gradient clip (from ``clipvalue``), None for none."""
        return _clip_pair(self.clipvalue)[1]

    def _slot_names(self) -> list[str]:
        return []

    def _slot_initial_values(self) -> list[float]:
        return []

    def _algorithm(self) -> dict[str, Any]:
        raise NotImplementedError

    def _optimization_parameters(
        self, learning_rate: cfg.LearningRate
    ) -> cfg.OptimizationParameters:
        """The proto message, as TensorFlow's ``_set_optimization_parameters`` writes it."""
        clip = grad_clip = None
        if self.clip_weight_min is not None or self.clip_weight_max is not None:
            clip = cfg.ClippingLimits(
                lower=-math.inf if self.clip_weight_min is None else self.clip_weight_min,
                upper=math.inf if self.clip_weight_max is None else self.clip_weight_max,
            )
        lo, hi = _clip_pair(self.clipvalue)
        if lo is not None or hi is not None:
            grad_clip = cfg.ClippingLimits(
                lower=-math.inf if lo is None else lo, upper=math.inf if hi is None else hi
            )
        decay, by_lr = 0.0, False
        if self.weight_decay_factor:
            decay = self.weight_decay_factor
            by_lr = bool(self.multiply_weight_decay_factor_by_learning_rate)
        return cfg.OptimizationParameters(
            learning_rate=learning_rate,
            clipping_limits=clip,
            gradient_clipping_limits=grad_clip,
            weight_decay_factor=decay,
            multiply_weight_decay_factor_by_learning_rate=by_lr,
            # TensorFlow always writes ENABLED or DISABLED, never leaves it UNSPECIFIED.
            gradient_accumulation_status="ENABLED" if self.use_gradient_accumulation
            else "DISABLED",
            **self._algorithm(),
        )


@attrs.frozen(kw_only=False)
class SGD(_Optimizer):
    """Stochastic gradient descent for embedding tables (``E -= lr * g``; no slots).

    Args:
        learning_rate: a float, or a callable for a dynamic rate. Default 0.01.
        use_gradient_accumulation: sum gradients per row before updating. Default True.
        clip_weight_min, clip_weight_max: bounds on the weights after the update.
        weight_decay_factor: weight decay (None: none).
        multiply_weight_decay_factor_by_learning_rate: scale the decay by the rate.
        clipvalue: gradient clipping: c means (-c, c); or a (min, max) tuple.

    Raises:
        ValueError: ``clipvalue`` with ``use_gradient_accumulation=False``.
    """

    learning_rate: float | Callable[[], Any] = attrs.field(
        default=0.01, validator=_check_learning_rate)
    use_gradient_accumulation: bool = True
    clip_weight_min: float | None = None
    clip_weight_max: float | None = None
    weight_decay_factor: float | None = None
    multiply_weight_decay_factor_by_learning_rate: bool | None = None
    clipvalue: float | tuple | None = None

    def __attrs_post_init__(self) -> None:
        self._check_common()

    def _algorithm(self) -> dict[str, Any]:
        return {"stochastic_gradient_descent": cfg.StochasticGradientDescentParameters()}


def _positive_accumulator(value: Any) -> None:
    if value <= 0:
        raise ValueError(
            f"Argument `initial_accumulator_value` must be a positive float. Received: {value}"
        )


@attrs.frozen(kw_only=False)
class Adagrad(_Optimizer):
    """Adagrad for embedding tables (slot ``accumulators``).

    Args:
        learning_rate: a float or a callable. Default 0.001.
        initial_accumulator_value: the accumulators' start, > 0. Default 0.1.
        use_gradient_accumulation, clip_weight_min, clip_weight_max, weight_decay_factor,
            multiply_weight_decay_factor_by_learning_rate, clipvalue: as :class:`SGD`.

    Raises:
        ValueError: ``initial_accumulator_value <= 0``; ``clipvalue`` without accumulation.
    """

    learning_rate: float | Callable[[], Any] = attrs.field(
        default=0.001, validator=_check_learning_rate)
    initial_accumulator_value: float = 0.1
    use_gradient_accumulation: bool = True
    clip_weight_min: float | None = None
    clip_weight_max: float | None = None
    weight_decay_factor: float | None = None
    multiply_weight_decay_factor_by_learning_rate: bool | None = None
    clipvalue: float | tuple | None = None

    def __attrs_post_init__(self) -> None:
        self._check_common()
        _positive_accumulator(self.initial_accumulator_value)

    def _slot_names(self) -> list[str]:
        return ["accumulators"]

    def _slot_initial_values(self) -> list[float]:
        return [self.initial_accumulator_value]

    def _algorithm(self) -> dict[str, Any]:
        return {"adagrad": cfg.AdagradParameters()}


@attrs.frozen(kw_only=False)
class Adam(_Optimizer):
    """Adam for embedding tables, without bias correction (slots ``momenta``, ``velocities``).

    Args:
        learning_rate: a float or a callable. Default 0.001.
        beta_1: in [0, 1). Default 0.9.
        beta_2: in [0, 1). Default 0.999.
        epsilon: > 0. Default 1e-7.
        lazy_adam: update only the rows in the batch. Default True.
        sum_inside_sqrt: ``m / sqrt(v + eps**2)``. Default True.
        use_gradient_accumulation, clip_weight_min, clip_weight_max, weight_decay_factor,
            multiply_weight_decay_factor_by_learning_rate, clipvalue: as :class:`SGD`.

    Raises:
        ValueError: a beta outside [0, 1), epsilon <= 0, ``lazy_adam=False`` without gradient
            accumulation, ``clipvalue`` without accumulation.
    """

    learning_rate: float | Callable[[], Any] = attrs.field(
        default=0.001, validator=_check_learning_rate)
    beta_1: float = 0.9
    beta_2: float = 0.999
    epsilon: float = 1e-07
    lazy_adam: bool = True
    sum_inside_sqrt: bool = True
    use_gradient_accumulation: bool = True
    clip_weight_min: float | None = None
    clip_weight_max: float | None = None
    weight_decay_factor: float | None = None
    multiply_weight_decay_factor_by_learning_rate: bool | None = None
    clipvalue: float | tuple | None = None

    def __attrs_post_init__(self) -> None:
        self._check_common()
        if self.beta_1 < 0.0 or self.beta_1 >= 1.0:
            raise ValueError(
                f"Argument `beta_1` must be >= 0 and < 1. Received: {self.beta_1}.")
        if self.beta_2 < 0.0 or self.beta_2 >= 1.0:
            # TensorFlow's message prints beta_1 here (a typo); tfmini prints beta_2.
            raise ValueError(
                f"Argument `beta_2` must be >= 0 and < 1. Received: {self.beta_2}.")
        if self.epsilon <= 0.0:
            raise ValueError(f"epsilon must be positive; got {self.epsilon}.")
        if not self.use_gradient_accumulation and not self.lazy_adam:
            # TensorFlow's text ends "Set `use_gradient_accumulation` to False." (sic).
            raise ValueError(
                "When disabling lazy Adam (`lazy_adam=False`), "
                "gradient accumulation must be used. "
                "Set `use_gradient_accumulation` to True.")

    def _slot_names(self) -> list[str]:
        return ["momenta", "velocities"]

    def _slot_initial_values(self) -> list[float]:
        return [0.0, 0.0]

    def _algorithm(self) -> dict[str, Any]:
        return {"adam": cfg.AdamParameters(
            beta1=self.beta_1, beta2=self.beta_2, epsilon=self.epsilon,
            use_non_lazy_adam=not self.lazy_adam, use_sum_inside_sqrt=self.sum_inside_sqrt)}


@attrs.frozen(kw_only=False)
class FTRL(_Optimizer):
    """FTRL-proximal for embedding tables (slots ``accumulators``, ``linears``).

    Args:
        learning_rate: a float or a callable. Default 0.001.
        learning_rate_power: <= 0. Default -0.5.
        l1_regularization_strength, l2_regularization_strength: >= 0. Default 0.
        beta: >= 0. Default 0.
        initial_accumulator_value: > 0. Default 0.1.
        use_gradient_accumulation, clip_weight_min, clip_weight_max, weight_decay_factor,
            multiply_weight_decay_factor_by_learning_rate, clipvalue: as :class:`SGD`.
        multiply_linear_by_learning_rate: the ``linears`` slot stores linear * lr.
        allow_zero_accumulator: allow (near) zero accumulators.

    Raises:
        ValueError: ``initial_accumulator_value <= 0``; ``clipvalue`` without accumulation;
            values the proto forbids (negative l1/l2/beta, positive learning_rate_power).
    """

    learning_rate: float | Callable[[], Any] = attrs.field(
        default=0.001, validator=_check_learning_rate)
    learning_rate_power: float = -0.5
    l1_regularization_strength: float = 0.0
    l2_regularization_strength: float = 0.0
    beta: float = 0.0
    initial_accumulator_value: float = 0.1
    use_gradient_accumulation: bool = True
    clip_weight_min: float | None = None
    clip_weight_max: float | None = None
    weight_decay_factor: float | None = None
    multiply_weight_decay_factor_by_learning_rate: bool | None = None
    clipvalue: float | tuple | None = None
    multiply_linear_by_learning_rate: bool = False
    allow_zero_accumulator: bool = False

    def __attrs_post_init__(self) -> None:
        self._check_common()
        _positive_accumulator(self.initial_accumulator_value)
        self._algorithm()  # the proto's range checks, at construction

    def _slot_names(self) -> list[str]:
        return ["accumulators", "linears"]

    def _slot_initial_values(self) -> list[float]:
        return [self.initial_accumulator_value, 0.0]

    def _algorithm(self) -> dict[str, Any]:
        return {"ftrl": cfg.FtrlParameters(
            l1=self.l1_regularization_strength, l2=self.l2_regularization_strength,
            lr_power=self.learning_rate_power, beta=self.beta,
            multiply_linear_by_lr=self.multiply_linear_by_learning_rate,
            allow_zero_accumulator=self.allow_zero_accumulator)}


# --------------------------------------------------------------------------------------------
# Tables and features
# --------------------------------------------------------------------------------------------

_COMBINERS = ("mean", "sum", "sqrtn")


@attrs.frozen(eq=False)
class TableConfig:
    """One embedding table (identity, not value, distinguishes tables, as in TensorFlow).

    Args:
        vocabulary_size: rows, an int >= 1.
        dim: embedding width, an int >= 1.
        initializer: a callable ``(shape, dtype) -> tensor or array``; None means truncated
            normal with mean 0 and stddev ``1/sqrt(dim)``.
        optimizer: an optimizer overriding :class:`TPUEmbedding`'s, or None.
        combiner: "mean" (default), "sum" or "sqrtn".
        name: the table's name; None becomes ``table_<i>`` in :class:`TPUEmbedding`.
        dtype: "float32" only on the simulated device (TensorFlow also has int32 tables).

    Raises:
        ValueError: with TensorFlow's messages for each bad argument.
    """

    vocabulary_size: int
    dim: int
    initializer: Callable[..., Any] | None = None
    optimizer: _Optimizer | None = None
    combiner: str = "mean"
    name: str | None = None
    dtype: str = "float32"

    def __attrs_post_init__(self) -> None:
        if (not isinstance(self.vocabulary_size, int) or isinstance(self.vocabulary_size, bool)
                or self.vocabulary_size < 1):
            raise ValueError(
                "Argument `vocabulary_size` must be an int and must be >= 1. "
                f"Received: {self.vocabulary_size}")
        if not isinstance(self.dim, int) or isinstance(self.dim, bool) or self.dim < 1:
            raise ValueError(
                "Argument `dim` (embedding dimension) must be an int and must be >= 1. "
                f"Received: {self.dim}")
        if self.initializer is not None and not callable(self.initializer):
            raise ValueError(
                "Argument `initializer` must be a callable (or None). "
                f"Received: {self.initializer}")
        if self.initializer is None:
            object.__setattr__(
                self, "initializer",
                truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(self.dim)))
        if isinstance(self.combiner, str):
            if self.combiner not in _COMBINERS:
                raise ValueError(
                    f"String argument `combiner` must be in {_COMBINERS}. "
                    f"Received: {self.combiner}")
        else:
            raise ValueError(
                "Argument `combiner` should either be a str or a CustomCombiner. "
                f"Received: {type(self.combiner)}")
        if self.dtype not in ("float32",):
            raise ValueError(
                "Argument `dtype` must be float32 on the simulated device. "
                f"Received: {self.dtype}")
        if self.name is not None and not isinstance(self.name, str):
            raise TypeError(f"Argument `name` must be a str or None. Received: {self.name!r}")


@attrs.frozen(eq=False)
class FeatureConfig:
    """One feature looked up in a table.

    Args:
        table: its :class:`TableConfig`.
        max_sequence_length: 0 for a combined feature; L > 0 makes a sequence feature whose
            activation is ``[batch, L, dim]``.
        validate_weights_and_indices: a bool (recorded; the simulated device always checks).
        output_shape: the activation's shape without ``dim``; None derives it from
            ``batch_size`` (and ``max_sequence_length``).
        name: the feature's name (None leaves the descriptor's name empty, as TensorFlow).

    Raises:
        ValueError: with TensorFlow's messages for each bad argument.
    """

    table: TableConfig
    max_sequence_length: int = 0
    validate_weights_and_indices: bool = True
    output_shape: Any = None
    name: str | None = None

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.table, TableConfig):
            raise ValueError(
                f"Argument `table` has invalid type {type(self.table)}. "
                "Expected `tm.tpu.TableConfig`.")
        if (not isinstance(self.max_sequence_length, int)
                or isinstance(self.max_sequence_length, bool) or self.max_sequence_length < 0):
            raise ValueError(
                "Argument `max_sequence_length` must be an int and must be >= 0. "
                f"Received: {self.max_sequence_length}")
        object.__setattr__(self, "output_shape", TensorShape(self.output_shape))
        if not isinstance(self.validate_weights_and_indices, bool):
            raise ValueError(
                "Argument `validate_weights_and_indices` must be a boolean. "
                f"Received: {self.validate_weights_and_indices}")


@attrs.frozen
class SparseInput:
    """A sparse feature (TensorFlow's ``SparseTensor``): ids at COO ``indices``.

    Args:
        indices: int ``[nnz, 2]`` (sample, position) coordinates, rows in order.
        values: int ``[nnz]`` ids.
        weights: float ``[nnz]`` weights, or None for all ones.
    """

    indices: Any
    values: Any
    weights: Any = None


@attrs.frozen
class RaggedInput:
    """A ragged feature (TensorFlow's ``RaggedTensor``): sample b has ``values[s[b]:s[b+1]]``.

    Args:
        row_splits: int ``[batch + 1]``.
        values: int ids.
        weights: float weights parallel to ``values``, or None for all ones.
    """

    row_splits: Any
    values: Any
    weights: Any = None


# --------------------------------------------------------------------------------------------
# Nested structures (the subset of tf.nest the mid-level API needs)
# --------------------------------------------------------------------------------------------


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple, Mapping)) and not isinstance(x, (str, bytes))


def _flatten_with_paths(structure: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Leaves with '/'-joined paths; dict keys sorted, as tf.nest orders them."""
    if isinstance(structure, Mapping):
        out = []
        for key in sorted(structure):
            out += _flatten_with_paths(structure[key], f"{prefix}/{key}" if prefix else str(key))
        return out
    if _is_sequence(structure):
        out = []
        for i, item in enumerate(structure):
            out += _flatten_with_paths(item, f"{prefix}/{i}" if prefix else str(i))
        return out
    return [(prefix, structure)]


def _flatten_up_to(shallow: Any, deep: Any, what: str, path: str = "") -> list[Any]:
    """Flattens ``deep`` only as far as ``shallow`` nests (leaves of ``deep`` may be tuples)."""
    where = path or "the top level"
    if isinstance(shallow, Mapping):
        if not isinstance(deep, Mapping) or set(deep) != set(shallow):
            raise ValueError(
                f"The {what} must have the structure of the feature config: at {where} expected "
                f"a dict with keys {sorted(shallow)}, got {_describe(deep)}")
        out = []
        for key in sorted(shallow):
            out += _flatten_up_to(shallow[key], deep[key], what,
                                  f"{path}/{key}" if path else str(key))
        return out
    if _is_sequence(shallow):
        if not _is_sequence(deep) or isinstance(deep, Mapping) or len(deep) != len(shallow):
            raise ValueError(
                f"The {what} must have the structure of the feature config: at {where} expected "
                f"a sequence of length {len(shallow)}, got {_describe(deep)}")
        out = []
        for i, (s, d) in enumerate(zip(shallow, deep)):
            out += _flatten_up_to(s, d, what, f"{path}/{i}" if path else str(i))
        return out
    return [deep]


def _describe(x: Any) -> str:
    if isinstance(x, Mapping):
        return f"a dict with keys {sorted(x)}"
    if _is_sequence(x):
        return f"a {type(x).__name__} of length {len(x)}"
    return f"a {type(x).__name__}"


def _pack_as(structure: Any, flat: list[Any]) -> Any:
    it = iter(flat)

    def pack(s: Any) -> Any:
        if isinstance(s, Mapping):
            packed = {k: pack(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s) if type(s) is not dict else {
                k: packed[k] for k in s}
        if _is_sequence(s):
            items = [pack(v) for v in s]
            if isinstance(s, tuple) and hasattr(s, "_fields"):
                return type(s)(*items)
            return type(s)(items)
        return next(it)

    return pack(structure)


# --------------------------------------------------------------------------------------------
# The embedding object
# --------------------------------------------------------------------------------------------


def _op(name: str) -> Callable[..., Any]:
    return raw_op_function(name)


def _static_shape(x: Any) -> TensorShape:
    if isinstance(x, (Output, Variable)):
        return TensorShape(x.shape)
    return TensorShape(np.shape(x))


class TPUEmbedding:
    """Embedding tables on the simulated TPU device, driven from the host graph.

    Args:
        feature_config: a :class:`FeatureConfig` or a nest (dict, list, tuple) of them; the
            activations, inputs and gradients follow the same structure.
        optimizer: the optimizer of every table without its own; may be None only when every
            table has one.
        batch_size: samples per step (TensorFlow's per-replica batch size); needed unless
            every feature sets ``output_shape``.
        num_hosts: hosts the tables are split over for Load/Retrieve (TensorFlow's num_hosts).
        num_tensor_cores: simulated cores sharing the table rows.
        sharding_strategy: "DIV_DEFAULT" (as TensorFlow's mid-level API always uses) or "MOD";
            None (the default): "MOD" with ``cluster``, else "DIV_DEFAULT".
        cluster: a ``tm.train.ClusterSpec`` (or its dict): the tables are sharded over the
            tasks of its ``ps_job``, one shard per task (``num_hosts`` is their number), each
            in its task's simulated TPU device; by default row ``id`` lives on task
            ``id % num_ps`` as local row ``id // num_ps`` (as TensorFlow's "mod"
            partitioning). Each ps task then serves one lookup and one update per step
            (docs/distributed.md, "TPU embedding tables on ps tasks").
        ps_job: the job whose tasks hold the shards when ``cluster`` is given.
        pipeline_execution_with_tensor_core: recorded in the configuration.
        name: the name scope of the host variables and ops.

    Raises:
        ValueError: TensorFlow's errors: a table without a supported optimizer class, table
            names not unique, an output shape that cannot be derived.
    """

    def __init__(
        self,
        feature_config: Any,
        optimizer: _Optimizer | None = None,
        batch_size: int | None = None,
        *,
        num_hosts: int = 1,
        num_tensor_cores: int = 1,
        sharding_strategy: str | None = None,
        pipeline_execution_with_tensor_core: bool = False,
        name: str = "tpu_embedding",
        cluster: Any = None,
        ps_job: str = "ps",
    ):
        self._feature_config = feature_config
        self._paths_and_features = _flatten_with_paths(feature_config)
        if not self._paths_and_features:
            raise ValueError("feature_config holds no FeatureConfig")
        for path, feature in self._paths_and_features:
            if not isinstance(feature, FeatureConfig):
                raise ValueError(
                    f"feature_config at {path or 'the top level'} is a "
                    f"{type(feature).__name__}, expected a tm.tpu.FeatureConfig")
        self._features = [f for _, f in self._paths_and_features]
        if optimizer is not None and not isinstance(optimizer, _Optimizer):
            raise ValueError(
                f"{type(optimizer)} is an unsupported optimizer class. Please pass an instance "
                "of one of the optimizer classes under tm.tpu.")

        # Tables in order of first use; names and optimizers resolved without mutating the
        # (frozen) TableConfigs, unlike TensorFlow which writes them back.
        self._tables: list[TableConfig] = []
        for feature in self._features:
            if not any(feature.table is t for t in self._tables):
                self._tables.append(feature.table)
        self._table_names: list[str] = []
        self._optimizers: list[_Optimizer] = []
        for i, table in enumerate(self._tables):
            opt = table.optimizer if table.optimizer is not None else optimizer
            # As TensorFlow under a TPUStrategy: every table needs an optimizer (None too is
            # refused), because the device loads and updates tables through it.
            if not isinstance(opt, _Optimizer):
                raise ValueError(
                    f"{type(opt)} is an unsupported optimizer class. Please pass an instance "
                    "of one of the optimizer classes under tm.tpu.")
            tname = table.name if table.name is not None else f"table_{i}"
            if tname in self._table_names:
                raise ValueError(
                    "Tables must have a unique name. "
                    f"Multiple tables with name {tname} found.")
            self._table_names.append(tname)
            self._optimizers.append(opt)

        # Dynamic learning rates: one tag per distinct callable, in order of first appearance.
        self._dynamic_learning_rates: list[Callable[[], Any]] = []
        for opt in self._optimizers:
            if callable(opt.learning_rate) and not any(
                    opt.learning_rate is f for f in self._dynamic_learning_rates):
                self._dynamic_learning_rates.append(opt.learning_rate)

        self._shard_devices = _shard_devices(cluster, ps_job, num_hosts)
        if self._shard_devices:
            num_hosts = len(self._shard_devices)
        if sharding_strategy is None:
            sharding_strategy = "MOD" if self._shard_devices else "DIV_DEFAULT"
        self._batch_size = batch_size
        self._output_shapes = [self._output_shape(path, f) for path, f in self._paths_and_features]
        self.config = self._create_config(
            num_hosts, num_tensor_cores, sharding_strategy, pipeline_execution_with_tensor_core)
        self._config_string = self.config.SerializeToString().decode()
        # Sharded over ps tasks: each task's device holds its shard, configured so.
        self._shard_configs = [
            cfg.shard_config(self.config, s).SerializeToString().decode()
            for s in range(len(self._shard_devices))]
        self._name = name
        self._variables = self._create_variables()
        self._initializer: Operation | None = None

    # ---- configuration ---------------------------------------------------------------------

    def _output_shape(self, path: str, feature: FeatureConfig) -> tuple[int, ...]:
        if feature.output_shape.rank is not None and feature.output_shape.rank > 0:
            if not feature.output_shape.is_fully_defined():
                raise ValueError(
                    f"Input Feature {path} has output shape set as {feature.output_shape} "
                    "which is not fully defined. Please specify the fully defined shape in "
                    "the FeatureConfig.")
            return tuple(feature.output_shape.as_list())
        if self._batch_size is None:
            raise ValueError(
                f"Feature {path} has no output_shape: pass batch_size to TPUEmbedding or set "
                "output_shape in its FeatureConfig.")
        if (not isinstance(self._batch_size, int) or isinstance(self._batch_size, bool)
                or self._batch_size < 1):
            raise ValueError(f"batch_size must be an int >= 1, got {self._batch_size!r}")
        if feature.max_sequence_length > 0:
            return (self._batch_size, feature.max_sequence_length)
        return (self._batch_size,)

    def _create_config(self, num_hosts: int, num_tensor_cores: int, sharding: str,
                       pipeline: bool) -> cfg.TPUEmbeddingConfiguration:
        tag_of = {id(f): i for i, f in enumerate(self._dynamic_learning_rates)}
        tables = []
        for table, tname, opt in zip(self._tables, self._table_names, self._optimizers):
            if callable(opt.learning_rate):
                lr = cfg.LearningRate(
                    dynamic=cfg.DynamicLearningRate(tag=tag_of[id(opt.learning_rate)]))
            else:
                lr = cfg.LearningRate(constant=float(opt.learning_rate))
            params = opt._optimization_parameters(lr)
            tables.append(cfg.TableDescriptor(
                name=tname,
                # As TensorFlow: small tables are padded so every host holds at least one row.
                vocabulary_size=max(table.vocabulary_size, num_hosts),
                dimension=table.dim,
                optimization_parameters=params,
            ))
        table_id = {id(t): i for i, t in enumerate(self._tables)}
        features = [
            cfg.FeatureDescriptor(
                name=feature.name or "",  # as TensorFlow: unnamed features stay ""
                table_id=table_id[id(feature.table)],
                input_shape=list(shape),
            )
            for (path, feature), shape in zip(self._paths_and_features, self._output_shapes)
        ]
        return cfg.TPUEmbeddingConfiguration(
            table_descriptor=tables,
            # As TensorFlow: always TRAINING; enqueue's mode_override picks inference.
            mode="TRAINING",
            batch_size_per_tensor_core=self._batch_size or 0,
            num_hosts=num_hosts,
            num_tensor_cores=num_tensor_cores,
            sharding_strategy=sharding,
            pipeline_execution_with_tensor_core=pipeline,
            feature_descriptor=features,
        )

    # ---- host variables ----------------------------------------------------------------------

    def _create_variables(self) -> dict[str, dict[str, Variable]]:
        out: dict[str, dict[str, Variable]] = {}
        with name_scope(self._name):
            for table, tname, opt, desc in zip(self._tables, self._table_names,
                                               self._optimizers, self.config.table_descriptor):
                shape = (desc.vocabulary_size, table.dim)
                init = table.initializer(shape, dtype=np.float32) if _takes_dtype(
                    table.initializer) else table.initializer(shape)
                init = cast(init, "float32") if isinstance(init, Output) else np.asarray(
                    init, dtype=np.float32)
                if self._shard_devices:
                    out[tname] = self._sharded_variables(tname, opt, init, shape)
                    continue
                variables = {"parameters": Variable(init, name=tname, trainable=False)}
                for slot, value in zip(opt._slot_names(), opt._slot_initial_values()):
                    variables[slot] = Variable(
                        constant_initializer(value)(shape), name=f"{tname}/{slot}", trainable=False)
                out[tname] = variables
        return out

    def _sharded_variables(self, tname: str, opt: _Optimizer, init: Any,
                           shape: tuple[int, int]) -> dict[str, list[Variable]]:
        # As TensorFlow's TPUEmbedding under a strategy (a ShardedVariable per table): one
        # variable per shard, `<name>/part_<k>`, on its ps task's CPU, holding the shard's
        # rows in its local order, so no task holds a whole table.
        out: dict[str, list[Variable]] = {"parameters": []}
        for slot in opt._slot_names():
            out[slot] = []
        for k, (shard_id, rows) in enumerate(self._shards(tname)):
            value = gather(init, rows) if isinstance(init, Output) else init[rows]
            with device(self._shard_cpu(k)):
                out["parameters"].append(
                    Variable(value, name=f"{tname}/part_{shard_id}", trainable=False))
                for slot, fill in zip(opt._slot_names(), opt._slot_initial_values()):
                    out[slot].append(Variable(
                        constant_initializer(fill)((len(rows), shape[1])),
                        name=f"{tname}/{slot}/part_{shard_id}", trainable=False))
        return out

    @property
    def embedding_tables(self) -> dict[TableConfig, Any]:
        """The host copies of the tables, keyed by :class:`TableConfig` (as TensorFlow).

        Sharded over ps tasks (``cluster``): a list of one Variable per shard, shard ``k``
        holding rows ``tm.tpu.shard_row_ids(vocab, num_hosts, k, sharding_strategy)``.
        """
        return {t: self._variables[n]["parameters"] for t, n in zip(self._tables,
                                                                     self._table_names)}

    @property
    def variables(self) -> dict[str, dict[str, Any]]:
        """Host variables: ``{table name: {"parameters" or slot name: Variable}}`` (a list
        of one Variable per shard when sharded over ps tasks, as :attr:`embedding_tables`)."""
        return {n: dict(v) for n, v in self._variables.items()}

    @property
    def config_string(self) -> str:
        """The serialized configuration passed to the ops' ``config`` attr."""
        return self._config_string

    @property
    def table_names(self) -> list[str]:
        """Table names in configuration order."""
        return list(self._table_names)

    # ---- device lifecycle --------------------------------------------------------------------

    @property
    def initializer(self) -> Operation:
        """One op: initialise the host variables, ConfigureTPUEmbedding, then load the tables.

        Built once per object; run it once per Session before enqueueing.
        """
        if self._initializer is None:
            with name_scope(self._name):
                var_init = group(*[v.initializer for vs in self._variables.values()
                                   for v in _flat(vs.values())], name="init_host_variables")
                with control_dependencies([var_init]):
                    configure = self._configure_op()
                with control_dependencies([configure]):
                    self._initializer = group(*self._load_ops(), name="initializer")
        return self._initializer

    def configure(self) -> Operation:
        """A ConfigureTPUEmbedding op alone (the device then holds zero tables until loaded)."""
        with name_scope(self._name):
            return self._configure_op()

    def _shard_cpu(self, k: int) -> str:
        """The CPU of the ps task holding shard ``k`` (its host variables live there)."""
        return self._shard_devices[k].replace("/device:TPU:0", "/device:CPU:0")

    def configure_host(self) -> Operation:
        """Sharded over ps tasks: the configuration of this worker's host state alone.

        ``initializer`` configures the host and the shards and loads the tables; another
        worker training the same shards (data parallelism, each worker in its own graph and
        session) runs only this op, so it has a queue and a batch of its own and leaves the
        shards as they are.

        Raises:
            ValueError: the tables are not sharded over ps tasks (no ``cluster``).
        """
        if not self._shard_devices:
            raise ValueError("configure_host() needs tables sharded over ps tasks (cluster=)")
        with name_scope(self._name):
            return _op("_ConfigureTPUEmbeddingHost")(config=self._config_string)

    def _configure_op(self) -> Operation:
        if not self._shard_devices:
            return _op("ConfigureTPUEmbedding")(config=self._config_string)
        ops = [_op("_ConfigureTPUEmbeddingHost")(config=self._config_string)]
        for dev, text in zip(self._shard_devices, self._shard_configs):
            with device(dev):
                ops.append(_op("ConfigureTPUEmbedding")(config=text))
        return group(*ops, name="configure")

    def _shard_op(self, shard: int, op_type: str, **kwargs: Any) -> Any:
        """``op_type`` on the device of ps shard ``shard`` (sharded), or as the unsharded
        device's op of host shard ``shard`` of ``num_hosts``."""
        if not self._shard_devices:
            return _op(op_type)(num_shards=max(1, self.config.num_hosts), shard_id=shard,
                                config=self._config_string, **kwargs)
        with device(self._shard_devices[shard]):
            return _op(op_type)(num_shards=1, shard_id=0, config=self._shard_configs[shard],
                                **kwargs)

    def load(self, name: str | None = None) -> Operation:
        """An op loading the host variables onto the device (after restoring them).

        Returns:
            A group of LoadTPUEmbedding<Alg>Parameters ops, one per table and host shard.
        """
        with name_scope(self._name):
            return group(*self._load_ops(), name=name or "load")

    def _shards(self, tname: str) -> list[tuple[int, np.ndarray]]:
        desc = self.config.table_descriptor[self.config.table_index(tname)]
        n = max(1, self.config.num_hosts)
        return [(s, cfg.shard_row_ids(desc.vocabulary_size, n, s, self.config.sharding_strategy))
                for s in range(n)]

    def _load_ops(self) -> list[Operation]:
        ops = []
        for tname, opt in zip(self._table_names, self._optimizers):
            slots = cfg.slot_names(slots_key(opt))
            shards = self._shards(tname)
            for shard_id, rows in shards:
                values = {}
                for slot in slots:
                    var = self._variables[tname][slot]
                    if self._shard_devices:  # the shard's own variable, on its task
                        with device(self._shard_cpu(shard_id)):
                            values[slot] = var[shard_id].read_value()
                    else:
                        values[slot] = (var.read_value() if len(shards) == 1
                                        else gather(var.read_value(), rows))
                ops.append(self._shard_op(shard_id, cfg.load_op_name(slots_key(opt)),
                                          **values, table_name=tname))
        return ops

    def retrieve(self, name: str | None = None) -> Operation:
        """An op copying the device's tables and slots into the host variables.

        Returns:
            A group of assignments of RetrieveTPUEmbedding<Alg>Parameters outputs.
        """
        assigns = []
        with name_scope(self._name):
            for tname, opt in zip(self._table_names, self._optimizers):
                slots = cfg.slot_names(slots_key(opt))
                shards = self._shards(tname)
                parts: dict[str, list[Output]] = {s: [] for s in slots}
                for shard_id, _ in shards:
                    out = self._shard_op(shard_id, cfg.retrieve_op_name(slots_key(opt)),
                                         table_name=tname)
                    outs = [out] if isinstance(out, Output) else list(out)
                    for slot, value in zip(slots, outs):
                        parts[slot].append(value)
                if self._shard_devices:  # each shard into its own variable
                    for slot in slots:
                        for k, (var, value) in enumerate(zip(self._variables[tname][slot],
                                                             parts[slot])):
                            with device(self._shard_cpu(k)):
                                assigns.append(var.assign(value))
                    continue
                # Shards come back in their local row order: reorder to global row ids.
                order = np.argsort(np.concatenate([rows for _, rows in shards]), kind="stable")
                for slot in slots:
                    value = parts[slot][0] if len(shards) == 1 else gather(
                        concat(parts[slot], axis=0), order)
                    assigns.append(self._variables[tname][slot].assign(value))
            return group(*assigns, name=name or "retrieve")

    # ---- per step ----------------------------------------------------------------------------

    def enqueue(self, features: Any, weights: Any = None, training: bool = True,
                name: str | None = None) -> Operation:
        """Sends a batch of ids to the device (EnqueueTPUEmbeddingArbitraryTensorBatch).

        Args:
            features: the feature structure's inputs: dense int ids (a tensor or array of
                shape ``output_shape``, or with a trailing 1), :class:`SparseInput`,
                :class:`RaggedInput`, or an ``(indices, values[, weights])`` tuple (sparse).
            weights: None, or the same structure with None, float weights (parallel to the
                ids' values) or a SparseInput/RaggedInput whose values are the weights.
            training: False enqueues in inference mode (no update follows).
            name: the op's name.

        Returns:
            The enqueue Operation.

        Raises:
            ValueError: structure mismatch, weights for a dense input, an input of unknown
                type, or a dense input whose shape disagrees with the output shape.
        """
        flat_inputs = _flatten_up_to(self._feature_config, features, "features")
        flat_weights = ([None] * len(flat_inputs) if weights is None
                        else _flatten_up_to(self._feature_config, weights, "weights"))
        int_zeros = constant(np.zeros((0,), np.int32))
        float_zeros = constant(np.zeros((0,), np.float32))
        splits_or_indices, ids, agg_weights = [], [], []
        for (path, feature), out_shape, inp, weight in zip(
                self._paths_and_features, self._output_shapes, flat_inputs, flat_weights):
            if isinstance(inp, tuple) and not isinstance(inp, (SparseInput, RaggedInput)):
                if len(inp) not in (2, 3):
                    raise ValueError(
                        f"Sparse input {path} must be (indices, values[, weights]), got a "
                        f"tuple of length {len(inp)}")
                inp = SparseInput(*inp)
            if isinstance(inp, SparseInput):
                indices = cast(inp.indices, "int32")
                if (not feature.output_shape.rank and feature.max_sequence_length > 0
                        and _static_shape(inp.indices).rank == 2):
                    # As TensorFlow: (sample, position) becomes (sample, position, 0), one id
                    # per sequence slot of the [batch, max_sequence_length] output.
                    indices = _op("Pad")(input=indices, paddings=[[0, 0], [0, 1]])
                splits_or_indices.append(indices)
                ids.append(cast(inp.values, "int64"))
                agg_weights.append(self._weights_of(path, inp.weights, weight, float_zeros))
            elif isinstance(inp, RaggedInput):
                splits_or_indices.append(cast(inp.row_splits, "int32"))
                ids.append(cast(inp.values, "int64"))
                agg_weights.append(self._weights_of(path, inp.weights, weight, float_zeros))
            elif isinstance(inp, (Output, Variable, np.ndarray, list, numbers.Integral)):
                if weight is not None:
                    raise ValueError(
                        f"Weight specified for dense input {path}, which is not allowed. "
                        "Weight will always be 1 in this case.")
                self._check_dense_shape(path, inp, out_shape)
                splits_or_indices.append(int_zeros)
                ids.append(cast(reshape(inp, [-1]), "int64"))
                agg_weights.append(float_zeros)
            else:
                raise ValueError(
                    f"Input {path} is of unknown type {type(inp)}. Please only pass a tensor, "
                    "tm.tpu.SparseInput or tm.tpu.RaggedInput as input to enqueue.")
        mode = constant("train" if training else "inference")
        combiners = [t.combiner for t in self._tables]
        kwargs = {"name": name} if name else {}
        with name_scope(self._name):
            return _op("EnqueueTPUEmbeddingArbitraryTensorBatch")(
                sample_indices_or_row_splits=splits_or_indices,
                embedding_indices=ids,
                aggregation_weights=agg_weights,
                mode_override=mode,
                combiners=combiners,
                **kwargs,
            )

    def _weights_of(self, path: str, own: Any, given: Any, float_zeros: Output) -> Output:
        if own is not None and given is not None:
            raise ValueError(f"Weights for {path} given twice (in the input and in `weights`)")
        w = own if own is not None else given
        if w is None:
            return float_zeros
        if isinstance(w, (SparseInput, RaggedInput)):
            w = w.values
        return cast(w, "float32")

    def _check_dense_shape(self, path: str, inp: Any, out_shape: tuple[int, ...]) -> None:
        shape = _static_shape(inp)
        if shape.rank is None:
            return
        dims = shape.as_list()
        if len(dims) < 1:
            raise ValueError(
                f"Only rank 1 and above dense tensor is supported, find rank {len(dims)} "
                f"tensor for input {path}")
        if len(dims) > 1 and dims[-1] != 1 and len(dims) != len(out_shape):
            raise ValueError(
                "Rank 2 or above dense tensor should have last dimension as 1 as the last "
                f"dimension will always be reduced. Instead got dense tensor as shape {dims}")
        if len(dims) > len(out_shape) and dims[-1] == 1:
            dims = dims[:-1]
        if len(dims) != len(out_shape) or any(
                d is not None and d != o for d, o in zip(dims, out_shape)):
            raise ValueError(
                f"Inconsistent shape founded for input feature {path}, Output shape is set to "
                f"be {list(out_shape)}, But got incoming output shape {dims}")

    def dequeue(self, name: str | None = None) -> Any:
        """The activations of the last enqueued batch (RecvTPUEmbeddingActivations).

        Returns:
            The feature structure of float32 tensors, each ``output_shape + [dim]``.
        """
        kwargs = {"name": name} if name else {}
        with name_scope(self._name):
            if self._shard_devices:
                outs = self._sharded_dequeue(kwargs)
            else:
                outs = _op("RecvTPUEmbeddingActivations")(
                    num_outputs=len(self._features), config=self._config_string, **kwargs)
        flat = [outs] if isinstance(outs, Output) else list(outs)
        return _pack_as(self._feature_config, flat)

    def apply_gradients(self, gradients: Any, name: str | None = None) -> Operation:
        """Sends the activations' gradients; the device updates the tables it looked up.

        Args:
            gradients: the feature structure of gradients (None: zeros, with a warning).
            name: the op's name.

        Returns:
            The SendTPUEmbeddingGradients Operation (sharded over ps tasks: a group of each
            shard's ``_TPUEmbeddingShardApplyGradients``).

        Raises:
            ValueError: structure mismatch or a gradient of the wrong shape.
        """
        flat = _flatten_up_to(self._feature_config, gradients, "gradients")
        updated = []
        with name_scope(self._name):
            for (path, feature), out_shape, grad in zip(
                    self._paths_and_features, self._output_shapes, flat):
                full = [*out_shape, feature.table.dim]
                if grad is None:
                    _log.warning(
                        "No gradient passed for feature %s, sending zero gradient. This may "
                        "not be correct behavior for certain optimizers like Adam.", path)
                    grad = zeros(full, "float32")
                else:
                    if not isinstance(grad, (Output, np.ndarray)):
                        raise ValueError(f"found non-tensor type: {type(grad)} at path {path}.")
                    shape = _static_shape(grad)
                    if shape.rank is not None and (shape.rank != len(full) or any(
                            d is not None and d != f for d, f in zip(shape.as_list(), full))):
                        raise ValueError(
                            f"Found gradient of shape {shape} at path {path}. Expected shape "
                            f"{TensorShape(full)}.")
                    grad = identity(cast(grad, "float32"))
                updated.append(grad)
            learning_rates = [cast(fn(), "float32") for fn in self._dynamic_learning_rates]
            kwargs = {"name": name} if name else {}
            if self._shard_devices:
                return self._sharded_apply(updated, learning_rates, kwargs)
            return _op("SendTPUEmbeddingGradients")(
                inputs=updated, learning_rates=learning_rates, config=self._config_string,
                **kwargs)


    # ---- tables sharded over ps tasks (tfmini/ops/tpu_embedding/ps_shards.py) ----------------

    def _sharded_dequeue(self, kwargs: dict) -> Any:
        # The host takes the batch and names each shard's rows; each ps task gathers all of
        # its rows in one op; the host combines them into the activations.
        n_tables, n_shards = len(self._tables), len(self._shard_devices)
        ids = _as_list(_op("_TPUEmbeddingDequeueShardIds")(
            NR=n_tables * n_shards, config=self._config_string))
        rows: list[Output] = []
        for s, (dev, text) in enumerate(zip(self._shard_devices, self._shard_configs)):
            with device(dev):
                rows.extend(_as_list(_op("_TPUEmbeddingShardGather")(
                    rows=ids[s * n_tables:(s + 1) * n_tables], config=text)))
        return _op("_TPUEmbeddingCombineShardRows")(
            rows=rows, num_outputs=len(self._features), config=self._config_string, **kwargs)

    def _sharded_apply(self, gradients: list[Output], learning_rates: list[Output],
                       kwargs: dict) -> Operation:
        # The host sums each touched row's gradient and splits them by shard; each ps task
        # applies its table optimizers to its rows in one op.
        n_tables, n_shards = len(self._tables), len(self._shard_devices)
        rows, grads = _op("_TPUEmbeddingSendShardGradients")(
            inputs=gradients, NR=n_tables * n_shards, config=self._config_string)
        rows, grads = _as_list(rows), _as_list(grads)
        applies = []
        for s, (dev, text) in enumerate(zip(self._shard_devices, self._shard_configs)):
            part = slice(s * n_tables, (s + 1) * n_tables)
            with device(dev):
                applies.append(_op("_TPUEmbeddingShardApplyGradients")(
                    rows=rows[part], gradients=grads[part], learning_rates=learning_rates,
                    config=text))
        return group(*applies, name=kwargs.get("name", "apply_gradients"))


def _flat(values: Any) -> list[Variable]:
    out: list[Variable] = []
    for v in values:
        out.extend(v if isinstance(v, list) else [v])
    return out


def _as_list(outs: Any) -> list[Output]:
    return [outs] if isinstance(outs, Output) else list(outs)


def _shard_devices(cluster: Any, job: str, num_hosts: int) -> list[str]:
    """The devices of the ps tasks holding the table shards ([] without a cluster)."""
    if cluster is None:
        return []
    from tfmini.train.server_lib import ClusterSpec  # tm.tpu needs train only here

    spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
    if job not in spec.jobs:
        raise ValueError(
            f"The cluster has no job {job!r} to shard the embedding tables over (jobs: "
            f"{sorted(spec.jobs)})")
    tasks = spec.task_indices(job)
    if num_hosts not in (1, len(tasks)):
        raise ValueError(
            f"num_hosts={num_hosts} does not match the {len(tasks)} tasks of job {job!r} "
            "that hold the table shards")
    return [f"/job:{job}/replica:0/task:{k}/device:TPU:0" for k in tasks]


def slots_key(opt: _Optimizer) -> str:
    """The OptimizationParameters oneof field of a mid-level optimizer."""
    return next(iter(opt._algorithm()))


def _takes_dtype(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "dtype" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())
