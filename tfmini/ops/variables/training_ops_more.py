"""More training ops: RMSProp, Adadelta, FTRL, the proximal updates, AdagradDA, AdaMax,
PowerSign and AddSign, for ref and resource variables, dense and (where TensorFlow has
them) sparse.

TensorFlow registers them in ``tensorflow/core/ops/training_ops.cc`` and computes them in
``tensorflow/core/kernels/training_ops.cc``; the formulas below are those kernels':

* ApplyRMSProp: ``ms += (grad**2 - ms) * (1 - rho)``;
  ``mom = mom * momentum + lr * grad / sqrt(ms + epsilon)``; ``var -= mom``.
* ApplyCenteredRMSProp: also ``mg += (grad - mg) * (1 - rho)`` and the root of
  ``ms - mg**2 + epsilon``.
* ApplyAdadelta: ``accum = rho * accum + (1 - rho) * grad**2``;
  ``update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad``;
  ``accum_update = rho * accum_update + (1 - rho) * update**2``; ``var -= lr * update``.
* ApplyFtrl(V2): ``new_accum = accum + grad**2``; ``linear += g - (new_accum**-p -
  accum**-p) / lr * var`` (``p = lr_power``, ``g = grad + 2 * l2_shrinkage * var`` for V2);
  ``var = (sign(linear) * l1 - linear) / (new_accum**-p / lr + 2 * l2)`` where
  ``|linear| > l1``, else 0; ``accum = new_accum``. ``multiply_linear_by_lr`` keeps
  ``linear`` multiplied by ``lr`` (TensorFlow's variant of the same update).
* ApplyProximalGradientDescent: ``prox = var - alpha * delta``;
  ``var = sign(prox) * max(|prox| - alpha * l1, 0) / (1 + alpha * l2)`` (no shrinkage
  unless ``l1 > 0``).
* ApplyProximalAdagrad: ``accum += grad**2``, then the proximal step with
  ``alpha = lr / sqrt(accum)``.
* ApplyAdagradDA: ``gradient_accumulator += grad``; ``gradient_squared_accumulator +=
  grad**2``; ``var = -lr * shrink(G) / (l2 * global_step * lr + sqrt(H))`` with ``shrink``
  the l1 soft threshold ``sign(G) * max(|G| - l1 * global_step, 0)`` when ``l1 > 0``.
* ApplyAdaMax: ``m += (grad - m) * (1 - beta1)``; ``v = max(beta2 * v, |grad|)``;
  ``var -= lr / (1 - beta1_power) * m / (v + epsilon)``.
* ApplyPowerSign / ApplyAddSign: ``m = beta * m + (1 - beta) * grad``; ``var -= lr *
  exp(logbase * sign_decay * sign(grad) * sign(m)) * grad`` / ``var -= lr * (alpha +
  sign_decay * sign(grad) * sign(m)) * grad``.

The sparse forms (``SparseApply*``) apply the same rule to the rows ``indices``, a repeated
index again after the earlier one, as TensorFlow's row loop does. Validation follows each
TensorFlow kernel, messages included (some of them quirky: ``lr is not a scalar :`` with a
space for RMSProp, the sparse FTRL and proximal ops refusing negative hyper-parameters where
the dense ones do not). Locking, the spare-buffer swap and the undo of a failed run are those
of :mod:`tfmini.ops.variables.training_ops`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import dims_str
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import NUMERIC_TYPES
from tfmini.ops.variables.training_ops import (
    apply_shape,
    check_kernel_dtype,
    check_var,
    duplicate_rounds,
    locked_all,
    resolve_var,
    same_shape,
)

_T = f"T: {{{NUMERIC_TYPES}}}"
_TINDICES = "Tindices: {int32, int64}"
_LOCKING = "use_locking: bool = false"
_MLBL = "multiply_linear_by_lr: bool = false"

# Value conditions some kernels put on their scalars (the message ends with the shape).
_CONDITIONS: dict[str, Callable[[np.ndarray, dict], bool]] = {
    "positive": lambda x, attrs: bool(x > 0),
    "ftrl_lr": lambda x, attrs: bool(x > 0) or (attrs.get("multiply_linear_by_lr", False)
                                                and bool(x == 0)),
    "non_negative": lambda x, attrs: bool(x >= 0),
    "non_positive": lambda x, attrs: bool(x <= 0),
}


@dataclass(frozen=True)
class _Update:
    """One update rule as TensorFlow's kernels check and compute it."""

    name: str                       # the ref op's type, e.g. "ApplyRMSProp"
    variables: tuple[str, ...]      # the Ref(T)/resource inputs, var first
    inputs: tuple[str, ...]         # the other inputs, TensorFlow's order
    grad: str                       # which of them is the gradient
    # scalar input -> (message before the shape, condition name or None)
    scalars: dict[str, tuple[str, str | None]]
    # slot -> (name in the message, input whose shape the message shows); None: unchecked
    slots: dict[str, tuple[str, str] | None]
    compute: Callable                # dense: (resources, arrays, scalars, grad, attrs) -> news
    attrs: tuple[str, ...] = (_LOCKING,)
    doc: str = ""
    int_scalars: frozenset = field(default_factory=frozenset)  # inputs not of type T


