"""The error hierarchy, named as TensorFlow names it (``tf.errors``).

Every failure that happens while a graph runs is raised as a subclass of
:class:`OpError`. The constructor takes TensorFlow's arguments
``(node_def, op, message)`` so code written for ``tf.errors`` keeps working;
inside tfmini ``node_def`` is unused and ``op`` is the failing
:class:`~tfmini.core.graph.Operation` (or ``None``).

Build-time misuse that is a Python programming error (a wrong type passed to
a Python API, a shape that can never fit) raises ``TypeError`` or
``ValueError``, as TensorFlow does.
"""

from __future__ import annotations

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running (or looking up) an operation.

    Args:
        node_def: Kept for TensorFlow compatibility; tfmini passes ``None``.
        op: The failing Operation, or ``None``.
        message: What went wrong.
        error_code: The numeric code; subclasses fill it in.
    """

    error_code_default = UNKNOWN

    def __init__(self, node_def, op, message, error_code=None, *args):
        super().__init__(message, *args)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = self.error_code_default if error_code is None else error_code

    @property
    def message(self) -> str:
        """The error message."""
        return self._message

    @property
    def op(self):
        """The Operation that failed, if known."""
        return self._op

    @property
    def node_def(self):
        """Always ``None`` in tfmini (TensorFlow compatibility)."""
        return self._node_def

    @property
    def error_code(self) -> int:
        """The canonical error code (``tm.errors.INVALID_ARGUMENT``, ...)."""
        return self._error_code

    def __str__(self) -> str:
        return self._message

    def __reduce__(self):
        # The Operation does not travel (it belongs to a live graph); code and message do.
        return (type(self), (None, None, self._message, self._error_code))


def _make(name: str, code: int, doc: str) -> type[OpError]:
    cls = type(name, (OpError,), {"__doc__": doc, "error_code_default": code})
    cls.__module__ = __name__
    return cls


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An error whose cause is not known.")
InvalidArgumentError = _make(
    "InvalidArgumentError", INVALID_ARGUMENT, "An operation received an invalid argument."
)
DeadlineExceededError = _make(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired before the operation finished."
)
NotFoundError = _make(
    "NotFoundError", NOT_FOUND, "A requested entity (op, kernel, file) was not found."
)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _make(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Some resource (memory, ...) has been exhausted."
)
FailedPreconditionError = _make(
    "FailedPreconditionError",
    FAILED_PRECONDITION,
    "The system is not in a state to run the operation (e.g. an uninitialised variable).",
)
AbortedError = _make(
    "AbortedError", ABORTED, "The operation was aborted (e.g. a concurrency conflict)."
)
OutOfRangeError = _make(
    "OutOfRangeError", OUT_OF_RANGE, "An operation iterated past the valid range."
)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is currently unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "Invalid credentials.")

_CODE_TO_CLASS = {
    cls.error_code_default: cls
    for cls in (
        CancelledError,
        UnknownError,
        InvalidArgumentError,
        DeadlineExceededError,
        NotFoundError,
        AlreadyExistsError,
        PermissionDeniedError,
        ResourceExhaustedError,
        FailedPreconditionError,
        AbortedError,
        OutOfRangeError,
        UnimplementedError,
        InternalError,
        UnavailableError,
        DataLossError,
        UnauthenticatedError,
    )
}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """Returns the OpError subclass for a canonical error code (as TensorFlow)."""
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls: type) -> int:
    """Returns the canonical error code of an OpError subclass (as TensorFlow).

    Raises:
        KeyError: ``cls`` is not one of the canonical subclasses.
    """
    for code, known in _CODE_TO_CLASS.items():
        if known is cls:
            return code
    raise KeyError(cls)


__all__ = [
    "OpError",
    "error_code_from_exception_type",
    "exception_type_from_error_code",
    *[cls.__name__ for cls in _CODE_TO_CLASS.values()],
]
