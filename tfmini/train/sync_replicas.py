"""``SyncReplicasOptimizer``: synchronous data-parallel training through accumulators.

Built as tensorflow/python/training/sync_replicas_optimizer.py builds it:

* every replica (worker) keeps a local step, ``sync_rep_local_step`` (a LOCAL variable on
  the worker), the global step it last saw;
* for each ``(gradient, variable)`` pair a ``ConditionalAccumulator`` (MEAN, the variable's
  shape, shared name ``<variable name>/grad_accum``) lives on the variable's device; a
  replica applies its gradient there stamped with its local step (a stale one, older than
  the accumulator's global step, is dropped silently by the accumulator);
* the chief's queue runner takes ``replicas_to_aggregate`` gradients from every accumulator
  (the averages), applies them with the wrapped optimizer (incrementing the global step) and
  then pushes ``max(total_num_replicas, replicas_to_aggregate)`` tokens (the new global
  step) into the token queue ``sync_token_q``;
* the ``train_op`` a replica runs applies its gradients and then dequeues a token into its
  local step: it blocks until the chief has finished the round.

``make_session_run_hook(is_chief)`` returns the hook that starts this: the chief runs
``chief_init_op`` (local step := global step, and every accumulator's global step := global
step), enqueues the initial tokens and starts the queue runner's thread; a worker sets its
local step from the global step.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from tfmini.core.graph import Output
from tfmini.core.scope import colocate_with, control_dependencies, device, name_scope
from tfmini.ops import array, control_flow, variables
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.data_flow import (
    ConditionalAccumulator,
    FIFOQueue,
    SparseConditionalAccumulator,
)
from tfmini.train.monitored_session import report_uninitialized_variables
from tfmini.train.optimizer import Optimizer
from tfmini.train.queue_runner import QueueRunner
from tfmini.train.session_run_hook import SessionRunHook

__all__ = ["SyncReplicasOptimizer"]

_log = logging.getLogger("tfmini")


class SyncReplicasOptimizer(Optimizer):
    """Aggregates gradients from replicas and applies them once per round
    (``tf.compat.v1.train.SyncReplicasOptimizer``).

    Example (between-graph replication; every worker builds the same graph)::

        opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(0.1),
                                             replicas_to_aggregate=2, total_num_replicas=2)
        train_op = opt.minimize(loss, global_step=gs)
        hook = opt.make_session_run_hook(is_chief=(task_index == 0))
        with tm.train.MonitoredTrainingSession(master=server.target, is_chief=...,
                                               hooks=[hook]) as sess:
            sess.run(train_op)

    Args:
        opt: The optimizer that applies the averaged gradients.
        replicas_to_aggregate: Gradients averaged per variable and round (R).
        total_num_replicas: Replicas taking part (N; default R). Each round the chief hands
            out ``max(N, R)`` tokens.
        variable_averages: Not supported (TensorFlow's moving averages of the variables);
            must be None.
        variables_to_average: Unused without ``variable_averages``.
        use_locking: Passed to the base class.
        name: The optimizer's name (the accumulators' ops go in this name scope).

    Raises:
        NotImplementedError: ``variable_averages`` is given.
    """

    def __init__(self, opt: Optimizer, replicas_to_aggregate: int,
                 total_num_replicas: int | None = None, variable_averages: Any = None,
                 variables_to_average: Any = None, use_locking: bool = False,
                 name: str = "sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        if variable_averages is not None:
            raise NotImplementedError(
                "SyncReplicasOptimizer: variable_averages is not supported by tfmini")
        _log.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                  replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._gradients_applied = False
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list: list[tuple[Any, str]] = []
        self._variables_to_average = variables_to_average

    def compute_gradients(self, *args: Any, **kwargs: Any) -> list:
        """The wrapped optimizer's ``compute_gradients``."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Iterable, global_step: Any = None,
                        name: str | None = None) -> Any:
        """Builds the accumulators, the chief's update and the token queue.

        Args:
            grads_and_vars: ``(gradient, variable)`` pairs from :meth:`compute_gradients`.
            global_step: The global step (required): the accumulators' staleness reference,
                incremented by each round's update.
            name: Unused (TensorFlow ignores it too).

        Returns:
            The replica's train op: applies the gradients, then waits for a token and
            assigns it to the local step (its value: the token, the new global step).

        Raises:
            ValueError: no pairs ("Must supply at least one variable"), no global step
                ("Global step is required to check staleness"), or a gradient that is
                neither a tensor nor IndexedSlices ("Unknown grad type!").
        """
        del name
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops = []
        aggregated_grad = []
        var_list = []

        # The anchor stays on this worker (no device function sends a NoOp to a ps), and
        # colocating the local step with it keeps the local step off the ps tasks.
        local_anchor = array.no_op()
        with device(local_anchor.device or None):
            self._local_step = variables.Variable(
                0, trainable=False, collections=[variables.GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = self._local_step.assign(global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(
            variables.global_variables())

        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)  # passes through
                        continue
                    if isinstance(grad, Output):
                        grad_accum = ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(),
                            shared_name=var.name + "/grad_accum")
                        train_ops.append(grad_accum.apply_grad(
                            grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_grad(
                            self._replicas_to_aggregate))
                    else:
                        if not isinstance(grad, IndexedSlices):
                            raise ValueError("Unknown grad type!")
                        grad_accum = SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum")
                        train_ops.append(grad_accum.apply_indexed_slices_grad(
                            grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_indexed_slices_grad(
                            self._replicas_to_aggregate))
                    self._accumulator_list.append((grad_accum, var.device))

            aggregated_grads_and_vars = list(zip(aggregated_grad, var_list, strict=True))

            # The update, the token queue and the token traffic sit with the global step.
            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(aggregated_grads_and_vars, global_step)
            with device(global_step.device), name_scope(""):
                sync_token_queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=(),
                                             name="sync_token_q", shared_name="sync_token_q")
                self._sync_token_queue = sync_token_queue
            with device(global_step.device), name_scope(""):
                # A replica waits for a token once its gradients are in the accumulators.
                with control_dependencies(train_ops):
                    token = sync_token_queue.dequeue()
                # TensorFlow's placer moves this assign to the local step's device (an op
                # runs beside its resource input); tfmini's partitioner wants it there.
                with colocate_with(self._local_step):
                    train_op = self._local_step.assign(token)
                with control_dependencies([update_op]):
                    # Hand out the next round's tokens once this round's update is done.
                    tokens = array.fill([self._tokens_per_step], global_step)
                    sync_op = sync_token_queue.enqueue_many((tokens,))
            self._chief_queue_runner = QueueRunner(sync_token_queue, [sync_op])

        for accum, dev in self._accumulator_list:
            with device(dev):
                chief_init_ops.append(accum.set_global_step(global_step,
                                                            name="SetGlobalStep"))
        self.chief_init_op = control_flow.group(*chief_init_ops)
        self._gradients_applied = True
        return train_op

    def get_chief_queue_runner(self) -> QueueRunner:
        """The chief's QueueRunner: runs the update and hands out the next tokens.

        Raises:
            ValueError: before :meth:`apply_gradients`.
        """
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args: Any, **kwargs: Any) -> Any:
        """The wrapped optimizer's ``get_slot``."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self) -> list:
        """The wrapped optimizer's variables."""
        return self._opt.variables()

    def get_slot_names(self, *args: Any, **kwargs: Any) -> list[str]:
        """The wrapped optimizer's ``get_slot_names``."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens: int = -1) -> Any:
        """The op that enqueues the first round's tokens (run once, by the chief).

        Args:
            num_tokens: Tokens to enqueue; -1: ``replicas_to_aggregate``.

        Raises:
            ValueError: before :meth:`apply_gradients`, or fewer tokens than
                ``replicas_to_aggregate - total_num_replicas``.
        """
        if self._gradients_applied is False:
            raise ValueError(
                "get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(
                f"Too few tokens to finish the first step: {num_tokens} (given) vs "
                f"{tokens_needed} (needed)")
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = array.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return array.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1) -> SessionRunHook:
        """The hook a MonitoredSession needs: chief or worker initialisation (see the module
        docstring)."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Initialises the local step, the chief's tokens and queue runner after the session is
    created."""

    def __init__(self, sync_optimizer: SyncReplicasOptimizer, is_chief: bool,
                 num_tokens: int):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self) -> None:
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session: Any, coord: Any) -> None:
        missing = [n for n in _names(session.run(self._ready_for_local_init_op)) if n]
        if missing:
            raise RuntimeError(
                "Init operations did not make model ready for SyncReplicasOptimizerHook "
                f"local_init. Init op: {self._local_init_op.name}, error: Variables not "
                f"initialized: {', '.join(missing)}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)


def _names(value: Any) -> list[str]:
    return [v.decode() if isinstance(v, bytes) else str(v) for v in value.reshape(-1)]
