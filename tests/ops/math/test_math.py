"""The math family against TensorFlow.

Almost every expectation comes from tests/goldens/math.npz, written by
tools/record_goldens_math.py under TensorFlow 2.21 (see that script for the format):

* ``op/...``: each raw op on concrete inputs, built twice, once on constants (the shape
  function sees values and shapes, so TensorFlow's build-time errors must appear at build
  time) and once on placeholders of unknown shape (only the kernel sees the inputs, so the
  kernel's own checks must raise the same error class at run time). Values, dtypes, static
  shapes and error classes/messages are compared.
* ``shape/...``: static shape inference on partially known shapes.
* ``fn/...``: the TF1-style functions and Python operators: op type and name produced,
  dtype, static shape, value, or the Python error.
* ``opdef/...``: TensorFlow's OpDefs (argument and attr names, types, defaults).

The hand-written tests at the end check tfmini's own promises (the fast path stays bare
ufuncs, errors name the op, the generated namespaces work).
"""

from __future__ import annotations

import json
import operator

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.core import registry


def _unpack(raw: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
    """The golden file keeps all arrays in one pool per dtype plus a JSON index."""
    index = json.loads(bytes(raw["index"]).decode("utf-8"))
    arrays = {}
    for key, ref in index["arrays"].items():
        pool = raw[f"pool/{ref['pool']}"]
        n = int(np.prod(ref["shape"], dtype=np.int64))
        a = pool[ref["offset"] : ref["offset"] + n].reshape(ref["shape"])
        arrays[key] = a.astype(object) if ref["pool"] == "bytes" else a
    return arrays, index["meta"]


ARRAYS, META = _unpack(load_golden("math"))


def _cases(section: str) -> list[str]:
    return sorted(k[len(section) + 1 :].removesuffix("/meta") for k in META
                  if k.startswith(section + "/"))


# Tolerances per dtype. TensorFlow's float kernels are Eigen's (vectorised exp/log/tanh
# approximations, tree-ordered sums); tfmini's are NumPy's. Integers, bools, strings: exact.
TOL = {
    "float16": dict(rtol=2e-3, atol=1e-3),
    "float32": dict(rtol=1e-5, atol=1e-6),
    "float64": dict(rtol=1e-12, atol=1e-14),
}

# Where tfmini's message differs from TensorFlow's on purpose or for a reason outside this
# family; the error class is still checked.
MESSAGE_EXCEPTIONS = {
    # Bare ufunc kernels (the fast path) report NumPy's broadcasting message at run time.
    "op/AddV2/float32/bad_broadcast:fed": "NumPy broadcasting message from a bare ufunc",
    # TensorFlow's oneDNN MatMul says "In[0] ndims must be >= 2" for a rank-3 input and
    # appends debug indices (" 0 0") to its batch-matmul message.
    "op/MatMul/float32/rank3:fed": "oneDNN wording; tfmini says 'In[0] is not a matrix'",
    "op/BatchMatMulV2/float32/inner_mismatch:fed": "oneDNN appends ' 0 0'",
    # The builder (tfmini.core) words list-dtype mismatches as a single-input mismatch.
    "op/AddN/mixed_dtypes:const": "core builder wording",
    "op/AddN/mixed_dtypes:fed": "core builder wording",
}


def _tol(dtype) -> dict:
    return TOL.get(np.dtype(dtype).name, dict(rtol=0, atol=0))


def _assert_same(actual, expected: np.ndarray, where: str) -> None:
    actual = np.asarray(actual)
    if expected.dtype == object:
        assert actual.dtype == object, f"{where}: dtype {actual.dtype}, expected string"
        assert actual.shape == expected.shape, f"{where}: shape {actual.shape}"
        assert actual.tolist() == expected.tolist(), where
        return
    assert actual.dtype == expected.dtype, f"{where}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{where}: shape {actual.shape} != {expected.shape}"
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   equal_nan=True, err_msg=where, **_tol(expected.dtype))
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=where)


def _static(shape: tm.TensorShape) -> list | None:
    return None if shape.dims is None else list(shape.dims)


def _first_line(message: str) -> str:
    line = message.split("\n")[0].strip()
    # Allowed-type lists are TensorFlow's full list; tfmini lists the dtypes it has.
    return line.split(" not in list of allowed values")[0]


