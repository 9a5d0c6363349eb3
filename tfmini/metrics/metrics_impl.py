"""TF1's streaming metrics (``tensorflow/python/ops/metrics_impl.py``).

Each metric returns ``(value, update_op)``: its state lives in local variables (collections
``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``, initialised by ``tm.local_variables_initializer``)
under a variable scope made unique from the metric's name (``accuracy/total:0``); running
``update_op`` folds a batch in and returns the metric including it.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import bool_, float32, float64, int64
from tfmini.core.scope import control_dependencies
from tfmini.ops import array, math
from tfmini.ops.variables import GraphKeys, Variable, add_to_collections, variable_scope

__all__ = [
    "accuracy", "auc", "false_negatives", "false_negatives_at_thresholds", "false_positives",
    "false_positives_at_thresholds", "mean", "mean_absolute_error", "mean_iou",
    "mean_squared_error", "mean_tensor", "precision", "precision_at_thresholds", "recall",
    "recall_at_thresholds", "root_mean_squared_error", "true_negatives",
    "true_negatives_at_thresholds", "true_positives", "true_positives_at_thresholds",
]


def metric_variable(shape: list, dtype: Any, validate_shape: bool = True,
                    name: str | None = None) -> Variable:
    """A zero-initialised local variable for a metric's state."""
    # TF1 graphs (tf.compat.v1 with v2 behaviour off) keep metric state in reference
    # variables, so updates are AssignAdd ops as there.
    return Variable(
        lambda: array.zeros(shape, dtype), trainable=False, use_resource=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape, name=name)


def _collect(collections: Any, value: Any) -> None:
    if collections:
        add_to_collections(collections, value)


def _static_rank(t: Any) -> int | None:
    return len(t.shape.dims) if t.shape.dims is not None else None


def _remove_squeezable_dimensions(predictions: Any, labels: Any, weights: Any) -> tuple:
    # confusion_matrix.remove_squeezable_dimensions where ranks are known at build time:
    # a trailing axis of size 1 on one side only is squeezed.
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels = convert_to_tensor(labels)
        pr, lr = _static_rank(predictions), _static_rank(labels)
        if pr is not None and lr is not None:
            if pr - lr == 1 and predictions.shape.as_list()[-1] == 1:
                predictions = array.squeeze(predictions, [-1])
            elif lr - pr == 1 and labels.shape.as_list()[-1] == 1:
                labels = array.squeeze(labels, [-1])
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    pr, wr = _static_rank(predictions), _static_rank(weights)
    if pr is not None and wr is not None and wr != 0:
        if wr - pr == 1 and weights.shape.as_list()[-1] == 1:
            weights = array.squeeze(weights, [-1])
        elif pr - wr == 1 and predictions.shape.as_list()[-1] == 1:
            weights = array.expand_dims(weights, -1)
    return predictions, labels, weights


def _broadcast_weights(weights: Any, values: Any) -> Any:
    weights = convert_to_tensor(weights)
    if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
            weights.shape == values.shape:
        return weights
    return math.multiply(weights, array.ones_like(values))


def _compatible(a: Any, b: Any) -> None:
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")


