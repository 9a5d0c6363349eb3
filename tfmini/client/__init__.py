"""``tm.client``: ``tm.client.timeline`` (TensorFlow's ``tensorflow/python/client``)."""

from __future__ import annotations

from tfmini.client import timeline

__all__ = ["timeline"]
