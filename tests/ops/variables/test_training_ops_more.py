"""The newer training ops (tfmini/ops/variables/training_ops_more.py) on bad input: every
one-fault case of training_ops_more_cases.py gives TensorFlow 2.21's error class and message
(tests/goldens/optim.npz, tools/record_goldens_optim.py), through the resource and the ref
spelling; a failed run changes nothing. Their values are tested in test_training_ops.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.variables import training_ops_more_cases

R = tm.raw_ops
F = np.float32
GOLDENS = load_golden("optim")
CASES = training_ops_more_cases.cases()

# Where TensorFlow's kernel does not check an input, tfmini still refuses it (rather than
# computing with misshapen state): documented differences, not recorded behaviour.
STRICTER = {"Adadelta/slot/accum_update"}


def _make(kind: str, value: np.ndarray, name: str):
    """A variable of unknown static shape (so that only the kernel sees a fault)."""
    value = np.asarray(value)
    dtype = tm.as_dtype(value.dtype)
    if kind == "resource":
        h = R.VarHandleOp(dtype=dtype, shape=None, shared_name=name)
        return h, R.AssignVariableOp(resource=h, value=value), R.ReadVariableOp(
            resource=h, dtype=dtype)
    ref = R.VariableV2(dtype=dtype, shape=None, name=name)
    return ref, R.Assign(ref=ref, value=value, validate_shape=False).op, tm.identity(ref)


def _storage(sess, name):
    return sess._device("CPU").resource_manager.lookup("", name)


def test_every_case_was_recorded():
    assert {k[len("err/"):] for k in GOLDENS if k.startswith("err/")} == set(CASES)


@pytest.mark.parametrize("kind", ["resource", "ref"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_fails_as_in_tensorflow(name, kind):
    case = CASES[name]
    want = json.loads(str(GOLDENS[f"err/{name}"]))
    op_type = case["op"] if kind == "resource" else case["op"][len("Resource"):]
    with tm.Graph().as_default():
        made = {v: _make(kind, value, v) for v, value in case["vars"].items()}
        feeds = {k: tm.placeholder(tm.as_dtype(np.asarray(x).dtype), name=k)
                 for k, x in case["inputs"].items()}
        op = getattr(R, op_type)(**{v: m[0] for v, m in made.items()}, **feeds)
        feed_dict = {feeds[k]: x for k, x in case["inputs"].items()}
        with tm.Session() as sess:
            sess.run([m[1] for m in made.values()])
            before = sess.run({v: m[2] for v, m in made.items()})
            if want["class"] is None and name not in STRICTER:
                sess.run(op, feed_dict)  # TensorFlow accepts these (e.g. a negative rate)
                return
            cls = tm.errors.InvalidArgumentError if want["class"] is None else getattr(
                tm.errors, want["class"])
            with pytest.raises(cls) as info:
                sess.run(op, feed_dict)
            if want["class"] is not None:
                # tfmini's message names the node first, then TensorFlow's text.
                assert want["message"] in info.value.message
            after = sess.run({v: m[2] for v, m in made.items()})
    for v in before:  # a failed run loses nothing
        np.testing.assert_array_equal(after[v], before[v])


def test_a_failing_later_op_undoes_a_sparse_update():
    with tm.Graph().as_default():
        made = {v: _make("resource", np.ones((4, 2), np.float32), v)
                for v in ("var", "ms", "mom")}
        bad = tm.placeholder(tm.int32)
        op = R.ResourceSparseApplyRMSProp(
            **{v: m[0] for v, m in made.items()}, lr=np.float32(0.1), rho=np.float32(0.9),
            momentum=np.float32(0.5), epsilon=np.float32(1e-3),
            grad=np.ones((2, 2), np.float32), indices=np.array([1, 1], np.int32))
        with tm.control_dependencies([op]):
            failing = tm.reshape(bad, [3])
        with tm.Session() as sess:
            sess.run([m[1] for m in made.values()])
            with pytest.raises(tm.errors.InvalidArgumentError):
                sess.run(failing, {bad: [1, 2]})
            for m in made.values():
                np.testing.assert_array_equal(sess.run(m[2]), np.ones((4, 2), np.float32))
            sess.run(op)
            assert not np.array_equal(sess.run(made["var"][2]), np.ones((4, 2), np.float32))


@pytest.mark.parametrize("op_type", ["ResourceApplyFtrl", "ResourceApplyRMSProp"])
def test_dense_updates_alternate_between_two_buffers(op_type):
    # The in-place path: each step writes into the spare buffer, no fresh array per step.
    names = ("var", "accum", "linear") if "Ftrl" in op_type else ("var", "ms", "mom")
    hyper = ({"lr": F(0.1), "l1": F(0.01), "l2": F(0.0), "lr_power": F(-0.5)}
             if "Ftrl" in op_type else
             {"lr": F(0.1), "rho": F(0.9), "momentum": F(0.5), "epsilon": F(1e-3)})
    with tm.Graph().as_default():
        made = {v: _make("resource", np.full((8, 8), 0.5, F), v) for v in names}
        op = getattr(R, op_type)(**{v: m[0] for v, m in made.items()},
                                 grad=np.full((8, 8), 0.1, F), **hyper)
        with tm.Session() as sess:
            sess.run([m[1] for m in made.values()])
            res = _storage(sess, "var")
            ids = set()
            for _ in range(6):
                sess.run(op)
                ids.add(id(res.value))
                assert not res.value.flags.writeable
            assert len(ids) == 2
