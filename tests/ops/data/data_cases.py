"""tf.data cases shared by the tests (run under tfmini) and tools/record_goldens_data.py (run
under TensorFlow 2.21's ``tf.compat.v1`` in graph mode).

Each case is a function of the module ``tf`` and the golden directory; it builds a graph,
reads the elements with an iterator in a session, and returns a dict of plain values (the
elements, the static shapes of ``get_next``, error classes and messages). Most follow
TensorFlow's own tests under ``tensorflow/python/data/kernel_tests/`` (range_test.py,
batch_test.py, padded_batch_test.py, shuffle_test.py, map_test.py, interleave_test.py, ...).

This module imports neither TensorFlow nor tfmini.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "goldens"
TF_RECORD_FILE = "data_tf.tfrecord"  # written by TensorFlow: RECORDS below
RECORDS = [b"", b"a", b"hello tfrecord", bytes(range(256)), b"x" * 1000]
TEXT_LINES = "first line\nsecond\r\n\nlast without newline"


def plain(value):
    """Numbers, bytes and structures as JSON-ready values."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, str):
        return value
    if value is None:
        return None
    arr = np.asarray(value)
    if arr.dtype == object:
        return plain(arr.tolist())
    if arr.dtype == np.bool_:
        return arr.tolist()
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64).tolist()
    return arr.astype(np.float64).tolist()


def shapes(tf, structure):
    """Static shapes of a structure of tensors (None dims as -1, unknown rank as None)."""
    out = []
    for t in _flat(structure):
        dims = t.shape.as_list() if t.shape.ndims is not None else None
        out.append(None if dims is None else [-1 if d is None else d for d in dims])
    return out


def _flat(x):
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flat(x[k])]
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _flat(item)]
    return [x]


def drain(tf, sess, t, limit=200):
    """The elements ``t`` gives until OutOfRangeError, and that error's message."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(t))
        except tf.errors.OutOfRangeError as e:
            return out, core_message(e)
    return out, "limit"


def core_message(e) -> str:
    """The message without TensorFlow's graph context lines (or tfmini's op prefix)."""
    text = getattr(e, "message", None) or str(e)
    # tfmini: "<Op> '<name>' on /device:CPU:0: <message> [inputs: ...] (defined at f.py:1)"
    m = re.match(r"^\w+ '[^']*' on /device:\w+:\d+: (.*?)(?: \[inputs: .*\])?"
                 r"(?: \(defined at [^)]*\))?$", text, re.S)
    if m:
        text = m.group(1)
    lines = []
    for line in text.splitlines():
        s = line.strip()
        if (not s or s.startswith(("Graph execution error", "Detected at node", "File ",
                                   "Node:", "[[", "Original stack trace"))
                or line.startswith("    ")):
            continue
        lines.append(s)
    return "\n".join(lines)


def error(fn):
    """The class name and core message of what ``fn()`` raises."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (any class is recorded)
        return [type(e).__name__, core_message(e)]
    return ["none", ""]


def _one_shot(tf, ds):
    g = tf.get_default_graph()
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session(graph=g) as sess:
        values, end = drain(tf, sess, nxt)
    return {"values": values, "shapes": shapes(tf, nxt), "end": end}


def _graph(tf, seed=None):
    g = tf.Graph()
    if seed is not None:
        with g.as_default():
            tf.set_random_seed(seed)
    return g


def _run(tf, build, seed=None):
    with _graph(tf, seed).as_default():
        return _one_shot(tf, build())


# ---------------------------------------------------------------------------------------------
# Sources

def range_forms(tf, d):
    D = tf.data.Dataset
    return {
        "stop": _run(tf, lambda: D.range(5)),
        "start_stop_step": _run(tf, lambda: D.range(2, 10, 3)),
        "negative_step": _run(tf, lambda: D.range(10, 0, -3)),
        "empty": _run(tf, lambda: D.range(0)),
        "int32": _run(tf, lambda: D.range(3, output_type=tf.int32)),
    }


