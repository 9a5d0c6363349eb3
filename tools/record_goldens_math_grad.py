"""Records TensorFlow's gradients of the math ops into tests/goldens/math_grad.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_math_grad.py

Each case builds one raw op in TF1 graph mode and differentiates it with ``tf.gradients``
and a fixed upstream gradient. The file is data-driven, so the test rebuilds the same op
from it. Per case ``<case>``:

All arrays live in one flat pool per dtype (``pool/<dtype>``) with a JSON ``index`` giving
each array's pool, offset and shape and each case's ``meta`` (a few npz entries rather than
thousands keep the file small). Per case ``<case>``:

``meta``
    ``op`` (type), ``attrs`` (non-type attrs; dtypes as ``{"dtype": name}``),
    ``args`` (per input argument: null, or the length of a list argument), ``fed`` (input
    indices fed through placeholders of unknown shape, so the dynamic-shape paths run),
    ``wrt`` (input indices differentiated) and ``none`` (those whose gradient is None).
``<case>/in<i>`` (``in<i>_<j>`` in a list), ``<case>/dy``, ``<case>/grad<i>``
    Inputs, the upstream gradient, and each gradient that is not None.

Inputs come from a fixed seed, so re-running gives the same file.
"""

from __future__ import annotations

import io
import json
import os
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import op_def_library, op_def_registry  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf1 = tf.compat.v1

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "math_grad.npz"
RNG = np.random.default_rng(20240618)
F16, F32, F64, I32 = np.float16, np.float32, np.float64, np.int32

records: dict[str, np.ndarray] = {}
metas: dict[str, dict] = {}


def u(shape, dtype=F32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def record(case: str, op: str, inputs: list, attrs: dict | None = None, wrt=(0,),
           fed=(), dy=None) -> None:
    """Builds ``op`` on ``inputs`` in TensorFlow, differentiates it, stores everything."""
    assert case not in metas, case
    attrs = attrs or {}
    g = tf.Graph()
    with g.as_default():
        op_def = op_def_registry.get(op)
        tensors, flat = [], []
        for i, value in enumerate(inputs):
            if isinstance(value, list):
                ts = [tf.constant(v) for v in value]
                tensors.append(ts)
                flat.append(ts)
            elif i in fed:
                ph = tf1.placeholder(tf.as_dtype(value.dtype), shape=None)
                tensors.append(ph)
                flat.append(ph)
            else:
                t = tf.constant(value)
                tensors.append(t)
                flat.append(t)
        tf_attrs = {k: tf.as_dtype(v["dtype"]) if isinstance(v, dict) else v
                    for k, v in attrs.items()}
        kwargs = {arg.name: t for arg, t in zip(op_def.input_arg, tensors)}
        # _apply_op_helper wants every attr it cannot infer, defaults included.
        inferred = {a.type_attr for a in op_def.input_arg} | {
            a.number_attr for a in op_def.input_arg}
        for a in op_def.attr:
            if a.name not in tf_attrs and a.name not in inferred and a.HasField("default_value"):
                tf_attrs[a.name] = getattr(a.default_value, a.default_value.WhichOneof("value"))
        _, _, node, _ = op_def_library._apply_op_helper(op, **kwargs, **tf_attrs)
        y = node.outputs[0]
        feeds = {flat[i]: inputs[i] for i in fed}
        with tf1.Session(graph=g) as sess:
            y_value = sess.run(y, feeds)
            if dy is None:
                dy = RNG.uniform(-1, 1, np.shape(y_value)).astype(y_value.dtype)
            xs = [x for i in wrt for x in (flat[i] if isinstance(flat[i], list) else [flat[i]])]
            grads = tf.gradients(y, xs, grad_ys=tf.constant(np.asarray(dy, y_value.dtype)))
            values = sess.run([gr for gr in grads if gr is not None], feeds)
    none, it = [], iter(values)
    for k, gr in enumerate(grads):
        if gr is None:
            none.append(k)
        else:
            records[f"{case}/grad{k}"] = np.asarray(next(it))
    for i, value in enumerate(inputs):
        if isinstance(value, list):
            for j, v in enumerate(value):
                records[f"{case}/in{i}_{j}"] = np.asarray(v)
        else:
            records[f"{case}/in{i}"] = np.asarray(value)
    records[f"{case}/dy"] = np.asarray(dy, y_value.dtype)
    meta = {"op": op, "attrs": attrs, "fed": list(fed), "wrt": list(wrt), "none": none,
            "args": [len(v) if isinstance(v, list) else None for v in inputs]}
    metas[case] = meta


def unary() -> None:
    positive = {"Sqrt", "Rsqrt", "Log"}
    for op in ("Abs", "Neg", "Sign", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Sin",
               "Cos", "Tanh", "Sigmoid"):
        for dtype in (F32, F64):
            low = 0.1 if op in positive else (-0.9 if op == "Log1p" else -2.0)
            x = u((2, 3), dtype, low, 2.0)
            record(f"{op}/{np.dtype(dtype).name}", op, [x])
        record(f"{op}/fed", op, [u((3,), F32, 0.2 if op in positive else -0.5, 0.9)], fed=(0,))
    # The SqrtGrad/RsqrtGrad kernels give 0 where the incoming gradient is 0, even at x = 0.
    for op in ("Sqrt", "Rsqrt"):
        record(f"{op}/zero_dy_at_zero", op, [np.array([0.0, 0.0, 4.0], F32)],
               dy=np.array([0.0, 1.0, 0.0], F32))


BINARY_SHAPES = {
    "same": ((2, 3), (2, 3)),
    "row": ((2, 3), (3,)),
    "col_row": ((2, 1, 3), (4, 1)),
    "scalar_x": ((), (2, 3)),
    "scalar_y": ((2, 3), ()),
    "ones": ((1, 3), (2, 1)),
}


def binary() -> None:
    for op in ("AddV2", "Add", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "Pow",
               "FloorMod"):
        for label, (sx, sy) in BINARY_SHAPES.items():
            for dtype in (F32, F64) if label == "row" else (F32,):
                if op == "Pow":
                    x, y = u(sx, dtype, 0.5, 2.0), u(sy, dtype, -2.0, 2.0)
                elif op == "FloorMod":
                    x, y = u(sx, dtype, -5.0, 5.0), u(sy, dtype, 0.5, 2.0)
                elif op in ("RealDiv", "Div"):
                    x, y = u(sx, dtype), u(sy, dtype, 0.5, 2.0)
                else:
                    x, y = u(sx, dtype), u(sy, dtype)
                name = f"{op}/{label}" + ("/float64" if dtype == F64 else "")
                record(name, op, [x, y], wrt=(0, 1))
                if dtype == F32 and label in ("row", "col_row", "scalar_x"):
                    record(f"{name}/fed", op, [x, y], wrt=(0, 1), fed=(0, 1))
                    record(f"{name}/fed_y", op, [x, y], wrt=(0, 1), fed=(1,))
    # Pow at and below 0: d/dy is masked to 0 where x <= 0; d/dx follows y * x^(y-1).
    x = np.array([[0.0, 0.0, 0.0, -1.5], [2.0, -2.0, 0.0, 0.5]], F32)
    y = np.array([[2.0, 0.0, 0.5, 3.0], [1.5, 2.0, -1.0, 0.0]], F32)
    record("Pow/at_zero", "Pow", [x, y], wrt=(0, 1))
    record("Pow/at_zero/fed", "Pow", [x, y], wrt=(0, 1), fed=(0, 1))
    # Maximum/Minimum ties go to x.
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], F32)
    y = np.array([1.0, -1.0, 3.0], F32)
    for op in ("Maximum", "Minimum"):
        record(f"{op}/ties", op, [x, y], wrt=(0, 1))
    record("FloorDiv/none", "FloorDiv", [u((2, 3)), u((3,), F32, 0.5, 2.0)], wrt=(0, 1))