def _scalars(update: _Update, named: dict, attrs: dict) -> dict[str, np.ndarray]:
    """The non-variable inputs by name, each scalar checked as the kernel checks it."""
    out = {name: np.asarray(value) for name, value in named.items()}
    for name, (message, condition) in update.scalars.items():
        arr = np.asarray(named[name])
        if arr.ndim != 0 or (condition and not _CONDITIONS[condition](arr, attrs)):
            raise invalid_argument(f"{message}{dims_str(arr.shape)}")
        out[name] = arr
    return out


def _check_slots(update: _Update, arrays: dict[str, np.ndarray]) -> None:
    var = arrays[update.variables[0]]
    for slot in update.variables[1:]:
        how = update.slots.get(slot)
        if how is None:
            continue
        label, shown = how
        if var.shape != arrays[slot].shape:
            raise invalid_argument(
                f"var and {label} do not have the same shape{dims_str(var.shape)} "
                f"{dims_str(arrays[shown].shape)}")


def _check_sparse_grad(var: np.ndarray, grad: Any, indices: Any) -> None:
    """TensorFlow's checks of a sparse update's gradient and indices, in its order."""
    if var.ndim < 1:
        raise invalid_argument("var must be at least 1 dimensional")
    idx = np.asarray(indices)
    if idx.ndim != 1:
        raise invalid_argument("indices must be one-dimensional")
    g = np.asarray(grad)
    if g.ndim != var.ndim:
        raise invalid_argument("grad must have the same number of dimensions as var")
    for d in range(1, var.ndim):
        if var.shape[d] != g.shape[d]:
            raise invalid_argument(f"var and grad must match in dimension {d}")
    if g.shape[0] != idx.shape[0]:
        raise invalid_argument("grad must be the same size as indices in the first dimension.")
    if var.ndim > 1 and int(np.prod(var.shape[1:])) == 0:
        raise invalid_argument("Inner dimension should be greater than zero.")
    bad = (idx < 0) | (idx >= var.shape[0])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise invalid_argument(f"Index {int(idx[i])} at offset {i} in indices is out of range")


def _sparse_rows(ctx, resources, indices, grad, rows_update) -> None:
    """Applies ``rows_update(rows, grad_rows)`` (``rows``: one array of rows per variable,
    changed in place) round by round, in place when nobody else holds the arrays."""
    idx = np.asarray(indices)
    if idx.shape[0] == 0:
        return
    g = np.asarray(grad)
    flat = idx.astype(np.intp, copy=False)
    arrays = [r.begin_update(ctx, flat) for r in resources]
    try:
        for pos in duplicate_rounds(flat):
            rows = flat[pos]
            parts = [np.take(a, rows, axis=0) for a in arrays]
            rows_update(parts, g[pos])
            for a, p in zip(arrays, parts):
                a[rows] = p
    finally:
        # Published even on failure: the undo registered by begin_update restores the rows.
        for r, a in zip(resources, arrays):
            r.finish_update(ctx, a)