def from_tensors_nested(tf, d):
    return _run(tf, lambda: tf.data.Dataset.from_tensors(
        (np.array([1, 2, 3], np.int32), {"b": np.float32(2.5), "a": [1.0, 2.0]})))


def from_tensor_slices_nested(tf, d):
    return _run(tf, lambda: tf.data.Dataset.from_tensor_slices(
        ({"x": np.arange(6, dtype=np.float32).reshape(3, 2), "y": np.array([7, 8, 9])},
         np.array([b"a", b"b", b"c"]))))


def zip_concatenate(tf, d):
    D = tf.data.Dataset
    return {
        "zip": _run(tf, lambda: D.zip((D.range(4), D.range(10, 13), D.from_tensor_slices(
            np.array([1.5, 2.5, 3.5, 4.5], np.float32))))),
        "zip_dict": _run(tf, lambda: D.zip({"a": D.range(2), "b": D.range(5, 9)})),
        "concatenate": _run(tf, lambda: D.from_tensor_slices(np.arange(3).reshape(3, 1))
                            .concatenate(D.from_tensor_slices(np.arange(4).reshape(2, 2)))),
    }


# ---------------------------------------------------------------------------------------------
# Batching

def batch_forms(tf, d):
    D = tf.data.Dataset
    return {
        "batch2": _run(tf, lambda: D.range(5).batch(2)),
        "drop_remainder": _run(tf, lambda: D.range(5).batch(2, drop_remainder=True)),
        "tuple": _run(tf, lambda: D.zip((D.range(5), D.range(5).map(
            lambda x: tf.cast(x, tf.float32) * 0.5))).batch(3)),
        "batch_bigger": _run(tf, lambda: D.range(3).batch(10)),
        "unbatch": _run(tf, lambda: D.range(7).batch(3).unbatch()),
        "unbatch_tuple": _run(tf, lambda: D.from_tensors(
            (np.arange(6).reshape(3, 2), np.array([1.0, 2.0, 3.0], np.float32))).unbatch()),
    }


def padded_batch_forms(tf, d):
    D = tf.data.Dataset

    def ragged():
        return D.range(1, 6).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))

    return {
        "longest": _run(tf, lambda: ragged().padded_batch(2, padded_shapes=[-1])),
        "fixed": _run(tf, lambda: ragged().padded_batch(2, padded_shapes=[6],
                                                        padding_values=np.int64(-1))),
        "drop": _run(tf, lambda: ragged().padded_batch(2, padded_shapes=[-1],
                                                       drop_remainder=True)),
        "scalars": _run(tf, lambda: D.range(5).padded_batch(2, padded_shapes=[])),
    }


# ---------------------------------------------------------------------------------------------
# Functions

def map_forms(tf, d):
    D = tf.data.Dataset

    def captured():
        w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        return D.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2)).map(
            lambda x: tf.reduce_sum(tf.matmul(tf.expand_dims(x, 0), w)))

    return {
        "square": _run(tf, lambda: D.range(5).map(lambda x: x * x)),
        "tuple_args": _run(tf, lambda: D.zip((D.range(3), D.range(3, 6))).map(
            lambda a, b: (a + b, a - b))),
        "dict_out": _run(tf, lambda: D.range(3).map(
            lambda x: {"double": x * 2, "float": tf.cast(x, tf.float32) / 4.0})),
        "dict_in": _run(tf, lambda: D.from_tensor_slices({"a": [1, 2], "b": [10, 20]}).map(
            lambda e: e["a"] * e["b"])),
        "parallel": _run(tf, lambda: D.range(10).map(lambda x: x + 100,
                                                     num_parallel_calls=4)),
        "captured_const": _run(tf, captured),
    }


