"""tf.data in graph mode against TensorFlow 2.21's recorded results (tests/goldens/data.json,
written by tools/record_goldens_data.py from the cases in data_cases.py), plus tfmini's own
guarantees: lazy pipelines, a failed run loses nothing, state per session."""

from __future__ import annotations

import json

import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR
from tests.ops.data import data_cases as C

GOLDEN = json.loads((GOLDEN_DIR / "data.json").read_text())

# Where tfmini's message or class knowingly differs from TensorFlow's (checked separately below).
DEVIATIONS = {
    ("iterator_forms", "wrong_structure"),  # TF's nest prints types its own way
    ("error_forms", "flat_map_not_dataset"),  # TF 2.21 fails with an AttributeError of its own
    ("error_forms", "generator_type"),  # TF appends the Python traceback
    ("error_forms", "map_fails"),  # TF prefixes "Error in user-defined function ..."
}


def _normalise(value):
    if isinstance(value, str):
        return value.replace("tm.", "tf.")
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def _assert_same(got, want, path):
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _assert_same(got[k], want[k], f"{path}/{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got} != {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6, abs=1e-7), path
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


@pytest.mark.parametrize("name", C.ALL_CASES)
def test_matches_tensorflow(name, tmp_path):
    got = _normalise(json.loads(json.dumps(C.run_case(name, tm, tmp_path))))
    want = json.loads(json.dumps(GOLDEN[name]))  # a copy: deviations are popped
    for case, key in DEVIATIONS:
        if case == name:
            got.pop(key), want.pop(key)
    _assert_same(got, want, name)


def test_known_deviations_keep_class_and_gist(tmp_path):
    got = C.run_case("error_forms", tm, tmp_path)
    want = GOLDEN["error_forms"]
    assert got["map_fails"][0] == want["map_fails"][0] == "InvalidArgumentError"
    assert want["map_fails"][1].endswith(got["map_fails"][1])
    assert got["generator_type"][0] == want["generator_type"][0]
    assert want["generator_type"][1].startswith(got["generator_type"][1])
    # TensorFlow refuses a flat_map function that returns a tensor with an AttributeError from
    # deep inside; tfmini says what is wrong.
    assert got["flat_map_not_dataset"][0] == "TypeError"
    assert "must return a `Dataset`" in got["flat_map_not_dataset"][1]
    it = C.run_case("iterator_forms", tm, tmp_path)["wrong_structure"]
    tf_it = GOLDEN["iterator_forms"]["wrong_structure"]
    assert it[0] == tf_it[0] == "ValueError"
    assert it[1].splitlines()[0] == tf_it[1].splitlines()[0]


def test_shuffle_vectors_of_the_semantics():
    """The orders TensorFlow 2.21 gives (shuffle_dataset_op.cc with the Philox stream)."""
    s = GOLDEN["shuffle_forms"]
    assert s["b4_s7"]["values"] == [0, 4, 2, 3, 5, 6, 1, 8, 7, 9]
    assert s["b4_s7_fixed"]["values"] == [3, 4, 0, 5, 1, 8, 2, 7, 6, 9]
    assert s["graph1_b100_s42"]["values"] == [9, 14, 17, 7, 0, 6, 15, 11, 4, 10, 5, 1, 16, 8,
                                              13, 3, 12, 19, 18, 2]
    assert s["shuffle_repeat"]["values"] == [1, 3, 4, 5, 0, 2, 2, 1, 0, 4, 5, 3, 2, 0, 4, 1,
                                             3, 5]
    assert s["repeat_shuffle"]["values"] == [1, 3, 4, 5, 2, 1, 2, 0, 0, 3, 5, 4]


# ---------------------------------------------------------------------------------------------
# Graph structure


def test_pipeline_ops_live_in_the_graph_and_export(graph):
    ds = tm.data.Dataset.range(10).map(lambda x: x * 2).shuffle(4, seed=1).batch(3)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    types = [op.type for op in graph.get_operations()]
    for t in ("RangeDataset", "MapDataset", "ShuffleDataset", "BatchDatasetV2", "IteratorV2",
              "MakeIterator", "IteratorGetNext"):
        assert t in types
    assert it.initializer.type == "MakeIterator"
    assert nxt.dtype == tm.int64 and nxt.shape.as_list() == [None]
    gd = graph.as_graph_def()
    assert any(n["op"] == "MapDataset" for n in gd["node"])
    assert graph.to_networkx().nodes["ShuffleDataset"]["type"] == "ShuffleDataset"


def test_map_function_is_traced_once(graph):
    calls = []

    def fn(x):
        calls.append(1)
        return x + 1

    ds = tm.data.Dataset.range(5).map(fn)
    nxt = tm.data.make_one_shot_iterator(ds).get_next()
    with tm.Session() as sess:
        assert [sess.run(nxt) for _ in range(5)] == [1, 2, 3, 4, 5]
    assert len(calls) == 1


def test_one_shot_iterator_refuses_placeholders(graph):
    x = tm.placeholder(tm.float32, [None])
    ds = tm.data.Dataset.from_tensor_slices(x)
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        tm.data.make_one_shot_iterator(ds)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tm.Session() as sess:
        sess.run(it.initializer, {x: [1.0, 2.0]})
        assert [sess.run(nxt) for _ in range(2)] == [1.0, 2.0]
        sess.run(it.initializer, {x: [5.0]})  # re-initialised with a new feed
        assert sess.run(nxt) == 5.0


# ---------------------------------------------------------------------------------------------
# Laziness, failures, sessions


def test_infinite_and_huge_datasets_are_lazy(graph):
    ds = tm.data.Dataset.range(10**15).repeat().map(lambda x: x * 2).shuffle(100, seed=3)
    nxt = tm.data.make_one_shot_iterator(ds.batch(4).take(2)).get_next()
    with tm.Session() as sess:
        # only what is asked for is made: the buffer's 100 elements and the batch
        first = sess.run(nxt)
    assert first.shape == (4,) and (first % 2 == 0).all() and (first < 2 * 104).all()


def test_failed_run_gives_the_element_back(graph):
    ds = tm.data.Dataset.range(5)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    bad = tm.gather(tm.constant([1, 2]), tm.placeholder(tm.int32, []))
    out = nxt + tm.cast(bad, tm.int64)
    with tm.Session() as sess:
        sess.run(it.initializer)
        assert sess.run(nxt) == 0
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(out, {bad.op.inputs[1]: 7})  # takes element 1, then fails
        assert sess.run(nxt) == 1  # element 1 was not lost
        assert sess.run(out, {bad.op.inputs[1]: 1}) == 4


def test_end_of_sequence_every_call_and_session_usable(graph):
    nxt = tm.data.make_one_shot_iterator(tm.data.Dataset.range(1)).get_next()
    other = tm.constant(3)
    with tm.Session() as sess:
        assert sess.run(nxt) == 0
        for _ in range(3):
            with pytest.raises(tm.errors.OutOfRangeError, match="End of sequence"):
                sess.run(nxt)
        assert sess.run(other) == 3


def test_error_in_map_names_the_op(graph):
    ds = tm.data.Dataset.range(3).map(lambda x: tm.gather(tm.constant([1, 2]), x))
    nxt = tm.data.make_one_shot_iterator(ds).get_next()
    with tm.Session() as sess:
        assert sess.run(nxt) == 1
        assert sess.run(nxt) == 2
        with pytest.raises(tm.errors.InvalidArgumentError, match="indices = 2"):
            sess.run(nxt)


def test_each_session_has_its_own_iterators(graph):
    nxt = tm.data.make_one_shot_iterator(tm.data.Dataset.range(3)).get_next()
    with tm.Session() as a, tm.Session() as b:
        assert a.run(nxt) == 0 and a.run(nxt) == 1
        assert b.run(nxt) == 0
        assert a.run(nxt) == 2


def test_from_generator_is_called_per_initialisation(graph):
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    it = tm.data.Dataset.from_generator(gen, tm.int64, []).make_initializable_iterator()
    nxt = it.get_next()
    with tm.Session() as sess:
        for _ in range(2):
            sess.run(it.initializer)
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
    assert len(calls) == 2


def test_bad_arguments_fail_at_run_with_op_name(graph):
    nxt = tm.data.make_one_shot_iterator(tm.data.Dataset.range(3).batch(0)).get_next()
    with tm.Session() as sess, pytest.raises(tm.errors.InvalidArgumentError,
                                             match="Batch size must be greater than zero"):
        sess.run(nxt)


def test_graph_def_round_trip_runs_the_same_pipeline():
    g = tm.Graph()
    with g.as_default():
        ds = tm.data.Dataset.range(6).map(lambda x: x * 3).shuffle(3, seed=2).batch(2)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
    text = json.dumps(g.as_graph_def())
    g2 = tm.Graph()
    with g2.as_default():
        tm.import_graph_def(json.loads(text))
    with tm.Session(graph=g) as sess:
        sess.run(it.initializer)
        want = [sess.run(nxt).tolist() for _ in range(3)]
    with tm.Session(graph=g2) as sess:
        sess.run("import/MakeIterator")
        got = [sess.run("import/IteratorGetNext:0").tolist() for _ in range(3)]
    assert got == want and sorted(sum(want, [])) == [0, 3, 6, 9, 12, 15]


def test_failed_initialisation_keeps_the_iterator(graph):
    x = tm.placeholder(tm.int64, [None])
    y = tm.placeholder(tm.int64, [None])
    it = tm.data.Dataset.from_tensor_slices((x, y)).make_initializable_iterator()
    nxt = it.get_next()
    with tm.Session() as sess:
        sess.run(it.initializer, {x: [1, 2, 3], y: [4, 5, 6]})
        assert sess.run(nxt) == (1, 4)
        with pytest.raises(tm.errors.InvalidArgumentError, match="same size in the 0th"):
            sess.run(it.initializer, {x: [1, 2], y: [4, 5, 6]})
        assert sess.run(nxt) == (2, 5)


def test_python_iteration_is_refused_in_graph_mode(graph):
    with pytest.raises(RuntimeError, match="make_one_shot_iterator"):
        iter(tm.data.Dataset.range(3))
