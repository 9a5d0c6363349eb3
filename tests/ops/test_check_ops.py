"""The check family (tm.assert_*, tm.debugging) against TensorFlow 2.21: build-time errors
with their messages, run-time Assert messages, and what each check returns (cases in
check_cases.py, recorded by tools/record_goldens_control_flow.py under ``check/``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops import check_cases

G = load_golden("control_flow")
CASES = check_cases.cases(tm)
ITERABLES = check_cases.proper_iterable_cases(tm)

# TensorFlow guards an Assert whose data has other dtypes than int32/string with a cond
# (AssertGuard) and returns the guard's Identity; tfmini returns the plain Assert op.
GUARDED = "/Assert/AssertGuard/Identity"

# Messages that embed TensorFlow's printing of a graph tensor in Python ("Tensor(...)"):
# the class is checked, the message loosely.
LOOSE = frozenset({"is_non_decreasing_string"})


def _outcome(thunk) -> dict:
    with tm.Graph().as_default():
        try:
            result = thunk()
        except (ValueError, TypeError, tm.errors.OpError) as e:
            text = e.message if isinstance(e, tm.errors.OpError) else str(e)
            return {"build": f"{type(e).__name__}: {text}"}
        items = result if isinstance(result, list) else [result]
        ops = [None if i is None else [i.op.type, i.op.name] if isinstance(i, tm.Tensor)
               else [i.type, i.name] for i in items]
        with tm.Session() as sess:
            try:
                values = sess.run([i for i in items if i is not None])
            except tm.errors.OpError as e:
                return {"run": e, "ops": ops}
    return {"ok": [None if v is None else np.asarray(v).tolist() for v in values], "ops": ops}


def test_every_case_was_recorded():
    recorded = {k[len("check/"):] for k in G if k.startswith("check/")
                and not k.startswith("check/proper_iterable/")}
    assert recorded == set(CASES)


def _same_ops(ours: list, theirs: list) -> None:
    for mine, tf_op in zip(ours, theirs, strict=True):
        if tf_op is None:
            assert mine is None
            continue
        tf_type, tf_name = tf_op
        if tf_name.endswith(GUARDED):
            tf_type, tf_name = "Assert", tf_name[:-len(GUARDED)] + "/Assert/Assert"
        assert mine == [tf_type, tf_name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_matches_tensorflow(name):
    want = json.loads(str(G[f"check/{name}"]))
    got = _outcome(CASES[name])
    if "build" in want:
        assert "build" in got, got
        if name in LOOSE:
            assert got["build"].split(":")[0] == want["build"].split(":")[0]
        else:
            assert got["build"] == want["build"]
    elif "run" in want:
        assert "run" in got, got
        err = got["run"]
        cls, line = want["run"].split(": ", 1)
        assert type(err).__name__ == cls
        assert line in err.message, (line, err.message)
        _same_ops(got["ops"], want["ops"])
    else:
        assert got.get("ok") == want["ok"], got
        _same_ops(got["ops"], want["ops"])


@pytest.mark.parametrize("name", sorted(ITERABLES))
def test_assert_proper_iterable_matches_tensorflow(name):
    want = str(G[f"check/proper_iterable/{name}"])
    with tm.Graph().as_default():
        try:
            ITERABLES[name]()
            got = "ok"
        except TypeError as e:
            got = f"TypeError: {e}"
    if name == "tensor":  # the class TensorFlow names is its own tensor class
        assert got.startswith('TypeError: Expected argument "values" to be a "proper"')
        assert want.startswith(got.split("Found:")[0])
    else:
        assert got == want


def test_a_failed_check_keeps_the_session_usable():
    with tm.Graph().as_default():
        x = tm.placeholder(tm.float32, [None])
        v = tm.Variable(1.0)
        with tm.control_dependencies([tm.assert_positive(x, message="x")]):
            step = v.assign_add(tm.reduce_sum(x))
        with tm.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tm.errors.InvalidArgumentError, match="Condition x > 0"):
                sess.run(step, {x: [1.0, -2.0]})
            assert sess.run(v) == 1.0  # nothing ran past the failed check
            assert sess.run(step, {x: [1.0, 2.0]}) == 4.0


def test_static_failure_points_at_the_callers_line():
    with tm.Graph().as_default():
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            tm.debugging.assert_less(tm.constant([3, 1]), 2)
        assert "Condition x < y did not hold element-wise:" in info.value.message
        assert info.value.op is None


def test_namespaces():
    for name in ["assert_equal", "assert_rank_in", "assert_scalar", "assert_proper_iterable",
                 "is_non_decreasing"]:
        assert getattr(tm, name) is getattr(tm.debugging, name)
    assert tm.debugging.Assert is tm.Assert
