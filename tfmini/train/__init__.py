"""``tm.train``: the TF1 optimizers and the global step (``tf.compat.v1.train``).

``Optimizer`` and its subclasses ``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdagradOptimizer``, ``AdamOptimizer``, ``RMSPropOptimizer``, ``AdadeltaOptimizer``,
``FtrlOptimizer``, ``ProximalGradientDescentOptimizer``, ``ProximalAdagradOptimizer``,
``AdagradDAOptimizer`` (slots made by ``slot_creator``); the learning-rate decays
(``exponential_decay``...); ``ExponentialMovingAverage`` and ``assign_moving_average``;
``DropStaleGradientOptimizer`` (also ``tm.contrib.opt``); the global step functions;
checkpoints (``Saver``, the ``checkpoint`` state file, ``load_checkpoint`` and friends,
``docs/checkpoints.md``) and MetaGraphDef export/import; monitored sessions, hooks and the
Supervisor (``docs/summaries.md``); and, as in TensorFlow,
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
from tfmini.train.drop_stale import DropStaleGradientOptimizer
from tfmini.train.ftrl import FtrlOptimizer
from tfmini.train.gradient_descent import GradientDescentOptimizer
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
from tfmini.train.rmsprop import RMSPropOptimizer
from tfmini.train.saver import Saver, import_meta_graph
from tfmini.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tfmini.train.summary_io import FileWriterCache as SummaryWriterCache
from tfmini.train.supervisor import Supervisor

summary_iterator = _io.events.summary_iterator
from tfmini.train.training_util import (  # noqa: E402
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = [
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "ChiefSessionCreator",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
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
    "WorkerSessionCreator",
    "summary_iterator",
    "AdagradOptimizer",
    "AdamOptimizer",
    "DropStaleGradientOptimizer",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "NewCheckpointReader",
    "Optimizer",
    "Saver",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "assign_moving_average",
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "polynomial_decay",
    "assert_global_step",
    "checkpoint_exists",
    "create_global_step",
    "export_meta_graph",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "global_variables",
    "import_meta_graph",
    "init_from_checkpoint",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "remove_checkpoint",
    "trainable_variables",
    "update_checkpoint_state",
    "write_graph",
]
