"""Replays the golden cases of tools/record_goldens_sparse.py (complex_cases, string_cases,
sparse_cases) on tfmini against TensorFlow's recorded results, and the encoding the recorder
uses for them.

Beside tests/ops/golden_replay.py (the array/math breadth cases), this one handles what those
cases do not have: SparseTensorValue fetches (three parts), string tensors (stored as JSON text
so the .npz needs no pickle), bfloat16 arrays and fetches that are None in TensorFlow.

A cases module has ``value_cases(tf)``, ``build_error_cases(tf)`` and ``run_error_cases(tf)``
(see tests/ops/math/complex_cases.py); tools/record_goldens_sparse.py records them under
TensorFlow. This module never imports TensorFlow.
"""

from __future__ import annotations

import json

import ml_dtypes  # noqa: F401  (registers NumPy's "bfloat16" dtype name)
import numpy as np


def encode(value) -> np.ndarray:
    """An array ``np.savez`` stores without pickling: string tensors become JSON text.

    Strings are stored as latin-1 text of their bytes, so any byte string round-trips.
    """
    arr = np.asarray(value)
    if arr.dtype.name == "bfloat16":  # an extension type that npz would store as raw bytes
        return np.array(json.dumps({"bfloat16": arr.astype(np.float32).ravel().tolist(),
                                    "shape": list(arr.shape)}))
    if arr.dtype.kind in "OSU":
        items = [v if isinstance(v, bytes) else str(v).encode() for v in arr.ravel().tolist()]
        return np.array(json.dumps({"strings": [b.decode("latin-1") for b in items],
                                    "shape": list(arr.shape)}))
    return arr


def decode(stored: np.ndarray) -> np.ndarray:
    """The inverse of :func:`encode`: string tensors come back as object arrays of bytes."""
    if stored.dtype.kind == "U" and stored.ndim == 0 and str(stored).startswith('{"bfloat16"'):
        d = json.loads(str(stored))
        return np.array(d["bfloat16"], np.float32).astype("bfloat16").reshape(d["shape"])
    if stored.dtype.kind == "U" and stored.ndim == 0 and str(stored).startswith('{"strings"'):
        d = json.loads(str(stored))
        out = np.empty(len(d["strings"]), dtype=object)
        out[:] = [s.encode("latin-1") for s in d["strings"]]
        return out.reshape(d["shape"])
    return stored


def gist(message: str) -> str:
    """The line of a TensorFlow error message that names the problem, without node context."""
    for line in message.split("\n"):
        s = line.strip()
        if (not s or line.startswith("  ") or s.startswith((
                "Graph execution error", "Detected at node", "File ", "[[", "Node:"))):
            continue
        return s.split(" for '{{node")[0].strip()
    return message.strip()


def value_keys(golden: dict, case: str) -> list[str]:
    """The fetch keys recorded for ``case`` (a sparse fetch's three parts count as one)."""
    prefix = f"value/{case}/"
    keys = set()
    for k in golden:
        if k.startswith(prefix):
            rest = k[len(prefix):]
            for part in ("/indices", "/values", "/dense_shape"):
                if rest.endswith(part) and f"{prefix}{rest[:-len(part)]}/indices" in golden:
                    rest = rest[:-len(part)]
            keys.add(rest)
    return sorted(keys)


def split_none(golden: dict, case: str, fetches: dict) -> dict:
    """``fetches`` without its None entries, checking they are the ones TensorFlow had."""
    nones = sorted(k for k, f in fetches.items() if f is None)
    prefix = f"none/{case}/"
    assert nones == sorted(k[len(prefix):] for k in golden if k.startswith(prefix)), (case, nones)
    return {k: f for k, f in fetches.items() if f is not None}


def assert_matches(tm, golden: dict, case: str, fetches: dict, values: dict,
                   rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Every recorded value of ``case`` equals tfmini's (dtype and shape too).

    ``fetches`` must already be without the None entries (see :func:`split_none`).
    """
    keys = value_keys(golden, case)
    assert sorted(fetches) == keys, (case, sorted(fetches), keys)
    for key in keys:
        v = values[key]
        if isinstance(v, tm.SparseTensorValue):
            parts = {p: getattr(v, p) for p in ("indices", "values", "dense_shape")}
        else:
            parts = {"": v}
        for p, got in parts.items():
            want = decode(golden[f"value/{case}/{key}" + (f"/{p}" if p else "")])
            got = np.asarray(got, dtype=object if isinstance(got, (bytes, str)) else None)
            where = f"{case}/{key}{'/' + p if p else ''}"
            assert got.shape == want.shape, (where, got.shape, want.shape)
            if want.dtype == object:
                assert got.dtype == object, where
                assert [bytes(x) if not isinstance(x, str) else x.encode()
                        for x in got.ravel()] == list(want.ravel()), where
                continue
            assert got.dtype == want.dtype, (where, got.dtype, want.dtype)
            if want.dtype.kind in "biu":
                np.testing.assert_array_equal(got, want, err_msg=where)
            else:
                tol = 1e-2 if want.dtype.name == "bfloat16" else rtol
                np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128),
                                           rtol=tol, atol=atol, err_msg=where)
        name_key = f"name/{case}/{key}"
        # Forward tensors are named as TensorFlow names them; gradient graphs' inner names may
        # differ (tfmini builds some fused TensorFlow kernels from primitive ops).
        if name_key in golden and hasattr(fetches[key], "name") and not key.startswith("grad"):
            assert fetches[key].name == str(golden[name_key]), (where, fetches[key].name)


def replay_values(tm, golden: dict, case: str, build) -> None:
    """Builds ``case`` (``build() -> (fetches, feeds)``), runs it and compares with TF."""
    with tm.Graph().as_default():
        fetches, feeds = build()
        fetches = split_none(golden, case, fetches)
        with tm.Session() as sess:
            values = sess.run(fetches, feeds)
    assert_matches(tm, golden, case, fetches, values)


def replay_build_error(tm, golden: dict, case: str, build) -> None:
    """Building ``case`` raises the Python exception class TF raised."""
    import pytest

    cls = str(golden[f"build_error/{case}"]).partition(": ")[0]
    with tm.Graph().as_default(), pytest.raises((TypeError, ValueError)) as info:
        build()
    assert type(info.value).__name__ == cls, (str(info.value), str(golden[f"build_error/{case}"]))


def replay_run_error(tm, golden: dict, case: str, build, re2_message: bool = False) -> None:
    """Running ``case`` raises TF's tm.errors class with TF's message; the session stays
    usable. With ``re2_message`` only the part before ", error: " must agree (RE2's own parse
    errors are worded differently by Python's re)."""
    import pytest

    want = str(golden[f"run_error/{case}"])
    cls, _, message = want.partition(": ")
    with tm.Graph().as_default():
        fetch, feeds = build()
        with tm.Session() as sess:
            with pytest.raises(getattr(tm.errors, cls)) as info:
                sess.run(fetch, feeds)
            assert sess.run(tm.constant(2) + 1) == 3  # the session stays usable
    if re2_message:
        message = message.split(", error: ")[0]
    assert message in str(info.value), (str(info.value), want)
