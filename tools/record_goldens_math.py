"""Records TensorFlow's results for the math op family into tests/goldens/math.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_math.py

The file is data-driven so the tests need no copy of the cases. Three sections:

``op/<case>/...``
    A raw op on concrete inputs. ``meta`` is JSON: ``op`` (type), ``attrs`` (dtype attrs as
    ``{"dtype": name}``), ``args`` (per input argument: null, or the length of a list
    argument), and two outcomes recorded in TF1 graph mode: ``const`` with the inputs as
    constants (shape functions see values and shapes) and ``fed`` with the inputs fed to
    placeholders of unknown shape (only the kernel sees them). An outcome is ``{"ok": true,
    "shapes": [...static output shapes...]}`` or ``{"error": class, "phase": "build"|"run",
    "message": text}``. Inputs are ``in<i>`` (``in<i>_<j>`` in a list), outputs ``out<j>``.
``shape/<case>/meta``
    Static shape inference on placeholders of partial shape (and constant inputs
    ``in<i>``): ``inputs`` (``{"ph": shape, "dtype": name}`` or ``{"const": i}``), and the
    outcome with static shapes (null = unknown dimension or rank).
``fn/<case>/...``
    A ``tf.compat.v1`` function or Python operator: ``callee`` (``"tf:reduce_mean"`` or
    ``"op:add"`` for :mod:`operator`), ``args``/``kwargs`` (``{"t": i}`` a constant made from
    ``in<i>``, ``{"lit": value}``, ``{"dtype": name}``), and the outcome: output ``out0``,
    its dtype, static shape and the type of the op that produced it, or the build error.

Inputs are small and drawn from fixed seeds, so re-running gives the same file.
"""

from __future__ import annotations

import inspect
import json
import operator
import os
import re
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf1 = tf.compat.v1

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "math.npz"
RNG = np.random.default_rng(20240617)
records: dict[str, np.ndarray] = {}
metas: dict[str, dict] = {}

F16, F32, F64 = np.float16, np.float32, np.float64
I8, I16, I32, I64, U8 = np.int8, np.int16, np.int32, np.int64, np.uint8
NAN, INF = np.nan, np.inf


def put(key: str, value) -> None:
    assert key not in records, key
    a = np.asarray(value)
    records[key] = a.astype(bytes) if a.dtype == object else a  # TF returns strings as objects


def put_meta(key: str, meta: dict) -> None:
    assert key not in metas, key
    metas[key] = meta


def pack() -> dict[str, np.ndarray]:
    """All arrays in one flat pool per dtype plus a JSON index (a few npz entries, not
    thousands: each entry costs a zip and an npy header)."""
    pools: dict[str, list] = {}
    index = {}
    for key, a in records.items():
        name = "bytes" if a.dtype.kind == "S" else a.dtype.name
        pool = pools.setdefault(name, [])
        offset = sum(x.size for x in pool)
        pool.append(a.reshape(-1))
        index[key] = {"pool": name, "offset": offset, "shape": list(a.shape)}
    out = {f"pool/{k}": np.concatenate(v) if v else np.zeros(0) for k, v in pools.items()}
    text = json.dumps({"arrays": index, "meta": metas}, sort_keys=True)
    out["index"] = np.frombuffer(text.encode("utf-8"), np.uint8)  # UTF-8 JSON
    return out


def arr(values, dt) -> np.ndarray:
    if dt == "string":
        return np.array(values, dtype=object).astype(bytes)
    return np.array(values, dtype=dt)


def rand(shape, dt, low=-3.0, high=3.0, nonzero=False) -> np.ndarray:
    dt = np.dtype(dt)
    if dt == np.bool_:
        return RNG.random(shape) < 0.5
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else int(low * 3)
        v = RNG.integers(lo, int(high * 3) + 1, size=shape)
        if nonzero:
            v = np.where(v == 0, 1, v)
        return np.asarray(v, dt)
    v = RNG.uniform(low, high, size=shape)
    if nonzero:
        v = np.where(np.abs(v) < 0.25, 0.5, v)
    return np.asarray(v, dt)


def tf_dtype(name: str):
    return tf.as_dtype(name)


def encode_attrs(attrs: dict) -> dict:
    out = {}
    for k, v in attrs.items():
        if isinstance(v, tf.dtypes.DType):
            out[k] = {"dtype": v.name}
        else:
            out[k] = v
    return out


def clean_message(message: str) -> str:
    """The kernel's or shape function's own words, without TensorFlow's decorations."""
    if "Graph execution error" in message:
        # Session errors: "...\nNode: 'Sum'\n<kernel message>\n\t [[{{node Sum}}]]".
        m = message.split("\nNode: ")[-1].split("\n", 1)[-1]
        m = m.split("\n\t [[")[0].split("\nRegistered devices")[0]
        return m.strip()
    m = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
    m = re.sub(r"\s*\[Op:\w+\].*$", "", m, flags=re.S)
    m = m.split(" for '{{node")[0]
    return m.strip()


def tf_input_names(op_type: str, n: int) -> list[str]:
    return list(inspect.signature(getattr(tf.raw_ops, op_type)).parameters)[:n]


def flat(inputs):
    for v in inputs:
        if isinstance(v, list):
            yield from v
        else:
            yield v


def build_tf(op_type, inputs, attrs, make):
    names = tf_input_names(op_type, len(inputs))
    kwargs = {}
    for name, v in zip(names, inputs):
        kwargs[name] = [make(x) for x in v] if isinstance(v, list) else make(v)
    out = getattr(tf.raw_ops, op_type)(**kwargs, **attrs)
    return out if isinstance(out, (list, tuple)) else [out]


def static(shape) -> list | None:
    return None if shape.rank is None else [d for d in shape.as_list()]


def outcome(op_type, inputs, attrs, fed: bool):
    g = tf.Graph()
    with g.as_default():
        feeds = {}

        def make(v):
            if not fed:
                return tf.constant(v)
            p = tf1.placeholder(tf.as_dtype(v.dtype), shape=None)
            feeds[p] = v
            return p

        try:
            outs = build_tf(op_type, inputs, attrs, make)
        except (TypeError, ValueError) as e:
            return {"error": type(e).__name__, "phase": "build",
                    "message": clean_message(str(e))}, None
        shapes = [static(o.shape) for o in outs]
        try:
            with tf1.Session(graph=g) as sess:
                values = sess.run(list(outs), feed_dict=feeds)
        except tf.errors.OpError as e:
            return {"error": type(e).__name__, "phase": "run",
                    "message": clean_message(e.message)}, None
    return {"ok": True, "shapes": shapes}, values


