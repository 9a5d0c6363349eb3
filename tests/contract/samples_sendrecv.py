"""Contract samples for _Send/_Recv (tfmini/ops/data_flow/sendrecv_ops.py): in a local
Session they pair through the device's rendezvous, so the _Recv's setup sends its value."""

import numpy as np

import tfmini as tm

R = tm.raw_ops

_KEY = dict(tensor_name="t:0", send_device="/job:a/replica:0/task:0/device:CPU:0",
            send_device_incarnation=1, recv_device="/job:b/replica:0/task:0/device:CPU:0")


def _recv():
    send = R._Send(tensor=np.array([1.0, 2.0], np.float32), **_KEY)
    return [], {"tensor_type": tm.float32, **_KEY}, [send]


SAMPLES = {
    "_Send": lambda: ([np.array([1.0, 2.0], np.float32)], {"T": tm.float32, **_KEY}),
    "_Recv": _recv,
}
