"""TensorFlow GraphDef interop: frozen TF graphs (binary and text) import and give TF's
outputs; tfmini graphs write .pb/.pbtxt that import back."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR, load_golden

IO = GOLDEN_DIR / "io"


@pytest.mark.parametrize("model,filename", [("mlp", "frozen_mlp.pb"),
                                            ("mix", "frozen_mix.pbtxt")])
def test_frozen_tensorflow_graph_gives_tensorflow_outputs(model, filename):
    io = load_golden("io/frozen_io")
    gd = tm.io.read_graph_def(str(IO / filename))
    g = tm.Graph()
    with g.as_default():
        (y,) = tm.import_graph_def(gd, return_elements=["output:0"], name="")
        with tm.Session() as sess:
            out = sess.run(y, {"input:0": io[f"{model}_x"]})
    np.testing.assert_allclose(out, io[f"{model}_y"], rtol=1e-5, atol=1e-6)


def test_frozen_tensorflow_cnn_gives_tensorflow_outputs():
    # Conv2D (SAME, VALID), BiasAdd, Relu, MaxPool (VALID 2x2, SAME 3x3 stride 2), Reshape,
    # MatMul, Softmax, frozen by TensorFlow 2.21 into a binary GraphDef.
    io = load_golden("io/frozen_cnn_io")
    gd = tm.io.read_graph_def(str(IO / "frozen_cnn.pb"))
    assert {"Conv2D", "MaxPool", "BiasAdd", "Relu"} <= set(io["op_types"])
    g = tm.Graph()
    with g.as_default():
        logits, probs = tm.import_graph_def(
            gd, return_elements=["dense/logits:0", "output:0"], name="")
        assert sorted({op.type for op in g.get_operations()}) == sorted(io["op_types"])
        with tm.Session() as sess:
            got_logits, got_probs = sess.run([logits, probs], {"input:0": io["x"]})
    np.testing.assert_allclose(got_logits, io["logits"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_probs, io["output"], rtol=1e-5, atol=1e-6)


def test_bytes_and_text_import():
    data = (IO / "frozen_mlp.pb").read_bytes()
    text = (IO / "frozen_mix.pbtxt").read_text()
    for src in (data, text):
        with tm.Graph().as_default():
            tm.import_graph_def(src)


def test_unknown_ops_are_listed_together():
    gd = tm.io.read_graph_def(str(IO / "frozen_mlp.pb"))
    gd.node[-1].op = "NoSuchSoftmax"
    gd.node[-2].op = "NoSuchMatMul"
    with tm.Graph().as_default(), pytest.raises(tm.errors.NotFoundError) as info:
        tm.import_graph_def(gd)
    message = str(info.value)
    assert "2 op type(s)" in message and "NoSuchSoftmax" in message
    assert "NoSuchMatMul" in message and gd.node[-1].name in message


def test_corrupt_graph_file_is_invalid_argument(tmp_path):
    bad = tmp_path / "bad.pb"
    bad.write_bytes((IO / "frozen_mlp.pb").read_bytes()[:300])
    with pytest.raises(tm.errors.InvalidArgumentError, match="bad.pb"):
        tm.io.read_graph_def(str(bad))


@pytest.mark.parametrize("as_text,name", [(False, "g.pb"), (True, "g.pbtxt")])
def test_write_graph_round_trip(tmp_path, as_text, name):
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 2], name="x")
        y = tm.nn.relu(tm.matmul(x, tm.constant([[1.0, -1.0], [2.0, 0.5]])), name="y")
    path = tm.io.write_graph(g, str(tmp_path), name, as_text=as_text)
    g2 = tm.Graph()
    with g2.as_default():
        (y2,) = tm.import_graph_def(tm.io.read_graph_def(path), return_elements=["y:0"])
    feed = np.array([[1.0, 2.0]], np.float32)
    with tm.Session(graph=g) as s1, tm.Session(graph=g2) as s2:
        np.testing.assert_array_equal(s1.run(y, {x: feed}), s2.run(y2, {"import/x:0": feed}))


def test_freezing(tmp_path):
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 2], name="x")
        w = tm.Variable([[1.0], [2.0]], name="w")
        tm.identity(tm.matmul(x, w), name="out")
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            frozen = tm.graph_util.convert_variables_to_constants(sess, g, ["out"])
    assert not [n for n in frozen.node if n.op in ("VarHandleOp", "VariableV2")]
    with tm.Graph().as_default():
        (out,) = tm.import_graph_def(frozen, return_elements=["out:0"], name="")
        with tm.Session() as sess:
            assert sess.run(out, {"x:0": [[1.0, 1.0]]}).tolist() == [[3.0]]