def mean(values: Any, weights: Any = None, metrics_collections: Any = None,
         updates_collections: Any = None, name: str | None = None) -> tuple[Any, Any]:
    """The (weighted) mean of ``values`` over every batch seen: ``total / count``.

    Args:
        values: A tensor of any shape.
        weights: None, or broadcastable to ``values``.
        metrics_collections, updates_collections: Collections for the value / update op.
        name: The variable scope (default ``mean``, made unique).

    Returns:
        ``(mean, update_op)``; 0 before any update.
    """
    with variable_scope(name, "mean"):
        values = math.cast(convert_to_tensor(values), float32)
        total = metric_variable([], float32, name="total")
        count = metric_variable([], float32, name="count")
        if weights is None:
            num_values = math.cast(array.size(values), float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(math.cast(weights, float32), values)
            values = math.multiply(values, weights)
            num_values = math.reduce_sum(weights)
        update_total = total.assign_add(math.reduce_sum(values))
        with control_dependencies([values]):
            update_count = count.assign_add(num_values)
        mean_t = math.div_no_nan(total, math.maximum(count, 0.0), name="value")
        _collect(metrics_collections, mean_t)
        update_op = math.div_no_nan(update_total, math.maximum(update_count, 0.0),
                                    name="update_op")
        _collect(updates_collections, update_op)
        return mean_t, update_op


def mean_tensor(values: Any, weights: Any = None, metrics_collections: Any = None,
                updates_collections: Any = None, name: str | None = None) -> tuple[Any, Any]:
    """The element-wise (weighted) mean of ``values`` over the batches seen.

    Returns:
        ``(mean, update_op)`` of ``values``' shape (``mean/total_tensor``,
        ``mean/count_tensor`` hold the state).
    """
    with variable_scope(name, "mean"):
        values = math.cast(convert_to_tensor(values), float32)
        shape = values.shape.as_list()
        total = metric_variable(shape, float32, name="total_tensor")
        count = metric_variable(shape, float32, name="count_tensor")
        num_values = array.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(math.cast(weights, float32), values)
            values = math.multiply(values, weights)
            num_values = math.multiply(num_values, weights)
        update_total = total.assign_add(values)
        with control_dependencies([values]):
            update_count = count.assign_add(num_values)
        mean_t = math.div_no_nan(total, math.maximum(count, 0.0), name="value")
        _collect(metrics_collections, mean_t)
        update_op = math.div_no_nan(update_total, math.maximum(update_count, 0.0),
                                    name="update_op")
        _collect(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels: Any, predictions: Any, weights: Any = None,
             metrics_collections: Any = None, updates_collections: Any = None,
             name: str | None = None) -> tuple[Any, Any]:
    """How often ``predictions`` equal ``labels``: the mean of ``labels == predictions``.

    Raises:
        ValueError: incompatible shapes.
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    _compatible(predictions, labels)
    if labels.dtype != predictions.dtype:
        predictions = math.cast(predictions, labels.dtype)
    is_correct = math.cast(math.equal(predictions, labels), float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels: Any, predictions: Any, weights: Any = None,
                        metrics_collections: Any = None, updates_collections: Any = None,
                        name: str | None = None) -> tuple[Any, Any]:
    """The mean of ``|predictions - labels|`` over the batches seen."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = math.abs(math.subtract(predictions, labels))
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                       metrics_collections: Any = None, updates_collections: Any = None,
                       name: str | None = None) -> tuple[Any, Any]:
    """The mean of ``(labels - predictions)²`` over the batches seen."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = math.squared_difference(labels, predictions)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                            metrics_collections: Any = None, updates_collections: Any = None,
                            name: str | None = None) -> tuple[Any, Any]:
    """The square root of :func:`mean_squared_error` (the value is an unscoped ``Sqrt``)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = math.squared_difference(labels, predictions)
    mse, update_mse = mean(errors, weights, None, None, name or "root_mean_squared_error")
    rmse = math.sqrt(mse)
    _collect(metrics_collections, rmse)
    update_op = math.sqrt(update_mse)
    _collect(updates_collections, update_op)
    return rmse, update_op


def _count_condition(values: Any, weights: Any, metrics_collections: Any,
                     updates_collections: Any) -> tuple[Any, Any]:
    count = metric_variable([], float32, name="count")
    values = math.cast(values, float32)
    if weights is not None:
        values = math.multiply(values, _broadcast_weights(math.cast(weights, float32), values))
    value = array.identity(count)
    _collect(metrics_collections, value)
    update_op = count.assign_add(math.reduce_sum(values))
    _collect(updates_collections, update_op)
    return value, update_op


def _make_count(default: str, want_label: bool, want_pred: bool):
    def metric(labels: Any, predictions: Any, weights: Any = None,
               metrics_collections: Any = None, updates_collections: Any = None,
               name: str | None = None) -> tuple[Any, Any]:
        with variable_scope(name, default):
            p, lab, w = _remove_squeezable_dimensions(
                math.cast(convert_to_tensor(predictions), bool_),
                math.cast(convert_to_tensor(labels), bool_), weights)
            hit = math.logical_and(math.equal(lab, want_label), math.equal(p, want_pred))
            return _count_condition(hit, w, metrics_collections, updates_collections)

    metric.__name__ = default
    metric.__doc__ = (f"The (weighted) number of {default.replace('_', ' ')} over the batches "
                      "seen.\n\n    Returns:\n        ``(count, update_op)``.\n")
    return metric