def select_cast_addn() -> None:
    c = np.array([[True, False, True], [False, False, True]])
    record("Select/same", "Select", [c, u((2, 3)), u((2, 3))], wrt=(1, 2))
    record("Select/vector", "Select", [np.array([True, False]), u((2, 3)), u((2, 3))],
           wrt=(1, 2))
    record("Select/scalar", "Select", [np.array(False), u((2, 3)), u((2, 3))], wrt=(1, 2))
    record("Select/fed", "Select", [c, u((2, 3)), u((2, 3))], wrt=(1, 2), fed=(0, 1, 2))
    record("SelectV2/broadcast", "SelectV2",
           [np.array([True, False, True]), u((2, 1)), u((2, 3))], wrt=(1, 2))
    record("SelectV2/cond_broadcast", "SelectV2",
           [np.array([[True], [False]]), u((3,)), u(())], wrt=(1, 2))
    record("SelectV2/fed", "SelectV2", [np.array([[True], [False]]), u((1, 3)), u((2, 1))],
           wrt=(1, 2), fed=(0, 1, 2))
    for src, dst in ((F32, F64), (F64, F32), (F16, F32), (F32, F16), (I32, F32), (F32, I32)):
        x = u((2, 3), F32).astype(src) if src != I32 else np.array([[1, -2, 3]], I32)
        name = f"Cast/{np.dtype(src).name}_{np.dtype(dst).name}"
        record(name, "Cast", [x], {"DstT": {"dtype": np.dtype(dst).name}})
    record("AddN/three", "AddN", [[u((2, 3)), u((2, 3)), u((2, 3))]])


