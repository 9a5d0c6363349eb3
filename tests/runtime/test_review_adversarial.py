"""Adversarial tests of the runtime: the compiled executor, the dataflow scheduler, Session.

Each test pins a bug found in review (or a behaviour checked against TensorFlow 2.21's
``tf.compat.v1`` while looking for one).
"""

from __future__ import annotations

import tfmini as tm

# -- multi-output ops run for their effects ----------------------------------------------


def test_multi_output_op_as_a_target_runs(graph):
    # The compiled plan deleted "_" after a multi-output op whose outputs nobody reads, though
    # that line never assigned it: UnboundLocalError, reported as UnknownError.
    parts = tm.split(tm.constant([1.0, 2.0, 3.0, 4.0]), 2)
    with tm.Session(graph=graph) as sess:
        assert sess.run(parts[0].op) is None
        assert sess.run([parts[0].op, parts[1]])[1].tolist() == [3.0, 4.0]


def test_multi_output_op_as_a_control_dependency_runs(graph):
    x = tm.placeholder(tm.float32, shape=(4,), name="x")
    uniq = tm.unique(x)
    with tm.control_dependencies([uniq[0].op]):
        out = tm.identity(x * 2.0)
    with tm.Session(graph=graph) as sess:
        assert sess.run(out, {x: [1, 1, 2, 3]}).tolist() == [2.0, 2.0, 4.0, 6.0]
