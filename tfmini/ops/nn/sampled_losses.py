"""``tm.nn.nce_loss`` and ``tm.nn.sampled_softmax_loss``, built op for op as TensorFlow's
``tensorflow/python/ops/nn_impl.py`` builds them (``_compute_sampled_logits``, ``_sum_rows``),
in its v1 form (``partition_strategy="mod"``).

The logits of the true classes and of ``num_sampled`` sampled classes (by default from
``log_uniform_candidate_sampler``, unique, ``range_max=num_classes``) are formed from rows of
the weights found with ``embedding_lookup``, so the weights' gradient is an IndexedSlices; then
``log(expected_count)`` is subtracted from both. The sampler's outputs are not differentiated
(``stop_gradient``).
"""

from __future__ import annotations

from typing import Any

from tfmini.core import dtypes
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.nn.candidate_sampling_ops import (
    compute_accidental_hits,
    log_uniform_candidate_sampler,
)
from tfmini.ops.nn.composite import sigmoid_cross_entropy_with_logits
from tfmini.ops.nn.embedding_ops import embedding_lookup
from tfmini.ops.nn.nn_ops import softmax_cross_entropy_with_logits_v2

__all__ = ["nce_loss", "sampled_softmax_loss"]


def _sum_rows(x: Output) -> Output:
    # A matmul with a column of ones, not reduce_sum: TensorFlow chose it for its cheaper
    # gradient, and it fixes the float32 summation order of the result.
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true=1, sampled_values=None, subtract_log_q=True,
                            remove_accidental_hits=False, partition_strategy="mod",
                            name=None, seed=None):
    if not isinstance(weights, list):
        weights = list(weights) if isinstance(weights, tuple) else [weights]
    with name_scope(name, "compute_sampled_logits"):
        labels = convert_to_tensor(labels)
        inputs = convert_to_tensor(inputs)
        if labels.dtype != dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        n_true = array_ops.shape(labels_flat)[0]
        true_w = array_ops.slice(all_w, [0, 0], array_ops.stack([n_true, -1]))
        sampled_w = array_ops.slice(all_w, array_ops.stack([n_true, 0]), [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                          array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = compute_accidental_hits(
                labels, sampled, num_true=num_true)
            acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
            acc_ids_2d_int32 = array_ops.reshape(math_ops.cast(acc_ids, dtypes.int32), [-1, 1])
            sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1,
                                              "sparse_indices")
            sampled_logits_shape = array_ops.concat(
                [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype != acc_weights.dtype:
                acc_weights = math_ops.cast(acc_weights, sampled_logits.dtype)
            sampled_logits += array_ops.sparse_to_dense(
                sparse_indices, sampled_logits_shape, acc_weights, default_value=0.0,
                validate_indices=False)
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([
            array_ops.ones_like(true_logits) / num_true,
            array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
             num_classes: int, num_true: int = 1, sampled_values: Any = None,
             remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss") -> Output:
    """Noise-contrastive estimation loss per example (``tf.compat.v1.nn.nce_loss``).

    Args:
        weights: ``[num_classes, dim]`` tensor or variable, or a list of shards.
        biases: ``[num_classes]`` class biases.
        labels: int ``[batch_size, num_true]`` target classes.
        inputs: ``[batch_size, dim]`` activations.
        num_sampled: Negative classes sampled per batch.
        num_classes: Number of possible classes.
        num_true: Target classes per example.
        sampled_values: A ``(sampled, true_expected_count, sampled_expected_count)`` tuple
            from a candidate sampler; the default is a unique log-uniform sampler.
        remove_accidental_hits: Whether sampled classes equal to a target are masked out.
        partition_strategy: ``"mod"`` or ``"div"``, for sharded ``weights``.
        name: Name scope.

    Returns:
        ``[batch_size]`` losses: the sigmoid cross entropies of the true and sampled logits,
        summed per example.
    """
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name)
    sampled_losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                       name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any,
                         num_sampled: int, num_classes: int, num_true: int = 1,
                         sampled_values: Any = None, remove_accidental_hits: bool = True,
                         partition_strategy: str = "mod", name: str = "sampled_softmax_loss",
                         seed: int | None = None) -> Output:
    """Softmax cross entropy over the true and sampled classes
    (``tf.compat.v1.nn.sampled_softmax_loss``). Arguments as :func:`nce_loss`;
    ``remove_accidental_hits`` defaults to True and ``seed`` seeds the default sampler.

    Returns:
        ``[batch_size]`` losses.
    """
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs,
        num_sampled=num_sampled, num_classes=num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name, seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
