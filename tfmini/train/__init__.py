"""``tm.train``: the TF1 optimizers and the global step (``tf.compat.v1.train``).

``Optimizer`` and its subclasses ``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdagradOptimizer``, ``AdamOptimizer``; ``DropStaleGradientOptimizer`` (also
``tm.contrib.opt``); the global step functions; and, as in TensorFlow,
``global_variables``/``trainable_variables``; checkpoints (``Saver``, the ``checkpoint`` state
file, ``load_checkpoint`` and friends, ``docs/checkpoints.md``) and MetaGraphDef export/import.
Monitored sessions, hooks and the Supervisor (``docs/summaries.md``) too.
This package sits above ``tfmini.gradients``
and builds only with the ops layer: it never imports the runtime.
"""

from __future__ import annotations

from tfmini.ops import io as _io
from tfmini.ops.io import write_graph
from tfmini.ops.variables import global_variables, trainable_variables
from tfmini.train.adagrad import AdagradOptimizer
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
from tfmini.train.gradient_descent import GradientDescentOptimizer
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
from tfmini.train.optimizer import Optimizer
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
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "NewCheckpointReader",
    "Optimizer",
    "Saver",
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