def _check_message(key: str, tf_message: str, ours: str) -> None:
    if key in MESSAGE_EXCEPTIONS:
        return
    want = _first_line(tf_message)
    if want.startswith("No OpKernel was registered"):
        # TensorFlow lists the node's attrs in hash order.
        head, _, attrs = want.partition(" with these attrs: [")
        assert head in ours, f"{key}: {ours!r} lacks {head!r}"
        t = [a for a in attrs.rstrip("]").split(", ") if a.startswith("T=")]
        assert all(a in ours for a in t), f"{key}: {ours!r} lacks {t}"
        return
    assert want in ours, f"{key}: TensorFlow says {want!r}, tfmini says {ours!r}"


def _attrs(encoded: dict) -> dict:
    return {k: tm.as_dtype(v["dtype"]) if isinstance(v, dict) else v for k, v in encoded.items()}


def _build_error(outcome: dict) -> type[Exception]:
    return {"ValueError": ValueError, "TypeError": TypeError}[outcome["error"]]


# ==========================================================================================
# Raw ops on concrete inputs.


def _op_inputs(case: str, meta: dict, fed: bool, feeds: dict) -> list:
    def make(key):
        a = ARRAYS[key]
        if not fed:
            return tm.constant(a)
        p = tm.placeholder(tm.as_dtype(a.dtype), shape=None)
        feeds[p] = a
        return p

    inputs = []
    for i, n in enumerate(meta["args"]):
        if n is None:
            inputs.append(make(f"op/{case}/in{i}"))
        else:
            inputs.append([make(f"op/{case}/in{i}_{j}") for j in range(n)])
    return inputs


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("variant", ["const", "fed"])
@pytest.mark.parametrize("case", _cases("op"))
def test_op_matches_tensorflow(case, variant):
    meta = META[f"op/{case}/meta"]
    outcome = meta[variant]
    key = f"op/{case}:{variant}"
    op_class = getattr(tm.ops, meta["op"])
    g = tm.Graph()
    feeds: dict = {}
    with g.as_default():
        inputs = _op_inputs(case, meta, variant == "fed", feeds)

        def build():
            return op_class.create(tm.Scope(g), *inputs, **_attrs(meta["attrs"]))

        if outcome.get("phase") == "build":
            with pytest.raises(_build_error(outcome)) as info:
                build()
            _check_message(key, outcome["message"], str(info.value))
            return
        op = build().op
    if "shapes" in outcome:
        assert [_static(o.shape) for o in op.outputs] == outcome["shapes"], key
    with tm.Session(graph=g) as sess:
        if outcome.get("phase") == "run":
            with pytest.raises(getattr(tm.errors, outcome["error"])) as info:
                sess.run(list(op.outputs), feed_dict=feeds)
            assert op.name in str(info.value), "the error names the failing op"
            _check_message(key, outcome["message"], str(info.value))
            return
        values = sess.run(list(op.outputs), feed_dict=feeds)
    for j, value in enumerate(values):
        _assert_same(value, ARRAYS[f"op/{case}/out{j}"], f"{key} output {j}")


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_overflow_and_nan_are_silent_as_in_tensorflow():
    """inf/nan come back without NumPy warnings, from bare ufunc kernels too."""
    g = tm.Graph()
    with g.as_default():
        big = tm.constant([3e38], tm.float32)
        z = tm.subtract(big, -big)
        w = tm.log(tm.constant([0.0, -1.0]))
    with tm.Session(graph=g) as sess:
        zv, wv = sess.run([z, w])
    assert np.isinf(zv).all()
    assert wv[0] == -np.inf and np.isnan(wv[1])


# ==========================================================================================
# Static shape inference on partial shapes.