def _dense_kernel(update: _Update, op_type: str) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    n_vars = len(update.variables)

    def kernel(ctx, *inputs, T, use_locking, node, **attrs):
        check_kernel_dtype(op_type, T, node, use_locking)
        resources = [resolve_var(ctx, x) for x in inputs[:n_vars]]
        named = dict(zip(update.inputs, inputs[n_vars:]))
        with locked_all(resources):
            arrays = {n: check_var(r, T, n) for n, r in zip(update.variables, resources)}
            s = _scalars(update, named, attrs)
            _check_slots(update, arrays)
            grad = np.asarray(named[update.grad])
            same_shape(arrays["var"], grad, update.grad)
            news = update.compute(resources, [arrays[n] for n in update.variables], s, grad,
                                  attrs)
            for r, new in zip(resources, news):
                if new is not None:
                    r.replace(ctx, new)
        return inputs[0] if ref_out else None

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _sparse_kernel(update: _Update, rows_fn: Callable, op_type: str) -> Callable:
    ref_out = not op_type.startswith("Resource")
    n_vars = len(update.variables)

    def kernel(ctx, *inputs, T, use_locking, node, **attrs):
        check_kernel_dtype(op_type, T, node, use_locking)
        resources = [resolve_var(ctx, x) for x in inputs[:n_vars]]
        named = dict(zip(update.inputs, inputs[n_vars:]))
        with locked_all(resources):
            arrays = {n: check_var(r, T, n) for n, r in zip(update.variables, resources)}
            s = _scalars(update, named, attrs)
            _check_slots(update, arrays)
            _check_sparse_grad(arrays["var"], named["grad"], named["indices"])
            del arrays  # our references would make begin_update copy the arrays
            _sparse_rows(ctx, resources, named["indices"], named["grad"],
                         lambda rows, g: rows_fn(rows, s, g, attrs))
        return inputs[0] if ref_out else None

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


# ----------------------------------------------------------------------------------------
# Dense updates: the new arrays go into the variables' spare buffers (``scratch``), the
# temporaries into the work buffer, with as few passes as the formula allows.


def _rmsprop_dense(resources, arrays, s, g, attrs, centered=False):
    if centered:
        v_res, mg_res, ms_res, mom_res = resources
        var, mg, ms, mom = arrays
    else:
        v_res, ms_res, mom_res = resources
        var, ms, mom = arrays
    one_minus_rho = np.ones((), var.dtype) - s["rho"]
    new_ms = ms_res.scratch()
    np.multiply(g, g, out=new_ms)
    new_ms -= ms
    new_ms *= one_minus_rho
    new_ms += ms
    work = v_res.work_buffer()
    if centered:
        new_mg = mg_res.scratch()
        np.subtract(g, mg, out=new_mg)
        new_mg *= one_minus_rho
        new_mg += mg
        np.multiply(new_mg, new_mg, out=work)
        np.subtract(new_ms, work, out=work)
        work += s["epsilon"]
    else:
        np.add(new_ms, s["epsilon"], out=work)
    np.sqrt(work, out=work)
    new_mom = mom_res.scratch()
    np.multiply(g, s["lr"], out=new_mom)
    new_mom /= work
    np.multiply(mom, s["momentum"], out=work)
    new_mom += work
    out = v_res.scratch()
    np.subtract(var, new_mom, out=out)
    if centered:
        return [out, new_mg, new_ms, new_mom]
    return [out, new_ms, new_mom]


def _rmsprop_rows(rows, s, g, attrs):
    var, ms, mom = rows
    rho = s["rho"]
    ms *= rho
    ms += g * g * (1 - rho)
    mom *= s["momentum"]
    mom += s["lr"] * g / np.sqrt(ms + s["epsilon"])
    var -= mom


def _centered_rmsprop_rows(rows, s, g, attrs):
    var, mg, ms, mom = rows
    rho = s["rho"]
    ms *= rho
    ms += g * g * (1 - rho)
    mg *= rho
    mg += g * (1 - rho)
    mom *= s["momentum"]
    mom += s["lr"] * g / np.sqrt(ms + s["epsilon"] - mg * mg)
    var -= mom


