"""Contract samples for the resource variable ops (tfmini/ops/variables/resource_ops.py).

Ops reading or updating a variable get a ``VarHandleOp`` input and, as setup,
the ``AssignVariableOp`` that initialises it.
"""

import numpy as np

import tfmini as tm

R = tm.raw_ops


def _var(value, name="v"):
    """A handle to a variable holding ``value`` once the returned setup op has run."""
    value = np.asarray(value)
    handle = R.VarHandleOp(dtype=tm.as_dtype(value.dtype), shape=value.shape, shared_name=name)
    return handle, R.AssignVariableOp(resource=handle, value=value)


def _with_var(value, more_inputs, attrs, name="v"):
    def sample():
        handle, init = _var(value, name)
        return [handle, *more_inputs], attrs, [init]

    return sample


_M = np.arange(12, dtype=np.float32).reshape(4, 3)


def _scatter(dtype=np.float32):
    m = _M.astype(dtype) + 1
    return _with_var(m, [np.array([0, 2, 0], np.int32), np.ones((3, 3), dtype)], {})


SAMPLES = {
    "VarHandleOp": lambda: ([], {"dtype": tm.float32, "shape": [2, 3], "shared_name": "v"}),
    "ReadVariableOp": _with_var(_M, [], {"dtype": tm.float32}),
    "AssignVariableOp": lambda: ([_var(_M)[0], np.zeros((4, 3), np.float32)], {}),
    "AssignAddVariableOp": _with_var(_M, [np.ones((4, 3), np.float32)], {}),
    "AssignSubVariableOp": _with_var(np.arange(3, dtype=np.int64), [np.ones(3, np.int64)], {}),
    "VarIsInitializedOp": _with_var(_M, [], {}),
    "DestroyResourceOp": _with_var(_M, [], {"ignore_lookup_error": False}),
    "VariableShape": _with_var(_M, [], {"out_type": tm.int64}),
    "ResourceGather": _with_var(_M, [np.array([[3, 0], [1, 1]], np.int64)],
                                {"dtype": tm.float32}),
    "ResourceScatterAdd": _scatter(),
    "ResourceScatterSub": _scatter(np.int32),
    "ResourceScatterMul": _scatter(np.float64),
    "ResourceScatterDiv": _scatter(),
    "ResourceScatterMin": _scatter(np.int64),
    "ResourceScatterMax": _scatter(np.float16),
    "ResourceScatterUpdate": _with_var(
        np.array(["a", "b", "c"], dtype=object), [np.array([1], np.int32), np.array(["z"], object)],
        {}),
}
