"""Registry-wide contract: every built-in op has a kernel for each device it may run on, and
on sample inputs its kernel's outputs agree with the declared dtypes and the shape function."""

from __future__ import annotations

import importlib
import os
import pkgutil

import numpy as np
import pytest

import tests.contract as contract_pkg
import tfmini as tm
from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.scope import current_scope

PACKAGE_DIR = os.path.dirname(tm.__file__)


def _builtin_ops() -> list[str]:
    return sorted(
        name for name, op_def in registry.registered_ops().items()
        if op_def.defined_at.filename.startswith(PACKAGE_DIR)
    )


def _samples() -> dict:
    samples = {}
    for info in pkgutil.iter_modules(contract_pkg.__path__):
        if info.name.startswith("samples_"):
            module = importlib.import_module(f"tests.contract.{info.name}")
            overlap = set(samples) & set(module.SAMPLES)
            assert not overlap, f"ops sampled twice: {overlap}"
            samples.update(module.SAMPLES)
    return samples


SAMPLES = _samples()
BUILTIN = _builtin_ops()


def test_every_builtin_op_has_a_sample():
    missing = [op for op in BUILTIN if op not in SAMPLES]
    assert not missing, f"ops without a contract sample in tests/contract/: {missing}"


@pytest.mark.parametrize("op_type", BUILTIN)
def test_kernels_exist_for_declared_devices(op_type):
    op_def = registry.get(op_type)
    devices = op_def.only_devices or ("CPU",)
    for device in devices:
        assert op_def.kernel_for(device) is not None, f"{op_type} has no kernel for {device}"


@pytest.mark.parametrize("op_type", [op for op in BUILTIN if op in SAMPLES])
def test_outputs_agree_with_shape_function(op_type):
    g = tm.Graph()
    with g.as_default():
        sample = SAMPLES[op_type]
        feeds = {}
        if sample == "feed":
            out = tm.placeholder(tm.float32, shape=(2, None), name="p")
            op = out.op
            feeds = {out: np.ones((2, 3), np.float32)}
            setup = []
        else:
            built = sample()
            inputs, attrs = built[0], built[1]
            setup = list(built[2]) if len(built) > 2 else []
            op = build_op(current_scope(), op_type, inputs, attrs)
        with tm.Session(graph=g) as sess:
            for s in setup:
                sess.run(s)
            if not op.outputs:
                assert sess.run(op, feed_dict=feeds) is None
                return
            values = sess.run(list(op.outputs), feed_dict=feeds)
    for out, value in zip(op.outputs, values):
        if out.dtype.is_object:
            continue
        arr = np.asarray(value)
        assert arr.dtype == out.dtype.np_dtype, (
            f"{op_type} output {out.value_index}: kernel gave {arr.dtype}, "
            f"declared {out.dtype.name}"
        )
        assert out.shape.is_compatible_with(arr.shape), (
            f"{op_type} output {out.value_index}: kernel gave shape {arr.shape}, "
            f"shape function said {out.shape}"
        )


def test_no_op_is_registered_in_a_gradient_module():
    # DESIGN.md: a family registers its op types in its forward modules; gradient modules
    # (grad.py, *_grad.py) only register gradient functions. "Where is Pad?" has one answer.
    import tfmini

    package = os.path.dirname(tfmini.__file__)
    in_grad_modules = sorted(
        f"{name} ({os.path.relpath(d.defined_at.filename, package)})"
        for name, d in registry.registered_ops().items()
        if d.defined_at.filename.startswith(package)
        and "grad" in os.path.basename(d.defined_at.filename)
    )
    assert not in_grad_modules, in_grad_modules