def _adadelta(var, accum, accum_update, s, g):
    """Returns the new (var, accum, accum_update); the inputs are not changed."""
    rho, eps = s["rho"], s["epsilon"]
    one = np.ones((), var.dtype)
    accum = accum * rho + g * g * (one - rho)
    update = np.sqrt(accum_update + eps) / np.sqrt(accum + eps) * g
    accum_update = accum_update * rho + update * update * (one - rho)
    return var - update * s["lr"], accum, accum_update


def _adadelta_dense(resources, arrays, s, g, attrs):
    return list(_adadelta(*arrays, s, g))


def _adadelta_rows(rows, s, g, attrs):
    for part, new in zip(rows, _adadelta(*rows, s, g)):
        part[...] = new


def _ftrl_power(x, lr_power, out=None):
    """``x ** -lr_power`` (a square root for TensorFlow's special case -0.5)."""
    if lr_power == -0.5:
        return np.sqrt(x, out=out)
    return np.power(x, -lr_power, out=out)


def _ftrl_dense(resources, arrays, s, g, attrs, shrinkage=False):
    v_res, a_res, l_res = resources
    var, accum, linear = arrays
    lr, l1, l2, p = s["lr"], s["l1"], s["l2"], s["lr_power"]
    by_lr = attrs.get("multiply_linear_by_lr", False)
    new_accum = a_res.scratch()
    np.multiply(g, g, out=new_accum)
    new_accum += accum
    work = v_res.work_buffer()
    out = v_res.scratch()
    # (new_accum^-p - accum^-p) / lr * var, the change of the proximal centre
    _ftrl_power(new_accum, p, out=work)
    _ftrl_power(accum, p, out=out)
    np.subtract(work, out, out=out)
    if not by_lr:
        out /= lr
    out *= var
    new_linear = l_res.scratch()
    if shrinkage:
        np.multiply(var, 2 * s["l2_shrinkage"], out=new_linear)
        new_linear += g
    else:
        np.copyto(new_linear, g)
    if by_lr:
        new_linear *= lr
    new_linear -= out
    new_linear += linear
    # quadratic = new_accum^-p / lr + 2 * l2 (work still holds new_accum^-p)
    if by_lr:
        work += 2 * l2 * lr
        l1 = l1 * lr
    else:
        work /= lr
        work += 2 * l2
    np.sign(new_linear, out=out)
    out *= l1
    out -= new_linear
    out /= work
    np.abs(new_linear, out=work)
    np.copyto(out, 0, where=~np.greater(work, l1))
    return [out, new_accum, new_linear]


def _ftrl_rows(rows, s, g, attrs, shrinkage=False):
    var, accum, linear = rows
    lr, l1, l2, p = s["lr"], s["l1"], s["l2"], s["lr_power"]
    by_lr = attrs.get("multiply_linear_by_lr", False)
    g_shrunk = g + 2 * s["l2_shrinkage"] * var if shrinkage else g
    new_accum = accum + g * g
    sigma = _ftrl_power(new_accum, p) - _ftrl_power(accum, p)
    if by_lr:
        linear += g_shrunk * lr - sigma * var
        quadratic = _ftrl_power(new_accum, p) + 2 * l2 * lr
        l1 = l1 * lr
    else:
        linear += g_shrunk - sigma / lr * var
        quadratic = _ftrl_power(new_accum, p) / lr + 2 * l2
    new_var = (np.sign(linear) * l1 - linear) / quadratic
    var[...] = np.where(np.abs(linear) > l1, new_var, 0)
    accum[...] = new_accum


def _proximal(prox, alpha, l1, l2):
    """TensorFlow's proximal step of ``prox`` with step size ``alpha``."""
    one = np.ones((), prox.dtype)
    if l1 > 0:
        shrunk = np.maximum(np.abs(prox) - alpha * l1, np.zeros((), prox.dtype))
        return np.sign(prox) * shrunk / (one + alpha * l2)
    return prox / (one + alpha * l2)


def _proximal_gd_dense(resources, arrays, s, g, attrs):
    (var,) = arrays
    alpha = s["alpha"]
    return [_proximal(var - g * alpha, alpha, s["l1"], s["l2"])]


def _proximal_gd_rows(rows, s, g, attrs):
    (var,) = rows
    alpha = s["alpha"]
    var[...] = _proximal(var - g * alpha, alpha, s["l1"], s["l2"])


