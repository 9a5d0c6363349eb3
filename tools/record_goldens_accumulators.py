"""Records TensorFlow 2.21's conditional accumulator results into tests/goldens/accumulators.npz.

The cases are defined here once, against the module under test (``tensorflow.compat.v1``
when recording, ``tfmini`` when tests/ops/data_flow/test_accumulators.py replays them):
both spell the calls the same way. Each case returns a list of outcomes: fetched values
(an array, or a tuple of arrays for a sparse take) or, for a run that fails,
``"<ErrorClass>: <message>"`` with TensorFlow's kernel message. TensorFlow is imported only
by ``main``.

Run:  /work/tfenv/bin/python tools/record_goldens_accumulators.py
"""

from __future__ import annotations

import os
import sys

import numpy as np

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "accumulators.npz")


def _message(e: Exception) -> str:
    """The kernel's own message: TensorFlow wraps it in "Graph execution error" lines."""
    text = getattr(e, "message", str(e))
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    return lines[0]


def _runner(tf, sess):
    def run(fetch, feed=None):
        try:
            out = sess.run(fetch, feed_dict=feed)
        except tf.errors.OpError as e:
            return f"{type(e).__name__}: {_message(e)}"
        if isinstance(out, tuple | list):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)

    return run


def _dense_rounds(dtype_name: str, reduction: str):
    def case(tf):
        dtype = getattr(tf, dtype_name)
        q = tf.ConditionalAccumulator(dtype, shape=[2], reduction_type=reduction)
        x = tf.placeholder(dtype, [2])
        step = tf.placeholder(tf.int64, [])
        apply = q.apply_grad(x, local_step=step)
        size = q.num_accumulated()
        out = []
        with tf.Session() as sess:
            run = _runner(tf, sess)
            for i in range(7):
                run(apply, {x: np.array([i, 0.5 * i]), step: 0})
            out.append(run(size))
            out.append(run(q.take_grad(3)))
            run(apply, {x: np.array([9.0, 9.0]), step: 0})  # stale
            run(apply, {x: np.array([1.0, 2.0]), step: 1})
            run(apply, {x: np.array([4.0, 8.0]), step: 5})
            out.append(run(size))
            out.append(run(q.take_grad(1)))
            run(q.set_global_step(0))  # lower: allowed
            run(apply, {x: np.array([3.0, 1.0]), step: 0})
            out.append(run(q.take_grad(1)))
        return out

    return case


def _dense_shapes(tf):
    q = tf.ConditionalAccumulator(tf.float32, shape=None)
    p = tf.ConditionalAccumulator(tf.float32, shape=[None, 2])
    x = tf.placeholder(tf.float32)
    step = tf.placeholder(tf.int64, [])
    apply_q = q.apply_grad(x, local_step=step)
    apply_p = p.apply_grad(x)
    size_q, size_p = q.num_accumulated(), p.num_accumulated()
    out = []
    with tf.Session() as sess:
        run = _runner(tf, sess)

        def apply(op, size, feed):
            result = run(op, feed)  # None when it ran: then the count tells what it did
            out.append(result if isinstance(result, str) else run(size))

        apply(apply_q, size_q, {x: np.ones((2, 3), np.float32), step: 0})
        apply(apply_q, size_q, {x: np.ones((3, 2), np.float32), step: 0})
        apply(apply_q, size_q, {x: np.ones((2, 3, 1), np.float32), step: 0})
        out.append(run(q.take_grad(1)))
        apply(apply_q, size_q, {x: np.ones((7, 7), np.float32), step: 0})  # stale, unchecked
        apply(apply_q, size_q, {x: np.arange(3, dtype=np.float32), step: 1})
        out.append(run(q.take_grad(1)))
        apply(apply_p, size_p, {x: np.ones((3, 3), np.float32)})
        apply(apply_p, size_p, {x: np.ones((5, 2), np.float32)})
        out.append(run(q.take_grad(0)))
        out.append(run(q.take_grad(-2)))
    return out


def _sparse_merges(reduction: str, dtype_name: str):
    def case(tf):
        dtype = getattr(tf, dtype_name)
        np_t = np.dtype(dtype.as_numpy_dtype)
        q = tf.SparseConditionalAccumulator(dtype, shape=[None, 2], reduction_type=reduction)
        idx = tf.placeholder(tf.int64, [None])
        val = tf.placeholder(dtype, [None, 2])
        step = tf.placeholder(tf.int64, [])
        apply = q.apply_grad(idx, val, local_step=step)
        take = q.take_grad(1)
        rounds = [
            [[0, 3], [1, 3, 5], [3, 4]],  # ascending: a sorted union, per-row counts
            [[2, 0], [0]],  # unsorted: TensorFlow's merge artefacts
            [[1, 1], [1]],  # repeated indices stay separate rows
            [[], [2]],  # an empty gradient counts
        ]
        out = []
        with tf.Session() as sess:
            run = _runner(tf, sess)
            for r, grads in enumerate(rounds):
                for k, rows in enumerate(grads):
                    values = np.arange(2 * len(rows), dtype=np_t).reshape(-1, 2) + k + 1
                    run(apply, {idx: np.array(rows, np.int64), val: values, step: r})
                out.append(run(q.num_accumulated()))
                out.append(run(take))
        return out

    return case


