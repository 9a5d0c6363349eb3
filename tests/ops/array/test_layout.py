"""The array family's padding, mask, reordering, search, diagonal, scatter and counting ops
against TensorFlow 2.21 (cases in layout_cases.py, recorded by
tools/record_goldens_core12.py), plus their OpDef signatures."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops import golden_replay
from tests.ops.array import layout_cases
from tfmini.core import registry

G = load_golden("core12")
P = "array/"
VALUES = layout_cases.value_cases(tm)
GRADS = layout_cases.grad_cases(tm)
BUILD_ERRORS = layout_cases.build_error_cases(tm)
RUN_ERRORS = layout_cases.run_error_cases(tm)
GRAPHS = layout_cases.graph_cases(tm)

# Cases whose message wording differs from TensorFlow's (the class is still checked).
LOOSE = frozenset({
    "pad_bad_rank", "boolean_mask_shape", "reverse_dup_axis", "reverse_sequence_dim",
    "diag_part_rank", "tensor_diag_part_odd", "scatter_shape", "ensure_shape",
    "sequence_mask_maxlen", "roll_axis", "reverse_axis", "scatter_bad_index",
    "diag_part_k_range", "unique_2d", "convert_dtype", "reverse_sequence_long",
    "mirror_pad_too_big", "pad_negative", "band_part_too_many",
    "depth_to_space_nchw",  # TF lists its registered kernels after the same first line
})


def test_every_case_was_recorded():
    for kind, cases in (("value", VALUES), ("grad", GRADS), ("build_error", BUILD_ERRORS),
                        ("run_error", RUN_ERRORS), ("graph", GRAPHS)):
        recorded = {k.split("/")[2] for k in G if k.startswith(f"{P}{kind}/")}
        assert recorded == set(cases), kind


@pytest.mark.parametrize("name", sorted(VALUES))
def test_value_matches_tensorflow(name):
    golden_replay.check_value(G, P, name, VALUES[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradient_matches_tensorflow(name):
    golden_replay.check_grad(G, P, name, GRADS[name])


@pytest.mark.parametrize("name", sorted(BUILD_ERRORS))
def test_build_error_matches_tensorflow(name):
    golden_replay.check_build_error(G, P, name, BUILD_ERRORS[name], LOOSE)


@pytest.mark.parametrize("name", sorted(RUN_ERRORS))
def test_run_error_matches_tensorflow(name):
    golden_replay.check_run_error(G, P, name, RUN_ERRORS[name], LOOSE)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graph_matches_tensorflow(name):
    # sort/argsort are TopKV2 with transposes and negation, op for op as TensorFlow builds them.
    with tm.Graph().as_default() as g:
        GRAPHS[name]()
        ops = [[op.name, op.type] for op in g.get_operations()]
    tf_ops = json.loads(str(G[f"{P}graph/{name}"]))
    assert [t for _, t in ops] == [t for _, t in tf_ops]
    # tfmini's autopacking names its Pack ops "packed" where TensorFlow names them after the
    # argument ("TensorScatterUpdate/indices/0"); every other op has TensorFlow's name.
    assert [n for n, t in ops if t != "Pack"] == [n for n, t in tf_ops if t != "Pack"]


# DataTypes tools/record_goldens_core12.py dropped from TensorFlow's lists (_ABSENT_TYPES).
RECORDED_WITHOUT = {"complex64", "complex128", "bfloat16", "uint16", "uint32", "uint64"}
OPDEFS = sorted(k.split("/", 1)[1] for k in G if k.startswith("opdef/"))


@pytest.mark.parametrize("op_type", OPDEFS)
def test_op_def_matches_tensorflow(op_type):
    tf_def = json.loads(str(G[f"opdef/{op_type}"]))
    op_def = registry.get(op_type)

    def arg(a):
        return [a.name, a.type_attr or a.type_list_attr or a.dtype.name, a.number_attr or ""]

    assert [arg(a) for a in op_def.inputs] == tf_def["inputs"]
    assert [arg(a) for a in op_def.outputs] == tf_def["outputs"]
    assert sorted(a.name for a in op_def.attrs) == sorted(a[0] for a in tf_def["attrs"])
    ours = {a.name: a for a in op_def.attrs}
    for name, attr_type, default, allowed, _minimum in tf_def["attrs"]:
        a = ours[name]
        assert a.type == attr_type, name
        assert a.has_default == (default is not None), name
        if attr_type == "type" and allowed:
            # As sets: TensorFlow's list for Mod names float16 twice. The recorder left out the
            # dtypes tfmini lacked then (its _ABSENT_TYPES); those added since (complex,
            # bfloat16, uint16/32/64) are compared by the families that use them.
            ours_names = {d.name for d in a.allowed_values or ()} - RECORDED_WITHOUT
            assert ours_names == set(allowed), (op_type, name)


def test_pad_modes_against_numpy_on_odd_shapes():
    rng = np.random.default_rng(12)
    x = rng.normal(size=(3, 1, 5))
    p = np.array([[2, 1], [0, 0], [4, 3]])
    with tm.Graph().as_default(), tm.Session() as sess:
        reflect, symmetric = sess.run([tm.pad(x, p, "REFLECT"), tm.pad(x, p, "SYMMETRIC")])
    np.testing.assert_array_equal(reflect, np.pad(x, p, mode="reflect"))
    np.testing.assert_array_equal(symmetric, np.pad(x, p, mode="symmetric"))
