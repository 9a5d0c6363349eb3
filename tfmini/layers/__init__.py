"""``tm.layers``: TF1's ``tf.compat.v1.layers`` (dense, convolution, pooling, flatten,
dropout, batch normalization; class and function forms).

A top layer like ``tfmini.train``: built from the ops fronts, it never imports the runtime,
``train``, ``keras`` or ``tpu``. See docs/layers.md for naming rules and differences.
"""

from __future__ import annotations

from tfmini.layers import base as _base
from tfmini.layers import convolutional as _convolutional
from tfmini.layers import core as _core
from tfmini.layers import normalization as _normalization
from tfmini.layers import pooling as _pooling
from tfmini.layers.base import *  # noqa: F403
from tfmini.layers.convolutional import *  # noqa: F403
from tfmini.layers.core import *  # noqa: F403
from tfmini.layers.normalization import *  # noqa: F403
from tfmini.layers.pooling import *  # noqa: F403

# TensorFlow's aliases.
Convolution1D = Conv1D  # noqa: F405
Convolution2D = Conv2D  # noqa: F405
Convolution3D = Conv3D  # noqa: F405
Convolution2DTranspose = Conv2DTranspose  # noqa: F405
Deconvolution2D = Conv2DTranspose  # noqa: F405
SeparableConvolution2D = SeparableConv2D  # noqa: F405
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D  # noqa: F405
AvgPool1D, AvgPool2D, AvgPool3D = (  # noqa: F405
    AveragePooling1D, AveragePooling2D, AveragePooling3D)  # noqa: F405
BatchNorm = BatchNormalization  # noqa: F405

_PARTS = (_base, _core, _convolutional, _pooling, _normalization)
__all__ = sorted({name for part in _PARTS for name in part.__all__} | {
    "Convolution1D", "Convolution2D", "Convolution3D", "Convolution2DTranspose",
    "Deconvolution2D", "SeparableConvolution2D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
    "AvgPool1D", "AvgPool2D", "AvgPool3D", "BatchNorm",
})
