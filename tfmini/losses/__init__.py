"""``tm.losses``: TF1's ``tf.compat.v1.losses`` (weighted losses, reductions, the loss
collections). A top layer above ``tfmini.ops``: it never imports the runtime, ``train``,
``keras`` or ``tpu``."""

from __future__ import annotations

from tfmini.losses import losses_impl as _losses_impl
from tfmini.losses import util as _util
from tfmini.losses.losses_impl import *  # noqa: F403
from tfmini.losses.util import *  # noqa: F403

_PARTS = (_losses_impl, _util)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
