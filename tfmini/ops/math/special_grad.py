"""Gradients of the math family's newer ops (``special``, ``bitwise``, ``cumulative``,
``segment_reduction``, ``einsum_ops`` and the All/Any/EuclideanNorm reductions), as
TensorFlow's ``math_grad.py`` defines them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import control_dependencies, current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.math import unbroadcast
from tfmini.ops.math.einsum_ops import parse_equation

for _type in ("IsFinite", "IsNan", "IsInf", "All", "Any", "BitwiseAnd", "BitwiseOr",
              "BitwiseXor", "Invert", "LeftShift", "RightShift", "PopulationCount",
              "TruncateMod", "Mod", "ApproximateEqual"):
    no_gradient(_type)


def _o(op_type: str, inputs: list, attrs: dict | None = None) -> Output:
    return build_op(current_scope(), op_type, inputs, attrs).outputs[0]


def _c(value: float, like: Output) -> Output:
    return convert_to_tensor(np.asarray(value, like.dtype.np_dtype))


def _floating(op_type: str):
    """RegisterGradient for a float (or complex) op; integer outputs get no gradient (as TF's
    traversal)."""

    def decorator(fn):
        def grad_fn(op, *grads):
            if not (op.outputs[0].dtype.is_floating or op.outputs[0].dtype.is_complex):
                return [None] * len(op.inputs)
            return fn(op, *[convert_to_tensor(g) if g is not None else g for g in grads])

        grad_fn.__name__ = fn.__name__
        RegisterGradient(op_type)(grad_fn)
        return fn

    return decorator


def _unary(op_type: str, derivative):
    """``dx = grad * derivative(x, y)``."""

    @_floating(op_type)
    def grad(op, g):
        return _o("Mul", [g, derivative(op.inputs[0], op.outputs[0])])

    grad.__name__ = f"_{op_type.lower()}_grad"


def _none(op: Operation, grad: Any) -> list:
    del grad
    return [None] * len(op.inputs)


for _type in ("Floor", "Ceil", "Round", "Rint", "TruncateDiv"):
    RegisterGradient(_type)(_none)

_unary("Erf", lambda x, y: _o("Mul", [_c(2 / math.sqrt(math.pi), x),
                                      _o("Exp", [_o("Neg", [_o("Square", [x])])])]))
_unary("Erfc", lambda x, y: _o("Mul", [_c(-2 / math.sqrt(math.pi), x),
                                       _o("Exp", [_o("Neg", [_o("Square", [x])])])]))
_unary("Erfinv", lambda x, y: _o("Mul", [_c(math.sqrt(math.pi) / 2, x),
                                         _o("Exp", [_o("Square", [y])])]))
_unary("Ndtri", lambda x, y: _o("Mul", [_c(math.sqrt(2 * math.pi), x),
                                        _o("Exp", [_o("Mul", [_c(0.5, x),
                                                              _o("Square", [y])])])]))
_unary("Lgamma", lambda x, y: _o("Digamma", [x]))
_unary("Digamma", lambda x, y: _o("Polygamma", [_c(1, x), x]))
# -conj(y)^2: TensorFlow's ReciprocalGrad conjugates for complex (conj is no op on reals).
_unary("Reciprocal", lambda x, y: _o("Neg", [_o("Square", [math_ops.conj(y)])]))
_unary("Inv", lambda x, y: _o("Neg", [_o("Square", [math_ops.conj(y)])]))
_unary("Expm1", lambda x, y: _o("Exp", [x]))
_unary("Tan", lambda x, y: _o("Square", [_o("Reciprocal", [_o("Cos", [x])])]))
_unary("Asin", lambda x, y: _o("Rsqrt", [_o("Sub", [_c(1, x), _o("Square", [x])])]))
_unary("Acos", lambda x, y: _o("Neg", [_o("Rsqrt", [_o("Sub", [_c(1, x),
                                                               _o("Square", [x])])])]))
_unary("Atan", lambda x, y: _o("Reciprocal", [_o("AddV2", [_c(1, x), _o("Square", [x])])]))
_unary("Sinh", lambda x, y: _o("Cosh", [x]))
_unary("Cosh", lambda x, y: _o("Sinh", [x]))
_unary("Asinh", lambda x, y: _o("Reciprocal", [_o("Cosh", [y])]))
_unary("Acosh", lambda x, y: _o("Reciprocal", [_o("Sinh", [y])]))
_unary("Atanh", lambda x, y: _o("Reciprocal", [_o("Sub", [_c(1, x), _o("Square", [x])])]))


def _binary_result(op: Operation, gx: Output | None, gy: Output | None) -> list:
    x, y = op.inputs[0], op.inputs[1]
    return [None if gx is None else unbroadcast(gx, x),
            None if gy is None else unbroadcast(gy, y)]


@_floating("Atan2")
def _atan2_grad(op, grad):
    y, x = op.inputs
    inv = _o("RealDiv", [grad, _o("AddV2", [_o("Square", [x]), _o("Square", [y])])])
    return [unbroadcast(_o("Mul", [x, inv]), y), unbroadcast(_o("Neg", [_o("Mul", [y, inv])]), x)]


@_floating("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    gx = _o("Mul", [_o("Mul", [_c(2, grad), grad]), _o("Sub", [x, y])])
    return _binary_result(op, gx, _o("Neg", [gx]))


def _not_zero(x: Output) -> Output:
    return math_ops.cast(_o("NotEqual", [x, _c(0, x)], {"incompatible_shape_error": True}),
                         x.dtype)


@_floating("Xlogy")
def _xlogy_grad(op, grad):
    x, y = op.inputs
    gx = _o("Mul", [_o("Xlogy", [_not_zero(x), y]), grad])
    gy = _o("Mul", [_o("Xdivy", [x, y]), grad])
    return _binary_result(op, gx, gy)


@_floating("Xlog1py")
def _xlog1py_grad(op, grad):
    x, y = op.inputs
    gx = _o("Mul", [_o("Xlog1py", [_not_zero(x), y]), grad])
    gy = _o("Mul", [_o("Xdivy", [x, _o("AddV2", [y, _c(1, y)])]), grad])
    return _binary_result(op, gx, gy)


@_floating("Xdivy")
def _xdivy_grad(op, grad):
    x, y = op.inputs
    gx = _o("Mul", [_o("Xdivy", [_not_zero(x), y]), grad])
    gy = _o("Mul", [_o("Xdivy", [_o("Neg", [x]), _o("Square", [y])]), grad])
    return _binary_result(op, gx, gy)


@_floating("DivNoNan")
def _div_no_nan_grad(op, grad):
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])  # as TensorFlow
    gx = _o("DivNoNan", [grad, y])
    gy = _o("Mul", [grad, _o("DivNoNan", [_o("DivNoNan", [_o("Neg", [x]), y]), y])])
    return _binary_result(op, gx, gy)


@_floating("Zeta")
def _zeta_grad(op, grad):
    # d/dq zeta(x, q) = -x zeta(x + 1, q); x gets none, as in TensorFlow.
    x, q = op.inputs
    partial = _o("Mul", [_o("Neg", [x]), _o("Zeta", [_o("AddV2", [x, _c(1, x)]), q])])
    return [None, unbroadcast(_o("Mul", [partial, grad]), q)]


@_floating("Polygamma")
def _polygamma_grad(op, grad):
    n, x = op.inputs
    partial = _o("Polygamma", [_o("AddV2", [n, _c(1, n)]), x])
    return [None, unbroadcast(_o("Mul", [partial, grad]), x)]


def _igamma_partials(op: Operation, grad: Output) -> list:
    # As TensorFlow's _IgammaGrad: IgammaGradA for a; for x the density
    # exp(-x + (a - 1) log x - lgamma(a)), in log space because Gamma(a) grows large.
    a, x = op.inputs
    with control_dependencies([grad]):
        partial_a = _o("IgammaGradA", [a, x])
        log_density = _o("Sub", [_o("AddV2", [_o("Neg", [x]), _o("Mul", [
            _o("Sub", [a, _c(1, a)]), _o("Log", [x])])]), _o("Lgamma", [a])])
        partial_x = _o("Exp", [log_density])
        return [unbroadcast(_o("Mul", [partial_a, grad]), a),
                unbroadcast(_o("Mul", [partial_x, grad]), x)]


@_floating("Igamma")
def _igamma_grad(op, grad):
    return _igamma_partials(op, grad)


@_floating("Igammac")
def _igammac_grad(op, grad):
    # Q = 1 - P: both partials negated.
    return [_o("Neg", [g]) for g in _igamma_partials(op, grad)]


@_floating("Betainc")
def _betainc_grad(op, grad):
    # Only x, as TensorFlow (no derivative for a and b):
    # dI/dx = exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - log B(a, b)).
    a, b, x = op.inputs
    log_beta = _o("Sub", [_o("AddV2", [_o("Lgamma", [a]), _o("Lgamma", [b])]),
                          _o("Lgamma", [_o("AddV2", [a, b])])])
    log_partial = _o("Sub", [_o("AddV2", [
        _o("Xlog1py", [_o("Sub", [b, _c(1, b)]), _o("Neg", [x])]),
        _o("Xlogy", [_o("Sub", [a, _c(1, a)]), x])]), log_beta])
    partial_x = _o("Exp", [log_partial])
    return [None, None, unbroadcast(_o("Mul", [partial_x, grad]), x)]


# TensorFlow registers no gradient for IgammaGradA (its second derivative is not defined).
no_gradient("IgammaGradA")


# ----------------------------------------------------------------------------------------
# Scans


@_floating("Cumsum")
def _cumsum_grad(op, grad):
    attrs = {"exclusive": op.get_attr("exclusive"), "reverse": not op.get_attr("reverse")}
    return [_o("Cumsum", [grad, op.inputs[1]], attrs), None]


@_floating("Cumprod")
def _cumprod_grad(op, grad):
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = _o("Cumprod", [x, axis], {"exclusive": exclusive, "reverse": reverse})
    out = _o("Cumsum", [_o("Mul", [prod, grad]), axis],
             {"exclusive": exclusive, "reverse": not reverse})
    return [_o("DivNoNan", [out, x]), None]


@_floating("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    x, axis = op.inputs
    result = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    lowest = _c(np.finfo(grad.dtype.np_dtype).min, grad)
    zeros_like = array_ops.zeros_like(grad)
    pos = _o("SelectV2", [_o("Greater", [grad, zeros_like]), _o("Log", [grad]), lowest])
    neg = _o("SelectV2", [_o("Less", [grad, zeros_like]), _o("Log", [_o("Neg", [grad])]),
                          lowest])
    attrs = {"exclusive": exclusive, "reverse": not reverse}

    def part(log_grad):
        scanned = _o("CumulativeLogsumexp", [_o("Sub", [log_grad, result]), axis], attrs)
        return _o("Exp", [_o("AddV2", [scanned, x])])

    return [_o("Sub", [part(pos), part(neg)]), None]


# ----------------------------------------------------------------------------------------
# EuclideanNorm


@_floating("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    x, axes = op.inputs
    out = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = _o("Shape", [_o("Sum", [x, axes], {"keep_dims": True})])
        out = array_ops.reshape(out, kept)
        grad = array_ops.reshape(grad, kept)
    return [_o("Mul", [_o("DivNoNan", [x, out]), grad]), None]


# ----------------------------------------------------------------------------------------
# Segment reductions


def _gather(params: Output, indices: Output) -> Output:
    return array_ops.gather(params, indices)


@_floating("SegmentSum")
def _segment_sum_grad(op, grad):
    return [_gather(grad, op.inputs[1]), None]


@_floating("SegmentMean")
def _segment_mean_grad(op, grad):
    data, ids = op.inputs
    rank = array_ops.rank(data)
    ones_shape = array_ops.concat([array_ops.shape(ids), array_ops.fill(
        array_ops.reshape(_o("Sub", [rank, _c(1, rank)]), [1]), 1)], 0)
    ones = array_ops.ones(ones_shape, dtype=grad.dtype)
    scaled = _o("RealDiv", [grad, _o("SegmentSum", [ones, ids])])
    return [_gather(scaled, ids), None]


def _segment_min_or_max_grad(op, grad):
    data, ids = op.inputs
    zeros = array_ops.zeros_like(data)
    is_selected = _o("Equal", [data, _gather(op.outputs[0], ids)],
                     {"incompatible_shape_error": True})
    num_selected = _o("SegmentSum", [math_ops.cast(is_selected, grad.dtype), ids])
    weighted = _o("RealDiv", [grad, num_selected])
    return [_o("SelectV2", [is_selected, _gather(weighted, ids), zeros]), None]


_floating("SegmentMax")(_segment_min_or_max_grad)
_floating("SegmentMin")(_segment_min_or_max_grad)


@_floating("SegmentProd")
def _segment_prod_grad(op, grad):
    data, ids = op.inputs
    is_zero = _o("Equal", [data, _c(0, data)], {"incompatible_shape_error": True})
    num_zeros = _o("SegmentSum", [math_ops.cast(is_zero, np.int32), ids])
    grad = _o("SelectV2", [_o("Greater", [num_zeros, _c(1, num_zeros)]),
                           array_ops.zeros_like(grad), grad])
    non_zero_data = _o("SelectV2", [is_zero, array_ops.ones_like(data), data])
    non_zero_prod = _o("SegmentProd", [non_zero_data, ids])
    gathered_prod = _gather(op.outputs[0], ids)
    gathered_non_zero = _gather(non_zero_prod, ids)
    by_el = _o("RealDiv", [gathered_prod, non_zero_data])
    partial = _o("SelectV2", [is_zero, gathered_non_zero, by_el])
    return [_o("Mul", [_gather(grad, ids), partial]), None]


def _gather_drop_negatives(params, ids, zero_clipped=None, is_positive=None):
    # TensorFlow's helper: gather with negative ids clipped to 0 and their rows zeroed.
    if zero_clipped is None:
        zero_clipped = _o("Maximum", [ids, array_ops.zeros_like(ids)])
    gathered = array_ops.gather(params, zero_clipped)
    if is_positive is None:
        is_positive = _o("GreaterEqual", [ids, _c(0, ids)])
        shape = array_ops.shape(is_positive)
        extra = _o("Sub", [array_ops.rank(gathered), array_ops.rank(is_positive)])
        broadcastable = array_ops.concat(
            [shape, array_ops.ones(array_ops.reshape(extra, [1]), dtype=shape.dtype)], 0)
        is_positive = array_ops.reshape(is_positive, broadcastable)
        is_positive = _o("LogicalAnd", [is_positive, _o("Cast", [array_ops.ones_like(
            gathered), ], {"DstT": np.bool_, "Truncate": False})])
    zero_slice = array_ops.zeros_like(gathered)
    return _o("SelectV2", [is_positive, gathered, zero_slice]), zero_clipped, is_positive


def _unsorted_segment_min_or_max_grad(op, grad):
    data, ids, num = op.inputs
    gathered, zero_clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = _o("LogicalAnd", [_o("Equal", [data, gathered],
                                       {"incompatible_shape_error": True}), is_positive])
    num_selected = _o("UnsortedSegmentSum", [math_ops.cast(is_selected, grad.dtype), ids, num])
    weighted = _o("RealDiv", [grad, num_selected])
    gathered_grads, _, _ = _gather_drop_negatives(weighted, None, zero_clipped, is_positive)
    return [_o("SelectV2", [is_selected, gathered_grads, array_ops.zeros_like(gathered_grads)]),
            None, None]


_floating("UnsortedSegmentMax")(_unsorted_segment_min_or_max_grad)
_floating("UnsortedSegmentMin")(_unsorted_segment_min_or_max_grad)


@_floating("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, grad):
    data, ids, num = op.inputs
    is_zero = _o("Equal", [data, _c(0, data)], {"incompatible_shape_error": True})
    num_zeros = _o("UnsortedSegmentSum", [math_ops.cast(is_zero, np.int32), ids, num])
    grad = _o("SelectV2", [_o("Greater", [num_zeros, _c(1, num_zeros)]),
                           array_ops.zeros_like(grad), grad])
    non_zero_data = _o("SelectV2", [is_zero, array_ops.ones_like(data), data])
    non_zero_prod = _o("UnsortedSegmentProd", [non_zero_data, ids, num])
    zero_clipped = _o("Maximum", [ids, array_ops.zeros_like(ids)])
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped)
    gathered_non_zero = array_ops.gather(non_zero_prod, zero_clipped)
    by_el = _o("RealDiv", [gathered_prod, non_zero_data])
    partial = _o("SelectV2", [is_zero, gathered_non_zero, by_el])
    gathered_grad, _, _ = _gather_drop_negatives(grad, ids, zero_clipped)
    return [_o("Mul", [gathered_grad, partial]), None, None]


# ----------------------------------------------------------------------------------------
# Einsum


@_floating("Einsum")
def _einsum_grad(op, grad):
    # Each input's gradient is an einsum of the output gradient with the other inputs, with
    # labels summed out of only that input broadcast back. Ellipses become explicit labels
    # (the ranks are static); broadcast ellipsis dimensions are summed back by unbroadcast.
    inputs = list(op.inputs)
    subs, rhs = parse_equation(op.get_attr("equation"), len(inputs))
    spare = iter(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                 if c not in op.get_attr("equation"))
    ranks = [t.shape.rank for t in inputs]
    if any(r is None for r in ranks) and "..." in op.get_attr("equation"):
        raise NotImplementedError("Einsum gradient with '...' needs inputs of known rank")
    n_ell = max([r - len(s.replace("...", "")) for r, s in zip(ranks, subs) if "..." in s],
                default=0)
    ell = "".join(next(spare) for _ in range(n_ell))

    def expand(sub: str, rank: int | None) -> str:
        if "..." not in sub:
            return sub
        k = rank - len(sub.replace("...", ""))
        return sub.replace("...", ell[n_ell - k:])

    full = [expand(s, r) for s, r in zip(subs, ranks)]
    out = rhs.replace("...", ell)
    grads = []
    for i, (t, sub) in enumerate(zip(inputs, full)):
        others = [(inputs[j], full[j]) for j in range(len(inputs)) if j != i]
        available = set(out).union(*[set(s) for _, s in others])
        unique = "".join(dict.fromkeys(sub))  # labels in order of first appearance
        keep = "".join(c for c in unique if c in available)
        eq = ",".join([out] + [s for _, s in others]) + "->" + keep
        g = _o("Einsum", [[grad] + [o for o, _ in others]], {"equation": eq})
        shape = array_ops.shape(t)
        size = {c: shape[sub.index(c)] for c in unique}
        if keep != unique:
            # Labels only in this input were summed away: broadcast the gradient back.
            g = array_ops.reshape(g, array_ops.stack([size[c] if c in keep else 1
                                                      for c in unique]))
            g = array_ops.broadcast_to(g, array_ops.stack([size[c] for c in unique]))
        if unique != sub:
            # A repeated label reads a diagonal: the gradient lives on that diagonal only.
            first = {c: sub.index(c) for c in unique}
            g = array_ops.reshape(g, array_ops.stack([
                size[c] if first[c] == p else 1 for p, c in enumerate(sub)]))
            for p, c in enumerate(sub):
                if first[c] == p:
                    continue
                eye = math_ops.eye(size[c], dtype=g.dtype)
                g = _o("Mul", [g, array_ops.reshape(eye, array_ops.stack([
                    size[c] if k in (first[c], p) else 1 for k in range(len(sub))]))])
        grads.append(unbroadcast(g, t) if "..." in subs[i] else g)
    return grads


@_floating("MulNoNan")
def _mul_no_nan_grad(op, grad):
    x, y = op.inputs
    return _binary_result(op, _o("MulNoNan", [grad, y]), _o("MulNoNan", [x, grad]))


@_floating("Cross")
def _cross_grad(op, grad):
    u, v = op.inputs
    return [_o("Cross", [v, grad]), _o("Cross", [grad, u])]


no_gradient("LinSpace")


@_floating("NextAfter")
def _next_after_grad(op, grad):
    x1, x2 = op.inputs
    return _binary_result(op, grad, _o("Mul", [array_ops.zeros_like(grad), grad]))
