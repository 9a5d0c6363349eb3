"""Contract samples for the functional ops: the TensorArrayV3 family
(tfmini/ops/data_flow/tensor_array_ops.py), Case/StatelessCase and Assert
(tfmini/ops/control_flow.py), PyFunc/PyFuncStateless/EagerPyFunc
(tfmini/ops/data_flow/script_ops.py).

A TensorArray lives for one run, so each sample builds the array (and writes it) with raw ops
in the sample's graph; the op under test runs in the same run. Values are float64 so the
gradient contract's float64 placeholders keep the array's dtype.
"""

import numpy as np

import tfmini as tm
from tests.contract.samples_control_flow import _function
from tfmini.ops.data_flow import script_ops

R = tm.raw_ops
F64 = tm.float64
VALUES = np.arange(6, dtype=np.float64).reshape(3, 2) * 0.5 - 1.0


def _array(size=3, **kw):
    attrs = {"dtype": F64, "element_shape": [2], "identical_element_shapes": True, **kw}
    return R.TensorArrayV3(size=size, **attrs)


def _filled(**kw):
    handle, flow = _array(**kw)
    flow = R.TensorArrayScatterV3(handle=handle, indices=[0, 1, 2], value=VALUES, flow_in=flow)
    return handle, flow


def _read():
    handle, flow = _filled()
    return [handle, 1, flow], {"dtype": F64}


def _write():
    handle, flow = _array()
    return [handle, 2, np.array([0.5, -1.5]), flow], {}


def _gather():
    handle, flow = _filled()
    return [handle, np.array([2, 0], np.int32), flow], {"dtype": F64, "element_shape": [2]}


def _scatter():
    handle, flow = _array()
    return [handle, np.array([2, 0], np.int32), VALUES[:2], flow], {}


def _split():
    # Equal lengths give a known element shape, so the gradient array's unwritten elements
    # read as zeros (with an unknown one TensorFlow's gradient fails the same way tfmini's does).
    handle, flow = _array(element_shape=[1, 2])
    return [handle, VALUES, np.array([1, 1, 1], np.int64), flow], {}


def _concat():
    handle, flow = _filled()
    return [handle, flow], {"dtype": F64, "element_shape_except0": []}


def _size():
    handle, flow = _filled()
    return [handle, flow], {}


def _close():
    handle, _ = _array()
    return [handle], {}


def _grad():
    handle, flow = _filled()
    return [handle, flow], {"source": "gradients"}


def _grad_with_shape():
    handle, flow = _filled()
    return [handle, flow, np.array([4], np.int32)], {"source": "gradients"}


def _case():
    specs = [(tm.float32, [2, 3]), (tm.int32, [])]
    b0 = _function("sample_case_0", specs, lambda x, n: [x + x])
    b1 = _function("sample_case_1", specs, lambda x, n: [x * x])
    b2 = _function("sample_case_2", specs, lambda x, n: [x - 1.0])
    inputs = [np.int32(1), [np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32), np.int32(4)]]
    return inputs, {"Tout": [tm.float32], "branches": [b0, b1, b2], "output_shapes": [[2, 3]]}


def _py_func(op_type):
    def sample():
        token = script_ops.registry.insert(lambda a, b: (a * 2.0, b + 1),
                                           tm.get_default_graph())
        attrs = {"token": token, "Tout": [tm.float32, tm.int32]}
        if op_type == "EagerPyFunc":
            attrs["is_async"] = False
        return [[np.ones((2, 2), np.float32), np.int32(3)]], attrs
    return sample


SAMPLES = {
    "TensorArrayV3": lambda: ([np.int32(3)], {"dtype": tm.float32, "element_shape": [2]}),
    "TensorArrayReadV3": _read,
    "TensorArrayWriteV3": _write,
    "TensorArrayGatherV3": _gather,
    "TensorArrayScatterV3": _scatter,
    "TensorArraySplitV3": _split,
    "TensorArrayConcatV3": _concat,
    "TensorArraySizeV3": _size,
    "TensorArrayCloseV3": _close,
    "TensorArrayGradV3": _grad,
    "TensorArrayGradWithShape": _grad_with_shape,
    "Case": _case,
    "StatelessCase": _case,
    "Assert": lambda: ([np.bool_(True), [np.array([1, 2], np.int32), np.float32(0.5)]],
                       {"summarize": 3}),
    "PyFunc": _py_func("PyFunc"),
    "PyFuncStateless": _py_func("PyFuncStateless"),
    "EagerPyFunc": _py_func("EagerPyFunc"),
}
