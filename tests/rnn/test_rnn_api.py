"""tm.nn.rnn_cell and the drivers beyond the TensorFlow goldens: the namespace, masking,
static_state_saving_rnn, and a failed run that leaves the session usable."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm

DOC = Path(__file__).resolve().parents[2] / "docs" / "rnn.md"


def test_namespace():
    assert {"rnn_cell", "dynamic_rnn", "static_rnn", "raw_rnn"} <= set(dir(tm.nn))
    assert tm.nn.rnn_cell.LSTMStateTuple(1, 2).h == 2
    with pytest.raises(AttributeError):
        tm.nn.no_such_function  # noqa: B018


def test_doc_example_runs():
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    exec(compile(code, str(DOC), "exec"), {})


class _Saver:
    """A minimal state saver: the initial state from constants, saves recorded."""

    def __init__(self):
        self.saved = {}

    def state(self, name):
        return tm.constant(np.full((2, 3), 0.5, np.float32))

    def save_state(self, name, value):
        self.saved[name] = value
        return tm.identity(value)


def test_static_state_saving_rnn_starts_from_the_saved_state():
    g = tm.Graph()
    with g.as_default():
        saver = _Saver()
        cell = tm.nn.rnn_cell.BasicLSTMCell(3)
        x = [tm.constant(np.ones((2, 4), np.float32))] * 2
        outs, state = tm.nn.static_state_saving_rnn(cell, x, saver, ("c", "h"))
        with tm.variable_scope("plain"):
            start = tm.nn.rnn_cell.LSTMStateTuple(saver.state("c"), saver.state("h"))
            plain_outs, _ = tm.nn.static_rnn(cell, x, initial_state=start)
        assert set(saver.saved) == {"c", "h"}
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            got, want = sess.run([outs[-1], plain_outs[-1]])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_bad_sequence_length_fails_the_run_and_keeps_the_session():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [3, 5, 4])
        lengths = tm.placeholder(tm.int32, [None])
        out, _ = tm.nn.dynamic_rnn(tm.nn.rnn_cell.GRUCell(2), x, sequence_length=lengths,
                                   dtype=tm.float32)
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            data = np.ones((3, 5, 4), np.float32)
            with pytest.raises(tm.errors.InvalidArgumentError, match="Expected shape"):
                sess.run(out, {x: data, lengths: [5, 5]})
            good = sess.run(out, {x: data, lengths: [5, 1, 0]})
    assert not good[2].any() and not good[1, 1:].any() and good[0].all()
