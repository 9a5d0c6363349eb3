"""Training ops: TensorFlow's raw optimizer updates, for ref and resource variables.

They live in the variables family because all they do is update variables in place
(TensorFlow registers them in ``tensorflow/core/ops/training_ops.cc``).

Each update comes in TensorFlow's two spellings: ``ApplyX(var: Ref(T), ...) -> out: Ref(T)``
for TF1 ref variables (``VariableV2``, see ``ref_variables``) and ``ResourceApplyX(var:
resource, ...)`` for resource variables; both run the same kernel on the same
:class:`~tfmini.ops.variables.resource_ops.VariableResource` storage:

* ApplyGradientDescent: ``var -= alpha * delta``.
* ApplyMomentum: ``accum = accum * momentum + grad``; ``var -= lr * accum``, or with
  ``use_nesterov`` ``var -= grad * lr + accum * momentum * lr``.
* ApplyAdagrad: ``accum += grad**2`` (if ``update_slots``); ``var -= lr * grad / sqrt(accum)``.
* ApplyAdagradV2: the same with ``var -= lr * grad / (sqrt(accum) + epsilon)``.
* ApplyAdam: ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``;
  ``m += (grad - m) * (1 - beta1)``; ``v += (grad**2 - v) * (1 - beta2)``;
  ``var -= lr_t * m / (sqrt(v) + epsilon)`` (Nesterov: ``m`` replaced by
  ``grad * (1 - beta1) + beta1 * m``).
* SparseApplyAdagrad(V2), SparseApplyMomentum: the same on the rows ``indices`` with
  ``grad[i]`` for row ``indices[i]``; a repeated index is applied again, after the earlier
  one, as TensorFlow's row loop does (the Python optimizers sum duplicates first).

Kernels exist for half, float and double only (TensorFlow's op accepts any number type,
its kernels only the floating ones). Every kernel validates all inputs before it changes
anything and then updates all its variables while holding their locks (taken in one order,
so two ops never deadlock): concurrent updates lose nothing, with or without
``use_locking`` (TensorFlow only promises it with). A dense update writes into the
variable's spare buffer and swaps (:meth:`VariableResource.scratch`); a sparse one changes
the rows in place when nobody else holds the array (:meth:`VariableResource.begin_update`).
Either way a failed ``Session.run`` puts the old values back.

The helpers without an underscore (``resolve_var``, ``locked_all``, ``check_var``,
``apply_shape``, ``duplicate_rounds``...) are shared with ``training_ops_more`` (the
RMSProp, Adadelta, FTRL, proximal and AdagradDA updates); they are not part of ``tm.*``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import DType, tf_type_name
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import native, parallel, shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import ResourceHandle, lookup_resource
from tfmini.ops.common.type_lists import NUMERIC_TYPES
from tfmini.ops.variables.resource_ops import handle_data
from tfmini.ops.variables.variable_resource import VariableResource

_FLOAT_KERNELS = frozenset(("float16", "float32", "float64"))
_T = f"T: {{{NUMERIC_TYPES}}}"
_TINDICES = "Tindices: {int32, int64}"


# ----------------------------------------------------------------------------------------
# Shape functions (TensorFlow's, with ShapeOrHandleShape for resource inputs)


def _var_shape(ic, key: int) -> TensorShape:
    """A variable input's shape: the ref tensor's, or the handle's declared shape."""
    if ic.input_dtype(key).name == "resource":
        data = handle_data(ic, key)
        return data[1] if data is not None else unknown_shape()
    return ic.input_shape(key)


def apply_shape(n_vars: int, scalars: Sequence[int], grad: int,
                 indices: int | None = None) -> Callable:
    def shape_fn(ic):
        s = _var_shape(ic, 0)
        for k in range(1, n_vars):
            s = shape_fns.merge_shapes(s, _var_shape(ic, k))
        for k in scalars:
            shape_fns.with_rank(ic.input_shape(k), 0)
        g = ic.input_shape(grad)
        if indices is None:
            s = shape_fns.merge_shapes(s, g)
        else:
            idx = shape_fns.with_rank(ic.input_shape(indices), 1)
            g = shape_fns.with_rank_at_least(g, 1)
            shape_fns.merge_dim(idx.dims[0], g.dims[0] if g.dims is not None else None)
            if g.dims is not None:
                s = shape_fns.merge_shapes(s, TensorShape((None, *g.dims[1:])))
        return [s] if ic.op_def.outputs else []

    return shape_fn


