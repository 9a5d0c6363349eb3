"""The state of a variable (:class:`VariableResource`) and the rules for reading and changing it.

The rules every kernel updating a variable follows (through :func:`lookup_variable` and
:meth:`VariableResource.replace`):

* Stored values are read-only arrays that nobody else can write; reads hand
  out the stored array itself (``Session.run`` copies read-only arrays).
* Readers take ``value`` while holding the variable's lock (:meth:`VariableResource.read`);
  a reader then holds a reference, and an array somebody holds is never written.
* Updates happen while holding the lock, so a read-modify-write (``AssignAdd``)
  from many threads loses nothing. A dense update writes into a spare buffer
  (:meth:`VariableResource.scratch`, the previous value once nobody holds it any
  more) and swaps it in with :meth:`VariableResource.replace`; a sparse update
  changes rows of the current array in place when nobody else holds it
  (:meth:`VariableResource.begin_update`), else of a copy. Whether somebody holds an
  array is its reference count: a reader, a pending undo or another variable each
  hold one.
* Every change registers an undo with ``ctx.on_failure`` that puts the old state
  back only if the variable has not changed since (its ``version``), so a failed
  ``Session.run`` leaves variables as they were.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import DType, tf_type_name
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import (
    ResourceHandle,
    as_handle,
    handle_location,
    lookup_resource,
)

# Whether sys.getrefcount counts every reference to an array (writable_value relies on it).
_REFCOUNTS_EXACT = sys.version_info < (3, 14) and getattr(sys, "_is_gil_enabled",
                                                           lambda: True)()


class VariableResource:
    """The state of one resource variable: its value, dtype and lock.

    ``value`` is None while the variable is uninitialized, else a read-only
    NumPy array. Read it with :meth:`read` (or while holding ``lock``); change it
    only while holding ``lock``, with :meth:`replace` or :meth:`begin_update` /
    :meth:`finish_update`. ``version`` counts changes, for the undo of failed runs.
    """

    __slots__ = ("value", "dtype", "lock", "version", "_spare", "_work")

    def __init__(self, dtype: DType):
        self.value: np.ndarray | None = None
        self.dtype = dtype
        self.lock = threading.Lock()
        self.version = 0
        # The array the variable held before its last swap: the next dense update writes into
        # it once nobody else holds it (double buffering instead of a new array per update).
        self._spare: np.ndarray | None = None
        self._work: np.ndarray | None = None

    def work_buffer(self) -> np.ndarray:
        """A writeable array shaped like ``value`` for one update's temporaries (call with
        ``lock`` held). Kept between updates: a large variable's update would otherwise
        page in a fresh temporary every step. Never part of the value or of an undo."""
        work = self._work
        value = self.value
        if work is None or work.shape != value.shape or work.dtype != value.dtype:
            work = self._work = np.empty_like(value)
        return work

    @property
    def is_initialized(self) -> bool:
        return self.value is not None

    def read(self) -> np.ndarray | None:
        """The current value (None when uninitialized), taken under the lock: the caller's
        reference then keeps in-place updates away from the array it holds."""
        with self.lock:
            return self.value

    def replace(self, ctx: Any, new: np.ndarray) -> None:
        """Swaps in ``new`` and registers the undo with ``ctx``; ``new`` is made read-only.

        Call with ``lock`` held. The undo restores the old value only if the
        variable has not changed since (a later successful run's value is kept).
        """
        if new.flags.writeable:
            new.flags.writeable = False
        old = self.value
        self.value = new
        self._spare = old if old is not new and old is not None and old.base is None else None
        before = self.version
        self.version = mine = before + 1

        def undo() -> None:
            with self.lock:
                if self.version == mine:
                    self.value = old
                    self.version = before

        ctx.on_failure(undo)

    def scratch(self) -> np.ndarray:
        """A writeable array shaped like ``value`` for an update to write with ``out=``.

        Call with ``lock`` held (the variable initialized), then pass the filled array
        to :meth:`replace`. It is the spare buffer (the value before the last swap) when
        nobody holds it any more, so a training loop alternates between two buffers
        instead of allocating one per step.
        """
        spare = self._spare
        value = self.value
        # References to the spare: the slot, the local name and getrefcount's argument. Any
        # more is a reader, a pending undo of a run still going, or another variable.
        if (
            spare is not None
            and sys.getrefcount(spare) == 3
            and spare.shape == value.shape
            and spare.dtype == value.dtype
        ):
            self._spare = None
            spare.flags.writeable = True
            return spare
        return np.empty_like(value)

    def writable_value(self) -> np.ndarray | None:
        """The current value itself, for an update to write over, when nobody else holds it
        and it owns its memory; else None (call with ``lock`` held). The caller makes it
        writeable, writes, then calls :meth:`changed_in_place`. Registers no undo: only for
        updates applied once their run can no longer fail (``runtime/late_updates.py``)."""
        value = self.value
        # References: the slot, the local name and getrefcount's argument. Counted as
        # CPython up to 3.13 counts them; where counts may leave out borrowed references
        # (3.14 on) or threads run without the GIL, the value is never written over.
        if (value is None or value.base is not None or not _REFCOUNTS_EXACT
                or sys.getrefcount(value) > 3):
            return None
        return value

    def changed_in_place(self) -> None:
        """Marks the value written over (by the holder of ``lock``) read-only again, as a
        change."""
        self.value.flags.writeable = False
        self.version += 1

    def swap(self, new: np.ndarray) -> None:
        """:meth:`replace` without an undo, for an update applied once its run can no longer
        fail (call with ``lock`` held)."""
        if new.flags.writeable:
            new.flags.writeable = False
        old = self.value
        self.value = new
        self._spare = old if old is not new and old is not None and old.base is None else None
        self.version += 1

    def begin_update(self, ctx: Any, rows: np.ndarray) -> np.ndarray:
        """A writeable array equal to ``value`` whose rows ``rows`` the caller may change.

        Call with ``lock`` held (the variable initialized), change only ``rows``, then
        call :meth:`finish_update` with it. When nobody else holds the current array it
        is the array itself (the old rows are saved for the undo); otherwise a copy, as
        TensorFlow copies a variable's buffer that someone still reads.
        """
        value = self.value
        # References: the slot, the local name and getrefcount's argument.
        if sys.getrefcount(value) > 3 or value.base is not None:
            new = self.scratch()
            np.copyto(new, value)
            return new
        saved = np.take(value, rows, axis=0)
        value.flags.writeable = True
        before = self.version
        self.version = mine = before + 1

        def undo() -> None:
            with self.lock:
                if self.version != mine:
                    return
                arr = self.value
                # References: the slot, `arr` and the argument. A reader that took the
                # array meanwhile keeps the state it read.
                if sys.getrefcount(arr) > 3:
                    arr = arr.copy()
                else:
                    arr.flags.writeable = True
                arr[rows] = saved
                arr.flags.writeable = False
                self.value = arr
                self.version = before

        ctx.on_failure(undo)
        return value

    def finish_update(self, ctx: Any, arr: np.ndarray) -> None:
        """Publishes the array :meth:`begin_update` gave (call with ``lock`` still held)."""
        if arr is self.value:
            arr.flags.writeable = False
        else:
            self.replace(ctx, arr)

    def __repr__(self) -> str:
        state = "uninitialized" if self.value is None else f"shape={self.value.shape}"
        return f"<VariableResource dtype={self.dtype.name} {state}>"


def not_a_variable(handle: ResourceHandle, res: Any) -> errors.OpError:
    return invalid_argument(
        f"Trying to access resource {handle_location(handle)} as a variable, but it holds a "
        f"{type(res).__name__}",
    )


def lookup_variable(ctx: Any, handle: Any) -> VariableResource:
    """The initialized variable ``handle`` names.

    Raises:
        NotFoundError: no such variable, or it is uninitialized (TensorFlow's
            class for every access but ``ReadVariableOp``).
        InvalidArgumentError: the resource there is not a variable.
    """
    if isinstance(handle, VariableResource):  # a reference variable's storage (ref_variables)
        return handle
    handle = as_handle(handle)
    res = lookup_resource(ctx, handle)
    if res is None or (isinstance(res, VariableResource) and res.value is None):
        raise missing_variable(handle)
    if not isinstance(res, VariableResource):
        raise not_a_variable(handle, res)
    return res


def missing_variable(handle: ResourceHandle) -> errors.OpError:
    # TensorFlow: "Container localhost does not exist. (Could not find resource: localhost/w)"
    return errors.NotFoundError(
        None,
        None,
        f"Could not find resource: {handle_location(handle)} "
        f"(variable {handle.name} is uninitialized "
        f"or has been deleted)",
    )


def check_value_dtype(res: VariableResource, dtype: DType) -> None:
    """Run time: a read of ``dtype`` must match the variable's dtype."""
    if res.dtype != dtype:
        raise invalid_argument(
            f"Trying to read variable with wrong dtype. Expected {tf_type_name(dtype)} got "
            f"{tf_type_name(res.dtype)}",
        )


def _owned_by_nobody_else(arr: np.ndarray) -> bool:
    # Safe to share only if no array in the chain of views can be written through.
    a = arr
    while True:
        if a.flags.writeable:
            return False
        base = a.base
        if base is None or isinstance(base, bytes):
            return True
        if not isinstance(base, np.ndarray):
            return False
        a = base


def freeze(value: Any, dtype: DType) -> np.ndarray:
    """``value`` as a read-only array of ``dtype`` that nobody else can write.

    A value someone may still write (writeable, or a view of a writeable
    array) is copied first: the caller (a feed, a fetched result) may own it.
    """
    np_dtype = dtype.np_dtype
    if (
        isinstance(value, np.ndarray)
        and value.dtype == np_dtype
        and _owned_by_nobody_else(value)
    ):
        return value
    arr = np.array(value, dtype=np_dtype, copy=True)
    arr.flags.writeable = False
    return arr



__all__ = ["VariableResource", "check_value_dtype", "freeze", "lookup_variable",
           "missing_variable", "not_a_variable"]