true_positives = _make_count("true_positives", True, True)
false_positives = _make_count("false_positives", False, True)
true_negatives = _make_count("true_negatives", False, False)
false_negatives = _make_count("false_negatives", True, False)


def _ratio(num: Any, other: Any, name: str) -> Any:
    total = math.add(num, other)
    return math.where(math.greater(total, 0.0), math.divide(num, total), 0.0, name=name)


def _tp_ratio(name: str | None, default_name: str, labels: Any, predictions: Any, weights: Any,
              other: Any, metrics_collections: Any, updates_collections: Any):
    """``tp / (tp + other)`` over the batches seen, where ``other`` counts false positives
    (precision) or false negatives (recall), built as TensorFlow's metrics_impl builds both."""
    with variable_scope(name, default_name):
        p, lab, w = _remove_squeezable_dimensions(
            math.cast(convert_to_tensor(predictions), bool_),
            math.cast(convert_to_tensor(labels), bool_), weights)
        tp, tp_up = true_positives(lab, p, w)
        o, o_up = other(lab, p, w)
        value = _ratio(tp, o, "value")
        update_op = _ratio(tp_up, o_up, "update_op")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def precision(labels: Any, predictions: Any, weights: Any = None,
              metrics_collections: Any = None, updates_collections: Any = None,
              name: str | None = None) -> tuple[Any, Any]:
    """``tp / (tp + fp)`` over the batches seen (0 when nothing was predicted positive)."""
    return _tp_ratio(name, "precision", labels, predictions, weights, false_positives,
                     metrics_collections, updates_collections)


def recall(labels: Any, predictions: Any, weights: Any = None,
           metrics_collections: Any = None, updates_collections: Any = None,
           name: str | None = None) -> tuple[Any, Any]:
    """``tp / (tp + fn)`` over the batches seen (0 when there were no positive labels)."""
    return _tp_ratio(name, "recall", labels, predictions, weights, false_negatives,
                     metrics_collections, updates_collections)


_ALL_INCLUDES = ("tp", "fn", "tn", "fp")
_INCLUDE_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                  "fp": "false_positives"}


def _confusion_matrix_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                                    weights: Any = None, includes: tuple = _ALL_INCLUDES):
    predictions, labels, weights = _remove_squeezable_dimensions(
        math.cast(convert_to_tensor(predictions), float32),
        math.cast(convert_to_tensor(labels), bool_), weights)
    n = len(thresholds)
    pred_2d = array.reshape(predictions, [-1, 1])
    labels_2d = array.reshape(labels, [1, -1])
    thresh = array.tile(array.expand_dims(array.constant(thresholds, dtype=float32), 1),
                        array.stack([1, array.shape(pred_2d)[0]]))
    pred_pos = math.greater(array.tile(array.transpose(pred_2d), [n, 1]), thresh)
    pred_neg = math.logical_not(pred_pos)
    label_pos = array.tile(labels_2d, [n, 1])
    label_neg = math.logical_not(label_pos)
    weights_tiled = None
    if weights is not None:
        w = _broadcast_weights(math.cast(weights, float32), predictions)
        weights_tiled = array.tile(array.reshape(w, [1, -1]), [n, 1])
    conditions = {"tp": (label_pos, pred_pos), "fn": (label_pos, pred_neg),
                  "tn": (label_neg, pred_neg), "fp": (label_neg, pred_pos)}
    values, updates = {}, {}
    for key in _ALL_INCLUDES:
        if key not in includes:
            continue
        var = metric_variable([n], float32, name=_INCLUDE_NAMES[key])
        hit = math.cast(math.logical_and(*conditions[key]), float32)
        if weights_tiled is not None:
            hit = math.multiply(hit, weights_tiled)
        updates[key] = var.assign_add(math.reduce_sum(hit, 1))
        values[key] = var
    return values, updates