# ----------------------------------------------------------------------------------------
# Finding and locking the variables


def resolve_var(ctx: Any, value: Any) -> VariableResource:
    """The storage a var input names: a ref variable's storage, or a resource handle's."""
    if isinstance(value, VariableResource):  # a Ref(T) input: the storage itself
        if value.value is None:
            raise errors.FailedPreconditionError(
                None, None,
                f"Attempting to use uninitialized value {getattr(value, 'name', 'variable')}",
            )
        return value
    handle = value.item() if isinstance(value, np.ndarray) and value.dtype == object else value
    if not isinstance(handle, ResourceHandle):
        raise invalid_argument(
            f"Expected a variable (a resource handle or a reference), got "
            f"{type(value).__name__}"
        )
    res = lookup_resource(ctx, handle)
    if not isinstance(res, VariableResource) or res.value is None:
        # TensorFlow's training ops fail this way for a handle naming no variable.
        raise errors.InternalError(
            None, None,
            f"Invalid variable reference. (Could not find variable "
            f"{handle.container or 'localhost'}/{handle.name}: uninitialized or deleted)",
        )
    return res


class locked_all:  # noqa: N801 - used as a function: ``with locked_all(resources):``
    """Holds the locks of ``resources`` (each once, in one global order: no deadlock).

    A class rather than a generator context manager: a third of the cost (it runs for
    every update of every step)."""

    __slots__ = ("_locks",)

    def __init__(self, resources: Sequence[VariableResource]):
        unique = {id(r): r for r in resources}
        self._locks = [unique[k].lock for k in sorted(unique)]

    def __enter__(self) -> None:
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc) -> None:
        for lock in reversed(self._locks):
            lock.release()


def check_kernel_dtype(op_type: str, dtype: DType, node: Any, use_locking: bool) -> None:
    if dtype.name not in _FLOAT_KERNELS:
        raise invalid_argument(
            f"No OpKernel was registered to support Op '{op_type}' used by {{{{node "
            f"{node.name}}}}} with these attrs: [T=DT_{tf_type_name(dtype).upper()}, "
            f"use_locking={str(bool(use_locking)).lower()}]. Registered kernels: T in "
            f"[DT_HALF, DT_FLOAT, DT_DOUBLE]"
        )


def check_var(res: VariableResource, dtype: DType, name: str) -> np.ndarray:
    if res.value is None:  # uninitialized meanwhile (a failed run's undo of the first assign)
        raise errors.FailedPreconditionError(
            None, None, f"Attempting to use uninitialized value {name}"
        )
    if res.dtype != dtype:
        raise invalid_argument(
            f"{name} has dtype {tf_type_name(res.dtype)} but the op's T is {tf_type_name(dtype)}"
        )
    return res.value


def scalar_input(value: Any, name: str, sep: str = ":") -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise invalid_argument(f"{name} is not a scalar{sep} {dims_str(arr.shape)}")
    return arr


def same_shape(var: np.ndarray, other: np.ndarray, name: str) -> None:
    if var.shape != np.shape(other):
        raise invalid_argument(
            f"var and {name} do not have the same shape{dims_str(var.shape)} "
            f"{dims_str(np.shape(other))}"
        )


# ----------------------------------------------------------------------------------------
# Dense updates. Each writes the new values into scratch buffers (``out=``, no temporaries
# where the formula allows) and returns them for the swap.


# Updates of variables at least this large are applied in place when the run has succeeded
# (runtime/late_updates.py), where their memory traffic is what they cost: 4 arrays instead
# of 7 for Adam, one pass instead of two for gradient descent. A smaller one stays in cache
# and gains less than a deferred update's fixed cost (about 7 us: measured on the logistic
# regression step, 784x10 and 10 elements, 0.088 -> 0.103 ms with both deferred).
LATE_MIN_ELEMENTS = 1 << 16


def _new_var_gd(res, var, alpha, delta):
    out = res.scratch()
    np.multiply(delta, alpha, out=out)
    np.subtract(var, out, out=out)
    return out


