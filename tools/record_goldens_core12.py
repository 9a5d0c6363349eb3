"""Records TensorFlow's answers for issue 12's array, math and linear-algebra breadth into
tests/goldens/core12.npz.

Run with the TensorFlow virtual environment (see tools/README.md)::

    /tmp/tfenv/bin/python tools/record_goldens_core12.py

The cases live in tests/ops/array/layout_cases.py and tests/ops/math/breadth_cases.py, written
once against the TF1 API and replayed on tfmini by tests/ops/array/test_layout.py and
tests/ops/math/test_breadth.py. Keys, each prefixed by the cases' family (``array/``,
``math/``):

* ``value/<case>/<i>``: the i-th fetched array; ``value/<case>/dtypes``: JSON list of dtype
  names.
* ``grad/<case>/<i>``: ``tf.gradients(y, xs)[i]`` (``none`` when TensorFlow gives None).
* ``graph/<case>``: JSON list of ``[name, type]`` of every op a graph case builds.
* ``build_error/<case>``: ``"<ExceptionClass>: <message gist>"`` raised while building.
* ``run_error/<case>``: ``"<OpError class>: <message gist>"`` raised by ``Session.run``.
* ``opdef/<Op>``: JSON of each new op's OpDef (argument names and types, attrs with their
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

from tests.ops.array import layout_cases  # noqa: E402
from tests.ops.math import breadth_cases  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "core12.npz")

OPS = (
    "PadV2 MirrorPad MirrorPadGrad Where ReverseV2 ReverseSequence Roll LowerBound UpperBound "
    "MatrixBandPart MatrixDiagV3 MatrixDiagPartV3 MatrixSetDiagV3 Diag DiagPart "
    "TensorScatterUpdate TensorScatterAdd TensorScatterSub TensorScatterMin TensorScatterMax "
    "ScatterNdNonAliasingAdd UniqueWithCounts ListDiff Bincount DenseBincount "
    "HistogramFixedWidth EnsureShape SpaceToBatchND BatchToSpaceND SpaceToBatch "
    "BatchToSpace SpaceToDepth DepthToSpace BroadcastArgs All Any EuclideanNorm IsFinite IsNan "
    "IsInf Cumsum Cumprod Igamma Igammac IgammaGradA Betainc "
    "CumulativeLogsumexp SegmentSum SegmentMean SegmentMax SegmentMin SegmentProd "
    "UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd Einsum Erf Erfc Lgamma Digamma "
    "Floor Ceil Round Rint Reciprocal Inv Expm1 Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh "
    "Atan2 SquaredDifference Xlogy Xlog1py Xdivy DivNoNan TruncateDiv TruncateMod Zeta "
    "Polygamma BitwiseAnd BitwiseOr BitwiseXor Invert LeftShift RightShift PopulationCount "
    "MatrixInverse MatrixDeterminant LogMatrixDeterminant Cholesky MatrixSolve "
    "MatrixTriangularSolve MatrixSolveLs Svd SelfAdjointEigV2 DynamicPartition DynamicStitch "
    "ShapeN UnravelIndex CheckNumerics Bitcast LinSpace Cross MulNoNan UniqueV2 MatrixDiag "
    "MatrixDiagPart MatrixSetDiag MatrixDiagV2 MatrixDiagPartV2 MatrixSetDiagV2 Reverse "
    "UniqueWithCountsV2 NextAfter Mod ApproximateEqual Snapshot PreventGradient Erfinv Ndtri"
).split()

# DataType enum values tfmini does not have (complex, quantized, bfloat16, uint16/32/64, ...).
_ABSENT_TYPES = {8, 11, 12, 13, 14, 15, 16, 17, 18, 22, 23}


def _gist(message: str) -> str:
    """The part of a TensorFlow error message that names the problem (no node context)."""
    lines = []
    for line in message.split("\n"):
        s = line.strip()
        if (not s or s.startswith(("Graph execution error", "Detected at node", "File ", "[[",
                                   "Node:")) or line.startswith("  ")):
            continue
        lines.append(line)
    text = "\n".join(lines)
    return text.split(" for '{{node")[0].split("\n\t [[")[0].strip()


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
        if which == "s":
            return v.s.decode()
        if which == "shape":
            return "unknown" if v.shape.unknown_rank else [d.size for d in v.shape.dim]
        return getattr(v, which)

    attrs = [
        [a.name, a.type, default(a),
         sorted(tf.as_dtype(t).name for t in a.allowed_values.list.type
                if t not in _ABSENT_TYPES and t < 100),
         a.minimum if a.has_minimum else None]
        for a in od.attr
    ]
    return json.dumps({"inputs": [arg(a) for a in od.input_arg],
                       "outputs": [arg(a) for a in od.output_arg], "attrs": attrs})


def _record_family(prefix: str, cases, out: dict, problems: list) -> None:
    for name, thunk in cases.value_cases(tf).items():
        with tf.Graph().as_default():
            try:
                result = thunk()
                items = result if isinstance(result, list) else [result]
                with tf.Session() as sess:
                    values = sess.run(items)
            except Exception as e:  # noqa: BLE001  (report every broken case at once)
                problems.append(f"{prefix}value case {name} failed: {type(e).__name__}: {e}")
                continue
        for i, v in enumerate(values):
            out[f"{prefix}value/{name}/{i}"] = np.asarray(v)
        out[f"{prefix}value/{name}/dtypes"] = np.array(json.dumps([t.dtype.name for t in items]))
    for name, thunk in cases.grad_cases(tf).items():
        with tf.Graph().as_default():
            try:
                y, xs = thunk()
                grads = tf.gradients(y, xs)
                with tf.Session() as sess:
                    values = sess.run([g for g in grads if g is not None])
            except Exception as e:  # noqa: BLE001
                problems.append(f"{prefix}grad case {name} failed: {type(e).__name__}: {e}")
                continue
        it = iter(values)
        for i, g in enumerate(grads):
            out[f"{prefix}grad/{name}/{i}"] = np.array("none") if g is None else \
                np.asarray(next(it))
    graph_cases = getattr(cases, "graph_cases", lambda tf: {})
    for name, thunk in graph_cases(tf).items():
        with tf.Graph().as_default() as g:
            thunk()
            out[f"{prefix}graph/{name}"] = np.array(json.dumps(
                [[op.name, op.type] for op in g.get_operations()]))
    for name, thunk in cases.build_error_cases(tf).items():
        with tf.Graph().as_default():
            try:
                thunk()
            except (ValueError, TypeError) as e:
                out[f"{prefix}build_error/{name}"] = np.array(
                    f"{type(e).__name__}: {_gist(str(e))}")
            else:
                problems.append(f"{prefix}build_error case {name} built without error")
    for name, thunk in cases.run_error_cases(tf).items():
        with tf.Graph().as_default():
            try:
                result = thunk()
            except Exception as e:  # noqa: BLE001
                problems.append(f"{prefix}run_error case {name} failed to build: {e}")
                continue
            with tf.Session() as sess:
                try:
                    sess.run(result)
                except tf.errors.OpError as e:
                    out[f"{prefix}run_error/{name}"] = np.array(
                        f"{type(e).__name__}: {_gist(e.message)}")
                else:
                    problems.append(f"{prefix}run_error case {name} ran without error")


def record() -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name in OPS:
        out[f"opdef/{name}"] = np.array(_opdef_json(name))
    _record_family("array/", layout_cases, out, problems)
    _record_family("math/", breadth_cases, out, problems)
    if problems:
        raise AssertionError("\n".join(problems))
    return out


def main() -> None:
    out = record()
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
