"""Contract samples for the mutex ops (tfmini/ops/variables/mutex.py)."""

import tfmini as tm

R = tm.raw_ops

SAMPLES = {
    "MutexV2": lambda: ([], {"shared_name": "m"}),
    "MutexLock": lambda: ([R.MutexV2(shared_name="m")], {}),
    "ConsumeMutexLock": lambda: ([R.MutexLock(mutex=R.MutexV2(shared_name="m"))], {}),
}