def flat_map_interleave_filter(tf, d):
    D = tf.data.Dataset
    return {
        "flat_map": _run(tf, lambda: D.range(4).flat_map(
            lambda x: D.from_tensors(x).repeat(x))),
        "interleave_c2_b1": _run(tf, lambda: D.range(1, 5).interleave(
            lambda x: D.from_tensors(x).repeat(x), cycle_length=2, block_length=1)),
        "interleave_c3_b2": _run(tf, lambda: D.range(1, 6).interleave(
            lambda x: D.range(x * 10, x * 10 + x), cycle_length=3, block_length=2)),
        "filter": _run(tf, lambda: D.range(10).filter(lambda x: tf.equal(x % 3, 0))),
        "filter_tuple": _run(tf, lambda: D.zip((D.range(6), D.range(6, 12))).filter(
            lambda a, b: a + b > 8)),
    }


# ---------------------------------------------------------------------------------------------
# Shuffle (the vectors of TensorFlow's shuffle_dataset_op.cc with the Philox stream)

def shuffle_forms(tf, d):
    D = tf.data.Dataset
    return {
        "b4_s7": _run(tf, lambda: D.range(10).shuffle(4, seed=7)),
        "b4_s7_fixed": _run(tf, lambda: D.range(10).shuffle(
            4, seed=7, reshuffle_each_iteration=False)),
        "graph1_b100_s42": _run(tf, lambda: D.range(20).shuffle(100, seed=42), seed=1),
        "shuffle_repeat": _run(tf, lambda: D.range(6).shuffle(3, seed=5).repeat(3)),
        "shuffle_repeat_fixed": _run(tf, lambda: D.range(6).shuffle(
            3, seed=5, reshuffle_each_iteration=False).repeat(2)),
        "repeat_shuffle": _run(tf, lambda: D.range(6).repeat(2).shuffle(3, seed=5)),
        "graph_seed_only": _run(tf, lambda: D.range(8).shuffle(5), seed=123),
        "graph_seed_two_ops": _run(tf, lambda: D.zip((D.range(8).shuffle(8),
                                                      D.range(8).shuffle(8))), seed=9),
        "zero_zero": _run(tf, lambda: D.range(8).shuffle(4, seed=0), seed=0),
        "batch_after": _run(tf, lambda: D.range(10).shuffle(10, seed=3).batch(4)),
    }


def shuffle_reinit(tf, d):
    """Re-initialising, a second session and a second iterator repeat epoch 0's order."""
    with _graph(tf).as_default() as g:
        ds = tf.data.Dataset.range(8).shuffle(8, seed=11).repeat(2)
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        it2 = tf.data.make_initializable_iterator(ds)
        nxt2 = it2.get_next()
        out = {}
        with tf.Session(graph=g) as sess:
            sess.run(it.initializer)
            out["first"] = [sess.run(nxt) for _ in range(12)]
            sess.run(it.initializer)
            out["reinit"] = [sess.run(nxt) for _ in range(8)]
            sess.run(it2.initializer)
            out["second_iterator"] = [sess.run(nxt2) for _ in range(8)]
        with tf.Session(graph=g) as sess:
            sess.run(it.initializer)
            out["new_session"] = [sess.run(nxt) for _ in range(8)]
    return out


# ---------------------------------------------------------------------------------------------
# repeat, take, skip, prefetch, cache, window, apply

def repeat_take_skip(tf, d):
    D = tf.data.Dataset
    return {
        "repeat3": _run(tf, lambda: D.range(3).repeat(3)),
        "repeat_take": _run(tf, lambda: D.range(3).repeat().take(7)),
        "take_more": _run(tf, lambda: D.range(3).take(10)),
        "take_all": _run(tf, lambda: D.range(3).take(-1)),
        "skip": _run(tf, lambda: D.range(6).skip(4)),
        "skip_all": _run(tf, lambda: D.range(6).skip(-1)),
        "skip_take": _run(tf, lambda: D.range(10).skip(2).take(3)),
        "prefetch": _run(tf, lambda: D.range(4).map(lambda x: x * 3).prefetch(2)),
        "cache_shuffle": _run(tf, lambda: D.range(6).shuffle(6, seed=2).cache().repeat(2)),
        "no_cache_shuffle": _run(tf, lambda: D.range(6).shuffle(6, seed=2).repeat(2)),
        "apply": _run(tf, lambda: D.range(6).apply(lambda ds: ds.skip(1).batch(2))),
    }


