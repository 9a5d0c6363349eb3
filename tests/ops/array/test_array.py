"""The array family against TensorFlow.

The cases in tests/ops/array/array_cases.py are written once against the TF1 API;
tools/record_goldens_array.py ran them on TensorFlow 2.21 into
tests/goldens/array.npz and these tests replay them on tfmini: values, dtypes,
the op TensorFlow's Python function builds, static shapes, build-time errors
and run-time errors. Indexing is also checked against NumPy on random shapes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.array import array_cases
from tfmini.core import registry
from tfmini.core.builder import static_value

G = load_golden("array")

VALUE_CASES = array_cases.value_cases(tm)
SHAPE_CASES = array_cases.shape_cases(tm)
BUILD_ERROR_CASES = array_cases.build_error_cases(tm)
RUN_ERROR_CASES = array_cases.run_error_cases(tm)

ARRAY_OPS = [k.split("/", 1)[1] for k in G if k.startswith("opdef/")]


def _run(fetches, feed_dict=None):
    with tm.Session() as sess:
        return sess.run(fetches, feed_dict=feed_dict)


def test_every_case_was_recorded():
    # A case added to array_cases.py must be re-recorded, or it would test nothing.
    for prefix, cases in (("value", VALUE_CASES), ("shape", SHAPE_CASES),
                          ("build_error", BUILD_ERROR_CASES), ("run_error", RUN_ERROR_CASES)):
        recorded = {k.split("/")[1] for k in G if k.startswith(prefix + "/")}
        assert recorded == set(cases), prefix


# ------------------------------------------------------------------------------------------
# OpDef signatures


@pytest.mark.parametrize("op_type", ARRAY_OPS)
def test_op_def_matches_tensorflow(op_type):
    tf_def = json.loads(str(G[f"opdef/{op_type}"]))
    op_def = registry.get(op_type)

    def arg(a):
        t = a.type_attr or a.type_list_attr or a.dtype.name
        return [a.name, t, a.number_attr or ""]

    assert [arg(a) for a in op_def.inputs] == tf_def["inputs"]
    assert [arg(a) for a in op_def.outputs] == tf_def["outputs"]
    assert [a.name for a in op_def.attrs] == [a[0] for a in tf_def["attrs"]]
    for ours, (name, attr_type, default, allowed, minimum) in zip(op_def.attrs, tf_def["attrs"]):
        assert ours.type == attr_type, name
        if default is None:
            assert not ours.has_default, name
        elif attr_type == "type":
            assert ours.default.name == default, name
        elif attr_type == "shape":
            assert default == "unknown" and ours.default.dims is None, name
        else:
            assert ours.default == (tuple(default) if isinstance(default, list) else default), name
        # Allowed dtypes: TensorFlow's list restricted to the dtypes tfmini has.
        ours_allowed = sorted(d.name for d in ours.allowed_values or ())
        assert ours_allowed == allowed, name
        if minimum is not None:
            assert ours.minimum == minimum, name


# ------------------------------------------------------------------------------------------
# Recorded values, dtypes and graph structure


def _tol(dtype: np.dtype) -> dict:
    return {"float16": dict(rtol=1e-3), "float32": dict(rtol=1e-6, atol=1e-6)}.get(
        dtype.name, dict(rtol=0, atol=0))


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_value_matches_tensorflow(case, graph):
    result = VALUE_CASES[case]()
    items = result if isinstance(result, list) else [result]
    values = _run(items)
    expected = [G[f"value/{case}/{i}"] for i in range(len(values))]
    assert f"value/{case}/{len(values)}" not in G, "TensorFlow produced more outputs"
    assert items[0].dtype.name == str(G[f"value/{case}/dtype"])
    for item, got, want in zip(items, values, expected):
        got = np.asarray(got)
        assert got.shape == want.shape
        if want.dtype.kind in "SUO":
            assert [bytes(v) for v in got.ravel()] == [bytes(v) for v in want.ravel()]
            continue
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, **_tol(want.dtype))
        # The static shape the builder inferred agrees with what the kernel produced.
        assert item.shape.is_compatible_with(got.shape)
    op_type, op_name = str(G[f"value/{case}/op"]).split(" ")
    assert (items[0].op.type, items[0].op.name) == (op_type, op_name)


@pytest.mark.parametrize("case", sorted(SHAPE_CASES))
def test_static_shape_matches_tensorflow(case, graph):
    shape = SHAPE_CASES[case]().shape
    want = G[f"shape/{case}"]
    if want.ndim == 0:
        assert shape.rank is None
    else:
        assert shape.as_list() == [None if d == -1 else int(d) for d in want]


@pytest.mark.parametrize("case", sorted(BUILD_ERROR_CASES))
def test_build_error_matches_tensorflow(case, graph):
    cls_name, _, gist = str(G[f"build_error/{case}"]).partition(": ")
    with pytest.raises((ValueError, TypeError)) as info:
        BUILD_ERROR_CASES[case]()
    assert type(info.value).__name__ == cls_name
    # TensorFlow prints its own Tensor repr inside a few messages; compare up to it.
    gist = gist.split("<tf.Tensor")[0].split('Tensor("')[0]
    assert gist in str(info.value)


@pytest.mark.parametrize("case", sorted(RUN_ERROR_CASES))
def test_run_error_matches_tensorflow(case, graph):
    fetch = RUN_ERROR_CASES[case]()
    with pytest.raises(tm.errors.InvalidArgumentError) as info:
        _run(fetch)
    message = str(info.value)
    assert str(G[f"run_error/{case}"]) in message
    # The executor names the failing op: "<OpType> '<op name>' on /device:CPU:0: ...".
    first = fetch[0] if isinstance(fetch, list) else fetch
    assert message.startswith(f"{first.op.type} '{first.op.name}'")


# ------------------------------------------------------------------------------------------
# Indexing against NumPy


@st.composite
def _index_item(draw, dim):
    """An item indexing one dimension of size ``dim``: an int, a slice (any step) or ``:``."""
    kind = draw(st.sampled_from(["int", "slice", "slice", "full"]))
    if kind == "int" and dim:
        return draw(st.integers(-dim, dim - 1))
    if kind != "slice":
        return slice(None)
    bound = st.one_of(st.none(), st.integers(-dim - 2, dim + 2))
    step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, -3])))
    return slice(draw(bound), draw(bound), step)


@st.composite
def _indexed(draw):
    """An array of random shape and a valid index: leading items, maybe ``...`` and trailing
    items, with new axes sprinkled in."""
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    n = len(shape)
    k = draw(st.integers(0, n))
    items = [draw(_index_item(d)) for d in shape[:k]]
    if draw(st.booleans()):
        m = draw(st.integers(0, n - k))
        items += [Ellipsis] + [draw(_index_item(d)) for d in shape[n - m:]]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    single = len(items) == 1 and draw(st.booleans())
    return x, items[0] if single else tuple(items)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_indexed())
def test_getitem_matches_numpy(case):
    x, index = case
    want = x[index]
    g = tm.Graph()
    with g.as_default():
        t = tm.constant(x)
        out = t[index]
        assert out.op.type == "StridedSlice"
        assert out.shape.as_list() == list(want.shape)
        got = _run(out)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(_indexed())
def test_getitem_on_unknown_shape_matches_numpy(case):
    # The kernel alone (no static shape) must slice exactly like NumPy too.
    x, index = case
    g = tm.Graph()
    with g.as_default():
        p = tm.placeholder(tm.int32, shape=None)
        out = p[index]
        got = _run(out, {p: x})
    np.testing.assert_array_equal(got, x[index])


def test_getitem_with_tensor_bounds(graph):
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    i = tm.placeholder(tm.int32, [])
    t = tm.constant(x)
    got = _run([t[i], t[:, i:], t[..., :i:-1], t[i, 1:i + 2]], {i: 1})
    for g, w in zip(got, [x[1], x[:, 1:], x[..., :1:-1], x[1, 1:3]]):
        np.testing.assert_array_equal(g, w)


def test_getitem_names_like_tensorflow(graph):
    t = tm.constant(np.zeros((3, 4), np.float32))
    a, b = t[1:], t[0]
    assert (a.op.name, b.op.name) == ("strided_slice", "strided_slice_1")
    assert [x.op.name for x in a.op.inputs[1:]] == [
        "strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2"]
    assert b.op.get_attr("shrink_axis_mask") == 1


def test_boolean_index_is_refused(graph):
    with pytest.raises(TypeError, match="Boolean-mask"):
        tm.constant([1, 2])[True]


# ------------------------------------------------------------------------------------------
# Build-time values (constant folding for shape inference)


def test_shape_values_fold_for_reshape(graph):
    x = tm.placeholder(tm.float32, [None, 6])
    y = tm.constant(np.zeros((4, 3), np.float32))
    # tm.shape(y) is a Const; y's rows through StridedSlice + Pack fold to [4, -1].
    r = tm.reshape(x, tm.stack([tm.shape(y)[0], -1]))
    assert r.shape.as_list() == [4, None]
    r2 = tm.reshape(x, [2, tm.shape(y)[1], -1])
    assert r2.shape.as_list() == [2, 3, None]
    packed = r2.op.inputs[1]
    assert packed.op.type == "Pack" and packed.op.name == "packed"
    np.testing.assert_array_equal(static_value(packed), [2, 3, -1])
    out = _run(r2, {x: np.zeros((4, 6), np.float32)})
    assert out.shape == (2, 3, 4)


def test_fold_constant_skips_large_and_unknown(graph):
    big = tm.fill([100, 100], 1.0)
    assert static_value(big) is None  # too large to fold
    small = tm.fill([2, 2], 3)
    np.testing.assert_array_equal(static_value(small), np.full((2, 2), 3, np.int32))
    assert not static_value(small).flags.writeable
    assert static_value(tm.reshape(tm.placeholder(tm.float32, [2]), [2, 1])) is None


def test_shape_of_partial_input_is_an_op_with_partial_value(graph):
    p = tm.placeholder(tm.float32, [None, 3])
    s = tm.shape(p)
    assert s.op.type == "Shape" and static_value(s) is None
    assert tm.rank(p).op.type == "Const"
    assert tm.size(tm.placeholder(tm.float32, [None, 0])).op.type == "Const"
    np.testing.assert_array_equal(_run(s, {p: np.zeros((5, 3), np.float32)}), [5, 3])
    assert tm.shape(p, out_type=tm.int64).dtype == tm.int64


def test_size_and_rank_kernels(graph):
    p = tm.placeholder(tm.float32, None)
    size64 = tm.size(p, out_type=tm.int64)
    got = _run([size64, tm.rank(p), tm.shape(p)], {p: np.zeros((2, 0, 3), np.float32)})
    assert got[0] == 0 and got[0].dtype == np.int64
    assert got[1] == 3 and got[1].dtype == np.int32
    np.testing.assert_array_equal(got[2], [2, 0, 3])


# ------------------------------------------------------------------------------------------
# TF1 function behaviour


def test_reshape_errors_name_the_op(graph):
    with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 6 elements to shape "
                                         r"\[4\] \(4 elements\)"):
        tm.reshape(tm.zeros([2, 3]), [4])
    p = tm.placeholder(tm.float32, None)
    r = tm.reshape(p, [4], name="r")
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="Reshape 'r'.*6 values, but the requested shape has 4"):
        _run(r, {p: np.zeros((2, 3), np.float32)})


def test_reshape_int64_shape_and_unknown_rank(graph):
    p = tm.placeholder(tm.float32, None)
    r = tm.reshape(p, np.array([3, -1], np.int64))
    assert r.op.get_attr("Tshape") == tm.int64
    assert r.shape.as_list() == [3, None]
    assert _run(r, {p: np.zeros((2, 3), np.float32)}).shape == (3, 2)


def test_split_returns_lists(graph):
    parts = tm.split(tm.constant(np.arange(6)), 3)
    assert isinstance(parts, list) and len(parts) == 3
    assert [p.shape.as_list() for p in parts] == [[2], [2], [2]]
    with pytest.raises(ValueError, match="Cannot infer argument `num`"):
        tm.split(tm.constant(np.arange(6)), tm.placeholder(tm.int32, [None]))
    sizes = tm.placeholder(tm.int32, [None])
    parts = tm.split(tm.constant(np.arange(6)), sizes, num=2)
    got = _run(parts, {sizes: np.array([2, 4], np.int32)})
    assert [list(g) for g in got] == [[0, 1], [2, 3, 4, 5]]


def test_single_piece_list_outputs(graph):
    # A list output of length one is still a list: the kernel returns a sequence of one.
    x = tm.constant(np.arange(6).reshape(1, 6))
    (piece,) = tm.split(x, 1)
    (row,) = tm.unstack(x)
    (whole,) = tm.split(x, [6], axis=1)
    got = _run([piece, row, whole])
    np.testing.assert_array_equal(got[0], np.arange(6).reshape(1, 6))
    np.testing.assert_array_equal(got[1], np.arange(6))
    np.testing.assert_array_equal(static_value(row), np.arange(6))


def test_unstack_and_stack_round_trip(graph):
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    for axis in (0, 1, -1):
        pieces = tm.unstack(tm.constant(x), axis=axis)
        assert len(pieces) == x.shape[axis]
        back = tm.stack(pieces, axis=axis)
        np.testing.assert_array_equal(_run(back), x)
    assert tm.unstack(tm.placeholder(tm.float32, [None, 2]), num=3)[2].shape.as_list() == [2]
    with pytest.raises(ValueError, match="Argument `axis` = 3 not in range"):
        tm.unstack(tm.constant(x), axis=3)


def test_stack_autopacks_tensors_and_literals(graph):
    t = tm.placeholder(tm.int64, [])
    s = tm.stack([t, 2, 3])
    assert s.op.type == "Pack" and s.dtype == tm.int64 and s.shape.as_list() == [3]
    np.testing.assert_array_equal(_run(s, {t: 1}), [1, 2, 3])


def test_concat_single_value_is_identity(graph):
    c = tm.concat(tm.constant([1, 2]), 0)
    assert c.op.type == "Identity"
    with pytest.raises(ValueError, match="must be rank 0"):
        tm.concat([tm.constant([1, 2])], [0])


def test_transpose_unknown_rank_builds_perm_in_graph(graph):
    p = tm.placeholder(tm.float32, None)
    t = tm.transpose(p)
    assert t.op.type == "Transpose" and t.shape.rank is None
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(_run(t, {p: x}), x.T)


def test_expand_dims_and_squeeze_aliases(graph):
    x = tm.zeros([2, 3])
    with pytest.raises(ValueError, match="Cannot specify both"):
        tm.expand_dims(x, 0, dim=1)
    with pytest.raises(ValueError, match="Cannot specify both"):
        tm.squeeze(x, axis=[0], squeeze_dims=[0])
    sq = tm.squeeze(tm.zeros([1, 2, 1]), axis=np.int64(0))
    assert sq.op.get_attr("squeeze_dims") == (0,) and sq.shape.as_list() == [2, 1]


def test_zeros_ones_const_or_fill(graph):
    assert tm.zeros([2, 2]).op.type == "Const"
    big = tm.ones([1000])
    assert big.op.type == "Fill" and big.shape.as_list() == [1000]
    assert _run(big).sum() == 1000
    dyn = tm.zeros(tm.stack([tm.placeholder(tm.int32, []), 2]), tm.int64)
    assert dyn.op.type == "Fill" and dyn.dtype == tm.int64 and dyn.shape.as_list() == [None, 2]
    s = tm.zeros([2], tm.string)
    assert list(_run(s)) == [b"", b""]
    n = tm.ones(3, tm.bool, name="flags")
    assert n.op.name == "flags" and n.dtype == tm.bool and _run(n).all()


def test_zeros_like_and_ones_like(graph):
    p = tm.placeholder(tm.int32, [None, 2])
    z, o = tm.zeros_like(p), tm.ones_like(p, dtype=tm.float64)
    assert (z.op.type, o.op.type) == ("ZerosLike", "Fill")
    assert o.dtype == tm.float64 and o.shape.as_list() == [None, 2]
    zf = tm.zeros_like(p, dtype=tm.float32)
    assert zf.op.type == "Fill" and zf.dtype == tm.float32
    got = _run([z, o, zf], {p: np.ones((3, 2), np.int32)})
    assert got[0].dtype == np.int32 and not got[0].any()
    assert got[1].dtype == np.float64 and got[1].shape == (3, 2) and (got[1] == 1).all()
    assert got[2].shape == (3, 2)
    raw = tm.raw_ops.OnesLike(x=np.array([[1, 2]], np.uint8))
    np.testing.assert_array_equal(_run(raw), [[1, 1]])


def test_range_dtypes_follow_tensorflow(graph):
    assert tm.range(5).dtype == tm.int32
    assert tm.range(0, 1.5).dtype == tm.float32
    assert tm.range(np.int64(2), 9).dtype == tm.int64
    assert tm.range(3, dtype=tm.float64).dtype == tm.float64
    r = tm.range(tm.placeholder(tm.int32, []), 2.5)
    cast = r.op.inputs[0]
    assert r.dtype == tm.float32 and cast.op.type == "Cast"
    with pytest.raises(TypeError):
        tm.range(tm.constant(True))


def test_gather_uses_sparse_read_for_axis_zero(graph):
    calls = []

    class FakeVariable:
        def sparse_read(self, indices, name=None):
            calls.append((indices, name))
            return tm.constant([7.0])

    out = tm.gather(FakeVariable(), [0], name="g")
    assert calls == [([0], "g")] and out.op.type == "Const"
    # Literals are accepted for params; a non-zero axis builds GatherV2 directly.
    g = tm.gather([[1, 2], [3, 4]], [1, 1], axis=1)
    np.testing.assert_array_equal(_run(g), [[2, 2], [4, 4]])


def test_gather_with_tensor_axis(graph):
    axis = tm.placeholder(tm.int32, [])
    g = tm.gather(tm.constant(np.arange(6).reshape(2, 3)), [0, 0], axis=axis)
    assert g.op.type == "GatherV2" and g.shape.as_list() == [None, None]
    np.testing.assert_array_equal(_run(g, {axis: 1}), [[0, 0], [3, 3]])


def test_scatter_nd_ignore_policy_drops_bad_rows(graph):
    out = tm.raw_ops.ScatterNd(indices=[[0], [9], [0]], updates=[1.0, 5.0, 2.0], shape=[3],
                               bad_indices_policy="IGNORE")
    np.testing.assert_array_equal(_run(out), [3.0, 0.0, 0.0])


def test_one_hot_default_dtype_and_raw_op_defaults(graph):
    oh = tm.one_hot(tm.placeholder(tm.int64, [None]), 3)
    assert oh.dtype == tm.float32 and oh.shape.as_list() == [None, 3]
    raw = tm.raw_ops.OneHot(indices=[1, 5], depth=2, on_value=1, off_value=0)
    assert raw.op.get_attr("axis") == -1
    np.testing.assert_array_equal(_run(raw), [[0, 1], [0, 0]])
    with pytest.raises(TypeError, match="of on_value does not match dtype"):
        tm.one_hot([1], 2, on_value=1.0, off_value=0)


def test_broadcast_to_and_tile_values(graph):
    b = tm.broadcast_to(tm.placeholder(tm.float32, [3, 1]), [2, 3, 4])
    assert b.shape.as_list() == [2, 3, 4]
    got = _run(b, {b.op.inputs[0]: np.arange(3, dtype=np.float32).reshape(3, 1)})
    np.testing.assert_array_equal(got, np.broadcast_to(np.arange(3.0).reshape(3, 1), (2, 3, 4)))
    t = tm.tile(tm.constant(np.float32(5.0)), [])
    assert t.shape.as_list() == [] and _run(t) == 5.0


def test_slice_and_strided_slice_functions(graph):
    x = np.arange(24).reshape(4, 6)
    t = tm.constant(x)
    begin = tm.placeholder(tm.int32, [2])
    s = tm.slice(t, begin, [2, -1])
    assert s.shape.as_list() == [2, None]
    np.testing.assert_array_equal(_run(s, {begin: [1, 2]}), x[1:3, 2:])
    ss = tm.strided_slice(t, [3, 0], [0, 6], [-1, 2], end_mask=1)
    np.testing.assert_array_equal(_run(ss), x[3::-1, 0:6:2])
    ones = tm.strided_slice(t, [1, 2], [3, 5])
    np.testing.assert_array_equal(_run(ones), x[1:3, 2:5])
    assert ones.op.inputs[3].op.type == "Fill"  # strides = ones_like(begin), as TensorFlow


def test_identity_family_still_works(graph):
    x = tm.constant([1.0, 2.0])
    outs = tm.identity_n([x, tm.constant(3)])
    got = _run([tm.identity(x), tm.stop_gradient(x)] + outs)
    np.testing.assert_array_equal(got[0], [1.0, 2.0])
    assert got[3] == 3


def test_kernels_do_not_modify_inputs(graph):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    data.flags.writeable = False
    p = tm.placeholder(tm.float32, [3, 4])
    outs = [tm.reshape(p, [-1]), tm.transpose(p), p[::-1], tm.tile(p, [1, 2]),
            tm.unsorted_segment_sum(p, [0, 0, 1], 2), tm.scatter_nd([[0], [0]], p[:2], [3, 4])]
    got = _run(outs, {p: data})
    np.testing.assert_array_equal(got[4], [data[0] + data[1], data[2]])
    np.testing.assert_array_equal(got[5][0], data[0] + data[1])
