"""Replays TensorFlow-recorded cases on tfmini (tests/goldens/core12.npz, written by
tools/record_goldens_core12.py from a cases module such as tests/ops/array/layout_cases.py).

Each check builds the case in a fresh graph with ``tfmini`` and compares with what
TensorFlow 2.21 gave: values and dtypes, ``tm.gradients``, build-time error classes and
run-time error classes and messages.
"""

from __future__ import annotations

import json
import re

import numpy as np

import tfmini as tm

RTOL = {"float16": 1e-3, "float32": 2e-5, "float64": 1e-9}


def _close(ours, theirs, what: str) -> None:
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} != TF's {theirs.shape}"
    if theirs.dtype.kind == "f":
        rtol = RTOL.get(theirs.dtype.name, 1e-6)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=what)


def check_value(golden: dict, prefix: str, name: str, thunk) -> None:
    with tm.Graph().as_default():
        result = thunk()
        items = result if isinstance(result, list) else [result]
        with tm.Session() as sess:
            values = sess.run(items)
    dtypes = json.loads(str(golden[f"{prefix}value/{name}/dtypes"]))
    assert [t.dtype.name for t in items] == dtypes, name
    for i, v in enumerate(values):
        _close(v, golden[f"{prefix}value/{name}/{i}"], f"{name} output {i}")


def check_grad(golden: dict, prefix: str, name: str, thunk) -> None:
    with tm.Graph().as_default():
        y, xs = thunk()
        grads = tm.gradients(y, xs)
        with tm.Session() as sess:
            values = sess.run([g for g in grads if g is not None])
    it = iter(values)
    for i, g in enumerate(grads):
        theirs = golden[f"{prefix}grad/{name}/{i}"]
        if theirs.dtype.kind in "SU" and str(theirs) == "none":
            assert g is None, f"{name}: TF gives no gradient for input {i}"
            continue
        assert g is not None, f"{name}: no gradient for input {i}"
        _close(next(it), theirs, f"{name} gradient {i}")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]{4,}", text))


def check_build_error(golden: dict, prefix: str, name: str, thunk,
                      loose: frozenset = frozenset()) -> None:
    recorded = str(golden[f"{prefix}build_error/{name}"])
    cls, _, message = recorded.partition(": ")
    with tm.Graph().as_default():
        try:
            thunk()
        except (ValueError, TypeError) as e:
            assert type(e).__name__ == cls, f"{name}: {type(e).__name__} ({e}), TF: {recorded}"
            if name not in loose:
                _same_gist(str(e), message, name)
        else:
            raise AssertionError(f"{name}: built without error; TF: {recorded}")


def check_run_error(golden: dict, prefix: str, name: str, thunk,
                    loose: frozenset = frozenset()) -> None:
    recorded = str(golden[f"{prefix}run_error/{name}"])
    cls, _, message = recorded.partition(": ")
    with tm.Graph().as_default():
        out = thunk()
        with tm.Session() as sess:
            try:
                sess.run(out)
            except tm.errors.OpError as e:
                assert type(e).__name__ == cls, f"{name}: {type(e).__name__} ({e}); TF: {recorded}"
                if name not in loose:
                    _same_gist(str(e), message, name)
            else:
                raise AssertionError(f"{name}: ran without error; TF: {recorded}")
            # A failed run loses nothing: the session still runs.
            assert sess.run(tm.constant(1.0)) == 1.0


def _same_gist(ours: str, theirs: str, name: str) -> None:
    # The words of TensorFlow's message (not its node decoration) appear in ours.
    missing = _words(theirs) - _words(ours)
    assert not missing, f"{name}: message lacks {sorted(missing)}\nours: {ours}\nTF:   {theirs}"