def window_forms(tf, d):
    D = tf.data.Dataset
    return {
        "size3": _run(tf, lambda: D.range(7).window(3).flat_map(lambda w: w.batch(3))),
        "shift1_drop": _run(tf, lambda: D.range(6).window(3, shift=1, drop_remainder=True)
                            .flat_map(lambda w: w.batch(3))),
        "stride2": _run(tf, lambda: D.range(10).window(3, shift=2, stride=2)
                        .flat_map(lambda w: w.batch(3))),
    }


def from_generator_forms(tf, d):
    D = tf.data.Dataset

    def gen():
        for i in range(4):
            yield i, [float(i)] * i

    return {
        "scalars": _run(tf, lambda: D.from_generator(lambda: iter([3, 1, 4]), tf.int64,
                                                     tf.TensorShape([]))),
        "tuple": _run(tf, lambda: D.from_generator(gen, (tf.int32, tf.float32),
                                                   (tf.TensorShape([]),
                                                    tf.TensorShape([None])))),
        "map_after": _run(tf, lambda: D.from_generator(lambda: iter(range(5)), tf.int64)
                          .map(lambda x: x * 10)),
    }


# ---------------------------------------------------------------------------------------------
# Iterators

def iterator_forms(tf, d):
    out = {}
    with _graph(tf).as_default() as g:
        D = tf.data.Dataset
        it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
        init_a = it.make_initializer(D.range(3))
        init_b = it.make_initializer(D.range(10, 12))
        nxt = it.get_next()
        out["from_structure_shapes"] = shapes(tf, nxt)
        with tf.Session(graph=g) as sess:
            out["before_init"] = error(lambda: sess.run(nxt))
            sess.run(init_a)
            out["a"] = drain(tf, sess, nxt)
            out["after_end"] = error(lambda: sess.run(nxt))
            sess.run(init_b)
            out["b"] = drain(tf, sess, nxt)
            sess.run(init_a)
            out["a_again"] = [sess.run(nxt)]
        out["wrong_types"] = error(lambda: it.make_initializer(D.range(3).map(
            lambda x: tf.cast(x, tf.float32))))
        out["wrong_structure"] = error(lambda: it.make_initializer(D.zip(
            (D.range(3), D.range(3)))))
        ds = D.range(4)
        one = ds.make_one_shot_iterator().get_next()
        initable = ds.make_initializable_iterator()
        with tf.Session(graph=g) as sess:
            out["one_shot"] = drain(tf, sess, one)
            out["one_shot_again"] = error(lambda: sess.run(one))
            out["initializable_before"] = error(lambda: sess.run(initable.get_next()))
        with tf.Session(graph=g) as sess:
            out["one_shot_new_session"] = [sess.run(one)]
        out["one_shot_initializer"] = error(lambda: ds.make_one_shot_iterator().initializer)
        out["op_types"] = sorted({op.type for op in g.get_operations()
                                  if "Iterator" in op.type or op.type == "MakeIterator"})
    return out


def graph_op_types(tf, d):
    """The op types graph mode builds for a typical pipeline, in creation order."""
    with _graph(tf).as_default() as g:
        D = tf.data.Dataset
        ds = (D.from_tensor_slices((np.arange(8, dtype=np.float32), np.arange(8)))
              .map(lambda a, b: (a * 2, b)).shuffle(4, seed=1).batch(2).repeat(2).take(3)
              .skip(1).prefetch(1).cache())
        ds = D.zip((ds, D.range(3))).concatenate(D.zip((ds, D.range(3))))
        ds.make_initializable_iterator().get_next()
        D.range(3).filter(lambda x: x > 0).flat_map(lambda x: D.from_tensors(x)) \
            .interleave(lambda x: D.range(x), cycle_length=1).padded_batch(2, []).unbatch()
        D.range(5).map(lambda x: x, num_parallel_calls=2)
        return {"types": [op.type for op in g.get_operations()
                          if op.type.endswith("Dataset") or op.type.endswith("DatasetV2")
                          or "Iterator" in op.type]}