def _gd_late(res, delta, alpha) -> None:
    """A late commit's gradient descent step (runtime/late_updates.py): one pass over the
    value itself when nobody else holds it (the same bits), else into the spare buffer."""
    x = res.writable_value()
    if x is not None:
        x.flags.writeable = True
        if native.gd_inplace_ok(x, delta):
            parallel.elementwise(native.gd_inplace, (x, delta), alpha)
            res.changed_in_place()
            return
        x.flags.writeable = False
    del x
    res.swap(_new_var_gd(res, res.value, alpha, delta))


def _adagrad_dense(v_res, a_res, var, accum, lr, grad, eps, update_slots):
    """Returns (new var, new accum or None when the slot is kept)."""
    new_a = None
    if update_slots:
        new_a = a_res.scratch()
        np.multiply(grad, grad, out=new_a)
        np.add(accum, new_a, out=new_a)
        accum = new_a
    # TensorFlow's order (it matters in half precision): grad * lr first, then divided by
    # sqrt(accum) (+ epsilon for V2).
    out = v_res.scratch()
    _adagrad_step(np.multiply(grad, lr, out=v_res.work_buffer()), accum, eps, out)
    np.subtract(var, out, out=out)
    return out, new_a


def _adagrad_step(scaled_grad, accum, eps, out):
    """``out = scaled_grad / (sqrt(accum) + eps)`` (V1: no ``eps``; TensorFlow multiplies by
    ``rsqrt(accum)``, which a division matches to the last bit or one ulp, one pass fewer)."""
    np.sqrt(accum, out=out)
    if eps is not None:
        out += eps
    np.divide(scaled_grad, out, out=out)
    return out


def _momentum_dense(v_res, a_res, var, accum, lr, grad, momentum, nesterov):
    new_a = a_res.scratch()
    np.multiply(accum, momentum, out=new_a)
    new_a += grad
    out = v_res.scratch()
    if nesterov:
        np.multiply(new_a, momentum, out=out)
        out *= lr
        out += grad * lr
    else:
        np.multiply(new_a, lr, out=out)
    np.subtract(var, out, out=out)
    return out, new_a


# ----------------------------------------------------------------------------------------
# The kernels


