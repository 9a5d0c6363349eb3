"""TensorArrays, map_fn/scan/foldl/foldr, case/switch_case, py_func and custom_gradient
against TensorFlow 2.21's numbers and errors (tools/record_goldens_functional.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.data_flow import functional_cases as cases

GOLDEN = load_golden("functional")


def _run_case(build):
    g = tm.Graph()
    with g.as_default():
        fetches = build(tm)
        init = fetches.pop("__init__", None)
        with tm.Session() as sess:
            if init is not None:
                sess.run(init)
            return sess.run(fetches)


@pytest.mark.parametrize("name", sorted(cases.VALUE_CASES))
def test_values_and_gradients_match_tensorflow(name):
    values = _run_case(cases.VALUE_CASES[name])
    keys = sorted(k.split("/", 2)[2] for k in GOLDEN if k.startswith(f"value/{name}/"))
    assert sorted(values) == keys
    for key in keys:
        want = GOLDEN[f"value/{name}/{key}"]
        got = np.asarray(values[key])
        assert got.shape == want.shape, key
        if want.dtype.kind in "fc":
            assert got.dtype == want.dtype, key
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=key)
        elif want.dtype.kind in "OSU":
            assert [bytes(v) for v in got.ravel()] == [
                v if isinstance(v, bytes) else str(v).encode() for v in want.ravel()], key
        else:
            assert got.dtype == want.dtype, key
            np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.parametrize("name", sorted(cases.ERROR_CASES))
def test_errors_match_tensorflow(name):
    cls = getattr(tm.errors, str(GOLDEN[f"error/{name}/class"]))
    want = str(GOLDEN[f"error/{name}/message"])
    g = tm.Graph()
    with g.as_default():
        fetch = cases.ERROR_CASES[name](tm)
        with tm.Session() as sess, pytest.raises(tm.errors.OpError) as info:
            sess.run(fetch)
    assert type(info.value) is cls
    assert want in cases.error_message(str(info.value))


def test_tensor_names_match_tensorflow():
    with tm.Graph().as_default():
        names = cases.tensor_names(tm)
    want = {k.split("/", 1)[1]: str(v) for k, v in GOLDEN.items() if k.startswith("name/")}
    assert names == want


def test_the_example_in_docs_functional_runs():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "functional.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", text, re.S)
    exec(compile(block, "docs/functional.md", "exec"), {})


@pytest.mark.parametrize("name", sorted(cases.BUILD_ERROR_CASES))
def test_build_errors_match_tensorflow(name):
    import re

    cls = {"TypeError": TypeError, "ValueError": ValueError}[
        str(GOLDEN[f"build_error/{name}/class"])]
    want = str(GOLDEN[f"build_error/{name}/message"])
    # Up to the first repr of a TensorFlow object (a tensor or dtype prints differently).
    prefix = re.split(r"[<(]", want)[0]
    with tm.Graph().as_default(), pytest.raises(cls) as info:
        cases.BUILD_ERROR_CASES[name](tm)
    assert str(info.value).startswith(prefix)
