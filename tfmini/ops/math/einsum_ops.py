"""Einsum (``tm.einsum``) and ``tm.tensordot`` (built as TensorFlow builds it: Transpose,
Reshape, MatMul, Reshape).

The Einsum kernel is ``np.einsum`` (TensorFlow's ``einsum_op_impl.h`` contracts with
batched matmuls; values agree to rounding). Equations are TensorFlow's: lowercase and
uppercase labels, ``...`` for broadcast dimensions, and an explicit ``->`` or NumPy's
implicit output (labels appearing once, sorted).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.math.matmul_ops import matmul

_LABELS = re.compile(r"^([a-zA-Z]|\.\.\.)*$")


def parse_equation(equation: str, num_inputs: int) -> tuple[list[str], str]:
    """The input subscripts and the output subscript of an einsum equation (``...`` kept).

    Raises:
        ValueError: the equation is malformed or names a different number of inputs.
    """
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != num_inputs:
        raise ValueError(f'Got {num_inputs} inputs for equation "{equation}", expecting '
                         f"{len(inputs)}")
    for sub in [*inputs, rhs]:
        if not _LABELS.match(sub):
            raise ValueError(f"Invalid Einsum equation: '{equation}'")
    if not arrow:
        labels = "".join(inputs).replace("...", "")
        once = sorted(c for c in set(labels) if labels.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    for c in rhs.replace("...", ""):
        if c not in lhs:
            raise ValueError(f"Invalid Einsum equation: '{equation}'; output label {c!r} does "
                             "not appear in the inputs")
    return inputs, rhs


def _einsum_shape(ic) -> list[TensorShape]:
    shapes = [as_shape(s) for s in ic.input_shape(0)]
    inputs, rhs = parse_equation(ic.attrs["equation"], len(shapes))
    dims: dict[str, int | None] = {}
    ellipsis: TensorShape | None = TensorShape([])
    for sub, shape in zip(inputs, shapes):
        labels = sub.replace("...", "")
        if shape.dims is None:
            if "..." in sub:
                ellipsis = None
            for c in labels:
                dims.setdefault(c, None)
            continue
        n_ell = len(shape.dims) - len(labels)
        if n_ell < 0 or (n_ell and "..." not in sub):
            raise ValueError(f"Expected input to have rank {len(labels)} but got: "
                             f"{len(shape.dims)}")
        head, _, _ = sub.partition("...")
        ell_dims = list(shape.dims[len(head):len(head) + n_ell]) if "..." in sub else []
        rest = list(shape.dims[:len(head)]) + list(shape.dims[len(head) + n_ell:])
        for c, d in zip(labels, rest):
            if c in dims and dims[c] is not None and d is not None and dims[c] != d:
                raise ValueError(f"Expected dimension {dims[c]} at axis of the input shaped "
                                 f"{shape} but got dimension {d}")
            dims[c] = d if dims.get(c) is None else dims[c]
        if ellipsis is not None and ell_dims:
            ellipsis = shape_fns.broadcast_shapes(ellipsis, TensorShape(ell_dims))
    out: list = []
    head, sep, tail = rhs.partition("...")
    out += [dims.get(c) for c in head]
    if sep:
        if ellipsis is None:
            return [unknown_shape()]
        out += list(ellipsis.dims)
    out += [dims.get(c) for c in tail]
    return [TensorShape(out)]


@register_op(
    "Einsum",
    inputs=["inputs: N * T"],
    outputs=["output: T"],
    attrs=["equation: string", "N: int >= 1", "T: type"],
    shape_fn=_einsum_shape,
)
def einsum_kernel(inputs, *, equation):
    """Tensor contraction by subscript labels."""
    try:
        out = np.einsum(equation.replace(" ", ""), *inputs)
    except ValueError as e:
        raise invalid_argument(f"Einsum '{equation}': {e}") from None
    return np.asarray(out, dtype=inputs[0].dtype)


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Output:
    """Tensor contraction by subscripts (``tf.einsum``, op ``Einsum``).

    Args:
        equation: e.g. ``"ij,jk->ik"``; ``...`` broadcasts, no ``->`` means NumPy's implicit
            output.
        *inputs: The tensors.
        **kwargs: ``name``.

    Returns:
        The contraction.

    Raises:
        ValueError: a malformed equation or shapes that do not match it.
        TypeError: an unknown keyword.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: "
                        f"{', '.join(sorted(kwargs))}. Expected: name.")
    with name_scope(name, "einsum", list(inputs)):
        ts = [as_operand(x) for x in inputs]
        ins, rhs = parse_equation(equation, len(ts))
        return build_output("Einsum", [ts], {"equation": ",".join(ins) + "->" + rhs})


