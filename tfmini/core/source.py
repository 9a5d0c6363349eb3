"""Where the user created an op: the first stack frame outside the tfmini package."""

from __future__ import annotations

import os
import sys

from attrs import frozen

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@frozen
class SourceLocation:
    """A file and line in user code."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.lineno}"


UNKNOWN_LOCATION = SourceLocation("<unknown>", 0)


def user_location(skip: int = 1) -> SourceLocation:
    """The innermost calling frame whose file is not part of tfmini.

    Frames of tfmini's own modules are skipped so the location points at the
    line of the user's program that asked for the op.
    """
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            return SourceLocation(filename, frame.f_lineno)
        frame = frame.f_back
    return UNKNOWN_LOCATION


def caller_location(depth: int = 1) -> SourceLocation:
    """The file and line ``depth`` frames above the caller (tfmini's own frames included).

    Used where the definition site itself matters, e.g. where an op type was registered.
    """
    frame = sys._getframe(depth + 1)
    return SourceLocation(frame.f_code.co_filename, frame.f_lineno)