@pytest.mark.parametrize("case", _cases("shape"))
def test_static_shape_matches_tensorflow(case):
    meta = META[f"shape/{case}/meta"]
    outcome = meta["outcome"]
    g = tm.Graph()
    with g.as_default():
        inputs = []
        for spec in meta["inputs"]:
            if "ph" in spec:
                inputs.append(tm.placeholder(tm.as_dtype(spec["dtype"]), shape=spec["ph"]))
            else:
                inputs.append(tm.constant(ARRAYS[f"shape/{case}/in{spec['const']}"]))
        op_class = getattr(tm.ops, meta["op"])
        if meta["op"] == "AddN":
            inputs = [inputs]

        def build():
            return op_class.create(tm.Scope(g), *inputs, **_attrs(meta["attrs"]))

        if "error" in outcome:
            with pytest.raises(_build_error(outcome)) as info:
                build()
            _check_message(f"shape/{case}", outcome["message"], str(info.value))
            return
        op = build().op
    assert [_static(o.shape) for o in op.outputs] == outcome["shapes"]


# ==========================================================================================
# TF1-style functions and Python operators.

# TensorFlow's matmul turns a_is_sparse into a SparseMatMul op, which tfmini does not have;
# tfmini ignores the hint (same values, op MatMul).
OP_TYPE_EXCEPTIONS = {"matmul/sparse_hint": "MatMul"}


def _decode(case: str, a: dict):
    if "list" in a:
        return [_decode(case, v) for v in a["list"]]
    if "t" in a:
        return tm.constant(ARRAYS[f"fn/{case}/in{a['t']}"])
    if "dtype" in a:
        return tm.as_dtype(a["dtype"])
    return a["lit"]


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("case", _cases("fn"))
def test_function_matches_tensorflow(case):
    meta = META[f"fn/{case}/meta"]
    outcome = meta["outcome"]
    kind, name = meta["callee"].split(":")
    fn = getattr(tm, name) if kind == "tf" else getattr(operator, name)
    g = tm.Graph()
    with g.as_default():
        args = [_decode(case, a) for a in meta["args"]]
        kwargs = {k: _decode(case, v) for k, v in meta["kwargs"].items()}
        if outcome.get("phase") == "build":
            with pytest.raises(_build_error(outcome)):
                fn(*args, **kwargs)
            return
        out = fn(*args, **kwargs)
    assert out.op.type == OP_TYPE_EXCEPTIONS.get(case, outcome["op"])
    assert out.op.name == outcome["name"]
    assert out.dtype.name == outcome["dtype"]
    assert _static(out.shape) == outcome["shape"]
    with tm.Session(graph=g) as sess:
        if outcome.get("phase") == "run":
            with pytest.raises(getattr(tm.errors, outcome["error"])):
                sess.run(out)
            return
        value = sess.run(out)
    _assert_same(value, ARRAYS[f"fn/{case}/out0"], case)


# ==========================================================================================
# OpDefs.

# tfmini's dtypes that an op may take; TensorFlow's lists also name types tfmini lacks
# (uint16/32/64, quantized). AddN on variant (TensorList sums) is out of scope.
TYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
         "string", "complex64", "complex128", "bfloat16"}


def _arg_spec(arg) -> list:
    t = arg.dtype.name if arg.dtype is not None else (arg.type_attr or arg.type_list_attr)
    return [arg.name, t, arg.number_attr]


@pytest.mark.parametrize("op_type", _cases("opdef"))
def test_opdef_matches_tensorflow(op_type):
    want = META[f"opdef/{op_type}"]
    ours = registry.get(op_type)
    assert [_arg_spec(a) for a in ours.inputs] == want["inputs"]
    assert [_arg_spec(a) for a in ours.outputs] == want["outputs"]
    assert [a.name for a in ours.attrs] == [a[0] for a in want["attrs"]]
    for (name, attr_type, default, allowed, minimum), attr in zip(want["attrs"], ours.attrs):
        assert attr.type == attr_type, name
        if default is None:
            assert not attr.has_default, name
        elif isinstance(default, dict):
            assert attr.default == tm.as_dtype(default["dtype"]), name
        else:
            assert attr.default == default, name
        if allowed is None:
            assert attr.allowed_values is None, name
        else:
            assert {t.name for t in attr.allowed_values} == set(allowed) & TYPES, name
        assert attr.minimum == minimum, name


# ==========================================================================================
# tfmini's own promises.