# ----------------------------------------------------------------------------------------
# tensordot


def _tensordot_axes(a: Output, axes: Any) -> tuple[list[int], list[int]]:
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        rank = a.shape.rank
        if axes > rank:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of "
                             f"tensor {a}.  Received {axes}, vs tensor dimensions {rank}.")
        return list(range(rank - axes, rank)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        a_axes, b_axes = list(a_axes), list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, "
                             f"{len(a_axes)} != {len(b_axes)}.")
        return a_axes, b_axes
    raise ValueError(f"`axes` must be an integer or a pair of axis lists, got {axes!r}.")


def _tensordot_reshape(a: Output, axes: Sequence[int], flipped: bool = False):
    shape = a.shape.dims
    rank = len(shape)
    axes = [i if i >= 0 else i + rank for i in axes]
    free = [i for i in range(rank) if i not in axes]
    free_dims = [shape[i] for i in free]
    prod_free = int(np.prod([shape[i] for i in free], dtype=np.int64))
    prod_axes = int(np.prod([shape[i] for i in axes], dtype=np.int64))
    perm = axes + free if flipped else free + axes
    new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
    trans = a if perm == list(range(rank)) else array_ops.transpose(a, perm)
    if list(trans.shape.dims) != new_shape:
        trans = array_ops.reshape(trans, new_shape)
    return trans, free_dims


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Output:
    """Sums products over the given axes of a and b (``tf.tensordot``).

    With fully known shapes it builds what TensorFlow builds (Transpose, Reshape, MatMul,
    Reshape); otherwise an equivalent Einsum.

    Args:
        a: A float tensor.
        b: A tensor of a's dtype.
        axes: An int N (last N of a with first N of b) or ``[a_axes, b_axes]``.
        name: Name scope (default ``Tensordot``).

    Returns:
        Shape ``a's free dims + b's free dims``.

    Raises:
        ValueError: bad ``axes``.
    """
    with name_scope(name, "Tensordot", [a, b, axes]):
        a = as_operand(a, None)
        b = as_operand(b, a.dtype)
        a_axes, b_axes = _tensordot_axes(a, axes)
        if a.shape.is_fully_defined() and b.shape.is_fully_defined():
            a_r, a_free = _tensordot_reshape(a, a_axes)
            b_r, b_free = _tensordot_reshape(b, b_axes, True)
            product = matmul(a_r, b_r)
            if list(product.shape.dims) == a_free + b_free:
                return product
            return array_ops.reshape(product, a_free + b_free)
        letters = "abcdefghijklmnopqrstuvwxyz"
        ra, rb = a.shape.rank, b.shape.rank
        if ra is None or rb is None:
            raise ValueError("tensordot needs inputs of known rank")
        sa = list(letters[:ra])
        sb = list(letters[ra:ra + rb])
        for i, j in zip(a_axes, b_axes):
            sb[j % rb] = sa[i % ra]
        contracted = {sa[i % ra] for i in a_axes}
        out = [c for c in sa if c not in contracted] + [c for c in sb if c not in contracted]
        return build_output("Einsum", [[a, b]],
                            {"equation": f"{''.join(sa)},{''.join(sb)}->{''.join(out)}"})


__all__ = ["einsum", "tensordot"]