def _gd_kernel(op_type: str) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    def kernel(ctx, var, alpha, delta, *, T, use_locking, node):
        check_kernel_dtype(op_type, T, node, use_locking)
        res = resolve_var(ctx, var)
        with res.lock:
            v = check_var(res, T, "var")
            alpha = scalar_input(alpha, "alpha")
            same_shape(v, delta, "delta")
            if not ref_out and ctx.commits_late(node) and (
                    ctx.late_pending() or v.size >= LATE_MIN_ELEMENTS and native.available()):
                # Nothing after this step touches the variable: apply the update when the
                # run has succeeded, in place (runtime/late_updates.py); always once an
                # earlier update waits, so that the two become visible in run order.
                version = res.version
                delta = np.asarray(delta)

                def check():
                    if res.version != version:  # changed meanwhile
                        same_shape(check_var(res, T, "var"), delta, "delta")

                ctx.commit_late(node, (res,), check, lambda: _gd_late(res, delta, alpha))
                return None
            res.replace(ctx, _new_var_gd(res, v, alpha, delta))
        return var if ref_out else None

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _momentum_kernel(op_type: str) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    def kernel(ctx, var, accum, lr, grad, momentum, *, T, use_locking, use_nesterov, node):
        check_kernel_dtype(op_type, T, node, use_locking)
        v_res, a_res = resolve_var(ctx, var), resolve_var(ctx, accum)
        with locked_all((v_res, a_res)):
            v = check_var(v_res, T, "var")
            a = check_var(a_res, T, "accum")
            lr = scalar_input(lr, "lr")
            same_shape(v, a, "accum")
            same_shape(v, grad, "grad")
            momentum = scalar_input(momentum, "momentum")
            new_v, new_a = _momentum_dense(v_res, a_res, v, a, lr, grad, momentum, use_nesterov)
            a_res.replace(ctx, new_a)
            v_res.replace(ctx, new_v)
        return var if ref_out else None

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _adagrad_kernel(op_type: str, v2: bool) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    def update(ctx, var, accum, lr, epsilon, grad, T, use_locking, update_slots, node):
        check_kernel_dtype(op_type, T, node, use_locking)
        v_res, a_res = resolve_var(ctx, var), resolve_var(ctx, accum)
        with locked_all((v_res, a_res)):
            v = check_var(v_res, T, "var")
            a = check_var(a_res, T, "accum")
            lr = scalar_input(lr, "lr")
            if v2:
                epsilon = scalar_input(epsilon, "epsilon")
            same_shape(v, a, "accum")
            same_shape(v, grad, "grad")
            new_v, new_a = _adagrad_dense(v_res, a_res, v, a, lr, grad, epsilon, update_slots)
            if new_a is not None:
                a_res.replace(ctx, new_a)
            v_res.replace(ctx, new_v)
        return var if ref_out else None

    if v2:
        def kernel(ctx, var, accum, lr, epsilon, grad, *, T, use_locking, update_slots, node):
            return update(ctx, var, accum, lr, epsilon, grad, T, use_locking, update_slots, node)
    else:
        def kernel(ctx, var, accum, lr, grad, *, T, use_locking, update_slots, node):
            return update(ctx, var, accum, lr, None, grad, T, use_locking, update_slots, node)

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _adam_slice(x, m, v, grad, new_m, new_v, out, denom, c1, c2, alpha, b1, eps, nesterov):
    """Adam on (slices of) the arrays, in TensorFlow's order of operations
    (training_ops.cc): ``m + (grad - m) * (1 - beta1)``, ``v + (grad**2 - v) * (1 - beta2)``,
    ``var - m * alpha / (sqrt(v) + epsilon)``; ``c1``, ``c2`` are ``1 - beta1``,
    ``1 - beta2``. One compiled loop where it is available (ops/common/native.py: the same
    operations in the same order, so the same bits); ``denom`` (None: allocated here) is
    the NumPy passes' work buffer."""
    if native.adam(x, m, v, grad, new_m, new_v, out, c1, c2, alpha, b1, eps, nesterov):
        return
    if denom is None:
        denom = np.empty_like(new_v)
    np.subtract(grad, m, out=new_m)
    new_m *= c1
    new_m += m
    np.multiply(grad, grad, out=new_v)
    new_v -= v
    new_v *= c2
    new_v += v
    if nesterov:
        np.multiply(new_m, b1, out=out)
        out += grad * c1
        out *= alpha
    else:
        np.multiply(new_m, alpha, out=out)
    np.sqrt(new_v, out=denom)
    denom += eps
    out /= denom
    np.subtract(x, out, out=out)


def _adam_state(var_r, m_r, v_r, T, grad):
    """The checked values of an Adam update's variable and slots."""
    x = check_var(var_r, T, "var")
    mv = check_var(m_r, T, "m")
    vv = check_var(v_r, T, "v")
    same_shape(x, mv, "m")
    same_shape(x, vv, "v")
    same_shape(x, grad, "grad")
    return x, mv, vv


def _adam_swap(ctx, var_r, m_r, v_r, x, mv, vv, grad, scalars) -> None:
    """The update into spare buffers, swapped in (with undos when ``ctx`` is given)."""
    new_m, new_v, out = m_r.scratch(), v_r.scratch(), var_r.scratch()
    # One compiled pass where it is available; otherwise the denominator in the
    # variable's kept work buffer: no fresh temporaries. A large variable's update
    # is shared out in slices (ops/common/parallel.py).
    work = None if native.available() else var_r.work_buffer()
    parallel.elementwise(_adam_slice, (x, mv, vv, grad, new_m, new_v, out, work), *scalars)
    if ctx is None:
        m_r.swap(new_m)
        v_r.swap(new_v)
        var_r.swap(out)
    else:
        m_r.replace(ctx, new_m)
        v_r.replace(ctx, new_v)
        var_r.replace(ctx, out)


def _adam_late(var_r, m_r, v_r, T, grad, scalars) -> None:
    """A late commit's update (runtime/late_updates.py: the run can no longer fail): over
    the arrays themselves when nobody else holds them (4 arrays touched instead of 7, the
    same bits), else into spare buffers."""
    x, mv, vv = var_r.writable_value(), m_r.writable_value(), v_r.writable_value()
    if x is not None and mv is not None and vv is not None:
        arrays = (x, mv, vv)
        for a in arrays:
            a.flags.writeable = True
        if native.adam_inplace_ok(x, mv, vv, grad):
            parallel.elementwise(native.adam_inplace, (x, mv, vv, grad), *scalars)
            for r in (var_r, m_r, v_r):
                r.changed_in_place()
            return
        for a in arrays:
            a.flags.writeable = False
    del x, mv, vv
    _adam_swap(None, var_r, m_r, v_r, var_r.value, m_r.value, v_r.value, grad, scalars)


