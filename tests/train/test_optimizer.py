"""The TF1 Optimizer base class: TensorFlow's optimizer_test.py cases, every error of
tensorflow/python/training/optimizer.py (class and message gist), slots and their names, the
returned op and the global step, gating, sparse gradients, and the global step functions."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm

DTYPES = [tm.float16, tm.float32, tm.float64]


@pytest.fixture
def g():
    graph = tm.Graph()
    with graph.as_default():
        yield graph


def _vars(dtype=tm.float32):
    v0 = tm.Variable([1.0, 2.0], dtype=dtype)
    v1 = tm.Variable([3.0, 4.0], dtype=dtype)
    return v0, v1


def _run(ops, fetches):
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        for op in ops:
            sess.run(op)
        return sess.run(fetches)


# ----------------------------------------------------------------------------------------
# optimizer_test.py


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_basic(g, dtype):
    v0, v1 = _vars(dtype)
    cost = 5 * v0 + 3 * v1
    gs = tm.Variable(np.int64(0), name="global_step_0")
    opt_op = tm.train.GradientDescentOptimizer(3.0).minimize(cost, gs, [v0, v1])
    r0, r1, step = _run([opt_op], [v0, v1, gs])
    np.testing.assert_allclose(r0, [-14.0, -13.0])
    np.testing.assert_allclose(r1, [-6.0, -5.0])
    assert r0.dtype == dtype.np_dtype and step == 1


@pytest.mark.parametrize("method", [tm.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
                                    tm.AggregationMethod.EXPERIMENTAL_TREE])
def test_aggregation_method(g, method):
    v0, v1 = _vars()
    cost = 5 * v0 + 3 * v1
    op = tm.train.GradientDescentOptimizer(3.0).minimize(cost, var_list=[v0, v1],
                                                         aggregation_method=method)
    r0, r1 = _run([op], [v0, v1])
    np.testing.assert_allclose(r0, [-14.0, -13.0])
    np.testing.assert_allclose(r1, [-6.0, -5.0])


def test_precomputed_gradient(g):
    v0, v1 = _vars()
    cost = 5 * v0 + 3 * v1
    grad_loss = tm.constant([42.0, -42.0])
    op = tm.train.GradientDescentOptimizer(3.0).minimize(cost, var_list=[v0, v1],
                                                         grad_loss=grad_loss)
    r0, r1 = _run([op], [v0, v1])
    np.testing.assert_allclose(r0, [1.0 - 3 * 5 * 42.0, 2.0 + 3 * 5 * 42.0])
    np.testing.assert_allclose(r1, [3.0 - 3 * 3 * 42.0, 4.0 + 3 * 3 * 42.0])


def test_no_variables(g):
    v0 = tm.Variable([1.0, 2.0], trainable=False)
    cost = 5 * v0
    with pytest.raises(ValueError, match="No.*variables"):
        tm.train.GradientDescentOptimizer(3.0).minimize(cost)
    with pytest.raises(ValueError, match=r"^No variables to optimize\.$"):
        tm.train.GradientDescentOptimizer(3.0).compute_gradients(cost, var_list=[])


def test_no_gradients(g):
    v0, v1 = _vars()
    cost = 5 * v0
    with pytest.raises(ValueError, match="No gradients"):
        tm.train.GradientDescentOptimizer(3.0).minimize(cost, var_list=[v1])


def test_no_gradients_for_any_variable_minimize(g):
    v0, v1 = _vars()
    cost = tm.constant(5.0)
    with pytest.raises(ValueError, match="No gradients provided for any variable") as e:
        tm.train.GradientDescentOptimizer(3.0).minimize(cost, var_list=[v0, v1])
    assert "check your graph for ops that do not support gradients" in str(e.value)
    assert "'Variable:0'" in str(e.value) and "Const:0" in str(e.value)


def test_no_gradients_for_any_variable_apply_gradients(g):
    v0, v1 = _vars()
    with pytest.raises(ValueError, match=r"No gradients provided for any variable: \[") as e:
        tm.train.GradientDescentOptimizer(3.0).apply_gradients([(None, v0), (None, v1)])
    assert "'Variable:0'" in str(e.value) and "'Variable_1:0'" in str(e.value)


def test_gradients_as_variables(g):
    v0, v1 = _vars()
    cost = 5 * v0 + 3 * v1
    opt = tm.train.GradientDescentOptimizer(3.0)
    grads_and_vars = opt.compute_gradients(cost, [v0, v1])
    held = [tm.Variable(tm.zeros([2]), trainable=False) for _ in grads_and_vars]
    fill = [h.assign(gv[0]) for h, gv in zip(held, grads_and_vars)]
    apply = opt.apply_gradients([(h, v) for h, (_, v) in zip(held, grads_and_vars)])
    r0, r1 = _run([fill, apply], [v0, v1])
    np.testing.assert_allclose(r0, [-14.0, -13.0])
    np.testing.assert_allclose(r1, [-6.0, -5.0])


def test_compute_gradients_with_tensors(g):
    x = tm.convert_to_tensor(1.0)
    f = x * x
    opt = tm.train.GradientDescentOptimizer(3.0)
    grads_and_vars = opt.compute_gradients(f, [x])
    assert len(grads_and_vars) == 1 and grads_and_vars[0][1] is x
    assert _run([], grads_and_vars[0][0]) == 2.0
    with pytest.raises(NotImplementedError, match="Trying to update a Tensor"):
        opt.apply_gradients(grads_and_vars)


def test_train_op(g):
    v0, v1 = _vars()
    cost = 5 * v0 + 3 * v1
    gs = tm.train.get_or_create_global_step()
    opt_op = tm.train.GradientDescentOptimizer(3.0).minimize(cost, gs, [v0, v1])
    assert opt_op in tm.get_collection(tm.GraphKeys.TRAIN_OP)
    plain = tm.train.GradientDescentOptimizer(3.0).minimize(cost)
    assert tm.get_collection(tm.GraphKeys.TRAIN_OP) == [opt_op, plain]


def test_constraint(g):
    def constraint_01(x):
        return tm.minimum(tm.maximum(x, -0.1), 0.0)

    def constraint_0(x):
        return tm.minimum(tm.maximum(x, 0.0), 1.0)

    v0 = tm.Variable([1.0, 2.0], constraint=constraint_01)
    v1 = tm.Variable([3.0, 4.0], constraint=constraint_0)
    cost = 5 * v0 + 3 * v1
    op = tm.train.GradientDescentOptimizer(3.0).minimize(cost, var_list=[v0, v1])
    r0, r1 = _run([op], [v0, v1])
    np.testing.assert_allclose(r0, [-0.1, -0.1])
    np.testing.assert_allclose(r1, [0.0, 0.0])


# ----------------------------------------------------------------------------------------
# The errors of tensorflow/python/training/optimizer.py


def test_optimizer_name_is_required(g):
    with pytest.raises(ValueError, match="^Must specify the optimizer name$"):
        tm.train.GradientDescentOptimizer(1.0, name="")
    with pytest.raises(ValueError, match="^Must specify the optimizer name$"):
        tm.train.Optimizer(False, None)


def test_gate_gradients_must_be_known(g):
    v0, v1 = _vars()
    with pytest.raises(ValueError) as e:
        tm.train.GradientDescentOptimizer(1.0).compute_gradients(5 * v0, gate_gradients=7)
    assert str(e.value) == (
        "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
        "Optimizer.GATE_GRAPH.  Not 7")
    assert (tm.train.Optimizer.GATE_NONE, tm.train.Optimizer.GATE_OP,
            tm.train.Optimizer.GATE_GRAPH) == (0, 1, 2)


def test_loss_must_be_float(g):
    loss = tm.multiply(tm.constant(1), tm.constant(2), name="mul")
    tm.Variable(1.0)
    with pytest.raises(ValueError) as e:
        tm.train.GradientDescentOptimizer(1.0).compute_gradients(loss)
    assert str(e.value) == (
        "Invalid type tf.int32 for mul:0, expected: [tf.float32, tf.float64, tf.float16, "
        "tf.bfloat16].")


def test_grad_loss_must_be_float(g):
    v0, _ = _vars()
    with pytest.raises(ValueError, match=r"Invalid type tf\.int32 for .*expected: \[tf\.float32"):
        tm.train.GradientDescentOptimizer(1.0).compute_gradients(
            5 * v0, grad_loss=tm.constant([1, 2]))


def test_int_variable_without_gradient_is_kept_with_none(g):
    # The dtype check covers only the variables that got a gradient (an int has none).
    iv = tm.Variable(1, name="iv")
    v0, _ = _vars()
    pairs = tm.train.GradientDescentOptimizer(1.0).compute_gradients(
        tm.cast(iv, tm.float32) * 2.0 + tm.reduce_sum(v0), var_list=[iv, v0])
    assert pairs[0] == (None, iv) and pairs[1][1] is v0 and pairs[1][0] is not None


def test_apply_gradients_needs_pairs(g):
    with pytest.raises(ValueError, match=r"^No variables provided\.$"):
        tm.train.GradientDescentOptimizer(1.0).apply_gradients([])


def test_gradient_must_be_convertible(g):
    v0, _ = _vars()
    with pytest.raises(TypeError, match="Gradient must be convertible to a Tensor or "
                                        "IndexedSlices, or None: <object"):
        tm.train.GradientDescentOptimizer(1.0).apply_gradients([(object(), v0)])


def test_string_gradient_fails_on_its_dtype(g):
    v0, _ = _vars()
    # As TensorFlow: the string converts, and the update op refuses its dtype.
    with pytest.raises(TypeError, match="DataType string not in list of allowed values"):
        tm.train.GradientDescentOptimizer(1.0).apply_gradients([("abc", v0)])


def test_unsupported_variable_type(g):
    with pytest.raises(NotImplementedError, match="Trying to optimize unsupported type"):
        tm.train.GradientDescentOptimizer(1.0).compute_gradients(tm.constant(1.0), ["x"])


def test_sparse_gradient_on_constrained_variable(g):
    emb = tm.Variable(np.ones((3, 2), np.float32), constraint=lambda x: x)
    loss = tm.reduce_sum(tm.gather(emb, [0, 2]))
    with pytest.raises(RuntimeError, match="Cannot use a constraint function on a sparse "
                                           "variable."):
        tm.train.GradientDescentOptimizer(1.0).minimize(loss)


# ----------------------------------------------------------------------------------------
# compute_gradients


def test_compute_gradients_keeps_unconnected_variables_in_order(g):
    a, b = _vars()
    c = tm.Variable(1.0, name="c")
    pairs = tm.train.GradientDescentOptimizer(1.0).compute_gradients(tm.reduce_sum(3.0 * b))
    assert [v for _, v in pairs] == [a, b, c]
    assert pairs[0][0] is None and pairs[2][0] is None
    np.testing.assert_allclose(_run([], pairs[1][0]), [3.0, 3.0])


def test_default_var_list_includes_trainable_resource_variables_collection(g):
    extra = tm.Variable(2.0, trainable=False, name="extra")
    tm.add_to_collection(tm.GraphKeys.TRAINABLE_RESOURCE_VARIABLES, extra)
    w = tm.Variable(1.0, name="w")
    pairs = tm.train.GradientDescentOptimizer(1.0).compute_gradients(w * extra)
    assert [v for _, v in pairs] == [w, extra]


@pytest.mark.parametrize("gate", [tm.train.Optimizer.GATE_NONE, tm.train.Optimizer.GATE_OP,
                                  tm.train.Optimizer.GATE_GRAPH])
def test_gates_keep_values(g, gate):
    w = tm.Variable([[1.0, 2.0], [3.0, 4.0]])
    emb = tm.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    x = tm.constant([[1.0, -1.0]])
    loss = tm.reduce_sum(tm.matmul(x, w) * tm.gather(emb, [2, 0]))
    pairs = tm.train.GradientDescentOptimizer(1.0).compute_gradients(loss, gate_gradients=gate)
    assert isinstance(pairs[1][0], tm.IndexedSlices)  # sparse stays sparse through the gate
    dw, demb = _run([], [pairs[0][0], pairs[1][0]])
    np.testing.assert_allclose(dw, [[4.0, 6.0], [-4.0, -6.0]])
    np.testing.assert_allclose(demb.values, [[-2.0, -2.0], [-2.0, -2.0]])  # x @ w per row
    np.testing.assert_array_equal(demb.indices, [2, 0])


def test_gate_graph_makes_every_gradient_wait_for_all(g):
    a = tm.Variable(1.0)
    b = tm.Variable(2.0)
    pairs = tm.train.GradientDescentOptimizer(1.0).compute_gradients(
        a * 3.0 + b * b, gate_gradients=tm.train.Optimizer.GATE_GRAPH)
    for grad, _ in pairs:
        assert grad.op.type == "Identity" and grad.op.control_inputs


def test_callable_loss(g):
    w = tm.Variable([1.0, 2.0], name="w")
    tm.Variable(5.0, name="unused")
    opt = tm.train.GradientDescentOptimizer(0.5)
    pairs = opt.compute_gradients(lambda: tm.reduce_sum(w * w))
    assert [v for _, v in pairs] == [w]  # only what the loss reads, as a GradientTape
    r = _run([opt.apply_gradients(pairs)], w)
    np.testing.assert_allclose(r, [0.0, 0.0])


# ----------------------------------------------------------------------------------------
# apply_gradients: the returned op, names, the global step, slots


def test_returned_op_without_global_step(g):
    v0, v1 = _vars()
    opt = tm.train.GradientDescentOptimizer(1.0)
    op = opt.minimize(5 * v0 + 3 * v1)
    assert op.type == "NoOp" and op.name == "GradientDescent"
    op2 = opt.minimize(5 * v0, name="step")
    assert op2.name == "step"
    names = [o.name for o in g.get_operations()]
    assert "GradientDescent/update_Variable/ResourceApplyGradientDescent" in names
    assert "GradientDescent/update_Variable_1/ResourceApplyGradientDescent" in names


def test_returned_op_increments_global_step_after_the_updates(g):
    v0, v1 = _vars()
    gs = tm.train.get_or_create_global_step()
    with tm.variable_scope("vs"):
        op = tm.train.AdagradOptimizer(3.0).minimize(5 * v0 + 3 * v1, global_step=gs)
    assert op.type == "AssignAddVariableOp" and op.name == "vs/Adagrad"
    assert op.inputs[0] is gs.handle
    assert [c.name for c in op.control_inputs] == ["vs/Adagrad/update"]
    r0, step = _run([op, op], [v0, gs])
    assert step == 2
    assert r0[0] < 1.0


def test_slots_are_named_as_tensorflow_names_them(g):
    v0, v1 = _vars()
    w = tm.Variable([1.0], name="w")
    loss = tm.reduce_sum(5 * v0 + 3 * v1) + tm.reduce_sum(w)
    ada = tm.train.AdagradOptimizer(1.0)
    ada.minimize(loss)
    assert [v.name for v in ada.variables()] == [
        "Variable/Adagrad:0", "Variable_1/Adagrad:0", "w/Adagrad:0"]
    assert ada.get_slot_names() == ["accumulator"]
    acc = ada.get_slot(v0, "accumulator")
    assert acc.name == "Variable/Adagrad:0" and not acc.trainable
    assert acc in tm.global_variables() and acc not in tm.trainable_variables()
    assert ada.get_slot(v0, "nope") is None
    assert ada.get_slot(tm.Variable(1.0, name="other"), "accumulator") is None

    mom = tm.train.MomentumOptimizer(0.1, 0.9)
    with tm.variable_scope("vs"):
        mom.minimize(loss)
    assert mom.get_slot(w, "momentum").name == "vs/w/Momentum:0"

    adam = tm.train.AdamOptimizer()
    adam.minimize(loss, var_list=[w, v0])
    assert adam.get_slot_names() == ["m", "v"]
    assert [v.name for v in adam.variables()] == [
        "Variable/Adam:0", "Variable/Adam_1:0", "beta1_power:0", "beta2_power:0", "w/Adam:0",
        "w/Adam_1:0"]
    # A second optimizer of the same kind gets its own slots.
    ada2 = tm.train.AdagradOptimizer(1.0)
    ada2.minimize(loss, var_list=[w])
    assert ada2.get_slot(w, "accumulator").name == "w/Adagrad_1:0"


def test_slots_are_created_outside_control_dependencies(g):
    v0, _ = _vars()
    gate = tm.no_op(name="gate")
    with tm.control_dependencies([gate]):
        tm.train.MomentumOptimizer(0.1, 0.9).minimize(tm.reduce_sum(v0))
    slot_ops = [o for o in g.get_operations() if o.name.startswith("Variable/Momentum")]
    assert slot_ops and all(not o.control_inputs for o in slot_ops)


def test_variables_lists_only_the_default_graphs(g):
    v0, _ = _vars()
    ada = tm.train.AdagradOptimizer(1.0)
    ada.minimize(tm.reduce_sum(v0))
    other = tm.Graph()
    with other.as_default():
        assert ada.variables() == []
        w = tm.Variable([1.0])
        ada.minimize(tm.reduce_sum(w))
        assert [v.name for v in ada.variables()] == ["Variable/Adagrad:0"]
        assert ada.variables()[0].graph is other
    assert ada.variables()[0].graph is g


def test_use_locking_reaches_the_update_ops(g):
    v0, _ = _vars()
    tm.train.MomentumOptimizer(0.1, 0.9, use_locking=True).minimize(tm.reduce_sum(v0))
    (apply,) = [o for o in g.get_operations() if o.type == "ResourceApplyMomentum"]
    assert apply.attrs["use_locking"] is True and apply.attrs["use_nesterov"] is False


def test_pairs_with_none_are_skipped(g):
    v0, v1 = _vars()
    op = tm.train.GradientDescentOptimizer(1.0).apply_gradients(
        [(None, v0), (tm.constant([1.0, 1.0]), v1)])
    r0, r1 = _run([op], [v0, v1])
    np.testing.assert_allclose(r0, [1.0, 2.0])
    np.testing.assert_allclose(r1, [2.0, 3.0])


def test_learning_rate_tensor_and_callable(g):
    v0, _ = _vars()
    lr = tm.placeholder(tm.float32, shape=[])
    op = tm.train.GradientDescentOptimizer(lr).minimize(tm.reduce_sum(v0))
    op2 = tm.train.GradientDescentOptimizer(lambda: tm.constant(0.5)).minimize(
        tm.reduce_sum(v0))
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(op, {lr: 2.0})
        sess.run(op2)
        np.testing.assert_allclose(sess.run(v0), [-1.5, -0.5])


# ----------------------------------------------------------------------------------------
# Sparse gradients


@pytest.mark.parametrize("make", [
    lambda: tm.train.GradientDescentOptimizer(0.5),
    lambda: tm.train.MomentumOptimizer(0.5, 0.9),
    lambda: tm.train.AdagradOptimizer(0.5),
    lambda: tm.train.AdamOptimizer(0.5),
], ids=["sgd", "momentum", "adagrad", "adam"])
def test_repeated_indices_equal_their_sum(g, make):
    repeated = tm.Variable([[1.0], [2.0]])
    aggregated = tm.Variable([[1.0], [2.0]])
    grad_repeated = tm.IndexedSlices(tm.constant([0.1, 0.1], shape=[2, 1]), tm.constant([1, 1]),
                                     tm.constant([2, 1]))
    grad_aggregated = tm.IndexedSlices(tm.constant([0.2], shape=[1, 1]), tm.constant([1]),
                                       tm.constant([2, 1]))
    opt_r, opt_a = make(), make()
    update_r = opt_r.apply_gradients([(grad_repeated, repeated)])
    update_a = opt_a.apply_gradients([(grad_aggregated, aggregated)])
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        for _ in range(3):
            sess.run([update_r, update_a])
            np.testing.assert_allclose(*sess.run([repeated, aggregated]), rtol=1e-6)
        assert sess.run(repeated)[0, 0] == 1.0  # row 0 had no gradient


def test_sparse_path_sums_duplicates_before_the_sparse_op(g):
    emb = tm.Variable(np.ones((4, 2), np.float32))
    tm.train.AdagradOptimizer(0.5).minimize(tm.reduce_sum(tm.gather(emb, [3, 1, 3])))
    types = {o.type for o in g.get_operations()}
    assert {"Unique", "UnsortedSegmentSum", "ResourceSparseApplyAdagrad"} <= types


# ----------------------------------------------------------------------------------------
# The global step


def test_global_step_functions(g):
    assert tm.train.get_global_step() is None
    gs = tm.train.get_or_create_global_step()
    assert gs.name == "global_step:0" and gs.dtype == tm.int64 and gs.shape.rank == 0
    assert not gs.trainable
    assert tm.get_collection(tm.GraphKeys.GLOBAL_STEP) == [gs]
    assert gs in tm.global_variables()
    assert tm.train.get_global_step() is gs
    assert tm.train.get_or_create_global_step() is gs
    assert tm.train.get_global_step(g) is gs
    with pytest.raises(ValueError, match='^"global_step" already exists.$'):
        tm.train.create_global_step()
    with tm.Session() as sess:
        sess.run(gs.initializer)
        assert tm.train.global_step(sess, gs) == 0


def test_global_step_found_by_name(g):
    step = tm.constant(np.int64(7), name="global_step")
    assert tm.train.get_global_step() is step


def test_global_step_variable_found_by_name_is_its_resource_handle(g):
    # As TF 2.21 with resource variables: ``tf.Variable(0, name="global_step")`` outside the
    # GLOBAL_STEP collection is found as the tensor "global_step:0", its handle, which is
    # not an integer (examples/dist_mnist.py adds its step to the collection).
    tm.Variable(0, name="global_step", trainable=False)
    with pytest.raises(TypeError,
                       match='^Existing "global_step" does not have integer type: resource'):
        tm.train.get_global_step()


def test_global_step_must_be_an_integer_scalar(g):
    tm.add_to_collection(tm.GraphKeys.GLOBAL_STEP, tm.Variable(1.0, name="gs"))
    with pytest.raises(TypeError, match='"global_step" does not have integer type'):
        tm.train.get_global_step()
    g2 = tm.Graph()
    with g2.as_default():
        tm.add_to_collection(tm.GraphKeys.GLOBAL_STEP, tm.Variable([1, 2], name="gs"))
        with pytest.raises(TypeError, match='"global_step" is not scalar'):
            tm.train.get_global_step()
    with pytest.raises(TypeError, match='must be a Variable or Tensor'):
        tm.train.assert_global_step("gs")


def test_create_global_step_in_another_graph(g):
    other = tm.Graph()
    gs = tm.train.create_global_step(other)
    assert gs.graph is other and tm.train.get_global_step() is None


def test_reexports():
    assert tm.train.global_variables is tm.global_variables
    assert tm.train.trainable_variables is tm.trainable_variables


# ----------------------------------------------------------------------------------------
# Reference variables (use_resource=False)


def test_reference_variables_use_the_ref_ops_and_ref_slots(g):
    w = tm.Variable([1.0, 2.0], name="w", use_resource=False)
    emb = tm.Variable(np.ones((3, 2), np.float32), name="emb", use_resource=False)
    gs = tm.Variable(np.int64(0), name="global_step", trainable=False, use_resource=False)
    loss = tm.reduce_sum(w * w) + tm.reduce_sum(tm.gather(emb, [2, 2]))
    opt = tm.train.AdagradOptimizer(0.5)
    op = opt.minimize(loss, global_step=gs)
    assert op.type == "AssignAdd"  # TensorFlow's op for a reference global step
    types = {o.type for o in g.get_operations()}
    assert {"ApplyAdagrad", "SparseApplyAdagrad"} <= types
    assert not {"ResourceApplyAdagrad", "ResourceSparseApplyAdagrad"} & types
    acc = opt.get_slot(w, "accumulator")
    assert acc.name == "w/Adagrad:0" and acc.op.type == "VariableV2"
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(op)
        np.testing.assert_allclose(sess.run(acc), [0.1 + 4.0, 0.1 + 16.0], rtol=1e-6)
        assert sess.run(gs) == 1
        assert sess.run(emb)[2, 0] < 1.0 and sess.run(emb)[0, 0] == 1.0


def test_adam_with_reference_variables_keeps_its_beta_powers_as_refs(g):
    w = tm.Variable([1.0, 2.0], name="w", use_resource=False)
    opt = tm.train.AdamOptimizer(0.1)
    opt.minimize(tm.reduce_sum(w * w))
    beta1_power = [v for v in opt.variables() if v.name == "beta1_power:0"][0]
    assert beta1_power.op.type == "VariableV2"