def _proximal_adagrad(var, accum, s, g):
    accum = accum + g * g
    alpha = s["lr"] / np.sqrt(accum)
    return _proximal(var - g * alpha, alpha, s["l1"], s["l2"]), accum


def _proximal_adagrad_dense(resources, arrays, s, g, attrs):
    return list(_proximal_adagrad(*arrays, s, g))


def _proximal_adagrad_rows(rows, s, g, attrs):
    for part, new in zip(rows, _proximal_adagrad(*rows, s, g)):
        part[...] = new


def _adagrad_da_dense(resources, arrays, s, g, attrs):
    var, ga, gsa = arrays
    ga = ga + g
    gsa = gsa + g * g
    lr, l1, l2 = s["lr"], s["l1"], s["l2"]
    step = np.asarray(s["global_step"]).astype(var.dtype)
    if l1 > 0:
        shrunk = np.sign(ga) * np.maximum(np.abs(ga) - step * l1, np.zeros((), var.dtype))
    else:
        shrunk = ga
    return [-lr * shrunk / (l2 * step * lr + np.sqrt(gsa)), ga, gsa]


def _adagrad_da_rows(rows, s, g, attrs):
    var, ga, gsa = rows
    ga += g
    gsa += g * g
    lr, l1, l2 = s["lr"], s["l1"], s["l2"]
    step = np.asarray(s["global_step"]).astype(var.dtype)
    if l1 > 0:
        # TensorFlow's sparse kernel thresholds the averaged gradient |G| / t against l1
        # (the same as the dense |G| - l1 * t for a positive step).
        shrunk = np.sign(ga) * np.maximum(np.abs(ga) / step - l1, np.zeros((), var.dtype))
        var[...] = -lr * shrunk / (l2 * lr + np.sqrt(gsa) / step)
    else:
        var[...] = -lr * ga / (l2 * step * lr + np.sqrt(gsa))


def _adamax_dense(resources, arrays, s, g, attrs):
    var, m, v = arrays
    one = np.ones((), var.dtype)
    m = m + (g - m) * (one - s["beta1"])
    v = np.maximum(s["beta2"] * v, np.abs(g))
    return [var - s["lr"] / (one - s["beta1_power"]) * (m / (v + s["epsilon"])), m, v]


def _sign_dense(resources, arrays, s, g, attrs, power):
    var, m = arrays
    one = np.ones((), var.dtype)
    beta = s["beta"]
    m = m * beta + g * (one - beta)
    sign_gm = np.sign(g) * np.sign(m)
    decay = np.asarray(s["sign_decay"])
    if power:
        scale = np.exp(s["logbase"] * decay * sign_gm)
    else:
        scale = s["alpha"] + decay * sign_gm
    return [(var - s["lr"] * scale * g).astype(var.dtype, copy=False), m]


# ----------------------------------------------------------------------------------------
# The table of updates and their registration


def _msg(name: str, sep: str = ":") -> str:
    return f"{name} is not a scalar{sep} "


_SCALAR = None
_L1 = ("l1 regularization strength is not a scalar: ", _SCALAR)
_L2 = ("l2 regularization strength is not a scalar: ", _SCALAR)
_L1_NN = ("l1 regularization strength is not a non-negative scalar: ", "non_negative")
_L2_NN = ("l2 regularization strength is not a non-negative scalar: ", "non_negative")
_RMS = {"lr": (_msg("lr", " :"), _SCALAR), "rho": (_msg("rho"), _SCALAR),
        "momentum": (_msg("momentum"), _SCALAR), "epsilon": (_msg("epsilon"), _SCALAR)}
_RMS_SPARSE = {**_RMS, "lr": (_msg("lr"), _SCALAR)}
_FTRL_DENSE = {"lr": (_msg("lr"), _SCALAR), "l1": _L1, "l2": _L2,
               "l2_shrinkage": ("l2 shrinkage regularization strength is not a scalar: ",
                                _SCALAR),
               "lr_power": ("lr_power is not a scalar", _SCALAR)}
