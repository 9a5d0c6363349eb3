"""Contract sample for tfmini/control_flow_grad.py: WhileGrad (the While gradient's op).

The sample loop is ``while i < 3: i, v = i + 1, v * 2``; its body gradient maps the gradient
of the new ``v`` back to the old one (times 2), so the op outputs ``grad * 8``.
"""

import numpy as np

import tfmini as tm
from tests.contract.samples_control_flow import _function


def _while_grad_sample():
    specs = [(tm.int32, []), (tm.float32, [2])]
    cond_fn = _function("sample_grad_cond", specs, lambda i, v: [tm.raw_ops.Less(x=i, y=3)])
    body_fn = _function("sample_grad_body", specs, lambda i, v: [i + 1, v * 2.0])
    grad_fn = _function("sample_body_grad", specs + [(tm.float32, [2])],
                        lambda i, v, g: [g * 2.0])
    inputs = [[np.int32(0), np.ones(2, np.float32)], [np.ones(2, np.float32)]]
    attrs = {"cond": cond_fn, "body": body_fn, "body_grad": grad_fn, "output_shapes": [[2]]}
    return inputs, attrs


SAMPLES = {"WhileGrad": _while_grad_sample}