def auc(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
        metrics_collections: Any = None, updates_collections: Any = None, curve: str = "ROC",
        name: str | None = None, summation_method: str = "trapezoidal",
        thresholds: Any = None) -> tuple[Any, Any]:
    """The area under the ROC or PR curve, by a Riemann sum over ``num_thresholds``
    thresholds (``[-1e-7, 1/(n-1), ..., (n-2)/(n-1), 1 + 1e-7]``; positive means
    ``prediction > threshold``).

    Args:
        labels: Bool-castable, ``predictions``' shape.
        predictions: Floats in [0, 1].
        weights: None or broadcastable to ``predictions``.
        num_thresholds: Number of thresholds (ignored when ``thresholds`` is given).
        curve: ``"ROC"`` or ``"PR"``.
        summation_method: ``"trapezoidal"``, ``"minoring"``, ``"majoring"`` or
            ``"careful_interpolation"`` (PR: the interpolation of Davis & Goadrich).
        thresholds: Explicit thresholds in (0, 1), sorted here.
        metrics_collections, updates_collections, name: As for :func:`mean`.

    Raises:
        ValueError: an unknown ``curve`` or ``summation_method``.
    """
    with variable_scope(name, "auc"):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        if summation_method not in ("trapezoidal", "careful_interpolation", "minoring",
                                    "majoring"):
            raise ValueError(f"Invalid summation_method: {summation_method}")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                          for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + list(thresholds) + [1.0 + kepsilon]
        values, updates = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                          weights)
        epsilon = 1.0e-6
        n = num_thresholds

        def interpolate_pr_auc(tp, fp, fn, name):
            dtp = math.subtract(tp[:n - 1], tp[1:])
            p = math.add(tp, fp)
            prec_slope = math.div_no_nan(dtp, math.maximum(math.subtract(p[:n - 1], p[1:]), 0))
            intercept = math.subtract(tp[1:], math.multiply(prec_slope, p[1:]))
            safe_p_ratio = math.where(
                math.logical_and(math.greater(p[:n - 1], 0), math.greater(p[1:], 0)),
                math.div_no_nan(p[:n - 1], math.maximum(p[1:], 0)), array.ones_like(p[1:]))
            return math.reduce_sum(math.div_no_nan(
                math.multiply(prec_slope, math.add(dtp, math.multiply(intercept,
                                                                      math.log(safe_p_ratio)))),
                math.maximum(math.add(tp[1:], fn[1:]), 0)), name=name)

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR" and summation_method == "careful_interpolation":
                # TensorFlow names it after the helper, not value/update_op.
                return interpolate_pr_auc(tp, fp, fn, "interpolate_pr_auc")
            rec = math.divide(math.add(tp, epsilon), math.add(math.add(tp, fn), epsilon))
            if curve == "ROC":
                x = math.divide(fp, math.add(math.add(fp, tn), epsilon))
                y = rec
            else:
                x = rec
                y = math.divide(math.add(tp, epsilon), math.add(math.add(tp, fp), epsilon))
            width = math.subtract(x[:n - 1], x[1:])
            if summation_method in ("trapezoidal", "careful_interpolation"):
                height = math.truediv(math.add(y[:n - 1], y[1:]), 2.0)
            elif summation_method == "minoring":
                height = math.minimum(y[:n - 1], y[1:])
            else:
                height = math.maximum(y[:n - 1], y[1:])
            return math.reduce_sum(math.multiply(width, height), name=name)

        value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        _collect(metrics_collections, value)
        update_op = compute_auc(updates["tp"], updates["fn"], updates["tn"], updates["fp"],
                                "update_op")
        _collect(updates_collections, update_op)
        return value, update_op


def _make_at_thresholds(key: str):
    default = _INCLUDE_NAMES[key]

    def metric(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
               metrics_collections: Any = None, updates_collections: Any = None,
               name: str | None = None) -> tuple[Any, Any]:
        with variable_scope(name, default):
            values, updates = _confusion_matrix_at_thresholds(
                labels, predictions, list(thresholds), weights, includes=(key,))
            value = array.identity(values[key])
            _collect(metrics_collections, value)
            _collect(updates_collections, updates[key])
            return value, updates[key]

    metric.__name__ = f"{default}_at_thresholds"
    metric.__doc__ = (f"The (weighted) {default.replace('_', ' ')} for each threshold "
                      "(positive means ``prediction > threshold``).\n\n    Returns:\n"
                      "        ``(counts, update_op)``, one count per threshold.\n")
    return metric