def op_case(case: str, op_type: str, inputs: list, attrs: dict | None = None) -> None:
    """Records one raw op on concrete inputs (constants and fed placeholders)."""
    attrs = attrs or {}
    key = f"op/{case}"
    const, values = outcome(op_type, inputs, attrs, fed=False)
    fed, fed_values = outcome(op_type, inputs, attrs, fed=True)
    values = values if values is not None else fed_values
    args = []
    for i, v in enumerate(inputs):
        if isinstance(v, list):
            args.append(len(v))
            for j, x in enumerate(v):
                put(f"{key}/in{i}_{j}", x)
        else:
            args.append(None)
            put(f"{key}/in{i}", v)
    if values is not None:
        for j, v in enumerate(values):
            put(f"{key}/out{j}", v)
    put_meta(f"{key}/meta", {"op": op_type, "attrs": encode_attrs(attrs), "args": args,
                             "const": const, "fed": fed})


def shape_case(case: str, op_type: str, inputs: list, attrs: dict | None = None) -> None:
    """Records static shape inference: inputs are ("ph", shape, dtype) or ("const", value)."""
    attrs = attrs or {}
    key = f"shape/{case}"
    specs = []
    g = tf.Graph()
    with g.as_default():
        tensors = []
        for i, spec in enumerate(inputs):
            if spec[0] == "ph":
                _, shape, dt = spec
                tensors.append(tf1.placeholder(tf.as_dtype(dt), shape=shape))
                specs.append({"ph": None if shape is None else list(shape), "dtype": dt})
            else:
                tensors.append(tf.constant(spec[1]))
                put(f"{key}/in{i}", spec[1])
                specs.append({"const": i})
        names = tf_input_names(op_type, len(tensors))
        kwargs = {"inputs": tensors} if op_type == "AddN" else dict(zip(names, tensors))
        try:
            outs = getattr(tf.raw_ops, op_type)(**kwargs, **attrs)
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            result = {"ok": True, "shapes": [static(o.shape) for o in outs]}
        except (TypeError, ValueError) as e:
            result = {"error": type(e).__name__, "phase": "build",
                      "message": clean_message(str(e))}
    put_meta(f"{key}/meta", {"op": op_type, "attrs": encode_attrs(attrs), "inputs": specs,
                             "outcome": result})


def fn_case(case: str, callee: str, args: list, kwargs: dict | None = None) -> None:
    """Records a tf.compat.v1 function or a Python operator on constants and literals."""
    kwargs = kwargs or {}
    key = f"fn/{case}"
    n = 0

    def encode(a):
        nonlocal n
        if isinstance(a, np.ndarray):
            put(f"{key}/in{n}", a)
            n += 1
            return {"t": n - 1}
        if isinstance(a, tf.dtypes.DType):
            return {"dtype": a.name}
        if isinstance(a, list) and any(isinstance(v, np.ndarray) for v in a):
            return {"list": [encode(v) for v in a]}
        return {"lit": a}

    enc_args = [encode(a) for a in args]
    enc_kwargs = {k: encode(v) for k, v in kwargs.items()}
    g = tf.Graph()
    with g.as_default():

        def decode(a):
            if "list" in a:
                return [decode(v) for v in a["list"]]
            if "t" in a:
                return tf.constant(records[f"{key}/in{a['t']}"])
            if "dtype" in a:
                return tf.as_dtype(a["dtype"])
            return a["lit"]

        kind, name = callee.split(":")
        fn = getattr(tf1, name) if kind == "tf" else getattr(operator, name)
        try:
            out = fn(*[decode(a) for a in enc_args],
                     **{k: decode(v) for k, v in enc_kwargs.items()})
        except (TypeError, ValueError) as e:
            result = {"error": type(e).__name__, "phase": "build",
                      "message": clean_message(str(e))}
        else:
            result = {"ok": True, "dtype": out.dtype.name, "shape": static(out.shape),
                      "op": out.op.type, "name": out.op.name}
            try:
                with tf1.Session(graph=g) as sess:
                    put(f"{key}/out0", sess.run(out))
            except tf.errors.OpError as e:
                result.update(error=type(e).__name__, phase="run",
                              message=clean_message(e.message))
    put_meta(f"{key}/meta", {"callee": callee, "args": enc_args, "kwargs": enc_kwargs,
                             "outcome": result})


# ========================================================================================
# Cases

BCAST = {"same": ((2, 3), (2, 3)), "row": ((2, 3), (3,)), "outer": ((2, 1), (1, 3)),
         "scalar": ((), (2, 3))}


