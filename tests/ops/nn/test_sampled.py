"""Candidate samplers, sampled losses and sharded embedding lookups against TensorFlow 2.21.

The cases are in tests/ops/nn/sampled_cases.py; tools/record_goldens_sampled.py ran them under
TensorFlow into tests/goldens/sampled.npz. Sampler ids and expected counts are compared bit
for bit (TensorFlow's Philox stream, double maths, glibc's log1pf/expm1f); losses and
gradients within float32 summation-order tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.nn import sampled_cases

G = load_golden("sampled")
VALUE_CASES = sampled_cases.value_cases(tm)
ERROR_CASES = sampled_cases.run_error_cases(tm)
_BITWISE = ("CandidateSampler", "FixedUnigram", "functions", "compute_accidental_hits",
            "lookup/", "partition_stitch")


def _run_case(name):
    g = tm.Graph()
    with g.as_default():
        fetches, feeds, runs = VALUE_CASES[name]()
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            return [sess.run(fetches, feeds) for _ in range(runs)]


def test_every_case_was_recorded():
    for name in VALUE_CASES:
        assert any(k.startswith(f"value/{name}/0/") for k in G), name
    assert {k[len("run_error/"):] for k in G if k.startswith("run_error/")} == set(ERROR_CASES)


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_match_tensorflow(name):
    results = _run_case(name)
    exact = name.startswith(_BITWISE) and "grad" not in name
    for r, values in enumerate(results):
        for key, got in values.items():
            want = G[f"value/{name}/{r}/{key}"]
            got = np.asarray(got)
            assert got.shape == want.shape, (name, r, key)
            if exact and not key.startswith("grad"):
                assert got.dtype == want.dtype, (name, r, key)
                np.testing.assert_array_equal(got, want, err_msg=f"{name} run {r} {key}")
            else:
                np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-5,
                                           err_msg=f"{name} run {r} {key}")


# tfmini's softmax_cross_entropy_with_logits_v2 (nn_ops.py) returns the op's output for
# rank-2 logits; TensorFlow flattens and reshapes back even then, so its loss is
# ``softmax_cross_entropy_with_logits/Reshape_2`` (same values).
NAME_DIFFERS = {f"softmax/{c}": {"loss"} for c in (
    "plain", "num_true2", "hits_flipped", "mod3", "div3", "sampled_values")}


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_tensor_names_match_tensorflow(name):
    g = tm.Graph()
    with g.as_default():
        fetches, _, _ = VALUE_CASES[name]()
    for key, t in fetches.items():
        if not key.startswith("grad/") and key not in NAME_DIFFERS.get(name, ()):
            assert t.name == str(G[f"name/{name}/{key}"]), (name, key)


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_run_errors_match_tensorflow_and_lose_nothing(name):
    cls_name, message = str(G[f"run_error/{name}"]).split(": ", 1)
    g = tm.Graph()
    with g.as_default():
        fetch, feeds = ERROR_CASES[name]()
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            with pytest.raises(getattr(tm.errors, cls_name)) as info:
                sess.run(fetch, feeds)
            assert message in str(info.value)
            with pytest.raises(getattr(tm.errors, cls_name)):
                sess.run(fetch, feeds)  # the session is still usable and fails the same way


def test_tf_semantics_vectors():
    # TensorFlow 2.21's outputs for seed (1, 2), range 10, true classes [[0], [9]].
    g = tm.Graph()
    with g.as_default():
        tc = tm.constant([[0], [9]], tm.int64)
        lu = tm.raw_ops.LogUniformCandidateSampler(
            true_classes=tc, num_true=1, num_sampled=6, unique=True, range_max=10, seed=1,
            seed2=2)
        un = tm.raw_ops.UniformCandidateSampler(
            true_classes=tc, num_true=1, num_sampled=6, unique=False, range_max=10, seed=1,
            seed2=2)
        with tm.Session() as sess:
            s, t, c = sess.run(lu)
            u = sess.run(un)
    assert s.tolist() == [0, 1, 8, 6, 2, 3]
    np.testing.assert_allclose(t.ravel(), [0.934741, 0.277091], rtol=5e-6)
    np.testing.assert_allclose(c, [0.934741, 0.772792, 0.301951, 0.367693, 0.640276, 0.542242],
                               rtol=1e-5)
    assert u[0].tolist() == [9, 6, 7, 1, 3, 8]
    assert np.all(u[2] == np.float32(0.6))


def test_a_new_session_starts_the_stream_again():
    g = tm.Graph()
    with g.as_default():
        out = tm.nn.uniform_candidate_sampler(tm.constant([[1]], tm.int64), 1, 4, False, 50,
                                              seed=3)[0]
        with tm.Session() as s1:
            first = [s1.run(out).tolist() for _ in range(2)]
        with tm.Session() as s2:
            again = [s2.run(out).tolist() for _ in range(2)]
    assert first == again and first[0] != first[1]


def test_sampler_static_shapes_and_no_gradient():
    g = tm.Graph()
    with g.as_default():
        tc = tm.placeholder(tm.int64, [None, 2])
        s, t, c = tm.nn.log_uniform_candidate_sampler(tc, 2, 5, True, 10, seed=1)
        assert s.shape.as_list() == [5] and c.shape.as_list() == [5]
        assert t.shape.as_list() == [None, 2]
        assert tm.gradients(tm.reduce_sum(t), tc) == [None]


def test_embedding_lookup_rejects_bad_arguments():
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match="Need at least one param"):
            tm.nn.embedding_lookup([], [0])
        with pytest.raises(ValueError, match="Unrecognized partition strategy"):
            tm.nn.embedding_lookup([tm.constant(np.ones((2, 2))), tm.constant(np.ones((2, 2)))],
                                   [0], partition_strategy="zig")


@pytest.mark.parametrize("op", ["LearnedUnigramCandidateSampler", "LogUniformCandidateSampler"])
def test_a_failed_run_gives_back_its_draws_and_counts(op):
    def build():
        tc = tm.constant([[2], [5]], tm.int64)
        out = getattr(tm.raw_ops, op)(true_classes=tc, num_true=1, num_sampled=4, unique=True,
                                      range_max=12, seed=4, seed2=5)
        # Fails after the sampler ran: every sampled id + 100 is out of range.
        bad = tm.gather(tm.constant(np.zeros(12, np.float32)), out[0] + 100)
        return out, bad

    g1 = tm.Graph()
    with g1.as_default():
        out, bad = build()
        with tm.Session() as sess:
            first = sess.run(out)
            with pytest.raises(tm.errors.InvalidArgumentError):
                sess.run([out, bad])
            after_failure = sess.run(out)
    g2 = tm.Graph()
    with g2.as_default():
        out2, _ = build()
        with tm.Session() as sess:
            clean = [sess.run(out2) for _ in range(2)]
    for got, want in zip((first, after_failure), clean):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
