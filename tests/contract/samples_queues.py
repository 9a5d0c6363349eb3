"""Contract samples for the queue ops (tfmini/ops/data_flow/queue_ops.py).

Ops using a queue get the handle of one created in the same graph (its creation op runs
again in the sampled run and finds the queue); dequeues get, as setup, the enqueues that let
them complete at once instead of blocking.
"""

import numpy as np

import tfmini as tm

R = tm.raw_ops

_TYPES = [tm.int32, tm.float32]
_SHAPES = [[], [2]]
_ROWS = [np.array([1, 2, 3], np.int32), np.arange(6, dtype=np.float32).reshape(3, 2)]


def _queue(ref: bool):
    make = R.FIFOQueue if ref else R.FIFOQueueV2
    return make(component_types=_TYPES, shapes=_SHAPES, capacity=10, shared_name="q")


def _enqueue_many(handle, ref: bool):
    op = R.QueueEnqueueMany if ref else R.QueueEnqueueManyV2
    return op(handle=handle, components=_ROWS)


def _sample(ref: bool, more, attrs, fill: bool = False):
    def sample():
        handle = _queue(ref)
        setup = [_enqueue_many(handle, ref)] if fill else []
        return [handle, *more], attrs, setup

    return sample


_CREATE = {"component_types": _TYPES, "shapes": _SHAPES, "capacity": 5}
_DEQ = {"component_types": _TYPES}

SAMPLES = {}
for _ref, _sfx in ((True, ""), (False, "V2")):
    SAMPLES.update({
        f"FIFOQueue{_sfx}": lambda: ([], _CREATE),
        f"PaddingFIFOQueue{_sfx}": lambda: (
            [], {"component_types": _TYPES, "shapes": [[None], [2]]}),
        f"PriorityQueue{_sfx}": lambda: ([], {"component_types": [tm.float32],
                                              "shapes": [[3]]}),
        f"RandomShuffleQueue{_sfx}": lambda: (
            [], {**_CREATE, "min_after_dequeue": 1, "seed": 3, "seed2": 4}),
        f"QueueEnqueue{_sfx}": _sample(_ref, [[np.int32(1), np.ones(2, np.float32)]], {}),
        f"QueueEnqueueMany{_sfx}": _sample(_ref, [_ROWS], {}),
        f"QueueDequeue{_sfx}": _sample(_ref, [], _DEQ, fill=True),
        f"QueueDequeueMany{_sfx}": _sample(_ref, [np.int32(2)], _DEQ, fill=True),
        f"QueueDequeueUpTo{_sfx}": _sample(_ref, [np.int32(2)], _DEQ, fill=True),
        f"QueueClose{_sfx}": _sample(_ref, [], {"cancel_pending_enqueues": True}),
        f"QueueSize{_sfx}": _sample(_ref, [], {}, fill=True),
        f"QueueIsClosed{_sfx}": _sample(_ref, [], {}),
    })
