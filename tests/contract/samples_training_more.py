"""Contract samples for the training ops of tfmini/ops/variables/training_ops_more.py
(RMSProp, Adadelta, FTRL, proximal, AdagradDA, AdaMax, PowerSign, AddSign), ref and resource.

Resource updates get ``VarHandleOp`` inputs initialised by setup ``AssignVariableOp``s; ref
updates get ``VariableV2`` inputs initialised by setup ``Assign``s. Hyper-parameters are in
the ranges the sparse kernels accept (positive rates, non-positive ``lr_power``).
"""

import numpy as np

import tfmini as tm

R = tm.raw_ops

_V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
_G = np.full((3, 2), 0.5, np.float32)
_GS = np.full((3, 2), 0.25, np.float32)
_IDX = np.array([2, 0, 2], np.int32)
_STEP = np.int64(3)


def _res(value, name):
    h = R.VarHandleOp(dtype=tm.as_dtype(value.dtype), shape=value.shape, shared_name=name)
    return h, R.AssignVariableOp(resource=h, value=value)


def _ref(value, name):
    ref = R.VariableV2(dtype=tm.as_dtype(value.dtype), shape=value.shape, name=name)
    return ref, R.Assign(ref=ref, value=value).op


def _apply(n_vars, rest, dtype=np.float32):
    """Samples for the ref op and the resource op: ``n_vars`` variables (positive values),
    then ``rest`` (cast to ``dtype`` unless integer)."""
    def cast(x):
        x = np.asarray(x)
        return x if x.dtype.kind == "i" else x.astype(dtype)

    def make(kind):
        def sample():
            values = [_V.astype(dtype) + 0.5 * k for k in range(n_vars)]
            made = [kind(v, f"v{k}") for k, v in enumerate(values)]
            return [m[0] for m in made] + [cast(x) for x in rest], {}, [m[1] for m in made]

        return sample

    return make(_ref), make(_res)


_OPS = {
    "ApplyRMSProp": _apply(3, [0.1, 0.9, 0.5, 1e-3, _G]),
    "ApplyCenteredRMSProp": _apply(4, [0.1, 0.9, 0.5, 1e-3, _G], np.float64),
    "ApplyAdadelta": _apply(3, [1.0, 0.9, 1e-3, _G]),
    "ApplyFtrl": _apply(3, [_G, 0.1, 0.01, 0.02, -0.5]),
    "ApplyFtrlV2": _apply(3, [_G, 0.1, 0.01, 0.02, 0.03, -0.25], np.float64),
    "ApplyProximalGradientDescent": _apply(1, [0.1, 0.01, 0.02, _G]),
    "ApplyProximalAdagrad": _apply(2, [0.1, 0.01, 0.02, _G]),
    "ApplyAdagradDA": _apply(3, [_G, 0.1, 0.01, 0.02, _STEP]),
    "ApplyAdaMax": _apply(3, [0.9, 0.1, 0.9, 0.99, 1e-7, _G]),
    "ApplyPowerSign": _apply(2, [0.1, 1.0, 0.9, 0.9, _G]),
    "ApplyAddSign": _apply(2, [0.1, 1.0, 0.9, 0.9, _G], np.float16),
    "SparseApplyRMSProp": _apply(3, [0.1, 0.9, 0.5, 1e-3, _GS, _IDX]),
    "SparseApplyCenteredRMSProp": _apply(4, [0.1, 0.9, 0.5, 1e-3, _GS, _IDX.astype(np.int64)]),
    "SparseApplyAdadelta": _apply(3, [1.0, 0.9, 1e-3, _GS, _IDX], np.float64),
    "SparseApplyFtrl": _apply(3, [_GS, _IDX, 0.1, 0.01, 0.02, -0.5]),
    "SparseApplyFtrlV2": _apply(3, [_GS, _IDX, 0.1, 0.01, 0.02, 0.03, -0.5]),
    "SparseApplyProximalGradientDescent": _apply(1, [0.1, 0.01, 0.02, _GS, _IDX]),
    "SparseApplyProximalAdagrad": _apply(2, [0.1, 0.01, 0.02, _GS, _IDX]),
    "SparseApplyAdagradDA": _apply(3, [_GS, _IDX, 0.1, 0.01, 0.02, _STEP]),
}

SAMPLES = {}
for _name, (_ref_sample, _res_sample) in _OPS.items():
    SAMPLES[_name] = _ref_sample
    SAMPLES["Resource" + _name] = _res_sample
