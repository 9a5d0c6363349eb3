"""Pooling layers (tf_keras ``legacy_tf_layers/pooling.py``): max and average pooling over
1, 2 or 3 spatial axes. 1-D pooling expands a spatial axis and pools in 2-D, as Keras does.
"""

from __future__ import annotations

from typing import Any

from tfmini.layers.base import InputSpec, Layer
from tfmini.layers.utils import normalize_data_format, normalize_padding, normalize_tuple
from tfmini.ops import array, nn

__all__ = [
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "MaxPooling1D",
    "MaxPooling2D", "MaxPooling3D", "average_pooling1d", "average_pooling2d",
    "average_pooling3d", "max_pooling1d", "max_pooling2d", "max_pooling3d",
]


class _Pooling(Layer):
    _rank = 2
    _kind = "max"

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: str | None = None, **kwargs: Any):
        super().__init__(name=name, **kwargs)
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = normalize_tuple(strides if strides is not None else pool_size,
                                       self._rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs: Any) -> Any:
        """Pools ``inputs``."""
        first = self.data_format == "channels_first"
        pool = nn.max_pool if self._kind == "max" else nn.avg_pool
        if self._rank == 1:
            axis = 3 if first else 2
            x = array.expand_dims(inputs, axis)
            size, strides = self.pool_size + (1,), self.strides + (1,)
            fmt = "NCHW" if first else "NHWC"
        else:
            x = inputs
            size, strides = self.pool_size, self.strides
            fmt = ("NCHW" if first else "NHWC") if self._rank == 2 else (
                "NCDHW" if first else "NDHWC")
        if first:
            ksize, kstrides = (1, 1) + size, (1, 1) + strides
        else:
            ksize, kstrides = (1,) + size + (1,), (1,) + strides + (1,)
        if self._rank == 3:
            pool = nn.max_pool3d if self._kind == "max" else nn.avg_pool3d
        out = pool(x, ksize=list(ksize), strides=list(kstrides), padding=self.padding.upper(),
                   data_format=fmt)
        if self._rank == 1:
            out = array.squeeze(out, [axis])
        return out


def _make(rank: int, kind: str, cls_name: str):
    doc = (f"{'Max' if kind == 'max' else 'Average'} pooling over {rank} spatial "
           f"axis{'es' if rank > 1 else ''}.\n\n    Args:\n"
           "        pool_size: An int or a tuple per spatial axis.\n"
           "        strides: An int or a tuple per spatial axis.\n"
           "        padding: ``\"valid\"`` (default) or ``\"same\"``.\n"
           "        data_format: ``\"channels_last\"`` (default) or ``\"channels_first\"``.\n"
           "        name: As for :class:`Layer`.\n")
    cls = type(cls_name, (_Pooling,), {"_rank": rank, "_kind": kind, "__doc__": doc,
                                        "__module__": __name__})

    def apply(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
              data_format: str = "channels_last", name: str | None = None) -> Any:
        return cls(pool_size, strides, padding=padding, data_format=data_format,
                   name=name)(inputs)

    apply.__doc__ = f"``tf.compat.v1.layers.{cls_name}`` applied to ``inputs``."
    return cls, apply


MaxPooling1D, max_pooling1d = _make(1, "max", "MaxPooling1D")
MaxPooling2D, max_pooling2d = _make(2, "max", "MaxPooling2D")
MaxPooling3D, max_pooling3d = _make(3, "max", "MaxPooling3D")
AveragePooling1D, average_pooling1d = _make(1, "avg", "AveragePooling1D")
AveragePooling2D, average_pooling2d = _make(2, "avg", "AveragePooling2D")
AveragePooling3D, average_pooling3d = _make(3, "avg", "AveragePooling3D")