# ---------------------------------------------------------------------------------------------
# Errors

def error_forms(tf, d):
    D = tf.data.Dataset
    out = {}

    def run_first(build):
        with _graph(tf).as_default() as g:
            nxt = tf.data.make_one_shot_iterator(build()).get_next()
            with tf.Session(graph=g) as sess:
                return sess.run(nxt)

    out["batch_ragged"] = error(lambda: run_first(lambda: D.range(1, 4).map(
        lambda x: tf.fill([tf.cast(x, tf.int32)], x)).batch(2)))
    out["slices_mismatch"] = error(lambda: D.from_tensor_slices(
        (np.arange(3), np.arange(4))))
    out["slices_scalar"] = error(lambda: D.from_tensor_slices(np.float32(1)))
    out["filter_not_bool"] = error(lambda: D.range(3).filter(lambda x: x))
    out["flat_map_not_dataset"] = error(lambda: D.range(3).flat_map(lambda x: x))
    out["concatenate_types"] = error(lambda: D.range(3).concatenate(
        D.range(3).map(lambda x: tf.cast(x, tf.float32)))[0])
    out["map_fails"] = error(lambda: run_first(lambda: D.range(2, 3).map(
        lambda x: tf.gather(tf.constant([10, 20]), x))))
    out["range_step0"] = error(lambda: run_first(lambda: D.range(0, 5, 0)))
    out["generator_type"] = error(lambda: run_first(lambda: D.from_generator(
        lambda: iter(["x"]), tf.int64, tf.TensorShape([]))))
    return out


# ---------------------------------------------------------------------------------------------
# Files

def tfrecord_read(tf, d):
    path = str(Path(d) / TF_RECORD_FILE)
    with _graph(tf).as_default():
        whole = _one_shot(tf, tf.data.TFRecordDataset(path))
    with _graph(tf).as_default():
        twice = _one_shot(tf, tf.data.TFRecordDataset([path, path]).skip(3).take(4))
    return {"whole": whole, "two_files": twice,
            "iterator": list(tf.io.tf_record_iterator(path))}


def text_lines(tf, d, tmp):
    path = Path(tmp) / "lines.txt"
    path.write_bytes(TEXT_LINES.encode())
    with _graph(tf).as_default():
        return _one_shot(tf, tf.data.TextLineDataset(str(path)))


CASES = {
    "range_forms": range_forms,
    "from_tensors_nested": from_tensors_nested,
    "from_tensor_slices_nested": from_tensor_slices_nested,
    "zip_concatenate": zip_concatenate,
    "batch_forms": batch_forms,
    "padded_batch_forms": padded_batch_forms,
    "map_forms": map_forms,
    "flat_map_interleave_filter": flat_map_interleave_filter,
    "shuffle_forms": shuffle_forms,
    "shuffle_reinit": shuffle_reinit,
    "repeat_take_skip": repeat_take_skip,
    "window_forms": window_forms,
    "from_generator_forms": from_generator_forms,
    "iterator_forms": iterator_forms,
    "graph_op_types": graph_op_types,
    "error_forms": error_forms,
    "tfrecord_read": tfrecord_read,
}


def run_case(name, tf, tmp):
    if name == "text_lines":
        return plain(text_lines(tf, GOLDEN_DIR, tmp))
    return plain(CASES[name](tf, GOLDEN_DIR))


ALL_CASES = [*CASES, "text_lines"]
