"""Contract samples for CountUpTo and ResourceCountUpTo (tfmini/ops/variables/count_up_to.py):
each counts an initialized int64 variable (the setup assigns it)."""

import numpy as np

import tfmini as tm

R = tm.raw_ops


def _ref_counter():
    ref = R.VariableV2(shape=[], dtype=tm.int64, shared_name="counter")
    return [ref], {"limit": 5}, [R.Assign(ref=ref, value=np.int64(2))]


def _resource_counter():
    handle = R.VarHandleOp(dtype=tm.int64, shape=[], shared_name="rcounter")
    return ([handle], {"limit": 5, "T": tm.int64},
            [R.AssignVariableOp(resource=handle, value=np.int64(2))])


SAMPLES = {"CountUpTo": _ref_counter, "ResourceCountUpTo": _resource_counter}
