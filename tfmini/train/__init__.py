"""``tm.train``: the TF1 optimizers and the global step (``tf.compat.v1.train``).

``Optimizer`` and its subclasses ``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdagradOptimizer``, ``AdamOptimizer``, ``RMSPropOptimizer``, ``AdadeltaOptimizer``,
``FtrlOptimizer``, ``ProximalGradientDescentOptimizer``, ``ProximalAdagradOptimizer``,
``AdagradDAOptimizer`` (slots made by ``slot_creator``); the learning-rate decays
(``exponential_decay``...); ``ExponentialMovingAverage`` and ``assign_moving_average``;
``DropStaleGradientOptimizer`` (also ``tm.contrib.opt``) and ``SyncReplicasOptimizer``; the
global step functions;
checkpoints (``Saver``, the ``checkpoint`` state file, ``load_checkpoint`` and friends,
``docs/checkpoints.md``) and MetaGraphDef export/import; monitored sessions, hooks and the
Supervisor (``docs/summaries.md``); queue runners, the Coordinator and the input pipeline
helpers (``batch``, ``shuffle_batch``, ``slice_input_producer``, ...); and, as in TensorFlow,
``global_variables``/``trainable_variables``. This package sits above ``tfmini.gradients``
and builds only with the ops layer: it never imports the runtime.
"""

from __future__ import annotations

from tfmini.ops import io as _io
from tfmini.ops.io import write_graph
from tfmini.ops.variables import global_variables, trainable_variables
from tfmini.train.adadelta import AdadeltaOptimizer
from tfmini.train.adagrad import AdagradOptimizer
from tfmini.train.adagrad_da import AdagradDAOptimizer
from tfmini.train.adam import AdamOptimizer
from tfmini.train.basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from tfmini.train.checkpoint_management import (
    checkpoint_exists,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)
from tfmini.train.checkpoint_utils import (
    NewCheckpointReader,
    init_from_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from tfmini.train.coordinator import Coordinator, LooperThread
from tfmini.train.device_setter import (
    STANDARD_PS_OPS,
    GreedyLoadBalancingStrategy,
    byte_size_load_fn,
    replica_device_setter,
)
from tfmini.train.drop_stale import DropStaleGradientOptimizer
from tfmini.train.ftrl import FtrlOptimizer
from tfmini.train.gradient_descent import GradientDescentOptimizer
from tfmini.train.input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from tfmini.train.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    polynomial_decay,
)
from tfmini.train.meta_graph import export_meta_graph
from tfmini.train.momentum import MomentumOptimizer
from tfmini.train.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SessionManager,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from tfmini.train.moving_averages import ExponentialMovingAverage, assign_moving_average
from tfmini.train.optimizer import Optimizer
from tfmini.train.proximal import ProximalAdagradOptimizer, ProximalGradientDescentOptimizer
from tfmini.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from tfmini.train.rmsprop import RMSPropOptimizer
from tfmini.train.saver import Saver, import_meta_graph
from tfmini.train.server_lib import ClusterSpec
from tfmini.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tfmini.train.summary_io import FileWriterCache as SummaryWriterCache
from tfmini.train.supervisor import Supervisor
from tfmini.train.sync_replicas import SyncReplicasOptimizer
from tfmini.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

summary_iterator = _io.events.summary_iterator

__all__ = [
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "ChiefSessionCreator",
    "ClusterSpec",
    "Coordinator",
    "DropStaleGradientOptimizer",
    "ExponentialMovingAverage",
    "FeedFnHook",
    "FinalOpsHook",
    "FtrlOptimizer",
    "GlobalStepWaiterHook",
    "GradientDescentOptimizer",
    "GreedyLoadBalancingStrategy",
    "LoggingTensorHook",
    "LooperThread",
    "MomentumOptimizer",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "NewCheckpointReader",
    "Optimizer",
    "ProfilerHook",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "QueueRunner",
    "RMSPropOptimizer",
    "STANDARD_PS_OPS",
    "Saver",
    "Scaffold",
    "SecondOrStepTimer",
    "SessionCreator",
    "SessionManager",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "SingularMonitoredSession",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "SummaryWriterCache",
    "Supervisor",
    "SyncReplicasOptimizer",
    "WorkerSessionCreator",
    "add_queue_runner",
    "assert_global_step",
    "assign_moving_average",
    "batch",
    "batch_join",
    "byte_size_load_fn",
    "checkpoint_exists",
    "cosine_decay",
    "cosine_decay_restarts",
    "create_global_step",
    "exponential_decay",
    "export_meta_graph",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "global_variables",
    "import_meta_graph",
    "init_from_checkpoint",
    "input_producer",
    "inverse_time_decay",
    "latest_checkpoint",
    "limit_epochs",
    "linear_cosine_decay",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "polynomial_decay",
    "range_input_producer",
    "remove_checkpoint",
    "replica_device_setter",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "start_queue_runners",
    "string_input_producer",
    "summary_iterator",
    "trainable_variables",
    "update_checkpoint_state",
    "write_graph",
]