_FTRL_SPARSE = {
    "lr": ("lr is not a positive scalar (or zero if multiply_linear_by_lr is set): ",
           "ftrl_lr"),
    "l1": _L1_NN, "l2": _L2_NN,
    "l2_shrinkage": ("l2 shrinkage regularization strength is not a non-negative scalar: ",
                     "non_negative"),
    "lr_power": ("lr_power is not a non-positive scalar: ", "non_positive")}
_PROX_ADAGRAD = {"lr": ("lr is not a positive scalar: ", "positive"), "l1": _L1_NN,
                 "l2": _L2_NN}
_DA = {"lr": (_msg("lr"), _SCALAR), "l1": _L1, "l2": _L2,
       "global_step": (_msg("global_step"), _SCALAR)}


def _pick(table: dict, names: Sequence[str]) -> dict:
    return {n: table[n] for n in names if n in table}


def _same(*slots: str) -> dict:
    return {s: (s, s) for s in slots}


def _input_type(spec: _Update, name: str) -> str:
    if name == "indices":
        return "Tindices"
    return "int64" if name in spec.int_scalars else "T"


def _register(update: _Update, sparse: _Update | None = None,
              rows_fn: Callable | None = None) -> None:
    for spec, factory in ((update, lambda t: _dense_kernel(update, t)),
                          (sparse, lambda t: _sparse_kernel(sparse, rows_fn, t))):
        if spec is None:
            continue
        positions = {n: k + len(spec.variables) for k, n in enumerate(spec.inputs)}
        is_sparse = "indices" in positions
        for resource in (False, True):
            op_type = ("Resource" + spec.name) if resource else spec.name
            var_type = "resource" if resource else "Ref(T)"
            inputs = [f"{v}: {var_type}" for v in spec.variables]
            inputs += [f"{n}: {_input_type(spec, n)}" for n in spec.inputs]
            register_op(
                op_type,
                inputs=inputs,
                outputs=[] if resource else ["out: Ref(T)"],
                attrs=[_T, *([_TINDICES] if is_sparse else []), *spec.attrs],
                shape_fn=apply_shape(len(spec.variables),
                                     [positions[n] for n in spec.scalars if n in positions],
                                     positions[spec.grad],
                                     positions.get("indices") if is_sparse else None),
                stateful=True,
                doc=spec.doc,
            )(factory(op_type))
            no_gradient(op_type)


def _pair(name, variables, inputs, sparse_inputs, scalars, sparse_scalars, slots,
          sparse_slots, dense, rows, attrs=(_LOCKING,), grad="grad", doc="",
          int_scalars=frozenset()):
    dense_spec = _Update(name, variables, inputs, grad, _pick(scalars, inputs), slots, dense,
                         attrs, doc, int_scalars)
    sparse_spec = None
    if sparse_inputs is not None:
        sparse_spec = _Update("Sparse" + name, variables, sparse_inputs, "grad",
                              _pick(sparse_scalars, sparse_inputs), sparse_slots, None,
                              attrs, doc + " On the rows ``indices``.", int_scalars)
    _register(dense_spec, sparse_spec, rows)


_RMS_IN = ("lr", "rho", "momentum", "epsilon", "grad")
_pair("ApplyRMSProp", ("var", "ms", "mom"), _RMS_IN, (*_RMS_IN, "indices"), _RMS, _RMS_SPARSE,
      _same("ms", "mom"), _same("ms", "mom"), _rmsprop_dense, _rmsprop_rows,
      doc="RMSProp: ``ms``, ``mom`` and ``var`` updated (TensorFlow's ApplyRMSProp).")
# TensorFlow's dense kernel shows ms's shape when mg differs (sic).
_pair("ApplyCenteredRMSProp", ("var", "mg", "ms", "mom"), _RMS_IN, (*_RMS_IN, "indices"),
      _RMS, _RMS_SPARSE, {"mg": ("mg", "ms"), **_same("ms", "mom")}, _same("mg", "ms", "mom"),
      lambda *a: _rmsprop_dense(*a, centered=True), _centered_rmsprop_rows,
      doc="Centered RMSProp (the root of ``ms - mg**2 + epsilon``).")
