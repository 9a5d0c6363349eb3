"""Custom ops: the documented example (docs/custom_ops.md) runs, and custom ops are first class.

The Python blocks of the doc are executed in order, so the doc cannot rot. Every op the doc
or a test registers is unregistered afterwards.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry, serialize
from tfmini.core.builder import build_op
from tfmini.core.scope import current_scope

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "custom_ops.md"
EXAMPLE = ROOT / "examples" / "custom_op.py"

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _doc_blocks() -> list[tuple[int, str]]:
    """(line offset, code) for each python block of the doc."""
    text = DOC.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)), m.group(1)) for m in _BLOCK.finditer(text)]


def _doc_line(snippet: str) -> int:
    """The 1-based line of the doc holding ``snippet``."""
    text = DOC.read_text(encoding="utf-8")
    return text.count("\n", 0, text.index(snippet)) + 1


@pytest.fixture
def clean_registry():
    """Unregisters every op registered during the test."""
    before = set(registry.registered_ops())
    yield
    for name in set(registry.registered_ops()) - before:
        registry.unregister(name)


def _run_doc() -> dict:
    namespace: dict = {"__name__": "custom_ops_doc"}
    for offset, code in _doc_blocks():
        # Padding keeps line numbers (tracebacks, "defined at") those of the doc itself.
        exec(compile("\n" * offset + code, str(DOC), "exec"), namespace)
    return namespace


@pytest.fixture
def doc(clean_registry):
    return _run_doc()


# ----------------------------------------------------------------------------------------
# The documented example


def test_doc_has_the_promised_blocks():
    blocks = _doc_blocks()
    assert len(blocks) >= 6
    assert '@tm.register_op(\n    "Swish"' in blocks[0][1]


def test_documented_example_runs(clean_registry):
    namespace = _run_doc()
    assert "grad" in namespace  # the gradient block ran too


def test_swish_values_and_build_time_shapes(doc):
    batch = doc["batch"]
    s2 = batch / (1 + np.exp(-2.0 * batch))
    np.testing.assert_allclose(doc["out"], s2 / (1 + np.exp(-s2)), rtol=1e-6)
    assert doc["y"].shape.as_list() == [None, 3]
    assert doc["z"].y().shape.as_list() == [None, 3]
    assert doc["y"].dtype == tm.float32
    g = tm.Graph()
    with g.as_default():
        x64 = tm.placeholder(tm.float64, (2, 5), name="x64")
        y64 = tm.raw_ops.Swish(x=x64)
        assert y64.shape.as_list() == [2, 5] and y64.dtype == tm.float64
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
            tm.raw_ops.Swish(x=tm.placeholder(tm.int32, (2,)))
    with tm.Session(graph=g) as sess:
        v = sess.run(y64, {x64: np.ones((2, 5))})
    assert v.dtype == np.float64


def test_shape_function_errors_surface_at_build_time(clean_registry):
    def needs_matrix(ic):
        if ic.input_shape(0).rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {ic.input_shape(0).rank}")
        return [ic.input_shape(0)]

    tm.register_op("MatrixOnly", inputs=["x: float"], outputs=["y: float"],
                   shape_fn=needs_matrix)(lambda x: x)
    with tm.Graph().as_default():
        with pytest.raises(ValueError) as info:
            tm.raw_ops.MatrixOnly(x=np.zeros(3, np.float32), name="m")
    message = str(info.value)
    assert "Shape must be rank 2 but is rank 1" in message
    assert "node m}}" in message and "MatrixOnly" in message
    assert "defined at test_custom_ops.py:" in message


def test_generated_namespaces(doc):
    assert tm.ops.Swish.OP_NAME == "Swish"
    assert "Swish" in dir(tm.raw_ops) and "Swish" in dir(tm.ops)
    assert "y = x * sigmoid(beta * x)." in tm.raw_ops.Swish.__doc__
    z = doc["z"]
    assert isinstance(z, tm.ops.Swish) and z.op.type == "Swish"
    with pytest.raises(TypeError, match="only accepts keyword arguments"):
        tm.raw_ops.Swish(doc["x"])


def test_multi_output_op_returns_a_namedtuple(doc):
    lo_hi = doc["lo_hi"]
    assert type(lo_hi).__name__ == "MinMax" and lo_hi._fields == ("min", "max")
    assert lo_hi.min is lo_hi[0] and lo_hi.max.name.endswith(":1")
    assert lo_hi.min.shape.as_list() == [] and lo_hi.min.dtype == tm.float32
    with tm.Session(graph=doc["g3"]) as sess:
        result = sess.run(lo_hi)
    assert type(result).__name__ == "MinMax"
    assert (result.min, result.max) == (-1.0, 3.0)
    assert np.asarray(result.min).dtype == np.float32


def test_list_inputs(doc):
    total = doc["total"]
    assert total.op.get_attr("N") == 3 and len(total.op.inputs) == 3
    assert total.shape.as_list() == [3]
    g = tm.Graph()
    with g.as_default():
        one = tm.raw_ops.MyAddN(values=[np.arange(4, dtype=np.int64)])
        with pytest.raises(ValueError, match="shorter than minimum length 1"):
            tm.raw_ops.MyAddN(values=[])
        with pytest.raises(TypeError, match="does not match"):
            tm.raw_ops.MyAddN(values=[tm.constant([1.0]), tm.constant([1], dtype=tm.int32)])
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(one), [0, 1, 2, 3])


def test_stateful_op_uses_the_resource_manager_and_rolls_back(doc):
    g = tm.Graph()
    with g.as_default():
        calls = tm.raw_ops.CountCalls(shared_name="n")
        other = tm.raw_ops.CountCalls(shared_name="other")
        with tm.control_dependencies([calls]):
            bad = tm.raw_ops.CheckedSqrt(x=tm.placeholder(tm.float32, (1,), name="v"))
    assert calls.op.op_def.is_stateful
    with tm.Session(graph=g) as sess:
        assert sess.run(calls) == 1
        assert sess.run([calls, other]) == [2, 1]
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(bad, {"v:0": [-1.0]})
        # The failed run counted once more, then its undo put the count back.
        assert sess.run(calls) == 3
        np.testing.assert_array_equal(sess.run(bad, {"v:0": [4.0]}), [2.0])
        assert sess.run(calls) == 5


def test_kernel_errors_name_the_op_and_where_it_was_built(doc):
    message = doc["message"]
    line = _doc_line('root = tm.raw_ops.CheckedSqrt(x=[4.0, -1.0], name="root")')
    assert message == (
        "CheckedSqrt 'root' on /device:CPU:0: x must be >= 0, got -1.0 "
        f"[inputs: x: float32[2]] (defined at custom_ops.md:{line})"
    )


def test_python_errors_in_kernels_are_mapped(clean_registry):
    @tm.register_op("Picky", inputs=["x: int32"], outputs=["y: int32"])
    def picky(x):
        return x[[10]]  # IndexError from NumPy

    @tm.register_op("Broken", inputs=["x: int32"], outputs=["y: int32"])
    def broken(x):
        raise RuntimeError("kaput")

    g = tm.Graph()
    with g.as_default():
        p = tm.raw_ops.Picky(x=[1, 2], name="picky")
        b = tm.raw_ops.Broken(x=[1], name="broken")
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(p)
        assert info.value.op is p.op
        assert "Picky 'picky'" in str(info.value) and "IndexError" in str(info.value)
        assert "defined at test_custom_ops.py:" in str(info.value)
        assert isinstance(info.value.__cause__, IndexError)
        with pytest.raises(tm.errors.UnknownError, match="Broken 'broken'.*kaput"):
            sess.run(b)


def test_registering_a_type_twice(doc):
    with pytest.raises(tm.errors.AlreadyExistsError) as info:
        tm.register_op("Swish", inputs=["x: float"], outputs=["y: float"])(lambda x: x)
    first = int(re.search(r"first registered at custom_ops\.md:(\d+)", str(info.value))[1])
    block_start = _doc_line('@tm.register_op(\n    "Swish"')
    assert block_start <= first <= block_start + 6
    # The first registration is intact.
    assert registry.get("Swish").kernels["CPU"].fn is doc["swish_kernel"]
    with pytest.raises(KeyError, match="Registering two gradient with name 'Swish'"):
        tm.RegisterGradient("Swish")(lambda op, dy: dy)


def test_unknown_op_types(doc):
    with pytest.raises(AttributeError, match="Did you mean: 'Swish'"):
        tm.raw_ops.Swissh  # noqa: B018
    with pytest.raises(AttributeError, match="Swissh"):
        tm.ops.Swissh  # noqa: B018
    with pytest.raises(tm.errors.NotFoundError, match="Op type not registered 'Swissh'.*'Swish'"):
        registry.get("Swissh")
    with tm.Graph().as_default():
        with pytest.raises(tm.errors.NotFoundError, match="'Swish'"):
            build_op(current_scope(), "Swissh", [1.0])


def test_custom_op_round_trip_needs_the_op_registered(clean_registry):
    tm.register_op("Twice", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
                   shape_fn=lambda ic: [ic.input_shape(0)])(lambda x: x + x)
    g = tm.Graph()
    with g.as_default():
        tm.raw_ops.Twice(x=[1, 2], name="t")
    graph_def = g.as_graph_def()
    registry.unregister("Twice")
    with tm.Graph().as_default():
        with pytest.raises(tm.errors.NotFoundError, match="Op type not registered 'Twice'"):
            serialize.import_graph_def(graph_def)


def test_example_script_matches_the_doc(clean_registry, capsys):
    registration = _doc_blocks()[0][1]
    # The script is the doc's code: the registration block verbatim (after the imports).
    body = registration.split("import tfmini as tm\n", 1)[1]
    assert body.strip() in EXAMPLE.read_text(encoding="utf-8")
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "imported graph gives the same values" in out
    assert '"swish" [label="swish\\nSwish"' in out
