"""Session hardening (issue 16): feed_dict types, close() from a kernel, the plan-cache bound,
kernel errors that cannot be printed, lossy feed casts, the per-allocation cap."""

from __future__ import annotations

import gc
import time
import warnings

import numpy as np
import pytest

import tfmini as tm
from tfmini.core.registry import register_op, unregister
from tfmini.ops.common import memory
from tfmini.runtime.session import FeedConversionWarning


def test_feed_dict_given_as_a_list_is_a_type_error(graph):
    x = tm.placeholder(tm.float32)
    with tm.Session() as sess:
        with pytest.raises(TypeError, match="feed_dict must be a dictionary or "
                                            "collections.abc.Mapping, instead of 'list'"):
            sess.run(x, [(x, 1.0)])
        assert sess.run(x, {x: 2.0}) == 2.0  # still usable


@pytest.fixture
def closing_op():
    holder = {}

    @register_op("_HzCloseSession", inputs=["x: float"], outputs=["y: float"])
    def close_kernel(x):
        holder["session"].close()
        return x

    yield holder
    unregister("_HzCloseSession")


def test_close_from_inside_a_kernel_cancels_that_run_at_once(graph, closing_op):
    x = tm.constant(1.0)
    y = tm.raw_ops._HzCloseSession(x=x)
    sess = tm.Session()
    closing_op["session"] = sess
    start = time.monotonic()
    with pytest.raises(tm.errors.CancelledError, match=r"Session.close\(\) was called during "
                                                         "this run"):
        sess.run(y)
    assert time.monotonic() - start < 2.0  # was a 10 s stall
    assert sess.closed
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(x)


@pytest.fixture
def unprintable_op():
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("__str__ failed")

    @register_op("_HzUnprintable", inputs=["x: float"], outputs=["y: float"])
    def kernel(x):
        raise Unprintable()

    yield
    unregister("_HzUnprintable")


def test_a_kernel_exception_whose_str_fails_still_names_the_op(graph, unprintable_op):
    y = tm.raw_ops._HzUnprintable(x=tm.constant(1.0), name="bad")
    with tm.Session() as sess:
        with pytest.raises(tm.errors.UnknownError,
                           match=r"_HzUnprintable 'bad' .*Unprintable \(its message could not be "
                                 r"formatted: RuntimeError\)"):
            sess.run(y)


def test_plan_cache_is_bounded_lru(graph):
    xs = [tm.constant(float(i)) for i in range(20)]
    with tm.Session(plan_cache_size=5) as sess:
        assert sess.plan_cache_size == 5
        for i in range(20):
            assert sess.run([xs[i], xs[(i + 1) % 20]]) == [float(i), float((i + 1) % 20)]
            assert len(sess._plans) <= 5
        # Recently used survive: run the newest again, then 4 new ones; it is still there.
        newest = next(reversed(sess._plans))
        sess.run([xs[19], xs[0]])
        for i in range(4):
            sess.run([xs[i], xs[i + 5]])
        assert newest in sess._plans


def test_plan_cache_size_from_config_and_validation(graph):
    with tm.Session(config=tm.ConfigProto(plan_cache_size=3)) as sess:
        assert sess.plan_cache_size == 3
    with tm.Session() as sess:
        assert sess.plan_cache_size == 1024
    with pytest.raises(ValueError, match="plan_cache_size must be a positive int"):
        tm.Session(plan_cache_size=0)


def test_make_callable_pins_its_plan(graph):
    a, b = tm.constant(1.0), tm.constant(2.0)
    others = [tm.constant(float(i)) for i in range(10)]
    with tm.Session(plan_cache_size=2) as sess:
        call = sess.make_callable([a, b])
        for o in others:
            sess.run([o, a])
        (key,) = sess._pinned
        pinned_plan = sess._pinned[key][0]
        # run() of the same signature shares the pinned plan instead of building another.
        sess.run([a, b])
        assert sess._plans[key] is pinned_plan
        assert call() == [1.0, 2.0]
        del call
        gc.collect()
        assert sess._pinned == {}


def test_lossy_feed_casts_warn_even_inside_a_run(graph):
    i32 = tm.placeholder(tm.int32, name="i32")
    f32 = tm.placeholder(tm.float32, name="f32")
    with tm.Session() as sess:
        with pytest.warns(FeedConversionWarning, match=r"Tensor 'i32:0' of dtype int32 wraps"):
            out = sess.run(i32, {i32: np.array([2**40 + 5], np.int64)})
        np.testing.assert_array_equal(out, [5])  # allowed, as in TF1
        with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
            sess.run(i32, {i32: np.array([np.nan])})
        with pytest.warns(np.exceptions.ComplexWarning):
            sess.run(f32, {f32: np.array([1 + 2j])})
        # Inside a run's errstate (a nested run from a kernel), the warning is not lost.
        with np.errstate(all="ignore"):
            with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
                sess.run(i32, {i32: np.array([np.inf])})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sess.run(i32, {i32: np.array([7], np.int64)})  # exact: no warning


def test_fill_beyond_the_allocation_cap_is_resource_exhausted(graph):
    dims = tm.placeholder(tm.int64)
    v = tm.Variable(1.0)
    f = tm.fill(dims, 1.0, name="huge")
    # Both fetched: a Fill that only a control edge asked for would not run at all.
    step = [v.assign_add(1.0), f]
    with tm.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tm.errors.ResourceExhaustedError,
                           match=r"Fill 'huge' .*OOM when allocating tensor with "
                                 r"shape\[1000000,1000000\] and type float .*4000000000000 "
                                 r"bytes requested"):
            sess.run(f, {dims: [10**6, 10**6]})
        old = memory.set_allocation_limit(1000)
        try:
            with pytest.raises(tm.errors.ResourceExhaustedError, match="limit of 1000 bytes"):
                sess.run(step, {dims: [300]})
            assert sess.run(v) == 1.0  # the failed run changed nothing
            np.testing.assert_array_equal(sess.run(f, {dims: [250]}), np.ones(250, np.float32))
        finally:
            memory.set_allocation_limit(old)
        assert memory.allocation_limit() == old
