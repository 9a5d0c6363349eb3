"""Contract samples for the training ops (tfmini/ops/variables/training_ops.py) and the reference
variable ops (tfmini/ops/variables/ref_variables.py).

Resource updates get ``VarHandleOp`` inputs initialised by setup ``AssignVariableOp``s;
ref updates get ``VariableV2`` inputs initialised by setup ``Assign``s.
"""

import numpy as np

import tfmini as tm

R = tm.raw_ops

_V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
_G = np.full((3, 2), 0.5, np.float32)
_S = np.float32(0.1)


def _res(value, name):
    h = R.VarHandleOp(dtype=tm.as_dtype(value.dtype), shape=value.shape, shared_name=name)
    return h, R.AssignVariableOp(resource=h, value=value)


def _ref(value, name):
    ref = R.VariableV2(dtype=tm.as_dtype(value.dtype), shape=value.shape, name=name)
    return ref, R.Assign(ref=ref, value=value).op


def _apply(n_vars, rest, dtype=np.float32):
    """Samples for ``Apply*`` (ref) and ``ResourceApply*``: ``n_vars`` variables, then
    ``rest`` (the other inputs, cast to ``dtype`` unless integer indices)."""
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


_IDX = np.array([2, 0, 2], np.int32)
_GS = np.full((3, 2), 0.25, np.float32)

_OPS = {
    "ApplyGradientDescent": _apply(1, [_S, _G]),
    "ApplyMomentum": _apply(2, [_S, _G, np.float32(0.9)], np.float64),
    "ApplyAdagrad": _apply(2, [_S, _G]),
    "ApplyAdagradV2": _apply(2, [_S, _S, _G], np.float16),
    "ApplyAdam": _apply(3, [0.9, 0.99, _S, 0.9, 0.999, 1e-7, _G]),
    "SparseApplyAdagrad": _apply(2, [_S, _GS, _IDX]),
    "SparseApplyAdagradV2": _apply(2, [_S, _S, _GS, _IDX.astype(np.int64)], np.float64),
    "SparseApplyMomentum": _apply(2, [_S, _GS, _IDX, 0.9]),
}

SAMPLES = {}
for _name, (_ref_sample, _res_sample) in _OPS.items():
    SAMPLES[_name] = _ref_sample
    SAMPLES["Resource" + _name] = _res_sample


def _with_ref(value, more, attrs=None, initialize=True):
    def sample():
        ref, init = _ref(np.asarray(value), "w")
        return [ref, *more], attrs or {}, [init] if initialize else []

    return sample


SAMPLES.update({
    # The sampled op shares its storage (shared_name) with the one the setup initialises.
    "VariableV2": lambda: ([], {"dtype": tm.float32, "shape": [3, 2], "shared_name": "w"}, [
        R.Assign(ref=R.VariableV2(dtype=tm.float32, shape=[3, 2], shared_name="w"),
                 value=_V).op]),
    "Assign": lambda: ([R.VariableV2(dtype=tm.float32, shape=[3, 2]), _V], {}),
    "AssignAdd": _with_ref(_V, [_G]),
    "AssignSub": _with_ref(np.arange(3, dtype=np.int64), [np.ones(3, np.int64)]),
    "ScatterAdd": _with_ref(_V, [_IDX, _GS]),
    "ScatterSub": _with_ref(_V.astype(np.float64), [_IDX, _GS.astype(np.float64)]),
    "ScatterUpdate": _with_ref(_V, [np.array([1], np.int64), _G[:1]]),
    "IsVariableInitialized": _with_ref(_V, [], {"dtype": tm.float32}, initialize=False),
})