def matmul() -> None:
    for ta in (False, True):
        for tb in (False, True):
            a = u((3, 2) if ta else (2, 3))
            b = u((4, 3) if tb else (3, 4))
            attrs = {"transpose_a": ta, "transpose_b": tb}
            record(f"MatMul/{int(ta)}{int(tb)}", "MatMul", [a, b], attrs, wrt=(0, 1))
            record(f"MatMul/{int(ta)}{int(tb)}/float64", "MatMul",
                   [a.astype(F64), b.astype(F64)], attrs, wrt=(0, 1))
    cases = {
        "same_batch": ((2, 3, 4), (2, 4, 5)),
        "x_batch": ((2, 3, 4), (4, 5)),
        "y_batch": ((3, 4), (2, 4, 5)),
        "broadcast": ((2, 1, 3, 4), (5, 4, 2)),
        "ones": ((1, 3, 4), (1, 4, 2)),
    }
    for label, (sx, sy) in cases.items():
        for ax in (False, True):
            for ay in (False, True):
                x_shape = sx[:-2] + (sx[-1], sx[-2]) if ax else sx
                y_shape = sy[:-2] + (sy[-1], sy[-2]) if ay else sy
                attrs = {"adj_x": ax, "adj_y": ay}
                name = f"BatchMatMulV2/{label}/{int(ax)}{int(ay)}"
                x, y = u(x_shape), u(y_shape)
                record(name, "BatchMatMulV2", [x, y], attrs, wrt=(0, 1))
                if not ax and not ay:
                    record(f"{name}/fed", "BatchMatMulV2", [x, y], attrs, wrt=(0, 1),
                           fed=(0, 1))
                    record(f"{name}/fed_y", "BatchMatMulV2", [x, y], attrs, wrt=(0, 1),
                           fed=(1,))


def reductions() -> None:
    axes_cases = {
        "all": [0, 1, 2],
        "axis1": [1],
        "neg": [-1],
        "two": [0, 2],
        "scalar": 1,
        "none": [],
        "reversed_all": [2, 1, 0],
    }
    for op in ("Sum", "Mean", "Max", "Min", "Prod"):
        for label, axes in axes_cases.items():
            for keep in (False, True):
                # Distinct values keep Max/Min away from ties; the tie cases are below.
                x = RNG.permutation(24).reshape(2, 3, 4).astype(F32) / 8 - 1.4
                a = np.array(axes, I32)
                name = f"{op}/{label}/keep{int(keep)}"
                record(name, op, [x, a], {"keep_dims": keep})
                if label in ("axis1", "neg", "two", "all"):
                    record(f"{name}/fed", op, [x, a], {"keep_dims": keep}, fed=(0,))
                    record(f"{name}/fed_axes", op, [x, a], {"keep_dims": keep}, fed=(0, 1))
        record(f"{op}/int64_axes", op, [u((3, 4), F64), np.array([-2], np.int64)],
               {"keep_dims": False})
    ties = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 0.5, -1.0, 0.5]], F32)
    for op in ("Max", "Min"):
        for axes in (1, 0):
            record(f"{op}/ties/axis{axes}", op, [ties, np.array(axes, I32)],
                   {"keep_dims": False})
        record(f"{op}/ties/all", op, [ties, np.array([0, 1], I32)], {"keep_dims": True})
        record(f"{op}/ties/fed", op, [ties, np.array(1, I32)], {"keep_dims": False}, fed=(0,))
    # Prod with zeros: none, one and two zeros per reduced group.
    zeros = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 3.0, 0.0, 2.0], [0.5, 2.0, -2.0, 1.5]], F32)
    for axes in (1, 0):
        record(f"Prod/zeros/axis{axes}", "Prod", [zeros, np.array(axes, I32)],
               {"keep_dims": False})
    record("Prod/zeros/fed", "Prod", [zeros, np.array([1], I32)], {"keep_dims": True},
           fed=(0, 1))


def main() -> None:
    unary()
    binary()
    select_cast_addn()
    matmul()
    reductions()
    buf = io.BytesIO()
    np.savez_compressed(buf, **pack())
    OUT.write_bytes(buf.getvalue())
    print(f"wrote {OUT} ({len(metas)} cases, {len(buf.getvalue()) // 1024} KiB)")


def pack() -> dict[str, np.ndarray]:
    """All arrays in one flat pool per dtype plus a JSON index."""
    pools: dict[str, list] = {}
    sizes: dict[str, int] = {}
    arrays = {}
    for key, a in records.items():
        name = a.dtype.name
        pools.setdefault(name, []).append(a.reshape(-1))
        arrays[key] = {"pool": name, "offset": sizes.get(name, 0), "shape": list(a.shape)}
        sizes[name] = sizes.get(name, 0) + a.size
    index = json.dumps({"arrays": arrays, "meta": metas}, sort_keys=True)
    out = {f"pool/{k}": np.concatenate(v) for k, v in pools.items()}
    out["index"] = np.frombuffer(index.encode("utf-8"), dtype=np.uint8)
    return out


if __name__ == "__main__":
    main()