_ADADELTA_IN = ("lr", "rho", "epsilon", "grad")
_pair("ApplyAdadelta", ("var", "accum", "accum_update"), _ADADELTA_IN,
      (*_ADADELTA_IN, "indices"), _RMS_SPARSE, _RMS_SPARSE, _same("accum", "accum_update"),
      {"accum": ("accum_grad", "accum"), "accum_update": ("accum_update", "accum_update")},
      _adadelta_dense, _adadelta_rows, doc="Adadelta.")
for _v2 in (False, True):
    _rest = ("lr", "l1", "l2", *(("l2_shrinkage",) if _v2 else ()), "lr_power")
    _pair("ApplyFtrlV2" if _v2 else "ApplyFtrl", ("var", "accum", "linear"), ("grad", *_rest),
          ("grad", "indices", *_rest), _FTRL_DENSE, _FTRL_SPARSE, _same("accum", "linear"),
          _same("accum", "linear"),
          (lambda *a, v2=_v2: _ftrl_dense(*a, shrinkage=v2)),
          (lambda *a, v2=_v2: _ftrl_rows(*a, shrinkage=v2)), attrs=(_LOCKING, _MLBL),
          doc="FTRL-proximal" + (" with l2 shrinkage." if _v2 else "."))
_pair("ApplyProximalGradientDescent", ("var",), ("alpha", "l1", "l2", "delta"),
      ("alpha", "l1", "l2", "grad", "indices"),
      {"alpha": (_msg("alpha"), _SCALAR), "l1": _L1, "l2": _L2},
      {"alpha": (_msg("lr"), _SCALAR), "l1": _L1, "l2": _L2}, {}, {},
      _proximal_gd_dense, _proximal_gd_rows, grad="delta",
      doc="Proximal gradient descent (l1 soft threshold, l2 shrinkage).")
_pair("ApplyProximalAdagrad", ("var", "accum"), ("lr", "l1", "l2", "grad"),
      ("lr", "l1", "l2", "grad", "indices"), _PROX_ADAGRAD, _PROX_ADAGRAD, _same("accum"),
      _same("accum"), _proximal_adagrad_dense, _proximal_adagrad_rows,
      doc="Proximal Adagrad: Adagrad's step size in the proximal step.")
_DA_SLOTS = {"gradient_accumulator": ("accum", "gradient_accumulator"),
             "gradient_squared_accumulator": ("accum", "gradient_squared_accumulator")}
_pair("ApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator"),
      ("grad", "lr", "l1", "l2", "global_step"),
      ("grad", "indices", "lr", "l1", "l2", "global_step"), _DA, _DA, _DA_SLOTS, _DA_SLOTS,
      _adagrad_da_dense, _adagrad_da_rows, int_scalars=frozenset({"global_step"}),
      doc="Adagrad dual averaging.")
_pair("ApplyAdaMax", ("var", "m", "v"),
      ("beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"), None,
      {"beta1_power": (_msg("beta1_power"), _SCALAR), "lr": (_msg("lr", " :"), _SCALAR),
       "beta1": (_msg("beta1"), _SCALAR), "beta2": (_msg("beta2"), _SCALAR),
       "epsilon": (_msg("epsilon"), _SCALAR)}, {}, _same("m", "v"), {}, _adamax_dense, None,
      doc="AdaMax (Adam with the infinity norm).")
# sign_decay is not checked by TensorFlow's kernels (it broadcasts).
_pair("ApplyPowerSign", ("var", "m"), ("lr", "logbase", "sign_decay", "beta", "grad"), None,
      {"lr": (_msg("lr"), _SCALAR), "logbase": (_msg("logbase"), _SCALAR),
       "beta": (_msg("beta"), _SCALAR)}, {}, _same("m"), {},
      lambda *a: _sign_dense(*a, power=True), None, doc="PowerSign.")
_pair("ApplyAddSign", ("var", "m"), ("lr", "alpha", "sign_decay", "beta", "grad"), None,
      {"lr": (_msg("lr"), _SCALAR), "alpha": (_msg("alpha"), _SCALAR),
       "beta": (_msg("beta"), _SCALAR)}, {}, _same("m"), {},
      lambda *a: _sign_dense(*a, power=False), None, doc="AddSign.")


__all__: list[str] = []
