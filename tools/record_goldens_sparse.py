"""Records TensorFlow's results for complex numbers and bfloat16, string ops and sparse ops
into tests/goldens/sparse_complex.npz, sparse_strings.npz and sparse_ops.npz.

The cases live in tests/ops/math/complex_cases.py, tests/ops/io/string_cases.py and
tests/ops/array/sparse_cases.py, written once against the TF1 API; this script runs them under
``tensorflow.compat.v1`` (graph mode) and the tests replay them on tfmini (through
tests/ops/composite_replay.py). Run with a Python that has TensorFlow::

    /tmp/tfenv/bin/python tools/record_goldens_sparse.py

Keys: ``value/<case>/<fetch>`` (a SparseTensorValue fetch gives ``.../indices``, ``.../values``
and ``.../dense_shape``), ``name/<case>/<fetch>``, ``none/<case>/<fetch>`` (the fetch was None,
e.g. no gradient), ``build_error/<case>`` and
``run_error/<case>`` (the exception class and the line of its message that names the problem).
String tensors are stored as JSON text (see tests/ops/composite_replay.py): no pickles needed.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.ops.array import sparse_cases  # noqa: E402
from tests.ops.composite_replay import encode, gist  # noqa: E402
from tests.ops.io import string_cases  # noqa: E402
from tests.ops.math import complex_cases  # noqa: E402

GOLDENS = os.path.join(ROOT, "tests", "goldens")


def record(cases) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name, thunk in cases.value_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            fetches, feeds = thunk()
            for key in [k for k, f in fetches.items() if f is None]:
                out[f"none/{name}/{key}"] = np.array(True)  # e.g. no gradient: None
                del fetches[key]
            with tf.Session() as sess:
                values = sess.run(fetches, feeds)
        for key, v in values.items():
            fetch = fetches[key]
            if isinstance(v, tf.SparseTensorValue):
                for part in ("indices", "values", "dense_shape"):
                    out[f"value/{name}/{key}/{part}"] = encode(getattr(v, part))
            else:
                out[f"value/{name}/{key}"] = encode(v)
            if hasattr(fetch, "name") and not isinstance(fetch, tf.SparseTensor):
                out[f"name/{name}/{key}"] = np.array(fetch.name)
    for name, thunk in cases.build_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            try:
                thunk()
            except (ValueError, TypeError) as e:
                out[f"build_error/{name}"] = np.array(f"{type(e).__name__}: {gist(str(e))}")
            else:
                problems.append(f"build_error case {name} built without error")
    for name, thunk in cases.run_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            fetch, feeds = thunk()
            with tf.Session() as sess:
                try:
                    sess.run(fetch, feeds)
                except tf.errors.OpError as e:
                    out[f"run_error/{name}"] = np.array(f"{type(e).__name__}: {gist(e.message)}")
                else:
                    problems.append(f"run_error case {name} ran without error")
    if problems:
        raise AssertionError("\n".join(problems))
    return out


def main() -> None:
    only = set(sys.argv[1:])
    for stem, cases in (("sparse_complex", complex_cases), ("sparse_strings", string_cases),
                        ("sparse_ops", sparse_cases)):
        if only and stem not in only:
            continue
        data = record(cases)
        path = os.path.join(GOLDENS, f"{stem}.npz")
        np.savez_compressed(path, **data)
        print(f"wrote {path}: {len(data)} arrays, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
