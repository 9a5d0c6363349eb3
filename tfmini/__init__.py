"""tfmini: a TensorFlow-1-style graph engine on NumPy.

Write ``import tfmini as tm`` (or, to port a TF1 script, ``import tfmini as tf``)
and build graphs as with ``tf.compat.v1``; run them in a :class:`Session`.
This is the only module that imports every layer.
"""

from __future__ import annotations

from tfmini import (  # noqa: E402  (ops register themselves on import)
    errors,
    nn,  # noqa: E402
    ops,
    raw_ops,
    sparse,
)
from tfmini.core.convert import convert_to_tensor, register_tensor_conversion_function
from tfmini.core.devices import DeviceSpec
from tfmini.core.dtypes import (
    DType,
    as_dtype,
    bool_,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tfmini.core.function import FuncGraph  # noqa: E402
from tfmini.compat import *  # noqa: E402,F401,F403  (TF2 switches: no-ops here)
from tfmini.ops.io import import_graph_def  # noqa: E402  (dicts, GraphDef protos, bytes, text)
from tfmini.core import inspect as _inspect  # noqa: E402,F401  (installs Graph.to_dot, to_networkx)
from tfmini.ops.common.indexed_slices import IndexedSlices, IndexedSlicesValue  # noqa: E402
from tfmini.ops.common.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: E402
from tfmini.gradients import (  # noqa: E402
    AggregationMethod,
    UnconnectedGradients,
    gradients,
)
from tfmini import control_flow_grad  # noqa: E402,F401  (registers If/While gradients)
from tfmini.custom_gradient import GradientTape, custom_gradient  # noqa: E402
from tfmini import test  # noqa: E402
from tfmini import keras  # noqa: E402  (Keras-2 optimizers, above gradients)
from tfmini import tpu  # noqa: E402
from tfmini.core.graph import Graph, Operation, Output, Tensor
from tfmini.core.registry import (
    NotDifferentiable,
    RegisterGradient,
    no_gradient,
    register_kernel,
    register_op,
)
from tfmini.core.scope import (
    Scope,
    control_dependencies,
    device,
    colocate_with,
    get_default_graph,
    get_name_scope,
    name_scope,
    reset_default_graph,
)
from tfmini.core.shapes import TensorShape

# The TF1-style functions: each family's front lists its public names in __all__.
from tfmini.ops.array import *  # noqa: E402,F401,F403
from tfmini.ops.control_flow import *  # noqa: E402,F401,F403
from tfmini.ops.check_ops import *  # noqa: E402,F401,F403
from tfmini.ops.math import *  # noqa: E402,F401,F403
from tfmini.ops.nn import (  # noqa: E402  (TensorFlow's clipping functions are top level)
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    global_norm,
)
from tfmini.ops.variables import *  # noqa: E402,F401,F403
from tfmini.ops.data_flow import *  # noqa: E402,F401,F403
from tfmini.ops.random import *  # noqa: E402,F401,F403
from tfmini import random  # noqa: E402  (tm.random: tf.compat.v1.random)
from tfmini import bitwise, debugging, linalg, manip, math  # noqa: E402  (tm.math, ...)
from tfmini import logging  # noqa: E402  (tm.logging: tf.compat.v1.logging)
from tfmini.logging import get_logger  # noqa: E402  (tf.get_logger)
from tfmini import initializers  # noqa: E402  (tm.initializers)
from tfmini import data, io  # noqa: E402  (tm.data, tm.io: tf.compat.v1.data / io)
from tfmini.runtime.options import ConfigProto, GPUOptions, RunMetadata, RunOptions
from tfmini.runtime.session import InteractiveSession, Session, get_default_session
from tfmini import train  # noqa: E402  (tm.train: the TF1 optimizers)
from tfmini import graph_util  # noqa: E402  (tm.graph_util: freezing)
from tfmini import contrib  # noqa: E402  (tm.contrib.opt, tm.contrib.layers)
from tfmini import layers, losses, metrics  # noqa: E402  (tm.layers, tm.losses, tm.metrics)
from tfmini import summary  # noqa: E402  (tm.summary: event files for TensorBoard)
from tfmini import client  # noqa: E402  (tm.client.timeline)
from tfmini.summary import Event, SessionLog, Summary  # noqa: E402  (tf.compat.v1.*)
from tfmini import app, flags  # noqa: E402  (tm.app.run, tm.flags)
from tfmini import distribute  # noqa: E402  (tm.distribute: clusters on Ray, imported lazily)

# TensorFlow spells these tf.train.Server and tf.test.create_local_cluster; they live in the
# distributed layer, above train and test.
train.Server = distribute.Server
test.create_local_cluster = distribute.create_local_cluster

bool = bool_  # noqa: A001  (TensorFlow spells it tf.bool)
python_io = io  # tf.compat.v1.python_io: the TFRecord writer and iterator

# tf.compat.v1.<name> in a ported script resolves to tfmini's <name>.
from tfmini import compat  # noqa: E402
import sys as _sys  # noqa: E402

compat.v1 = compat.v2 = _sys.modules[__name__]

__version__ = "0.1.0"

__all__ = [name for name in dir() if not name.startswith("_")]
