"""The error hierarchy mirrors ``tf.errors``: classes, codes, constructor and pickling."""

from __future__ import annotations

import pickle

import pytest

import tfmini as tm
from tfmini import errors

# TensorFlow's canonical codes (tensorflow/core/protobuf/error_codes.proto).
CLASSES_AND_CODES = [
    ("CancelledError", 1),
    ("UnknownError", 2),
    ("InvalidArgumentError", 3),
    ("DeadlineExceededError", 4),
    ("NotFoundError", 5),
    ("AlreadyExistsError", 6),
    ("PermissionDeniedError", 7),
    ("ResourceExhaustedError", 8),
    ("FailedPreconditionError", 9),
    ("AbortedError", 10),
    ("OutOfRangeError", 11),
    ("UnimplementedError", 12),
    ("InternalError", 13),
    ("UnavailableError", 14),
    ("DataLossError", 15),
    ("UnauthenticatedError", 16),
]
CODE_NAMES = {
    "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
    "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}


@pytest.mark.parametrize("name, code", CLASSES_AND_CODES)
def test_class_is_an_op_error_with_tf_code(name, code):
    cls = getattr(tm.errors, name)
    assert issubclass(cls, errors.OpError)
    assert issubclass(cls, Exception)
    assert cls.__name__ == name
    assert cls.__module__ == "tfmini.errors"
    e = cls(None, None, "boom")
    assert e.error_code == code
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code
    assert name in errors.__all__


@pytest.mark.parametrize("name, code", sorted(CODE_NAMES.items()))
def test_code_constants(name, code):
    assert getattr(errors, name) == code


def test_ok_code_is_zero():
    assert errors.OK == 0


def test_unknown_code_and_class_raise_key_error():
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(999)
    with pytest.raises(KeyError):
        errors.error_code_from_exception_type(ValueError)


def test_constructor_takes_node_def_op_message():
    g = tm.Graph()
    with g.as_default():
        op = tm.no_op(name="anchor")
    e = errors.InvalidArgumentError(None, op, "x must be positive")
    assert e.message == "x must be positive"
    assert str(e) == "x must be positive"
    assert e.op is op
    assert e.node_def is None
    assert e.args[0] == "x must be positive"


def test_keyword_arguments_follow_tf_names():
    e = errors.NotFoundError(node_def=None, op=None, message="missing")
    assert e.message == "missing"
    assert e.error_code == errors.NOT_FOUND


def test_base_op_error_takes_an_explicit_code():
    e = errors.OpError(None, None, "odd", errors.INTERNAL)
    assert e.error_code == errors.INTERNAL
    assert errors.OpError(None, None, "plain").error_code == errors.UNKNOWN


def test_subclasses_are_caught_as_op_error():
    with pytest.raises(errors.OpError) as info:
        raise errors.OutOfRangeError(None, None, "End of sequence")
    assert isinstance(info.value, errors.OutOfRangeError)
    assert not isinstance(info.value, errors.InvalidArgumentError)


@pytest.mark.parametrize("name, code", CLASSES_AND_CODES)
def test_pickle_round_trip_keeps_class_message_and_code(name, code):
    cls = getattr(tm.errors, name)
    e = cls(None, None, f"{name} happened")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls
    assert back.message == f"{name} happened"
    assert back.error_code == code


def test_pickle_keeps_a_custom_code_and_drops_the_operation():
    g = tm.Graph()
    with g.as_default():
        op = tm.no_op()
    e = errors.OpError(None, op, "custom", errors.DATA_LOSS)
    back = pickle.loads(pickle.dumps(e))
    assert back.error_code == errors.DATA_LOSS
    assert back.op is None  # an Operation belongs to a live graph; it does not travel


def test_errors_module_is_layered_at_the_bottom():
    # tfmini.errors imports nothing from tfmini, so any layer may raise its classes.
    import ast
    from pathlib import Path

    tree = ast.parse(Path(errors.__file__).read_text())
    imported = [
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
    ] + [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m.startswith("tfmini")]