def _adam_kernel(op_type: str) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    def kernel(ctx, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *,
               T, use_locking, use_nesterov, node):
        check_kernel_dtype(op_type, T, node, use_locking)
        resources = [resolve_var(ctx, x) for x in (var, m, v)]
        with locked_all(resources):
            var_r, m_r, v_r = resources
            x, mv, vv = _adam_state(var_r, m_r, v_r, T, grad)
            b1p = scalar_input(beta1_power, "beta1_power")
            b2p = scalar_input(beta2_power, "beta2_power")
            lr = scalar_input(lr, "lr", " :")  # sic: TensorFlow's message has the space
            b1 = scalar_input(beta1, "beta1")
            b2 = scalar_input(beta2, "beta2")
            eps = scalar_input(epsilon, "epsilon")
            # NumPy scalars of T rather than 0-d arrays: the same rounding, a third the cost.
            one = x.dtype.type(1)
            b1, eps = b1[()], eps[()]
            alpha = lr[()] * np.sqrt(one - b2p[()]) / (one - b1p[()])
            scalars = (one - b1, one - b2[()], alpha, b1, eps, use_nesterov)
            distinct = len({id(r) for r in resources}) == 3
            if not ref_out and ctx.commits_late(node) and (
                    ctx.late_pending()
                    or distinct and x.size >= LATE_MIN_ELEMENTS and native.available()):
                # Nothing after this step touches these variables: apply the update when
                # the run has succeeded, in place (runtime/late_updates.py); always once an
                # earlier update waits, so that the two become visible in run order.
                versions = [r.version for r in resources]
                grad = np.asarray(grad)

                def check():
                    if [r.version for r in resources] != versions:  # changed meanwhile
                        _adam_state(var_r, m_r, v_r, T, grad)

                def apply():
                    if distinct:
                        _adam_late(var_r, m_r, v_r, T, grad, scalars)
                    else:  # one array in two roles: never written over
                        _adam_swap(None, var_r, m_r, v_r, var_r.value, m_r.value, v_r.value,
                                   grad, scalars)

                ctx.commit_late(node, resources, check, apply)
                return None
            _adam_swap(ctx, var_r, m_r, v_r, x, mv, vv, grad, scalars)
        return var if ref_out else None

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


# -- sparse ------------------------------------------------------------------------------


def check_sparse(v: np.ndarray, a: np.ndarray, grad: Any, indices: Any,
                  scalars: Sequence[tuple[Any, str]], late_scalars=()) -> list[np.ndarray]:
    """TensorFlow's checks of the sparse updates, in its order; returns the scalars."""
    same_shape(v, a, "accum")
    if v.ndim < 1:
        raise invalid_argument("var must be at least 1 dimensional")
    out = [scalar_input(x, name) for x, name in scalars]
    idx = np.asarray(indices)
    if idx.ndim != 1:
        raise invalid_argument("indices must be one-dimensional")
    g = np.asarray(grad)
    if g.ndim != v.ndim:
        raise invalid_argument("grad must have the same number of dimensions as var")
    for d in range(1, v.ndim):
        if v.shape[d] != g.shape[d]:
            raise invalid_argument(f"var and grad must match in dimension {d}")
    if g.shape[0] != idx.shape[0]:
        raise invalid_argument("grad must be the same size as indices in the first dimension.")
    out += [scalar_input(x, name) for x, name in late_scalars]
    if v.ndim > 1 and int(np.prod(v.shape[1:])) == 0:
        raise invalid_argument("Inner dimension should be greater than zero.")
    bad = (idx < 0) | (idx >= v.shape[0])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise invalid_argument(f"Index {int(idx[i])} at offset {i} in indices is out of range")
    return out


