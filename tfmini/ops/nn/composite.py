"""``tm.nn`` functions built from other ops (they register no op of their own), as
TensorFlow's ``nn_impl.py`` builds them: gradients come from the ops they are made of.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.ops import math as math_ops
from tfmini.ops.nn import nn_ops as nn_ops


def sigmoid_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, name: str | None = None) -> Output:
    """Elementwise logistic loss (``tf.nn.sigmoid_cross_entropy_with_logits``).

    Computed in TensorFlow's stable form ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for
    logits ``x`` and labels ``z``.

    Raises:
        ValueError: called positionally, or ``labels`` and ``logits`` differ in shape.
    """
    if _sentinel is not None:
        raise ValueError(
            "Only call `sigmoid_cross_entropy_with_logits` with named arguments (labels=..., "
            "logits=..., ...)."
        )
    with name_scope(name, "logistic_loss") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype=logits.dtype, name="labels")
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(
                f"logits and labels must have the same shape ({logits.shape} vs {labels.shape})"
            )
        relu_logits = nn_ops.relu(logits)
        neg_abs_logits = math_ops.negative(math_ops.abs(logits))
        return math_ops.add(
            math_ops.subtract(relu_logits, math_ops.multiply(logits, labels)),
            math_ops.log1p(math_ops.exp(neg_abs_logits)),
            name=scope,
        )


__all__ = ["sigmoid_cross_entropy_with_logits"]
