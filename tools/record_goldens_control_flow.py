"""Records TensorFlow's results for loop and cond computations into tests/goldens/control_flow.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_control_flow.py

The graphs are built with ``tf.compat.v1`` in graph mode (control flow v2: If/While ops) and
run in a Session; tests/ops/test_control_flow.py builds the same graphs with tfmini. Keys are
``<case>/<name>``: the fed inputs and the fetched results. Keys ``check/<case>`` hold the
assert_* family's outcomes (tests/ops/check_cases.py, replayed by tests/ops/test_check_ops.py)
as JSON: the build-time error, the run-time Assert message, or the values and returned ops.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_eager_execution()

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "goldens" / "control_flow.npz"
sys.path.insert(0, str(ROOT))

from tests.ops import check_cases  # noqa: E402

RNG = np.random.default_rng(20240612)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    records[key] = np.asarray(value)


def newton_sqrt() -> None:
    """Six Newton steps x <- (x + a / x) / 2 on a float32 vector, ``a`` captured."""
    a_value = np.concatenate([[2.0, 10.0, 0.25, 1e4], RNG.uniform(0.01, 50.0, 8)]).astype(
        np.float32
    )
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None], name="a")
        _, x = tf.while_loop(lambda i, x: i < 6, lambda i, x: (i + 1, (x + a / x) * 0.5),
                             [tf.constant(0), a])
        with tf.Session() as sess:
            put("newton_sqrt/a", a_value)
            put("newton_sqrt/x", sess.run(x, {a: a_value}))


def collatz() -> None:
    """Steps until n == 1, halving or tripling in a cond inside the body (int32)."""
    starts = np.array([1, 6, 7, 27, 97, 871], np.int32)
    with tf.Graph().as_default():
        n0 = tf.placeholder(tf.int32, [], name="n0")

        def body(n, steps):
            n = tf.cond(tf.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1

        n, steps = tf.while_loop(lambda n, steps: tf.not_equal(n, 1), body, [n0, 0])
        with tf.Session() as sess:
            results = [sess.run([n, steps], {n0: s}) for s in starts]
    put("collatz/n0", starts)
    put("collatz/n", np.array([r[0] for r in results], np.int32))
    put("collatz/steps", np.array([r[1] for r in results], np.int32))


def fibonacci_maximum_iterations() -> None:
    """(a, b) <- (b, a + b) while a < 10**6, at most ``limit`` times (fed)."""
    limits = np.array([0, 1, 5, 20, 100], np.int32)
    with tf.Graph().as_default():
        limit = tf.placeholder(tf.int32, [], name="limit")
        a, b = tf.while_loop(lambda a, b: a < 1000000, lambda a, b: (b, a + b),
                             [tf.constant(0), tf.constant(1)], maximum_iterations=limit)
        with tf.Session() as sess:
            results = [sess.run([a, b], {limit: m}) for m in limits]
    put("fibonacci/limit", limits)
    put("fibonacci/a", np.array([r[0] for r in results], np.int32))
    put("fibonacci/b", np.array([r[1] for r in results], np.int32))


def float_accumulation() -> None:
    """0.1 added 1000 times in float32, one rounding per iteration, plus a running product."""
    with tf.Graph().as_default():
        step = tf.constant(0.1, tf.float32)
        _, total, prod = tf.while_loop(
            lambda i, t, p: i < 1000,
            lambda i, t, p: (i + 1, t + step, p * tf.constant(1.001, tf.float32)),
            [0, tf.constant(0.0), tf.constant(1.0)],
        )
        with tf.Session() as sess:
            t, p = sess.run([total, prod])
    put("accumulate/total", t)
    put("accumulate/product", p)


def nested_loops() -> None:
    """sum over i < n of sum over j < i of (i * j + scale); ``scale`` captured two levels out."""
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        scale = tf.placeholder(tf.float32, [], name="scale")

        def outer_body(i, acc):
            def inner_body(j, inner):
                return j + 1, inner + tf.cast(i * j, tf.float32) + scale

            _, inner = tf.while_loop(lambda j, inner: j < i, inner_body, [0, 0.0])
            return i + 1, acc + inner

        _, total = tf.while_loop(lambda i, acc: i < n, outer_body, [0, 0.0])
        cases = [(0, 1.5), (1, 1.5), (4, 0.25), (9, -2.0)]
        with tf.Session() as sess:
            totals = [sess.run(total, {n: c[0], scale: c[1]}) for c in cases]
    put("nested/n", np.array([c[0] for c in cases], np.int32))
    put("nested/scale", np.array([c[1] for c in cases], np.float32))
    put("nested/total", np.array(totals, np.float32))


def _check_outcome(thunk) -> dict:
    """What a check case does: its build error, its run error, or its values and ops."""
    with tf.Graph().as_default():
        try:
            result = thunk()
        except (ValueError, TypeError, tf.errors.OpError) as e:
            text = e.message if isinstance(e, tf.errors.OpError) else str(e)
            return {"build": f"{type(e).__name__}: {text}"}
        items = result if isinstance(result, list) else [result]
        ops = [None if i is None else [i.op.type, i.op.name] if hasattr(i, "op")
               else [i.type, i.name] for i in items]
        with tf.Session() as sess:
            try:
                values = sess.run([i for i in items if i is not None])
            except tf.errors.OpError as e:
                # The kernel's own message: TensorFlow wraps it in node and traceback lines.
                line = next(t for t in e.message.split("\n") if t.startswith("assertion failed"))
                return {"run": f"{type(e).__name__}: {line}", "ops": ops}
    return {"ok": [None if v is None else np.asarray(v).tolist() for v in values], "ops": ops}


def check_ops() -> None:
    """The assert_* family (tests/ops/check_cases.py): outcomes as JSON under ``check/``."""
    for name, thunk in check_cases.cases(tf).items():
        put(f"check/{name}", json.dumps(_check_outcome(thunk)))
    for name, thunk in check_cases.proper_iterable_cases(tf).items():
        try:
            thunk()
            put(f"check/proper_iterable/{name}", "ok")
        except TypeError as e:
            put(f"check/proper_iterable/{name}", f"TypeError: {e}")


def main() -> None:
    newton_sqrt()
    collatz()
    fibonacci_maximum_iterations()
    float_accumulation()
    nested_loops()
    check_ops()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **records)
    print(f"wrote {len(records)} arrays to {OUT}")


if __name__ == "__main__":
    main()