def duplicate_rounds(idx: np.ndarray) -> list[np.ndarray | slice]:
    """Positions of ``idx`` grouped into rounds in which every index occurs once, the k-th
    occurrence of an index in round k: applying the rounds in order is TensorFlow's
    sequential row loop, vectorised. Without duplicates, one round of everything."""
    n = idx.shape[0]
    if n < 2:
        return [slice(None)]
    s = np.sort(idx)
    if not (s[1:] == s[:-1]).any():
        return [slice(None)]
    order = np.argsort(idx, kind="stable")
    sorted_idx = idx[order]
    starts = np.flatnonzero(np.r_[True, sorted_idx[1:] != sorted_idx[:-1]])
    group_start = np.repeat(starts, np.diff(np.r_[starts, n]))
    occurrence = np.empty(n, np.intp)
    occurrence[order] = np.arange(n) - group_start
    return [np.flatnonzero(occurrence == k) for k in range(int(occurrence.max()) + 1)]


def _sparse_apply(ctx, v_res, a_res, indices, grad, rows_update, update_accum=True) -> None:
    """Applies ``rows_update(var_rows, accum_rows, grad_rows) -> (var_rows, accum_rows)``
    round by round on the variables' arrays (in place when nobody else holds them)."""
    idx = np.asarray(indices)
    if idx.shape[0] == 0:
        return
    g = np.asarray(grad)
    flat_rows = idx.astype(np.intp, copy=False)
    a_arr = a_res.begin_update(ctx, flat_rows) if update_accum else a_res.value
    v_arr = v_res.begin_update(ctx, flat_rows)
    try:
        for pos in duplicate_rounds(flat_rows):
            rows = flat_rows[pos]
            new_v, new_a = rows_update(np.take(v_arr, rows, axis=0),
                                       np.take(a_arr, rows, axis=0), g[pos])
            if update_accum:
                a_arr[rows] = new_a
            v_arr[rows] = new_v
    finally:
        # Published even on failure: the undo registered by begin_update restores the rows.
        if update_accum:
            a_res.finish_update(ctx, a_arr)
        v_res.finish_update(ctx, v_arr)


def _sparse_adagrad_kernel(op_type: str, v2: bool) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    def update(ctx, var, accum, lr, epsilon, grad, indices, T, use_locking, update_slots, node):
        check_kernel_dtype(op_type, T, node, use_locking)
        v_res, a_res = resolve_var(ctx, var), resolve_var(ctx, accum)
        with locked_all((v_res, a_res)):
            v = check_var(v_res, T, "var")
            a = check_var(a_res, T, "accum")
            scalars = [(lr, "lr")] + ([(epsilon, "epsilon")] if v2 else [])
            checked = check_sparse(v, a, grad, indices, scalars)
            del v, a  # our references would make begin_update copy the arrays
            lr = checked[0]
            eps = checked[1] if v2 else None

            def rows_update(vr, ar, gr):
                if update_slots:
                    ar += gr * gr
                vr -= _adagrad_step(gr * lr, ar, eps, np.empty_like(ar))
                return vr, ar

            _sparse_apply(ctx, v_res, a_res, indices, grad, rows_update, update_slots)
        return var if ref_out else None

    if v2:
        def kernel(ctx, var, accum, lr, epsilon, grad, indices, *, T, use_locking, update_slots,
                   node):
            return update(ctx, var, accum, lr, epsilon, grad, indices, T, use_locking,
                          update_slots, node)
    else:
        def kernel(ctx, var, accum, lr, grad, indices, *, T, use_locking, update_slots, node):
            return update(ctx, var, accum, lr, None, grad, indices, T, use_locking,
                          update_slots, node)

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _sparse_momentum_kernel(op_type: str) -> Callable:
    ref_out = not op_type.startswith("Resource")  # Apply* output the ref itself
    def kernel(ctx, var, accum, lr, grad, indices, momentum, *, T, use_locking, use_nesterov,
               node):
        check_kernel_dtype(op_type, T, node, use_locking)
        v_res, a_res = resolve_var(ctx, var), resolve_var(ctx, accum)
        with locked_all((v_res, a_res)):
            v = check_var(v_res, T, "var")
            a = check_var(a_res, T, "accum")
            lr, mom = check_sparse(v, a, grad, indices, [(lr, "lr")],
                                    [(momentum, "momentum")])
            del v, a

            def rows_update(vr, ar, gr):
                ar *= mom
                ar += gr
                if use_nesterov:
                    vr -= gr * lr + ar * mom * lr
                else:
                    vr -= ar * lr
                return vr, ar

            _sparse_apply(ctx, v_res, a_res, indices, grad, rows_update)
        return var if ref_out else None

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


