"""tm.keras tests: stand-ins for the raw Adagrad ops until tfmini/ops/training.py has them."""

from tests.keras import stand_in_training_ops

STAND_IN = stand_in_training_ops.install()
