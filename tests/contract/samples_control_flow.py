"""Contract samples for ops/control_flow.py: If, StatelessIf, While, StatelessWhile.

Their func attrs are FuncGraphs, built here in the sample's default graph.
"""

import numpy as np

import tfmini as tm
from tfmini.core.function import FuncGraph


def _function(name, arg_specs, body):
    """A FuncGraph of the default graph taking ``arg_specs`` [(dtype, shape)]."""
    graph = tm.get_default_graph()
    fn = FuncGraph(name=name, outer_graph=graph)
    with fn.as_default():
        args = [fn.add_argument(dtype, shape) for dtype, shape in arg_specs]
        outputs = body(*args)
    fn.finalize_function(list(outputs))
    graph._register_function(fn)
    return fn


def _if_sample():
    specs = [(tm.float32, [2, 3]), (tm.int32, [])]
    then_fn = _function("sample_then", specs, lambda x, n: [x + x, n])
    else_fn = _function("sample_else", specs, lambda x, n: [x, n + n])
    inputs = [np.bool_(True), [np.ones((2, 3), np.float32), np.int32(4)]]
    attrs = {"Tout": [tm.float32, tm.int32], "then_branch": then_fn, "else_branch": else_fn,
             "output_shapes": [[2, 3], []]}
    return inputs, attrs


def _while_sample():
    specs = [(tm.int32, []), (tm.float32, [2])]
    cond_fn = _function("sample_cond", specs, lambda i, v: [tm.raw_ops.Less(x=i, y=3)])
    body_fn = _function("sample_body", specs, lambda i, v: [i + 1, v + v])
    inputs = [[np.int32(0), np.ones(2, np.float32)]]
    return inputs, {"cond": cond_fn, "body": body_fn}


SAMPLES = {
    "If": _if_sample,
    "StatelessIf": _if_sample,
    "While": _while_sample,
    "StatelessWhile": _while_sample,
}