def _sparse_return_shapes(tf):
    out = []
    for declared, values_shape in (([2, None], (1, 2, 2, 2)), ([None, 2], (1, 2, 2, 3)),
                                   (None, (1, 4)), ([], (1,)), ([3], (2,))):
        q = tf.SparseConditionalAccumulator(tf.float32, shape=declared)
        apply = q.apply_grad([0, 1][:values_shape[0]], np.ones(values_shape, np.float32))
        with tf.Session() as sess:
            run = _runner(tf, sess)
            run(apply)
            out.append(run(q.take_grad(1)))
    return out


def _sparse_validation(tf):
    q = tf.SparseConditionalAccumulator(tf.float32, shape=[2, 2, None])
    ind = tf.placeholder(tf.int64)
    val = tf.placeholder(tf.float32)
    shp = tf.placeholder(tf.int64)
    step = tf.placeholder(tf.int64, [])
    with_shape = q.apply_grad(ind, val, shp, local_step=step)
    no_shape = q.apply_grad(ind, val, local_step=step)
    size = q.num_accumulated()
    calls = [
        ([[0]], (1, 2, 2), [2, 2, 2], 0),
        ([0], (), [2, 2, 2], 0),
        ([0, 1], (1, 2, 2), [2, 2, 2], 0),
        ([0], (1, 2, 2), [2, 2], 0),
        ([0], (1, 2, 2), [3, 2, 2], 0),
        ([0], (1, 2, 2), [2, 3, 2], 0),
        ([2], (1, 2, 2), [2, 2, 2], 0),
        ([0, 7], (2, 2, 2), None, 0),
        ([0], (1, 2), None, 0),
        ([0], (1, 3, 2), None, 0),
        ([0], (1, 2, 2, 3), None, 0),
        ([0], (1, 2, 3, 3), None, 0),
        ([0], (1, 2, 2), None, 0),
        ([-1], (1, 2, 2, 3), [2, 2, 2, 3], 0),
        ([[5]], (), None, -1),  # stale: no check at all
        "take",
        ([0], (1, 2, 2, 3, 1), None, 1),
        ([1], (1, 2, 2), None, 1),
    ]
    out = []
    with tf.Session() as sess:
        run = _runner(tf, sess)
        run(q.set_global_step(0))
        for c in calls:
            if c == "take":
                out.append(run(q.take_grad(1)))
                continue
            indices, values, shape, local = c
            feed = {ind: np.array(indices, np.int64), val: np.ones(values, np.float32),
                    step: local}
            if shape is None:
                result = run(no_shape, feed)
            else:
                feed[shp] = np.array(shape, np.int64)
                result = run(with_shape, feed)
            out.append(result if isinstance(result, str) else run(size))
    return out


def _sparse_half_mean(tf):
    q = tf.SparseConditionalAccumulator(tf.float16, shape=[3, 1])
    applies = [q.apply_grad([v % 2], np.array([[v]], np.float16)) for v in range(9)]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        for a in applies:
            run(a)
        return [run(q.take_grad(9))]


CASES = {
    **{f"dense_{d}_{r}": _dense_rounds(d, r)
       for d in ("float16", "float32", "float64") for r in ("MEAN", "SUM")},
    "dense_shapes": _dense_shapes,
    **{f"sparse_merges_{d}_{r}": _sparse_merges(r, d)
       for d in ("float16", "float32", "float64") for r in ("MEAN", "SUM")},
    "sparse_return_shapes": _sparse_return_shapes,
    "sparse_validation": _sparse_validation,
    "sparse_half_mean": _sparse_half_mean,
}


def flatten(case: str, outcomes: list) -> dict[str, np.ndarray]:
    """The npz entries of one case: ``<case>/<i>`` or ``<case>/<i>/<part>``."""
    entries = {}
    for i, o in enumerate(outcomes):
        if isinstance(o, tuple):
            for k, part in enumerate(o):
                entries[f"{case}/{i}/{k}"] = part
        else:
            entries[f"{case}/{i}"] = np.asarray(o)
    return entries


def main() -> None:
    import tensorflow as tf_root

    tf = tf_root.compat.v1
    tf.disable_eager_execution()
    arrays: dict[str, np.ndarray] = {}
    for name, case in CASES.items():
        with tf.Graph().as_default():
            arrays.update(flatten(name, case(tf)))
    np.savez_compressed(GOLDEN, **arrays)
    print(f"wrote {len(arrays)} arrays for {len(CASES)} cases to {os.path.normpath(GOLDEN)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
