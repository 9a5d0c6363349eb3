"""``_Send`` and ``_Recv``: the tensor exchange between the parts of a partitioned run.

As tensorflow/core/kernels/sendrecv_ops.cc, a ``_Send`` hands its input to a *rendezvous*
under a key naming the sending device, the receiving device and the tensor, and the matching
``_Recv`` waits (through ``ctx.wait``, so with the run's deadline and cancellation) until the
value is there. Which rendezvous they use comes from the run:

* a distributed task part runs with options carrying the step's rendezvous
  (``options.rendezvous``: tfmini/distribute/rendezvous.py), which delivers a value to the
  receiving task's process;
* otherwise the device's :class:`Rendezvous` resource pairs them inside one session (TF's is
  per step; here a value sent by one run may be received by a later one).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import unknown_shape

__all__: list[str] = []

LOCAL_RENDEZVOUS = "_tm_local_rendezvous"


def rendezvous_key(send_device: str, incarnation: int, recv_device: str,
                   tensor_name: str) -> str:
    """TensorFlow's rendezvous key (tensorflow/core/framework/rendezvous.cc CreateKey)."""
    return f"{send_device};{incarnation:x};{recv_device};{tensor_name};0:0"


class Rendezvous:
    """A table of sent values that receivers wait on, keyed by ``(step, key)``.

    Thread-safe; ``abort(step)`` wakes that step's receivers, which then fail as cancelled.
    """

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self._table: dict[tuple[Any, str], Any] = {}
        self._aborted: dict[Any, str] = {}

    def put(self, step: Any, key: str, value: Any) -> None:
        with self.condition:
            if step in self._aborted:
                return  # the step failed elsewhere: nobody will receive this
            self._table[(step, key)] = value
            self.condition.notify_all()

    def put_all(self, step: Any, items: Any) -> None:
        """``put`` of every ``(key, value)`` pair, waking the receivers once."""
        with self.condition:
            if step in self._aborted:
                return
            for key, value in items:
                self._table[(step, key)] = value
            self.condition.notify_all()

    def take(self, ctx: Any, step: Any, key: str, what: str) -> Any:
        """The value sent under ``(step, key)``, waiting for it (removes it)."""
        with self.condition:
            ctx.wait(self.condition,
                     lambda: (step, key) in self._table or step in self._aborted, what)
            if (step, key) not in self._table:
                raise errors.CancelledError(
                    None, None, f"{what} was cancelled: {self._aborted[step]}")
            return self._table.pop((step, key))

    def abort(self, step: Any, reason: str, keep: int = 1024) -> None:
        """Drops ``step``'s values and fails its receivers (remembers ``keep`` steps)."""
        with self.condition:
            self._aborted[step] = reason
            for k in [k for k in self._table if k[0] == step]:
                del self._table[k]
            while len(self._aborted) > keep:
                del self._aborted[next(iter(self._aborted))]
            self.condition.notify_all()

    def pending(self) -> int:
        with self.condition:
            return len(self._table)


class _LocalStep:
    """The in-session rendezvous: every value under step None."""

    def __init__(self, table: Rendezvous):
        self.table = table

    def send(self, ctx: Any, key: str, value: Any, recv_device: str) -> None:
        del ctx, recv_device
        self.table.put(None, key, value)

    def recv(self, ctx: Any, key: str, what: str) -> Any:
        return self.table.take(ctx, None, key, what)


def _rendezvous_of(ctx: Any) -> Any:
    step = getattr(ctx.options, "rendezvous", None)
    if step is not None:
        return step
    return _LocalStep(ctx.resource_manager.lookup_or_create("", LOCAL_RENDEZVOUS, Rendezvous))


_ATTRS = ["tensor_name: string", "send_device: string", "send_device_incarnation: int",
          "recv_device: string", "client_terminated: bool = false"]


@register_op("_Send", inputs=["tensor: T"], attrs=["T: type"] + _ATTRS, stateful=True,
             doc="Sends the tensor to the rendezvous under its key (the pairing _Recv's).")
def _send_kernel(ctx, tensor, *, tensor_name, send_device, send_device_incarnation,
                 recv_device, client_terminated):
    del client_terminated
    key = rendezvous_key(send_device, send_device_incarnation, recv_device, tensor_name)
    _rendezvous_of(ctx).send(ctx, key, np.asarray(tensor), recv_device)


def _recv_shape(ic):
    return [unknown_shape()]


@register_op("_Recv", outputs=["tensor: tensor_type"], attrs=["tensor_type: type"] + _ATTRS,
             shape_fn=_recv_shape, stateful=True, blocking=True,
             doc="Waits for the tensor the pairing _Send sends under its key.")
def _recv_kernel(ctx, *, tensor_type, tensor_name, send_device, send_device_incarnation,
                 recv_device, client_terminated):
    del client_terminated
    key = rendezvous_key(send_device, send_device_incarnation, recv_device, tensor_name)
    what = f"_Recv of {tensor_name} from {send_device} on {recv_device}"
    value = _rendezvous_of(ctx).recv(ctx, key, what)
    want = tensor_type.np_dtype if hasattr(tensor_type, "np_dtype") else None
    if want is not None and not tensor_type.is_object and value.dtype != want:
        raise errors.InternalError(
            None, None, f"{what}: received {value.dtype}, expected {tensor_type.name}")
    return value


no_gradient("_Send")
no_gradient("_Recv")
