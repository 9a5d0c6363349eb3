"""TF1's loss functions (``tensorflow/python/ops/losses/losses_impl.py``): per-element losses
reduced by :func:`compute_weighted_loss` and added to the ``LOSSES`` collection."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import float32
from tfmini.core.scope import name_scope
from tfmini.ops import array, math, nn
from tfmini.ops.variables import GraphKeys, add_to_collection

__all__ = [
    "Reduction", "absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
    "hinge_loss", "huber_loss", "log_loss", "mean_pairwise_squared_error",
    "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


class Reduction:
    """How :func:`compute_weighted_loss` reduces weighted per-element losses.

    * ``NONE``: the weighted losses, unreduced;
    * ``SUM``: their sum;
    * ``MEAN``: the sum over the sum of the (broadcast) weights;
    * ``SUM_OVER_BATCH_SIZE``: the sum over the number of elements;
    * ``SUM_BY_NONZERO_WEIGHTS`` (default; alias ``SUM_OVER_NONZERO_WEIGHTS``): the sum over
      the number of nonzero (broadcast) weights.
    """

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        """Every reduction key."""
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: str) -> None:
        """Raises ``ValueError`` for an unknown key."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


def add_loss(loss: Any, loss_collection: str | None = GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to ``loss_collection`` (nothing when it is None)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def _check_broadcastable(weights: Any, values: Any) -> None:
    # weights_broadcast_ops.assert_broadcastable, where the shapes are known at build time.
    w, v = weights.shape, values.shape
    if w.dims is None or v.dims is None:
        return
    wd, vd = w.as_list(), v.as_list()
    if len(wd) == 0:
        return
    ok = len(wd) == len(vd) and all(
        a is None or b is None or a == 1 or a == b for a, b in zip(wd, vd))
    if not ok:
        if len(wd) != len(vd):
            raise ValueError(
                f"weights can not be broadcast to values. values.rank={len(vd)}. "
                f"weights.rank={len(wd)}. values.shape={v}. weights.shape={w}.")
        raise ValueError(f"weights can not be broadcast to values. values.shape={v}. "
                         f"weights.shape={w}.")


def _safe_mean(total: Any, count: Any) -> Any:
    return math.div_no_nan(total, count, name="value")


def _num_elements(losses: Any) -> Any:
    with name_scope(None, "num_elements"):
        return math.cast(array.size(losses), losses.dtype)


def _num_present(losses: Any, weights: Any, per_batch: bool = False) -> Any:
    # A Python float weight other than 0 counts every element (TensorFlow's fast path).
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present"):
        weights = math.cast(weights, float32)
        present = math.where(math.equal(weights, 0.0), array.zeros_like(weights),
                              array.ones_like(weights))
        present = math.multiply(present, array.ones_like(losses))
        if per_batch:
            return math.reduce_sum(present, axis=array.range(1, array.rank(present)),
                                   keepdims=True)
        return math.reduce_sum(present)


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: str | None = None,
                          loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """``losses * weights`` reduced by ``reduction`` and added to ``loss_collection``.

    Args:
        losses: Per-element losses.
        weights: Broadcastable to ``losses`` (rank 0, or the same rank with each axis 1 or
            equal).
        scope: Name scope (default ``weighted_loss``).
        loss_collection: Where the loss goes (None: nowhere).
        reduction: A :class:`Reduction` key.

    Returns:
        The loss, in ``losses``' dtype (a scalar unless ``reduction`` is NONE).

    Raises:
        ValueError: an unknown reduction; ``weights`` not broadcastable to ``losses``.
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss"):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        w = convert_to_tensor(weights)
        _check_broadcastable(w, losses)
        losses = math.cast(losses, float32)
        w = math.cast(w, float32)
        weighted = math.multiply(losses, w)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = math.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, math.reduce_sum(
                    math.multiply(array.ones_like(losses), w)))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_mean(loss, _num_elements(losses))
        loss = math.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


def _require(labels: Any, predictions: Any, second: str = "predictions") -> None:
    if labels is None:
        raise ValueError("Argument `labels` must not be None.")
    if predictions is None:
        raise ValueError(f"Argument `{second}` must not be None.")


def _compatible(a: Any, b: Any) -> None:
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")


def _pair(labels: Any, predictions: Any) -> tuple[Any, Any]:
    predictions = math.cast(convert_to_tensor(predictions), float32)
    labels = math.cast(convert_to_tensor(labels), float32)
    _compatible(predictions, labels)
    return labels, predictions


def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0,
                        scope: str | None = None,
                        loss_collection: str | None = GraphKeys.LOSSES,
                        reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``|labels - predictions|`` (see :func:`compute_weighted_loss`).

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(labels, predictions)
    with name_scope(scope, "absolute_difference") as scope:
        labels, predictions = _pair(labels, predictions)
        losses = math.abs(math.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                       scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``(labels - predictions)²`` (see :func:`compute_weighted_loss`).

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(labels, predictions)
    with name_scope(scope, "mean_squared_error") as scope:
        labels, predictions = _pair(labels, predictions)
        losses = math.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0,
               scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted Huber loss: ``½a²`` for ``a = |error| <= delta``, else ``delta·a - ½delta²``.

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(labels, predictions)
    with name_scope(scope, "huber_loss") as scope:
        labels, predictions = _pair(labels, predictions)
        abs_error = math.abs(math.subtract(predictions, labels))
        quadratic = math.minimum(abs_error, delta)
        linear = math.subtract(abs_error, quadratic)
        losses = math.add(math.multiply(0.5, math.multiply(quadratic, quadratic)),
                          math.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: str | None = None,
               loss_collection: str | None = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``max(0, 1 - (2·labels - 1)·logits)`` for labels in {0, 1}.

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(labels, logits, "logits")
    with name_scope(scope, "hinge_loss") as scope:
        labels, logits = _pair(labels, logits)
        ones = array.ones_like(labels)
        signed = math.subtract(math.multiply(2.0, labels), ones)
        losses = nn.relu(math.subtract(ones, math.multiply(signed, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7,
             scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
             reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``-y·ln(p + ε) - (1 - y)·ln(1 - p + ε)``.

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(labels, predictions)
    with name_scope(scope, "log_loss") as scope:
        labels, predictions = _pair(labels, predictions)
        losses = math.subtract(
            math.negative(math.multiply(labels, math.log(math.add(predictions, epsilon)))),
            math.multiply(math.subtract(1.0, labels),
                          math.log(math.add(math.subtract(1.0, predictions), epsilon))))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def cosine_distance(labels: Any, predictions: Any, axis: int | None = None,
                    weights: Any = 1.0, scope: str | None = None,
                    loss_collection: str | None = GraphKeys.LOSSES,
                    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim: int | None = None) -> Any:
    """Weighted ``1 - Σ_axis labels·predictions`` (inputs assumed unit-normalised).

    Raises:
        ValueError: no ``axis``; a None argument; incompatible shapes; bad weights.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _require(labels, predictions)
    with name_scope(scope, "cosine_distance_loss") as scope:
        labels, predictions = _pair(labels, predictions)
        radial = math.multiply(predictions, labels)
        losses = math.subtract(1.0, math.reduce_sum(radial, axis=(axis,), keepdims=True))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_pairwise_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                                scope: str | None = None,
                                loss_collection: str | None = GraphKeys.LOSSES) -> Any:
    """For each batch item, the mean over pairs ``(i, j)`` of ``((p_i - y_i) - (p_j - y_j))²``,
    weighted per item and summed over the batch.

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(labels, predictions)
    with name_scope(scope, "mean_pairwise_squared_error"):
        labels, predictions = _pair(labels, predictions)
        w = math.cast(convert_to_tensor(weights), float32)
        diffs = math.subtract(predictions, labels)
        axis = array.range(1, array.rank(diffs))
        sum_sq = math.reduce_sum(math.square(diffs), axis=axis, keepdims=True)
        n = _num_present(diffs, w, per_batch=True)
        term1 = math.multiply(2.0, math.div_no_nan(
            sum_sq, math.maximum(math.subtract(n, 1.0), 0.0), name="value"))
        sum_diff = math.reduce_sum(diffs, axis=axis, keepdims=True)
        term2 = math.multiply(2.0, math.div_no_nan(
            math.square(sum_diff), math.maximum(math.multiply(n, math.subtract(n, 1.0)), 0.0),
            name="value"))
        weighted = math.multiply(math.subtract(term1, term2), w)
        loss = math.reduce_sum(weighted)
        mean_loss = math.where(math.greater(math.reduce_sum(n), 0.0), loss,
                                array.zeros_like(loss), name="value")
        add_loss(mean_loss, loss_collection)
        return mean_loss


def sigmoid_cross_entropy(multi_class_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None,
                          loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted sigmoid cross-entropy; labels smoothed towards ½ by ``label_smoothing``.

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(multi_class_labels, logits, "logits")
    with name_scope(scope, "sigmoid_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        labels = math.cast(convert_to_tensor(multi_class_labels), logits.dtype)
        _compatible(logits, labels)
        if label_smoothing > 0:
            labels = math.add(math.multiply(labels, 1 - label_smoothing),
                              0.5 * label_smoothing)
        losses = nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                      name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None,
                          loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross-entropy per row; labels smoothed as
    ``y·(1 - s) + s / num_classes``.

    Raises:
        ValueError: a None argument; incompatible shapes; bad weights.
    """
    _require(onehot_labels, logits, "logits")
    with name_scope(scope, "softmax_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        labels = math.cast(convert_to_tensor(onehot_labels), logits.dtype)
        _compatible(logits, labels)
        if label_smoothing > 0:
            num_classes = math.cast(array.shape(labels)[-1], logits.dtype)
            labels = math.add(math.multiply(labels, 1.0 - label_smoothing),
                              math.truediv(label_smoothing, num_classes))
        labels = array.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                         name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sparse_softmax_cross_entropy(labels: Any, logits: Any, weights: Any = 1.0,
                                 scope: str | None = None,
                                 loss_collection: str | None = GraphKeys.LOSSES,
                                 reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross-entropy of integer class labels (``[batch]`` or ``[batch, 1]``).

    Raises:
        ValueError: a None argument; labels' rank not logits' rank - 1; bad weights.
    """
    _require(labels, logits, "logits")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss") as scope:
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        if labels.shape.dims is not None and logits.shape.dims is not None:
            if len(labels.shape.dims) == len(logits.shape.dims) and \
                    labels.shape.as_list()[-1] == 1:
                labels = array.squeeze(labels, [-1])
        if not isinstance(weights, (int, float)):
            weights = convert_to_tensor(weights)
            if weights.shape.dims is not None and logits.shape.dims is not None and \
                    len(weights.shape.dims) == len(logits.shape.dims) and \
                    weights.shape.as_list()[-1] == 1:
                weights = array.squeeze(weights, [-1])
        losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)