def test_fast_path_kernels_are_bare_ufuncs():
    """AddV2/Sub/Mul run the ufunc itself: no wrapper, no np.errstate per call."""
    for op_type, ufunc in (("AddV2", np.add), ("Sub", np.subtract),
                           ("Mul", np.multiply), ("Less", np.less), ("Maximum", np.maximum)):
        kernel = registry.get(op_type).kernel_for("CPU")
        assert kernel.fn is ufunc, op_type
        assert not kernel.takes_ctx and not kernel.attr_names, op_type


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_inf_and_nan_come_back_silently():
    g = tm.Graph()
    with g.as_default():
        zero = tm.constant([0.0, -1.0, 1.0])
        empty = tm.constant(np.zeros((0, 2), np.float32))
        outs = [tm.log(zero), tm.sqrt(zero), tm.rsqrt(zero), zero / 0.0, tm.pow(zero, -1.0),
                tm.exp(zero * -1000.0), tm.log1p(zero - 1.0), tm.floordiv(zero, 0.0),
                tm.floormod(zero, 0.0), tm.sigmoid(zero * 1000.0), tm.reduce_mean(empty, 0),
                tm.cast(tm.constant(np.array([1e300, np.nan])), tm.float32)]
    with tm.Session(graph=g) as sess:
        values = sess.run(outs)
    assert np.isneginf(values[0][0]) and np.isnan(values[1][1]) and np.isposinf(values[2][0])
    assert np.isnan(values[10]).all() and np.isposinf(values[11][0])


@pytest.mark.parametrize("fn", ["floordiv", "floormod", "div"])
def test_integer_division_by_zero_names_the_op(fn):
    g = tm.Graph()
    with g.as_default():
        z = getattr(tm, fn)(tm.constant([4, 5]), tm.constant([2, 0]), name="my_div")
    with tm.Session(graph=g) as sess, pytest.raises(tm.errors.InvalidArgumentError) as info:
        sess.run(z)
    message = str(info.value)
    assert "Integer division by zero" in message
    assert "my_div" in message and z.op.type in message


def test_generated_namespaces_use_tensorflow_signatures():
    g = tm.Graph()
    with g.as_default():
        x = tm.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        s = tm.raw_ops.Sum(input=x, reduction_indices=[1], keep_dims=True, name="s")
        a = tm.raw_ops.ArgMax(input=x, dimension=1, output_type=tm.int32)
        m = tm.ops.MatMul.create(tm.Scope(g), x, x, transpose_b=True)
        c = tm.raw_ops.Cast(x=x, DstT=tm.int8, Truncate=False)
        sel = tm.ops.Select.create(tm.Scope(g), tm.constant([True, False]), x, -x)
    assert s.op.name == "s" and s.shape.as_list() == [2, 1]
    assert a.dtype == tm.int32 and c.dtype == tm.int8
    assert m.product().shape.as_list() == [2, 2] and m.op.attrs["grad_a"] is False
    with tm.Session(graph=g) as sess:
        sv, mv, selv = sess.run([s, m.product(), sel.output()])
    np.testing.assert_array_equal(sv, [[3.0], [12.0]])
    np.testing.assert_array_equal(mv, [[5.0, 14.0], [14.0, 50.0]])
    np.testing.assert_array_equal(selv, [[0.0, 1.0, 2.0], [-3.0, -4.0, -5.0]])


def test_reduction_of_unknown_rank_reduces_everything():
    g = tm.Graph()
    with g.as_default():
        p = tm.placeholder(tm.float32, shape=None)
        total = tm.reduce_sum(p)
    with tm.Session(graph=g) as sess:
        assert sess.run(total, feed_dict={p: np.ones((2, 3, 4), np.float32)}) == 24.0


def test_kernels_do_not_modify_inputs():
    g = tm.Graph()
    with g.as_default():
        p = tm.placeholder(tm.float32, shape=(2, 3))
        outs = [tm.add_n([p, p, p]), tm.where(tm.constant(True), p, p), tm.cast(p, tm.int32),
                tm.reduce_mean(p, 0), tm.argmax(p, 1), tm.matmul(p, p, transpose_b=True)]
    value = np.array([[1.5, np.nan, 3.0], [4.0, 5.0, -6.0]], np.float32)
    before = value.copy()
    with tm.Session(graph=g) as sess:
        sess.run(outs, feed_dict={p: value})
    np.testing.assert_array_equal(value, before)