true_positives_at_thresholds = _make_at_thresholds("tp")
false_positives_at_thresholds = _make_at_thresholds("fp")
true_negatives_at_thresholds = _make_at_thresholds("tn")
false_negatives_at_thresholds = _make_at_thresholds("fn")


def _rate_at_thresholds(default: str, other: str):
    def metric(labels: Any, predictions: Any, thresholds: Any, weights: Any = None,
               metrics_collections: Any = None, updates_collections: Any = None,
               name: str | None = None) -> tuple[Any, Any]:
        with variable_scope(name, default):
            values, updates = _confusion_matrix_at_thresholds(
                labels, predictions, list(thresholds), weights, includes=("tp", other))
            epsilon = 1e-7

            def compute(tp, o, name):
                return math.divide(tp, math.add(math.add(epsilon, tp), o), name=name)

            prefix = default.split("_")[0] + "_"
            value = compute(values["tp"], values[other], prefix + "value")
            _collect(metrics_collections, value)
            update_op = compute(updates["tp"], updates[other], prefix + "update_op")
            _collect(updates_collections, update_op)
            return value, update_op

    metric.__name__ = default
    metric.__doc__ = (f"``tp / (tp + {other} + 1e-7)`` for each threshold.\n\n    Returns:\n"
                      "        ``(values, update_op)``, one value per threshold.\n")
    return metric


precision_at_thresholds = _rate_at_thresholds("precision_at_thresholds", "fp")
recall_at_thresholds = _rate_at_thresholds("recall_at_thresholds", "fn")


def mean_iou(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
             metrics_collections: Any = None, updates_collections: Any = None,
             name: str | None = None) -> tuple[Any, Any]:
    """The mean over classes of intersection over union, from a running confusion matrix
    (``mean_iou/total_confusion_matrix``, float64). Classes never seen are left out.

    Returns:
        ``(mean_iou, update_op)``; ``update_op`` returns the updated confusion matrix.

    Raises:
        ValueError: incompatible shapes.
    """
    with variable_scope(name, "mean_iou"):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        _compatible(predictions, labels)
        total_cm = metric_variable([num_classes, num_classes], float64,
                                   name="total_confusion_matrix")
        p = array.reshape(math.cast(predictions, int64), [-1])
        lab = array.reshape(math.cast(labels, int64), [-1])
        if weights is None:
            w = math.cast(array.ones_like(p), float64)
        else:
            w = array.reshape(_broadcast_weights(math.cast(convert_to_tensor(weights), float64),
                                                 math.cast(predictions, float64)), [-1])
        indices = array.stack([lab, p], axis=1)
        current = array.scatter_nd(indices, w, array.constant([num_classes, num_classes],
                                                              dtype=int64))
        update_op = total_cm.assign_add(current)
        _collect(updates_collections, update_op)

        def compute(cm, name):
            rows = math.cast(math.reduce_sum(cm, 0), float32)
            cols = math.cast(math.reduce_sum(cm, 1), float32)
            diag = math.cast(math.reduce_sum(math.multiply(
                cm, array.constant(_eye(num_classes), dtype=float64)), 1), float32)
            denominator = math.subtract(math.add(rows, cols), diag)
            valid = math.reduce_sum(math.cast(math.not_equal(denominator, 0), float32))
            denominator = math.where(math.greater(denominator, 0), denominator,
                                     array.ones_like(denominator))
            iou = math.divide(diag, denominator)
            # TensorFlow names the reduction, not the result (``mean_iou/Select_1``).
            return math.where(math.greater(valid, 0),
                              math.truediv(math.reduce_sum(iou, name=name), valid), 0.0)

        value = compute(total_cm, "mean_iou")
        _collect(metrics_collections, value)
        return value, update_op


def _eye(n: int):
    import numpy as np

    return np.eye(n)
