"""Gradients of the array family (tfmini/ops/array_grad.py).

* Finite differences (``tm.test.compute_gradient_error`` in float64) for every
  differentiable op, with static and unknown shapes, negative axes, masked and reversed
  strided slices.
* Gathers give IndexedSlices with TensorFlow's values, indices and dense shape; they
  densify with repeated indices summed.
* Composite graphs (tests/ops/array/array_grad_cases.py) against TensorFlow 2.21's gradients,
  recorded by tools/record_goldens_array_grad.py into tests/goldens/array_grad.npz.
* The helper ops registered for the gradients (Pad, GatherNd, StridedSliceGrad,
  InvertPermutation, ConcatOffset): TensorFlow's signatures, values and run-time errors.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.array import array_grad_cases
from tfmini.core import registry

G = load_golden("array_grad")
CASES = array_grad_cases.cases(tm)
RAW_CASES = array_grad_cases.raw_cases(tm)
HELPER_OPS = sorted(k.split("/", 1)[1] for k in G if k.startswith("opdef/"))

F64 = tm.float64


def _dense(value, shape=None) -> np.ndarray:
    """A fetched gradient as a dense array (IndexedSlicesValue rows summed into place)."""
    if isinstance(value, tm.IndexedSlicesValue):
        out = np.zeros(shape if shape is not None else value.dense_shape,
                       dtype=np.asarray(value.values).dtype)
        np.add.at(out, np.asarray(value.indices), np.asarray(value.values))
        return out
    return np.asarray(value)


# ------------------------------------------------------------------------------------------
# Finite differences: every differentiable op, float64.


def _pwd(shape):
    """An input of unknown static shape, fed by the gradient checker."""
    return tm.placeholder(F64, shape=None, name="unknown")


# name -> (input shapes, build(*inputs) -> y, unknown_shapes?)
FD_CASES = {
    "identity": ([(2, 3)], lambda a: tm.identity(a)),
    "identity_n": ([(2, 3), (4,)], lambda a, b: tm.concat(
        [tm.reshape(t, [-1]) for t in tm.identity_n([a, b])], 0)),
    "placeholder_with_default": ([(2, 3)], lambda a: tm.placeholder_with_default(a, [2, 3])),
    "reshape": ([(2, 6)], lambda a: tm.reshape(a, [3, -1])),
    "expand_dims_negative": ([(2, 3)], lambda a: tm.expand_dims(a, -2)),
    "squeeze": ([(1, 3, 1)], lambda a: tm.squeeze(a, [-1])),
    "transpose": ([(2, 3, 4)], lambda a: tm.transpose(a, [2, 0, 1])),
    "transpose_dynamic_perm": ([(2, 3, 4)], lambda a: tm.transpose(
        a, tm.placeholder_with_default(np.array([1, 2, 0], np.int32), [3]))),
    "concat_three_negative_axis": ([(2, 1), (2, 3), (2, 2)],
                                   lambda a, b, c: tm.concat([a, b, c], -1)),
    "concat_many": ([(1, 2)] * 17, lambda *xs: tm.concat(list(xs), 0)),
    "concat_int64_axis": ([(2, 2), (1, 2)],
                          lambda a, b: tm.concat([a, b], tm.constant(0, tm.int64))),
    "stack_negative_axis": ([(2, 3), (2, 3)], lambda a, b: tm.stack([a, b], axis=-1)),
    "unstack_one_used": ([(2, 3)], lambda a: tm.unstack(a, num=3, axis=1)[1]),
    "unstack_restacked": ([(3, 2)], lambda a: tm.stack(tm.unstack(a)[::-1], axis=1)),
    "split": ([(2, 6)], lambda a: tm.split(a, 3, axis=1)[2]),
    "split_all_used": ([(2, 6)], lambda a: tm.concat(tm.split(a, 3, axis=-1)[::-1], 0)),
    "split_v": ([(2, 6)], lambda a: tm.split(a, [1, -1, 2], axis=-1)[1]),
    "slice": ([(3, 4)], lambda a: tm.slice(a, [1, 0], [1, -1])),
    "slice_int64": ([(3, 4)], lambda a: tm.slice(a, np.array([1, 1]), np.array([2, 2]))),
    "strided_negative_steps": ([(5, 4)], lambda a: a[::-2, 1:]),
    "strided_newaxis_shrink": ([(5, 4)], lambda a: a[None, 1, ::-1]),
    "strided_ellipsis": ([(2, 3, 4)], lambda a: a[..., 1:3]),
    "strided_masks_raw": ([(2, 3, 4)], lambda a: tm.strided_slice(
        a, [0, 2, 1], [0, 0, 3], [1, -1, 1], begin_mask=1, end_mask=3, shrink_axis_mask=0)),
    "strided_dynamic_bounds": ([(5, 4)], lambda a: a[tm.placeholder_with_default(1, []):, -1]),
    "tile": ([(2, 3)], lambda a: tm.tile(a, [2, 3])),
    "tile_int64": ([(2, 1, 2)], lambda a: tm.tile(a, np.array([1, 3, 2]))),
    "fill": ([()], lambda a: tm.fill([2, 3], a)),
    "broadcast_to": ([(3, 1)], lambda a: tm.broadcast_to(a, [2, 3, 4])),
    "gather_axis0": ([(4, 3)], lambda a: tm.gather(a, [2, 0, 2])),
    "gather_axis0_matrix_indices": ([(4, 3)], lambda a: tm.gather(a, [[2, 0], [3, 3]])),
    "gather_axis1": ([(2, 3, 4)], lambda a: tm.gather(a, [[2, 0], [1, 1]], axis=1)),
    "gather_axis_negative": ([(2, 3, 4)], lambda a: tm.gather(a, [3, 0, 3], axis=-1)),
    "gather_batch_dims": ([(2, 3, 4)], lambda a: tm.gather(
        a, [[2, 0], [1, 1]], axis=1, batch_dims=1)),
    "gather_batch_dims_negative": ([(2, 3, 4)], lambda a: tm.gather(
        a, [[2, 0], [1, 1]], axis=2, batch_dims=-1)),
    "gather_batch_dims_two": ([(2, 3, 4)], lambda a: tm.gather(
        a, np.array([[[1], [0], [3]], [[2], [2], [0]]], np.int64), axis=2, batch_dims=2)),
    "scatter_nd": ([(3, 4)], lambda a: tm.scatter_nd([[0], [2], [0]], a, [4, 4])),
    "unsorted_segment_sum_negative_ids": ([(4, 2)], lambda a: tm.unsorted_segment_sum(
        a, [0, -1, 2, 0], 3)),
    "unsorted_segment_sum_matrix_ids": ([(2, 2, 3)], lambda a: tm.unsorted_segment_sum(
        a, [[1, -1], [0, 1]], 2)),
    "pad": ([(2, 3)], lambda a: tm.raw_ops.Pad(input=a, paddings=[[1, 0], [2, 1]])),
    "gather_nd_elements": ([(3, 4)], lambda a: tm.raw_ops.GatherNd(
        params=a, indices=[[0, 1], [2, 3], [0, 1]])),
    "gather_nd_rows": ([(3, 4)], lambda a: tm.raw_ops.GatherNd(params=a, indices=[[2], [2]])),
    "gather_nd_batched": ([(3, 4)], lambda a: tm.raw_ops.GatherNd(
        params=a, indices=[[[1]], [[0]]])),
    "strided_slice_grad_dy": ([(2, 2)], lambda a: tm.raw_ops.StridedSliceGrad(
        shape=[3, 4], begin=[0, 3], end=[2, 0], strides=[1, -2], dy=a)),
}

# The same graphs on inputs whose static shape is unknown: the gradients must take every
# shape from run-time Shape ops.
UNKNOWN_FD_CASES = [
    "reshape", "expand_dims_negative", "squeeze", "transpose", "concat_three_negative_axis",
    "stack_negative_axis", "unstack_one_used", "split", "split_v", "slice", "strided_ellipsis",
    "strided_negative_steps", "tile", "fill", "gather_axis0", "gather_axis1",
    "gather_axis_negative", "gather_batch_dims", "scatter_nd", "unsorted_segment_sum_negative_ids",
    "pad", "gather_nd_elements", "gather_nd_rows",
]


def _fd_error(name: str, unknown: bool) -> float:
    shapes, build = FD_CASES[name]
    g = tm.Graph()
    with g.as_default():
        xs = [tm.placeholder(F64, shape=None if unknown else s, name=f"x{i}")
              for i, s in enumerate(shapes)]
        y = build(*xs)
        with tm.Session() as sess:
            value = sess.run(y, {x: np.zeros(s) for x, s in zip(xs, shapes)})
            err = tm.test.compute_gradient_error(
                xs if len(xs) > 1 else xs[0], shapes if len(xs) > 1 else shapes[0],
                y, np.shape(value))
    return err


@pytest.mark.parametrize("name", sorted(FD_CASES))
def test_gradient_matches_finite_differences(name):
    assert _fd_error(name, unknown=False) < 1e-8


@pytest.mark.parametrize("name", UNKNOWN_FD_CASES)
def test_gradient_with_unknown_shapes_matches_finite_differences(name):
    assert _fd_error(name, unknown=True) < 1e-8


def test_gradient_of_every_output_at_once(graph):
    # Split, Unpack and IdentityN outputs without an upstream gradient get zeros.
    x = tm.constant(np.arange(12.0).reshape(3, 4))
    parts = tm.split(x, 2, axis=1)
    rows = tm.unstack(x)
    ids = tm.identity_n([x, x])
    gs = tm.gradients([parts[1], rows[2], ids[0]], x)
    got = tm.Session().run(gs[0])
    expected = np.zeros((3, 4))
    expected[:, 2:] += 1
    expected[2] += 1
    expected += 1
    np.testing.assert_array_equal(got, expected)


def test_static_shapes_of_gradients(graph):
    # The gradient ops themselves infer the input's partial shape (a folded
    # InvertPermutation, StridedSliceGrad of a partial Shape, Tile's set_shape, Reshape).
    x = tm.placeholder(tm.float32, [None, 3, 4])
    for y in (tm.transpose(x, [1, 2, 0]), x[:, ::-1], tm.tile(x, [2, 1, 1]),
              tm.reshape(x, [-1, 2]), tm.expand_dims(x, 0)):
        (g,) = tm.gradients(y, x)
        assert g.shape.as_list() == [None, 3, 4], y.op.type


def test_no_gradient_ops_stop_the_gradient(graph):
    x = tm.constant(np.ones((2, 3), np.float32))
    y = tm.stop_gradient(x)
    assert tm.gradients(y, x) == [None]
    z = tm.zeros_like(x)
    assert tm.gradients(z, x) == [None]
    o = tm.one_hot([1, 0], 3, on_value=tm.reduce_sum(x), off_value=0.0)
    assert tm.gradients(o, x) == [None]  # TensorFlow: OneHot is not differentiable


def test_every_array_and_state_op_has_a_gradient_or_a_mark():
    package = os.path.dirname(tm.__file__)
    # Every op of the array family's package, and the resource variable ops.
    array_dir = os.path.join(package, "ops", "array")
    resource_ops = os.path.join(package, "ops", "variables", "resource_ops.py")
    ops = [
        name for name, op_def in registry.registered_ops().items()
        if os.path.dirname(op_def.defined_at.filename) == array_dir
        or op_def.defined_at.filename == resource_ops
    ]
    named = ["Identity", "IdentityN", "PlaceholderWithDefault", "StopGradient", "Const",
             "Placeholder", "Shape", "Size", "Rank", "Range", "ZerosLike", "OnesLike", "Fill",
             "OneHot", "Reshape", "ExpandDims", "Squeeze", "Transpose", "ConcatV2", "Pack",
             "Unpack", "Split", "SplitV", "Slice", "StridedSlice", "Tile", "BroadcastTo",
             "GatherV2", "ScatterNd", "UnsortedSegmentSum", "ResourceGather",
             "ResourceScatterAdd", "ReadVariableOp", "NoOp", *HELPER_OPS]
    missing = [name for name in sorted(set(ops) | set(named))
               if registry.get(name).grad_fn is None and not registry.get(name).no_gradient]
    assert not missing, f"ops without a gradient or a no_gradient mark: {missing}"
    assert len(ops) >= 40


@pytest.mark.parametrize("op_type", ["Shape", "Size", "Rank", "Range", "ZerosLike", "OnesLike",
                                     "OneHot", "StopGradient", "Const", "InvertPermutation",
                                     "ConcatOffset", "ResourceScatterAdd", "VariableShape"])
def test_not_differentiable_as_in_tensorflow(op_type):
    op_def = registry.get(op_type)
    assert op_def.no_gradient and op_def.grad_fn is None


# ------------------------------------------------------------------------------------------
# Gathers give IndexedSlices


def test_gather_gradient_is_indexed_slices(graph):
    params = tm.constant(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    y = tm.gather(params, [[3, 1], [3, 3]])
    w = np.arange(12.0, dtype=np.float32).reshape(2, 2, 3)
    (g,) = tm.gradients(y, params, grad_ys=w)
    assert isinstance(g, tm.IndexedSlices)
    assert g.values.shape.as_list() == [4, 3]
    assert g.indices.dtype == tm.int32 and g.dense_shape.dtype == tm.int32
    with tm.Session() as sess:
        value = sess.run(g)
        dense = sess.run(tm.convert_to_tensor(g))
    np.testing.assert_array_equal(value.values, w.reshape(4, 3))
    np.testing.assert_array_equal(value.indices, [3, 1, 3, 3])
    np.testing.assert_array_equal(value.dense_shape, [4, 3])
    # Row 3 was gathered three times: its gradient is the sum of the three rows of w.
    expected = np.zeros((4, 3), np.float32)
    expected[1] = w[0, 1]
    expected[3] = w[0, 0] + w[1, 0] + w[1, 1]
    np.testing.assert_array_equal(dense, expected)


def test_gather_gradients_aggregate_sparsely(graph):
    params = tm.constant(np.zeros((5, 2), np.float32))
    y1 = tm.gather(params, [0, 4])
    y2 = tm.gather(params, np.array([4], np.int32))
    (g,) = tm.gradients([y1, y2], params)
    assert isinstance(g, tm.IndexedSlices)
    dense = tm.Session().run(tm.convert_to_tensor(g))
    np.testing.assert_array_equal(dense, [[1, 1], [0, 0], [0, 0], [0, 0], [2, 2]])


def test_gather_int64_indices_keep_their_dtype(graph):
    params = tm.placeholder(tm.float32, [None, 2])
    (g,) = tm.gradients(tm.gather(params, np.array([1, 1], np.int64)), params)
    assert g.indices.dtype == tm.int64
    value = tm.Session().run(g, {params: np.zeros((3, 2), np.float32)})
    np.testing.assert_array_equal(value.dense_shape, [3, 2])
    np.testing.assert_array_equal(_dense(value), [[0, 0], [2, 2], [0, 0]])


def test_resource_gather_gradient_is_indexed_slices_on_the_variable(graph):
    table = np.arange(15.0, dtype=np.float32).reshape(5, 3)
    v = tm.Variable(table)
    y = tm.gather(v, [[4, 0], [4, 4]])
    assert y.op.type == "ResourceGather"
    w = np.ones((2, 2, 3), np.float32)
    (g,) = tm.gradients(y, v, grad_ys=w)
    assert isinstance(g, tm.IndexedSlices)
    # The dense shape is the variable's shape at run time, as TensorFlow's VariableShape.
    assert g.dense_shape.op.type == "VariableShape"
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        value = sess.run(g)
        dense = sess.run(tm.convert_to_tensor(g))
    np.testing.assert_array_equal(value.indices, [4, 0, 4, 4])
    np.testing.assert_array_equal(value.values, np.ones((4, 3)))
    np.testing.assert_array_equal(value.dense_shape, [5, 3])
    assert value.dense_shape.dtype == np.int32
    np.testing.assert_array_equal(dense[:, 0], [1, 0, 0, 0, 3])


def test_resource_gather_gradient_trains_only_gathered_rows(graph):
    v = tm.Variable(np.zeros((4, 2), np.float32))
    (g,) = tm.gradients(tm.gather(v, [1, 1, 3]), v)
    update = tm.scatter_sub(v, g.indices, g.values)
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(update)
        np.testing.assert_array_equal(sess.run(v), [[0, 0], [-2, -2], [0, 0], [-1, -1]])


# ------------------------------------------------------------------------------------------
# Composite graphs against TensorFlow


def test_every_case_was_recorded():
    recorded = {k.split("/")[1] for k in G if k.startswith("grad/")}
    assert recorded == set(CASES)
    recorded = {k.split("/")[1] for k in G if k.startswith("raw/")}
    assert recorded == set(RAW_CASES)


def _assert_close(got, expected, what):
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_tensorflow(case, graph):
    grads = CASES[case]()
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        values = sess.run(grads)
    assert len(values) == len({k.split("/")[2] for k in G if k.startswith(f"grad/{case}/")})
    for i, (gr, value) in enumerate(zip(grads, values)):
        key = f"grad/{case}/{i}"
        expected_dense = G[f"{key}/dense"]
        _assert_close(_dense(value, expected_dense.shape), expected_dense, key)
        if str(G[f"{key}/kind"]) == "sparse" and (case, i) not in array_grad_cases.DENSE_IN_TFMINI:
            assert isinstance(gr, tm.IndexedSlices), key
            assert value.indices.dtype == G[f"{key}/indices"].dtype, key
            np.testing.assert_array_equal(value.indices, G[f"{key}/indices"], err_msg=key)
            np.testing.assert_array_equal(value.dense_shape, G[f"{key}/dense_shape"], key)
            assert value.dense_shape.dtype == G[f"{key}/dense_shape"].dtype, key
            _assert_close(value.values, G[f"{key}/values"], key)
        else:
            assert not isinstance(gr, tm.IndexedSlices) or (
                case, i) in array_grad_cases.DENSE_IN_TFMINI, key
            assert gr.shape.is_compatible_with(expected_dense.shape), key


# ------------------------------------------------------------------------------------------
# Helper ops: TensorFlow's signatures, values and run-time errors


@pytest.mark.parametrize("op_type", HELPER_OPS)
def test_helper_op_def_matches_tensorflow(op_type):
    tf_def = json.loads(str(G[f"opdef/{op_type}"]))
    op_def = registry.get(op_type)

    def arg(a):
        return [a.name, a.type_attr or a.type_list_attr or a.dtype.name, a.number_attr or ""]

    assert [arg(a) for a in op_def.inputs] == tf_def["inputs"]
    assert [arg(a) for a in op_def.outputs] == tf_def["outputs"]
    assert [a.name for a in op_def.attrs] == [a[0] for a in tf_def["attrs"]]
    for ours, (name, attr_type, default, allowed, minimum) in zip(op_def.attrs, tf_def["attrs"]):
        assert ours.type == attr_type, name
        if default is None:
            assert not ours.has_default, name
        elif attr_type == "type":
            assert ours.default.name == default, name
        else:
            assert ours.default == default, name
        assert sorted(d.name for d in ours.allowed_values or ()) == allowed, name
        if minimum is not None:
            assert ours.minimum == minimum, name


@pytest.mark.parametrize("case", sorted(RAW_CASES))
def test_helper_op_matches_tensorflow(case, graph):
    out = RAW_CASES[case]()
    error = G.get(f"raw/{case}/error")
    with tm.Session() as sess:
        if error is not None:
            with pytest.raises(tm.errors.InvalidArgumentError) as info:
                sess.run(out)
            assert str(error) in str(info.value)
            return
        got = sess.run(out)
    if isinstance(got, list):
        expected = [G[f"raw/{case}/value/{i}"] for i in range(len(got))]
        assert f"raw/{case}/value/{len(got)}" not in G
    else:
        got, expected = [got], [G[f"raw/{case}/value"]]
    for g, e in zip(got, expected):
        assert np.asarray(g).dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_helper_op_build_errors(graph):
    m = tm.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Paddings must be non-negative"):
        tm.raw_ops.Pad(input=m, paddings=[[0, -1], [0, 0]])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tm.raw_ops.Pad(input=m, paddings=[[0, 1]])
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        tm.raw_ops.Pad(input=m, paddings=[[0, 1, 1], [0, 0, 1]])
    with pytest.raises(ValueError, match=r"indices.shape\[-1\] must be <= params.rank, but saw "
                                         r"indices shape: \[1,3\] and params shape: \[2,3\]"):
        tm.raw_ops.GatherNd(params=m, indices=[[0, 1, 1]])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tm.raw_ops.InvertPermutation(x=[[0]])


def test_helper_op_static_shapes(graph):
    m = tm.placeholder(tm.float32, [2, None])
    assert tm.raw_ops.Pad(input=m, paddings=[[1, 2], [0, 3]]).shape.as_list() == [5, None]
    unknown_paddings = tm.placeholder(tm.int32, [2, 2])
    assert tm.raw_ops.Pad(input=m, paddings=unknown_paddings).shape.as_list() == [None, None]
    p = tm.placeholder(tm.float32, [4, 5, 6])
    gathered = tm.raw_ops.GatherNd(params=p, indices=tm.placeholder(tm.int32, [7, None, 2]))
    assert gathered.shape.as_list() == [7, None, 6]
    dy = tm.placeholder(tm.float32, None)
    ssg = tm.raw_ops.StridedSliceGrad(shape=[3, 4], begin=[0], end=[1], strides=[1], dy=dy)
    assert ssg.shape.as_list() == [3, 4]
    perm = tm.raw_ops.InvertPermutation(x=[2, 0, 1])
    assert tm.Session().run(perm).tolist() == [1, 2, 0]
    assert perm.shape.as_list() == [3]