def binary_cases() -> None:
    plain = ["AddV2", "Add", "Sub", "Mul", "Maximum", "Minimum",
             "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"]
    for op in plain:
        for dt in (F32, F64, I32):
            for bname, (sx, sy) in BCAST.items():
                op_case(f"{op}/{np.dtype(dt).name}/{bname}", op, [rand(sx, dt), rand(sy, dt)])
        op_case(f"{op}/float16/row", op, [rand((2, 3), F16), rand((3,), F16)])
    for op in ("Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "Less"):
        for dt in (I8, I16, I64, U8):
            op_case(f"{op}/{np.dtype(dt).name}/row", op, [rand((2, 3), dt), rand((3,), dt)])
    for op in ("RealDiv", "Div", "FloorDiv", "FloorMod"):
        for dt in (F16, F32, F64):
            for bname, (sx, sy) in BCAST.items():
                op_case(f"{op}/{np.dtype(dt).name}/{bname}", op,
                        [rand(sx, dt), rand(sy, dt, nonzero=True)])
    for op in ("Div", "FloorDiv", "FloorMod", "RealDiv"):
        for dt in (I8, I16, I32, I64, U8):
            op_case(f"{op}/{np.dtype(dt).name}/row", op,
                    [rand((2, 3), dt), rand((3,), dt, nonzero=True)])
        signs_x = arr([7, -7, 7, -7, 0, 6, -6, 1], I32)
        signs_y = arr([2, 2, -2, -2, 3, -3, 3, 5], I32)
        op_case(f"{op}/int32/signs", op, [signs_x, signs_y])
        op_case(f"{op}/int64/signs", op, [signs_x.astype(I64), signs_y.astype(I64)])
        op_case(f"{op}/int32/by_zero", op, [arr([1, 2, 3], I32), arr([1, 0, 1], I32)])
        op_case(f"{op}/uint8/by_zero", op, [arr([1, 2], U8), arr([0, 1], U8)])
        fx = arr([5.5, -5.5, 5.5, -5.5, 1.0, -1.0, 1.0, 0.0, 3.0, -4.0], F32)
        fy = arr([2.0, 2.0, -2.0, -2.0, 0.1, 0.1, 0.0, 0.0, INF, 2.0], F32)
        op_case(f"{op}/float32/signs_and_zero", op, [fx, fy])
        op_case(f"{op}/float64/signs_and_zero", op, [fx.astype(F64), fy.astype(F64)])
    # Pow
    for dt in (F32, F64, F16):
        for bname, (sx, sy) in BCAST.items():
            op_case(f"Pow/{np.dtype(dt).name}/{bname}", "Pow",
                    [rand(sx, dt, 0.1, 3.0), rand(sy, dt, -2.0, 2.0)])
    op_case("Pow/float32/edges", "Pow", [arr([-2.0, 0.0, 0.0, -8.0, INF, 2.0, -1.0], F32),
                                         arr([0.5, -1.0, 0.0, 3.0, -1.0, 200.0, INF], F32)])
    for dt in (I8, I16, I32, I64):
        op_case(f"Pow/{np.dtype(dt).name}/row", "Pow",
                [rand((2, 3), dt), np.abs(rand((3,), dt, 0, 1)).astype(dt)])
    op_case("Pow/int32/overflow", "Pow", [arr([2, 3, -3], I32), arr([31, 21, 3], I32)])
    op_case("Pow/int32/negative_exponent", "Pow", [arr([2, 1], I32), arr([1, -1], I32)])
    # NaN and infinities in comparisons and Maximum/Minimum.
    nx = arr([NAN, 1.0, NAN, -INF, INF, 0.0, -0.0], F32)
    ny = arr([1.0, NAN, NAN, -INF, 1.0, -0.0, 0.0], F32)
    for op in ("Maximum", "Minimum", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal",
               "NotEqual", "AddV2", "Sub", "Mul"):
        op_case(f"{op}/float32/nan_inf", op, [nx, ny])
    op_case("Sub/float32/overflow", "Sub", [arr([3e38, -3e38], F32), arr([-3e38, 3e38], F32)])
    # Equal / NotEqual specials.
    for op in ("Equal", "NotEqual"):
        x, y = arr([1, 2], I32), arr([1, 2, 3], I32)
        op_case(f"{op}/int32/incompatible_error", op, [x, y])
        op_case(f"{op}/int32/incompatible_no_error", op, [x, y],
                {"incompatible_shape_error": False})
        op_case(f"{op}/int32/compatible_no_error", op, [arr([[1], [2]], I32), y],
                {"incompatible_shape_error": False})
        op_case(f"{op}/string/row", op, [arr([["a", "b"], ["c", "a"]], "string"),
                                         arr(["a", "b"], "string")])
        op_case(f"{op}/bool/row", op, [rand((2, 3), bool), rand((3,), bool)])
    op_case("Add/string/row", "Add", [arr([["a", "bc"], ["", "d"]], "string"),
                                      arr(["x", "yz"], "string")])
    op_case("AddV2/float32/bad_broadcast", "AddV2", [rand((2, 3), F32), rand((4,), F32)])
    op_case("AddV2/mixed_dtypes", "AddV2", [rand((2,), F32), rand((2,), I32)])
    op_case("Less/string/not_allowed", "Less", [arr(["a"], "string"), arr(["b"], "string")])
    # Logical ops.
    tt = arr([[True], [False]], bool)
    ff = arr([True, False], bool)
    for op in ("LogicalAnd", "LogicalOr"):
        op_case(f"{op}/bool/table", op, [tt, ff])
        op_case(f"{op}/bool/scalar", op, [arr(True, bool), ff])
    op_case("LogicalNot/bool/table", "LogicalNot", [arr([[True, False], [False, True]], bool)])
    op_case("LogicalAnd/int32/not_allowed", "LogicalAnd", [arr([1], I32), arr([1], I32)])


UNARY_FLOAT = ["Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Sin", "Cos", "Tanh", "Sigmoid"]
UNARY_SIGNED = ["Neg", "Abs", "Sign", "Square"]
EDGES = [-INF, -1000.0, -20.0, -2.0, -1.0, -0.5, -1e-8, -0.0, 0.0, 1e-8, 0.5, 1.0, 2.0, 20.0,
         100.0, 1000.0, INF, NAN]


def unary_cases() -> None:
    for op in UNARY_FLOAT + UNARY_SIGNED:
        for dt in (F16, F32, F64):
            op_case(f"{op}/{np.dtype(dt).name}/random", op, [rand((2, 3), dt, -4.0, 4.0)])
            op_case(f"{op}/{np.dtype(dt).name}/edges", op, [arr(EDGES, dt)])
        op_case(f"{op}/float32/scalar", op, [arr(0.75, F32)])
    for op in UNARY_SIGNED:
        for dt in (I8, I16, I32, I64):
            info = np.iinfo(dt)
            op_case(f"{op}/{np.dtype(dt).name}/edges", op,
                    [arr([info.min, -5, -1, 0, 1, 7, info.max], dt)])
    op_case("Square/uint8/wrap", "Square", [arr([0, 3, 16, 20, 255], U8)])
    op_case("Neg/uint8/not_allowed", "Neg", [arr([1], U8)])
    op_case("Sqrt/int32/not_allowed", "Sqrt", [arr([4], I32)])


def cast_cases() -> None:
    to = {"int32": tf.int32, "int64": tf.int64, "int8": tf.int8, "int16": tf.int16,
          "uint8": tf.uint8, "bool": tf.bool, "float16": tf.float16, "float32": tf.float32,
          "float64": tf.float64, "string": tf.string}
    fvals = [1.7, -1.7, 2.5, -2.5, 0.0, -0.0, 0.1, 255.9, 300.0, -1.5, -129.2, 200.7, 3e9,
             -3e9, 1e20, NAN, INF, -INF]
    for src in (F16, F32, F64):
        for dst in ("int8", "int16", "int32", "int64", "uint8", "bool", "float16", "float32",
                    "float64"):
            if np.dtype(src).name == dst:
                continue
            vals = arr(fvals, src)
            if dst in ("int8", "int16", "uint8") and src is not F32:
                # Out of the target's range TensorFlow's half and double casts to narrow ints
                # saturate in SIMD lanes and wrap in the scalar tail (float32 always wraps
                # through int32): undefined behaviour in C++, so only in-range values here.
                info = np.iinfo(dst)
                with np.errstate(all="ignore"):
                    t = np.trunc(vals.astype(F64))
                vals = vals[(t >= info.min) & (t <= info.max)]
            op_case(f"Cast/{np.dtype(src).name}->{dst}", "Cast", [vals], {"DstT": to[dst]})
    ivals = [0, 1, -1, 127, 128, -129, 255, 256, 300, 70000, -70000, 2**31 - 1, -(2**31)]
    for src in (I32, I64):
        vals = ivals + ([2**40 + 5, -(2**40)] if src is I64 else [])
        for dst in ("int8", "int16", "int32", "int64", "uint8", "bool", "float16", "float32",
                    "float64"):
            if np.dtype(src).name == dst:
                continue
            op_case(f"Cast/{np.dtype(src).name}->{dst}", "Cast", [arr(vals, src)],
                    {"DstT": to[dst]})
    op_case("Cast/uint8->int8", "Cast", [arr([0, 127, 128, 255], U8)], {"DstT": tf.int8})
    for dst in ("float32", "int32", "uint8"):
        op_case(f"Cast/bool->{dst}", "Cast", [arr([True, False], bool)], {"DstT": to[dst]})
    tvals = [1.0 + 2**-24 + 2**-30, -(1.0 + 2**-23 + 2**-30), 1.0009765625 * 1.00001, 3.0,
             1e300, 1e-300, NAN]
    for trunc in (False, True):
        op_case(f"Cast/float64->float32/truncate_{trunc}", "Cast", [arr(tvals, F64)],
                {"DstT": tf.float32, "Truncate": trunc})
        op_case(f"Cast/float32->float16/truncate_{trunc}", "Cast",
                [arr([1.0009765625 * 1.0004, -(1.0 + 2**-11 + 2**-13), 70000.0, 0.1], F32)],
                {"DstT": tf.float16, "Truncate": trunc})
        op_case(f"Cast/float64->float16/truncate_{trunc}", "Cast",
                [arr([1.0009765625 * 1.0004, 0.1, -2.0 / 3.0], F64)],
                {"DstT": tf.float16, "Truncate": trunc})
    op_case("Cast/float32->string", "Cast", [arr([1.0], F32)], {"DstT": tf.string})
    op_case("Cast/string->float32", "Cast", [arr(["1"], "string")], {"DstT": tf.float32})
    op_case("Cast/string->string", "Cast", [arr(["a", "b"], "string")], {"DstT": tf.string})
    op_case("Cast/float32->float32", "Cast", [rand((2, 2), F32)], {"DstT": tf.float32})
    op_case("Cast/scalar", "Cast", [arr(-3.7, F32)], {"DstT": tf.int32})


def matmul_cases() -> None:
    for dt in (F32, F64, F16, I32, I64):
        for ta in (False, True):
            for tb in (False, True):
                a = rand((3, 2) if ta else (2, 3), dt)
                b = rand((4, 3) if tb else (3, 4), dt)
                op_case(f"MatMul/{np.dtype(dt).name}/ta_{ta}_tb_{tb}", "MatMul", [a, b],
                        {"transpose_a": ta, "transpose_b": tb})
    op_case("MatMul/float32/inner_mismatch", "MatMul", [rand((2, 3), F32), rand((4, 2), F32)])
    op_case("MatMul/float32/rank3", "MatMul", [rand((2, 2, 3), F32), rand((3, 2), F32)])
    op_case("MatMul/uint8/no_kernel", "MatMul", [rand((2, 2), U8), rand((2, 2), U8)])
    op_case("MatMul/int8/not_allowed", "MatMul", [rand((2, 2), I8), rand((2, 2), I8)])
    op_case("MatMul/float32/empty", "MatMul", [rand((2, 0), F32), rand((0, 3), F32)])
    bmm = {
        "same": ((2, 2, 3), (2, 3, 4)),
        "broadcast": ((2, 1, 2, 3), (3, 3, 4)),
        "rank2_y": ((3, 2, 3), (3, 4)),
        "rank2_both": ((2, 3), (3, 4)),
        "one_batch": ((1, 2, 3), (5, 3, 2)),
    }
    for dt in (F32, F64, F16, I32, I16, I64):
        for name, (sx, sy) in bmm.items():
            op_case(f"BatchMatMulV2/{np.dtype(dt).name}/{name}", "BatchMatMulV2",
                    [rand(sx, dt), rand(sy, dt)])
    for adj_x in (False, True):
        for adj_y in (False, True):
            sx = (2, 3, 2) if adj_x else (2, 2, 3)
            sy = (4, 3) if adj_y else (3, 4)
            op_case(f"BatchMatMulV2/float32/adj_{adj_x}_{adj_y}", "BatchMatMulV2",
                    [rand(sx, F32), rand(sy, F32)], {"adj_x": adj_x, "adj_y": adj_y})
    op_case("BatchMatMulV2/float32/bad_batch", "BatchMatMulV2",
            [rand((2, 2, 3), F32), rand((3, 3, 4), F32)])
    op_case("BatchMatMulV2/float32/inner_mismatch", "BatchMatMulV2",
            [rand((2, 2, 3), F32), rand((2, 4, 4), F32)])
    op_case("BatchMatMulV2/float32/rank1", "BatchMatMulV2", [rand((3,), F32), rand((3, 4), F32)])
    op_case("BatchMatMulV2/uint8/no_kernel", "BatchMatMulV2",
            [rand((2, 2), U8), rand((2, 2), U8)])


def reduction_cases() -> None:
    axes_list = {"a0": 0, "a_neg1": -1, "a02": [0, 2], "none": np.zeros(0, I32),
                 "a_neg3_1": [-3, 1], "all": [0, 1, 2], "a1_64": np.array([1], I64)}
    for op in ("Sum", "Mean", "Max", "Min", "Prod"):
        for dt in (F32, F64, I32):
            x = rand((2, 3, 4), dt, -2.0, 2.0)
            for aname, axes in axes_list.items():
                for keep in (False, True):
                    op_case(f"{op}/{np.dtype(dt).name}/{aname}/keep_{keep}", op,
                            [x, np.asarray(axes, I64 if aname.endswith("64") else I32)],
                            {"keep_dims": keep})
        for dt in (F16, I8, I16, I64, U8):
            op_case(f"{op}/{np.dtype(dt).name}/a1", op,
                    [rand((3, 4), dt, -2.0, 2.0), arr(1, I32)])
        for dt in (F32, I32):
            op_case(f"{op}/{np.dtype(dt).name}/empty_axis0", op,
                    [np.zeros((0, 3), dt), arr([0], I32)])
            op_case(f"{op}/{np.dtype(dt).name}/empty_axis1", op,
                    [np.zeros((0, 3), dt), arr([1], I32)])
        op_case(f"{op}/float32/scalar_input", op, [arr(2.5, F32), np.zeros(0, I32)])
        op_case(f"{op}/float32/duplicate_axes", op, [rand((2, 3), F32), arr([0, 0], I32)])
        op_case(f"{op}/float32/axis_out_of_range", op, [rand((2, 3), F32), arr([2], I32)])
        op_case(f"{op}/float32/axis_rank2", op, [rand((2, 3), F32), arr([[0]], I32)])
        op_case(f"{op}/float32/nan", op, [arr([[1.0, NAN, 3.0], [4.0, 5.0, 6.0]], F32),
                                          arr(1, I32)])
    mean_ints = {
        "int32_neg": arr([[-7, -8], [3, 4], [-1, 2]], I32),
        "int32_big": arr([2**30, 2**30, 2**30], I32),
        "int8_wide": arr([100, 100, -101], I8),
        "uint8_wide": arr([200, 200, 201], U8),
        "int64_wrap": arr([2**62, 2**62], I64),
        "int16_neg": arr([-3, -4, -4], I16),
    }
    for name, x in mean_ints.items():
        op_case(f"Mean/{name}", "Mean", [x, arr(0, I32)])
        op_case(f"Sum/{name}", "Sum", [x, arr(0, I32)])
    op_case("Sum/float16/overflow", "Sum", [arr([60000.0, 60000.0], F16), arr(0, I32)])
    op_case("Mean/float16/overflow", "Mean", [arr([60000.0, 60000.0], F16), arr(0, I32)])
    op_case("Prod/int8/wrap", "Prod", [arr([100, 3], I8), arr(0, I32)])


def arg_cases() -> None:
    ties = arr([[3.0, 1.0, 3.0, 0.0], [1.0, 1.0, 1.0, 1.0], [-1.0, 5.0, 5.0, -2.0]], F32)
    nans = arr([[NAN, 1.0, 3.0], [NAN, NAN, NAN], [1.0, NAN, 0.0], [-INF, NAN, -INF],
                [2.0, 2.0, NAN]], F32)
    for op in ("ArgMax", "ArgMin"):
        for d in (0, 1, -1, -2):
            op_case(f"{op}/float32/ties_d{d}", op, [ties, arr(d, I32)])
        op_case(f"{op}/float32/nan_rows", op, [nans, arr(1, I32)])
        op_case(f"{op}/float32/nan_cols", op, [nans, arr(0, I32)])
        for dt in (F16, F64, I32, I8, I16, I64, U8):
            op_case(f"{op}/{np.dtype(dt).name}/3d", op, [rand((2, 3, 4), dt), arr(2, I32)])
        op_case(f"{op}/bool/rows", op, [arr([[False, True, True], [False, False, False]], bool),
                                        arr(1, I32)])
        op_case(f"{op}/int32/output_int32", op, [rand((3, 4), I32), arr(0, I32)],
                {"output_type": tf.int32})
        op_case(f"{op}/float32/dim_int64", op, [rand((3, 4), F32), arr(1, I64)])
        op_case(f"{op}/float32/vector", op, [rand((5,), F32), arr(0, I32)])
        op_case(f"{op}/float32/empty_axis", op, [np.zeros((0, 3), F32), arr(0, I32)])
        op_case(f"{op}/float32/empty_other", op, [np.zeros((0, 3), F32), arr(1, I32)])
        op_case(f"{op}/float32/out_of_range", op, [rand((2, 3), F32), arr(2, I32)])
        op_case(f"{op}/float32/out_of_range_neg", op, [rand((2, 3), F32), arr(-3, I32)])
        op_case(f"{op}/float32/dim_vector", op, [rand((2, 3), F32), arr([1], I32)])
        op_case(f"{op}/float32/scalar_input", op, [arr(3.0, F32), arr(0, I32)])
    op_case("ArgMax/float32/output_int16", "ArgMax", [rand((3, 4), F32), arr(1, I32)],
            {"output_type": tf.int16})


def add_n_select_cases() -> None:
    for dt in (F32, F64, I32, F16, I64):
        for n in (1, 2, 3, 5):
            op_case(f"AddN/{np.dtype(dt).name}/n{n}", "AddN",
                    [[rand((2, 3), dt) for _ in range(n)]])
    op_case("AddN/float32/scalars", "AddN", [[arr(1.5, F32), arr(2.0, F32)]])
    op_case("AddN/float32/shape_mismatch", "AddN", [[rand((2, 3), F32), rand((3,), F32)]])
    op_case("AddN/float32/dim_mismatch", "AddN", [[rand((2, 3), F32), rand((3, 3), F32)]])
    op_case("AddN/mixed_dtypes", "AddN", [[rand((2,), F32), rand((2,), F64)]])
    sel = {
        "rows": ([True, False], (2, 3), (2, 3)),
        "scalar_true": (True, (2, 3), (2, 3)),
        "scalar_false": (False, (2, 3), (2, 3)),
        "full": ([[True, False, True], [False, False, True]], (2, 3), (2, 3)),
        "rows_3d": ([False, True], (2, 2, 2), (2, 2, 2)),
        "vector": ([True, False, True], (3,), (3,)),
        "scalars": (True, (), ()),
        "then_else_mismatch": ([True, False], (2, 3), (2, 1)),
        "batch_mismatch": ([True, False, True], (2, 3), (2, 3)),
        "cond_shape_mismatch": ([[True, False, True]], (2, 3), (2, 3)),
        "scalar_then": ([True], (), ()),
        "scalar_cond_mismatch": (True, (2, 3), (3,)),
    }
    for name, (c, st, se) in sel.items():
        for dt in (F32, I32):
            op_case(f"Select/{np.dtype(dt).name}/{name}", "Select",
                    [arr(c, bool), rand(st, dt), rand(se, dt)])
    op_case("Select/string/rows", "Select", [arr([False, True], bool),
                                             arr([["a", "b"], ["c", "d"]], "string"),
                                             arr([["e", "f"], ["g", "h"]], "string")])
    op_case("Select/mixed_dtypes", "Select", [arr([True], bool), rand((1,), F32),
                                              rand((1,), I32)])
    sel2 = {
        "rows_vs_cols": ([True, False, True], (2, 1), (1, 3)),
        "scalar": (False, (2, 3), (2, 3)),
        "cond_col": ([[True], [False]], (3,), ()),
        "full": ([[True, False, True], [False, False, True]], (2, 3), (2, 3)),
        "vector_rows": ([True, False], (2, 3), (2, 3)),
        "bad": ([True, False, True, False], (2, 1), (1, 3)),
    }
    for name, (c, st, se) in sel2.items():
        for dt in (F32, I64):
            op_case(f"SelectV2/{np.dtype(dt).name}/{name}", "SelectV2",
                    [arr(c, bool), rand(st, dt), rand(se, dt)])


def shape_cases() -> None:
    f, i = "float32", "int32"
    P = lambda shape, dt=f: ("ph", shape, dt)  # noqa: E731
    C = lambda v: ("const", v)  # noqa: E731
    shape_case("AddV2/partial", "AddV2", [P([2, None]), P([None, 1, 3])])
    shape_case("AddV2/unknown_dims", "AddV2", [P([None]), P([None])])
    shape_case("AddV2/one_vs_unknown", "AddV2", [P([1, 3]), P([None, None])])
    shape_case("AddV2/unknown_rank", "AddV2", [P(None), P([2, 3])])
    shape_case("AddV2/mismatch", "AddV2", [P([2, 3]), P([4])])
    shape_case("Less/partial", "Less", [P([None, 3]), P([2, 1])])
    shape_case("Equal/no_error_incompatible", "Equal", [P([2]), P([3])],
               {"incompatible_shape_error": False})
    shape_case("Equal/no_error_compatible", "Equal", [P([2, 1]), P([3])],
               {"incompatible_shape_error": False})
    shape_case("Equal/error", "Equal", [P([2]), P([3])])
    shape_case("Cast/partial", "Cast", [P([2, None])], {"DstT": tf.int32})
    shape_case("Sqrt/unknown", "Sqrt", [P(None)])
    for op in ("Sum", "Mean", "Max", "Min", "Prod"):
        shape_case(f"{op}/out_of_range", op, [P([2, 3]), C(arr([2], I32))])
        shape_case(f"{op}/duplicate", op, [P([2, 3]), C(arr([0, 0], I32))])
        shape_case(f"{op}/unknown_axes", op, [P([2, 3]), P([1], i)])
        shape_case(f"{op}/unknown_axes_keep", op, [P([2, 3]), P([1], i)], {"keep_dims": True})
        shape_case(f"{op}/unknown_axes_scalar", op, [P([2, 3]), P([], i)])
        shape_case(f"{op}/unknown_input_rank", op, [P(None), C(arr([0], I32))])
        shape_case(f"{op}/unknown_input_rank_keep", op, [P(None), C(arr([0], I32))],
                   {"keep_dims": True})
        shape_case(f"{op}/partial_keep", op, [P([None, 3, 4]), C(arr([-1], I32))],
                   {"keep_dims": True})
        shape_case(f"{op}/partial", op, [P([None, 3, 4]), C(arr([0, 2], I32))])
        shape_case(f"{op}/axes_rank2", op, [P([2, 3]), C(arr([[1]], I32))])
        shape_case(f"{op}/float_axes", op, [P([2, 3]), C(arr([1.0], F32))])
    for op in ("ArgMax", "ArgMin"):
        shape_case(f"{op}/out_of_range", op, [P([2, 3]), C(arr(2, I32))])
        shape_case(f"{op}/out_of_range_neg", op, [P([2, 3]), C(arr(-3, I32))])
        shape_case(f"{op}/unknown_dimension", op, [P([2, 3]), P([], i)])
        shape_case(f"{op}/vector_dimension", op, [P([2, 3]), C(arr([1], I32))])
        shape_case(f"{op}/scalar_input", op, [P([]), C(arr(0, I32))])
        shape_case(f"{op}/negative", op, [P([2, None, 4]), C(arr(-2, I32))])
        shape_case(f"{op}/unknown_rank", op, [P(None), C(arr(0, I32))])
    shape_case("MatMul/inner", "MatMul", [P([2, 3]), P([4, 2])])
    shape_case("MatMul/transposed_partial", "MatMul", [P([3, None]), P([4, None])],
               {"transpose_a": True, "transpose_b": True})
    shape_case("MatMul/rank3", "MatMul", [P([2, 2, 3]), P([3, 2])])
    shape_case("MatMul/unknown", "MatMul", [P(None), P([3, None])])
    shape_case("BatchMatMulV2/batch", "BatchMatMulV2", [P([2, 2, 3]), P([3, 3, 4])])
    shape_case("BatchMatMulV2/inner", "BatchMatMulV2", [P([2, 2, 3]), P([2, 4, 4])])
    shape_case("BatchMatMulV2/rank1", "BatchMatMulV2", [P([3]), P([3, 4])])
    shape_case("BatchMatMulV2/broadcast", "BatchMatMulV2", [P([2, 1, 2, 3]), P([3, 3, 4])])
    shape_case("BatchMatMulV2/unknown", "BatchMatMulV2", [P(None), P([3, 3, 4])])
    shape_case("BatchMatMulV2/adjoint_partial", "BatchMatMulV2", [P([None, 3, 2]), P([4, None])],
               {"adj_x": True, "adj_y": True})
    shape_case("AddN/rank_mismatch", "AddN", [P([2, 3]), P([3])])
    shape_case("AddN/dim_mismatch", "AddN", [P([2, 3]), P([2, 4])])
    shape_case("AddN/merge", "AddN", [P([2, None]), P([None, 3]), P(None)])
    shape_case("Select/then_else_mismatch", "Select", [P([2], "bool"), P([2, 3]), P([2, 1])])
    shape_case("Select/vector_mismatch", "Select", [P([3], "bool"), P([2, 3]), P([2, 3])])
    shape_case("Select/cond_mismatch", "Select", [P([1, 3], "bool"), P([2, 3]), P([2, 3])])
    shape_case("Select/scalar_then", "Select", [P([1], "bool"), P([]), P([])])
    shape_case("Select/merge", "Select", [P([2], "bool"), P([2, None]), P([None, 3])])
    shape_case("Select/unknown_cond", "Select", [P(None, "bool"), P([2, None]), P([None, 3])])
    shape_case("Select/scalar_cond", "Select", [P([], "bool"), P([None, 3]), P([2, None])])
    shape_case("Select/full_cond_partial", "Select", [P([None, 3], "bool"), P([2, None]),
                                                      P(None)])
    shape_case("SelectV2/broadcast", "SelectV2", [P([3], "bool"), P([2, 1]), P([1, 3])])
    shape_case("SelectV2/bad", "SelectV2", [P([4], "bool"), P([2, 1]), P([1, 3])])
    shape_case("SelectV2/unknown", "SelectV2", [P(None, "bool"), P([2, 1]), P([1, 3])])


def fn_cases() -> None:
    x = rand((2, 3), F32)
    xi = arr([[7, -7, 3], [-2, 0, 5]], I32)
    yi = arr([[2, 2, -2], [3, 4, -3]], I32)
    pos = rand((2, 3), F32, 0.5, 2.0)
    T = lambda a: a  # noqa: E731  (a NumPy array argument becomes a constant tensor)
    for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"):
        fn_case(f"{name}/all", f"tf:{name}", [T(x)])
        fn_case(f"{name}/int_all", f"tf:{name}", [T(xi)])
        fn_case(f"{name}/axis1_keepdims", f"tf:{name}", [T(x)], {"axis": 1, "keepdims": True})
        fn_case(f"{name}/axis_list", f"tf:{name}", [T(x)], {"axis": [0, -1]})
        fn_case(f"{name}/keep_dims_alias", f"tf:{name}", [T(x)], {"axis": 0, "keep_dims": True})
        fn_case(f"{name}/reduction_indices_alias", f"tf:{name}", [T(x)],
                {"reduction_indices": [1]})
        fn_case(f"{name}/both_axis_spellings", f"tf:{name}", [T(x)],
                {"axis": 0, "reduction_indices": 0})
        fn_case(f"{name}/literal", f"tf:{name}", [[[1.0, 2.0], [3.0, 5.0]]], {"axis": 0})
    for name in ("argmax", "argmin"):
        fn_case(f"{name}/default_axis", f"tf:{name}", [T(x)])
        fn_case(f"{name}/axis1", f"tf:{name}", [T(x)], {"axis": 1})
        fn_case(f"{name}/dimension_alias", f"tf:{name}", [T(x)], {"dimension": -1})
        fn_case(f"{name}/output_type", f"tf:{name}", [T(x)],
                {"axis": 1, "output_type": tf.int32})
    for name in ("truediv", "divide", "div", "realdiv", "floordiv", "floor_div", "mod",
                 "floormod", "add", "subtract", "multiply", "maximum", "minimum", "pow",
                 "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        fn_case(f"{name}/float", f"tf:{name}", [T(pos), T(x)])
        if name not in ("realdiv", "pow"):
            fn_case(f"{name}/int", f"tf:{name}", [T(xi), T(yi)])
        fn_case(f"{name}/tensor_literal", f"tf:{name}", [T(pos), 2])
    for dt in (I8, I16, U8, I64):
        fn_case(f"truediv/{np.dtype(dt).name}", "tf:truediv", [T(arr([7, 8], dt)),
                                                              T(arr([2, 3], dt))])
    fn_case("truediv/mixed", "tf:truediv", [T(xi), T(x)])
    fn_case("truediv/literal_first", "tf:truediv", [1, T(arr([2, 4], I32))])
    fn_case("div/mixed", "tf:div", [T(xi), T(x)])
    for name in ("negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin",
                 "cos", "tanh", "sigmoid", "sign"):
        fn_case(f"{name}/float", f"tf:{name}", [T(x)])
    fn_case("abs/int", "tf:abs", [T(xi)])
    fn_case("negative/literal", "tf:negative", [[1, 2]])
    b1, b2 = arr([True, True, False, False], bool), arr([True, False, True, False], bool)
    for name in ("logical_and", "logical_or", "logical_xor"):
        fn_case(f"{name}/table", f"tf:{name}", [T(b1), T(b2)])
    fn_case("logical_not/table", "tf:logical_not", [T(b1)])
    fn_case("logical_and/int", "tf:logical_and", [T(xi), T(yi)])
    fn_case("add_n/one", "tf:add_n", [[T(x)]])
    fn_case("add_n/three", "tf:add_n", [[T(x), T(pos), T(x)]])
    fn_case("add_n/literals", "tf:add_n", [[[1.0, 2.0], [3.0, 4.0]]])
    fn_case("add_n/empty", "tf:add_n", [[]])
    fn_case("where/rows", "tf:where", [T(arr([True, False], bool)), T(x), T(pos)])
    fn_case("where/scalar", "tf:where", [T(arr(False, bool)), T(x), T(pos)])
    fn_case("where/one_missing", "tf:where", [T(arr([True, False], bool)), T(x)])
    fn_case("where_v2/broadcast", "tf:where_v2", [T(arr([True, False, True], bool)), T(x), 0.0])
    fn_case("cast/float_to_int", "tf:cast", [T(arr([1.7, -1.7, 2.5], F32)), tf.int32])
    fn_case("cast/same_dtype", "tf:cast", [T(x), tf.float32])
    fn_case("cast/literal", "tf:cast", [1.7, tf.int32])
    fn_case("cast/int_literal_to_float", "tf:cast", [[1, 2], tf.float64])
    fn_case("cast/bool", "tf:cast", [T(b1), tf.float32])
    fn_case("to_float/int", "tf:to_float", [T(xi)])
    fn_case("to_int32/float", "tf:to_int32", [T(x)])
    fn_case("to_int64/float", "tf:to_int64", [T(x)])
    fn_case("to_float/float", "tf:to_float", [T(x)])
    fn_case("scalar_mul/literal", "tf:scalar_mul", [2, T(x)])
    fn_case("scalar_mul/tensor", "tf:scalar_mul", [T(arr(3.0, F32)), T(x)])
    fn_case("scalar_mul/vector", "tf:scalar_mul", [T(arr([3.0], F32)), T(x)])
    m = rand((2, 3), F32)
    m3 = rand((4, 2, 3), F32)
    fn_case("matmul/plain", "tf:matmul", [T(m), T(rand((3, 2), F32))])
    fn_case("matmul/transpose_a", "tf:matmul", [T(m), T(rand((2, 4), F32))],
            {"transpose_a": True})
    fn_case("matmul/adjoint_b", "tf:matmul", [T(m), T(rand((4, 3), F32))], {"adjoint_b": True})
    fn_case("matmul/both_flags", "tf:matmul", [T(m), T(m)],
            {"transpose_a": True, "adjoint_a": True})
    fn_case("matmul/batched", "tf:matmul", [T(m3), T(rand((3, 5), F32))])
    fn_case("matmul/batched_transpose", "tf:matmul", [T(m3), T(rand((4, 5, 3), F32))],
            {"transpose_b": True})
    fn_case("matmul/sparse_hint", "tf:matmul", [T(m), T(rand((3, 2), F32))],
            {"a_is_sparse": True})
    fn_case("matmul/mismatch", "tf:matmul", [T(m), T(m)])
    fn_case("matmul/literal_b", "tf:matmul", [T(m), [[1.0], [2.0], [3.0]]])
    fn_case("matmul/int", "tf:matmul", [T(xi), T(yi.T.copy())])
    # Python operators, with the literal on either side.
    ops2 = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge")
    for name in ops2:
        fn_case(f"op/{name}/float", f"op:{name}", [T(pos), T(x)])
        fn_case(f"op/{name}/int", f"op:{name}", [T(xi), T(arr([[1, 2, 3], [3, 2, 1]], I32))])
        fn_case(f"op/{name}/literal_right", f"op:{name}", [T(pos), 2])
        fn_case(f"op/{name}/literal_left", f"op:{name}", [3, T(pos)])
        fn_case(f"op/{name}/int_literal_left", f"op:{name}", [7, T(arr([2, -3, 4], I32))])
    fn_case("op/add/int_plus_float_literal", "op:add", [T(xi), 1.5])
    fn_case("op/add/float_plus_int_literal", "op:add", [T(x), 2])
    fn_case("op/add/strings", "op:add", [T(arr(["a", "b"], "string")), "c"])
    fn_case("op/add/mixed_tensors", "op:add", [T(x), T(xi)])
    fn_case("op/truediv/uint8", "op:truediv", [T(arr([7, 9], U8)), 2])
    fn_case("op/matmul/rank2", "op:matmul", [T(m), T(rand((3, 2), F32))])
    fn_case("op/matmul/rank3", "op:matmul", [T(m3), T(rand((3, 2), F32))])
    fn_case("op/matmul/literal_left", "op:matmul", [[[1.0, 2.0]], T(m)])
    fn_case("op/neg/float", "op:neg", [T(x)])
    fn_case("op/abs/int", "op:abs", [T(xi)])
    for name in ("and_", "or_", "xor"):
        fn_case(f"op/{name}/bool", f"op:{name}", [T(b1), T(b2)])
        fn_case(f"op/{name}/literal_left", f"op:{name}", [True, T(b2)])
    fn_case("op/invert/bool", "op:invert", [T(b1)])
    fn_case("op/pow/int_negative_literal", "op:pow", [T(arr([2, 3], I32)), 2])
    fn_case("op/pow/float_literal_on_int", "op:pow", [T(arr([2, 3], I32)), 0.5])


MATH_OPS = ("Add AddV2 AddN Sub Mul RealDiv Div FloorDiv FloorMod Neg Abs Sign Square Sqrt "
            "Rsqrt Exp Log Log1p Sin Cos Tanh Sigmoid Pow Maximum Minimum Less LessEqual "
            "Greater GreaterEqual Equal NotEqual LogicalAnd LogicalOr LogicalNot Select "
            "SelectV2 Cast MatMul BatchMatMulV2 Sum Mean Max Min Prod ArgMax ArgMin").split()


def opdef_cases() -> None:
    """TensorFlow's OpDef of every op of the family: argument and attr names, types, defaults."""
    from tensorflow.python.framework import op_def_registry

    def arg(a):
        t = tf.as_dtype(a.type).name if a.type else (a.type_attr or a.type_list_attr)
        return [a.name, t, a.number_attr or None]

    def default(at):
        if not at.HasField("default_value"):
            return None
        v = at.default_value
        kind = v.WhichOneof("value")
        if kind == "type":
            return {"dtype": tf.as_dtype(v.type).name}
        return {"b": v.b, "i": v.i, "f": v.f, "s": v.s.decode()}.get(kind)

    for op in MATH_OPS:
        d = op_def_registry.get(op)
        attrs = []
        for at in d.attr:
            allowed = [tf.as_dtype(t).name for t in at.allowed_values.list.type] or None
            attrs.append([at.name, at.type, default(at), allowed,
                          at.minimum if at.has_minimum else None])
        put_meta(f"opdef/{op}", {"inputs": [arg(a) for a in d.input_arg],
                                 "outputs": [arg(a) for a in d.output_arg], "attrs": attrs})


def main() -> None:
    opdef_cases()
    binary_cases()
    unary_cases()
    cast_cases()
    matmul_cases()
    reduction_cases()
    arg_cases()
    add_n_select_cases()
    shape_cases()
    fn_cases()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **pack())
    n_ops = sum(1 for k in metas if k.startswith("op/"))
    n_shapes = sum(1 for k in metas if k.startswith("shape/"))
    n_fns = sum(1 for k in metas if k.startswith("fn/"))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {n_ops} op cases, {n_shapes} shape cases, "
          f"{n_fns} function cases")


if __name__ == "__main__":
    main()