# ----------------------------------------------------------------------------------------
# Registration: each update as Apply* (ref) and ResourceApply* (resource)


def _register(name: str, var_names: Sequence[str], rest: Sequence[str], attrs: Sequence[str],
              kernel_factory: Callable[[str], Callable], scalars: Sequence[int], grad: int,
              indices: int | None, doc: str) -> None:
    for resource in (False, True):
        op_type = ("Resource" + name) if resource else name
        var_type = "resource" if resource else "Ref(T)"
        register_op(
            op_type,
            inputs=[f"{v}: {var_type}" for v in var_names] + list(rest),
            outputs=[] if resource else ["out: Ref(T)"],
            attrs=[_T, *attrs],
            shape_fn=apply_shape(len(var_names), scalars, grad, indices),
            # TensorFlow marks only the resource ops stateful (refs make the others so); the
            # planner must never fold or merge any of them.
            stateful=True,
            doc=doc,
        )(kernel_factory(op_type))
        no_gradient(op_type)


_LOCKING = "use_locking: bool = false"

_register("ApplyGradientDescent", ["var"], ["alpha: T", "delta: T"], [_LOCKING], _gd_kernel,
          scalars=[1], grad=2, indices=None, doc="``var -= alpha * delta``.")
_register("ApplyMomentum", ["var", "accum"], ["lr: T", "grad: T", "momentum: T"],
          [_LOCKING, "use_nesterov: bool = false"], _momentum_kernel, scalars=[2, 4], grad=3,
          indices=None,
          doc="``accum = accum * momentum + grad; var -= lr * accum`` (or Nesterov's form).")
_register("ApplyAdagrad", ["var", "accum"], ["lr: T", "grad: T"],
          [_LOCKING, "update_slots: bool = true"], lambda t: _adagrad_kernel(t, False),
          scalars=[2], grad=3, indices=None,
          doc="``accum += grad**2; var -= lr * grad / sqrt(accum)``.")
_register("ApplyAdagradV2", ["var", "accum"], ["lr: T", "epsilon: T", "grad: T"],
          [_LOCKING, "update_slots: bool = true"], lambda t: _adagrad_kernel(t, True),
          scalars=[2, 3], grad=4, indices=None,
          doc="``accum += grad**2; var -= lr * grad / (sqrt(accum) + epsilon)``.")
_register("ApplyAdam", ["var", "m", "v"],
          ["beta1_power: T", "beta2_power: T", "lr: T", "beta1: T", "beta2: T", "epsilon: T",
           "grad: T"],
          [_LOCKING, "use_nesterov: bool = false"], _adam_kernel, scalars=[3, 4, 5, 6, 7, 8],
          grad=9, indices=None, doc="Adam's update of ``var``, ``m`` and ``v``.")
_register("SparseApplyAdagrad", ["var", "accum"], ["lr: T", "grad: T", "indices: Tindices"],
          [_TINDICES, _LOCKING, "update_slots: bool = true"],
          lambda t: _sparse_adagrad_kernel(t, False), scalars=[2], grad=3, indices=4,
          doc="Adagrad on the rows ``indices`` (repeated indices applied in turn).")
_register("SparseApplyAdagradV2", ["var", "accum"],
          ["lr: T", "epsilon: T", "grad: T", "indices: Tindices"],
          [_TINDICES, _LOCKING, "update_slots: bool = true"],
          lambda t: _sparse_adagrad_kernel(t, True), scalars=[2, 3], grad=4, indices=5,
          doc="AdagradV2 on the rows ``indices`` (repeated indices applied in turn).")
_register("SparseApplyMomentum", ["var", "accum"],
          ["lr: T", "grad: T", "indices: Tindices", "momentum: T"],
          [_TINDICES, _LOCKING, "use_nesterov: bool = false"], _sparse_momentum_kernel,
          scalars=[2, 5], grad=3, indices=4,
          doc="Momentum on the rows ``indices`` (repeated indices applied in turn).")


__all__: list[str] = []
