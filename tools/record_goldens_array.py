"""Records TensorFlow's answers for the array-op cases into tests/goldens/array.npz.

Run with the TensorFlow virtual environment (see tools/README.md)::

    /work/tfenv/bin/python tools/record_goldens_array.py

The cases live in tests/ops/array/array_cases.py, written once against the shared
TF1 API and replayed on tfmini by tests/ops/array/test_array.py. Keys:

* ``value/<case>/<i>``: the i-th fetched array; ``value/<case>/dtype``: its dtype name;
  ``value/<case>/op``: ``"<type> <name>"`` of the op producing the first output.
* ``shape/<case>``: the static shape, -1 for unknown dimensions; a scalar -1 for unknown rank.
* ``build_error/<case>``: ``"<ExceptionClass>: <message gist>"``.
* ``run_error/<case>``: the InvalidArgumentError message gist.
* ``opdef/<Op>``: JSON of the OpDef signature (argument names and types, attrs with their
  types, defaults and allowed dtypes).
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.ops.array import array_cases  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "array.npz")


def _gist(message: str) -> str:
    """The part of a TensorFlow error message that names the problem (no node context)."""
    lines = []
    for line in message.split("\n"):
        s = line.strip()
        if (not s or s.startswith(("Graph execution error", "Detected at node", "File ", "[[",
                                   "Node:"))
                or line.startswith("  ")):
            continue
        lines.append(line)
    text = "\n".join(lines)
    return text.split(" for '{{node")[0].strip()


OPS = (
    "Shape Size Rank Reshape ExpandDims Squeeze Transpose ConcatV2 Pack Unpack Split SplitV "
    "Slice StridedSlice Tile Fill ZerosLike OnesLike Range GatherV2 ScatterNd "
    "UnsortedSegmentSum OneHot BroadcastTo Const Placeholder PlaceholderWithDefault Identity "
    "IdentityN StopGradient NoOp"
).split()


def _opdef_json(name: str) -> str:
    from tensorflow.python.framework import op_def_registry

    od = op_def_registry.get(name)

    def arg(a):
        t = a.type_attr or a.type_list_attr or tf.as_dtype(a.type).name
        return [a.name, t, a.number_attr]

    def default(a):
        if not a.HasField("default_value"):
            return None
        v = a.default_value
        which = v.WhichOneof("value")
        if which == "type":
            return tf.as_dtype(v.type).name
        if which == "list":
            return list(v.list.i)
        if which == "s":
            return v.s.decode()
        if which == "shape":
            return "unknown" if v.shape.unknown_rank else [d.size for d in v.shape.dim]
        return getattr(v, which)

    attrs = [
        [a.name, a.type, default(a),
         sorted(tf.as_dtype(t).name for t in a.allowed_values.list.type
                if t not in (14, 17, 22, 23, 8, 18, 11, 12, 13, 15, 16) and t < 100),
         a.minimum if a.has_minimum else None]
        for a in od.attr
    ]
    return json.dumps({"inputs": [arg(a) for a in od.input_arg],
                       "outputs": [arg(a) for a in od.output_arg], "attrs": attrs})


def record() -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name in OPS:
        out[f"opdef/{name}"] = np.array(_opdef_json(name))
    for name, thunk in array_cases.value_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            try:
                result = thunk()
                items = result if isinstance(result, list) else [result]
                with tf.Session() as sess:
                    values = sess.run(items)
            except Exception as e:
                raise AssertionError(f"value case {name} failed: {e}") from e
        for i, v in enumerate(values):
            v = np.asarray(v)
            # String tensors come back as object arrays, which np.load refuses without pickle.
            out[f"value/{name}/{i}"] = v.astype(bytes) if v.dtype == object else v
        out[f"value/{name}/dtype"] = np.array(items[0].dtype.name)
        out[f"value/{name}/op"] = np.array(f"{items[0].op.type} {items[0].op.name}")
    for name, thunk in array_cases.shape_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            shape = thunk().shape
        if shape.rank is None:
            out[f"shape/{name}"] = np.array(-1)
        else:
            out[f"shape/{name}"] = np.array([-1 if d is None else d for d in shape.as_list()],
                                            dtype=np.int64)
    for name, thunk in array_cases.build_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            try:
                thunk()
            except (ValueError, TypeError) as e:
                out[f"build_error/{name}"] = np.array(f"{type(e).__name__}: {_gist(str(e))}")
            else:
                problems.append(f"build_error case {name} built without error")
    for name, thunk in array_cases.run_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            result = thunk()
            with tf.Session() as sess:
                try:
                    sess.run(result)
                except tf.errors.InvalidArgumentError as e:
                    out[f"run_error/{name}"] = np.array(_gist(e.message))
                else:
                    problems.append(f"run_error case {name} ran without error")
    if problems:
        raise AssertionError("\n".join(problems))
    return out


def main() -> None:
    out = record()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
