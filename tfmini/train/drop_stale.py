"""``DropStaleGradientOptimizer``: asynchronous training that drops gradients grown too stale.

TensorFlow r1.15's ``tf.contrib.opt.DropStaleGradientOptimizer`` (removed in TF 2), rebuilt
from its documented behaviour. Each worker snapshots the global step when it computes its
gradients; when it applies them it reads the global step again, and if more than
``staleness`` other updates slipped in between, it drops its gradients (counting the drop in
``stale_counter``) instead of applying them.

Atomicity. TensorFlow's graph is ``counter.assign_add(cond(global_step - local_step <= max,
apply_and_increment, drop))``: the read of the global step and the apply that increments it
are separate ops, so two workers can both read step ``s``, both judge themselves fresh, and
both apply; a bound of 0 then admits updates computed on a stale model. tfmini runs each
``Session.run`` in its own thread, and its per-variable locks make each single update atomic
but not this sequence. So the accept/drop decision and the whole accepted update are one
critical section: a ``MutexLock`` (``tfmini/ops/variables/mutex.py``) on a mutex shared by every
DropStaleGradientOptimizer of the global step is taken after the gradients are computed and
before the global step is read, and ``ConsumeMutexLock`` releases it at the end of either
branch (in the accept branch after the wrapped optimizer's update, global step increment
included). A run that fails in between rolls its variable updates back and releases the lock
last, so no worker ever sees, or builds on, half an update. The stale counter's own increment
is one atomic op and needs no lock. Gradient computation stays outside, so workers still
compute in parallel.

Across processes (``tm.Session(server.target)``) the mutex, the read of the global step, the
check and the ``cond`` are colocated with the global step (TensorFlow's placer puts ops with
the resources they use), so every worker takes the same mutex on the global step's ps task.
A cond branch runs on one task: the variables it updates must live there too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.graph import Operation, Output
from tfmini.core.scope import (
    colocate_with,
    control_dependencies,
    current_scope,
    name_scope,
    scope_context,
)
from tfmini.ops.array import identity, reshape
from tfmini.ops.control_flow import cond
from tfmini.ops.math import less_equal
from tfmini.ops.variables import Variable, get_variable, init_scope, zeros_initializer
from tfmini.train.optimizer import Optimizer, is_ref_variable
from tfmini.train.training_util import get_global_step


def _mutex_name(global_step: Any) -> str:
    # One mutex per global step: every optimizer stepping it shares the critical section.
    base = global_step._shared_name if isinstance(global_step, Variable) else global_step.op.name
    return f"{base}/DropStaleGradientOptimizer_mutex"


class DropStaleGradientOptimizer(Optimizer):
    """Wraps an optimizer; drops gradients computed more than ``staleness`` steps ago.

    ``compute_gradients`` records the global step (``local_step``) before delegating to the
    wrapped optimizer; ``apply_gradients`` applies the gradients through it if
    ``global_step - local_step <= staleness`` (incrementing the global step), and otherwise
    adds one to the float32 variable ``stale_counter``. Many threads may run the returned op
    on one Session: the check and the update are atomic together (see the module docstring).

    Example::

        gs = tm.train.get_or_create_global_step()
        opt = tm.contrib.opt.DropStaleGradientOptimizer(
            tm.train.GradientDescentOptimizer(0.1), staleness=2)
        train_op = opt.minimize(loss, global_step=gs)   # value: stale_counter after the step

    Args:
        opt: The TF1 optimizer to wrap.
        staleness: The largest accepted ``global_step - local_step``; negative drops every
            update, 0 accepts only updates with nothing applied in between.
        use_locking: Passed to the base class (the wrapped optimizer has its own).
        name: The optimizer's name.
    """

    def __init__(self, opt: Optimizer, staleness: int, use_locking: bool = False,
                 name: str = "DropStaleGradient"):
        super().__init__(use_locking, name)
        self._opt = opt
        self._staleness = staleness

    def compute_gradients(self, loss: Any, *args: Any, **kwargs: Any) -> list:
        """Snapshots the global step, then ``opt.compute_gradients(loss, ...)``; the loss (and
        so every gradient) is computed after the snapshot.

        Raises:
            AttributeError: the graph has no global step (TensorFlow's
                "'NoneType' object has no attribute 'read_value'").
        """
        global_step = get_global_step()
        read = global_step.read_value  # TF's AttributeError when there is no global step
        with colocate_with(global_step):  # read where the global step lives
            snapshot = read()
        self._local_step = snapshot + 0
        with control_dependencies([self._local_step]):
            loss = identity(loss)
            return self._opt.compute_gradients(loss, *args, **kwargs)

    def get_slot(self, *args: Any, **kwargs: Any) -> Any:
        """The wrapped optimizer's ``get_slot``."""
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args: Any, **kwargs: Any) -> list[str]:
        """The wrapped optimizer's ``get_slot_names``."""
        return self._opt.get_slot_names(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Iterable, global_step: Any = None,
                        name: str | None = None) -> Any:
        """Applies the gradients through the wrapped optimizer, or drops them if stale.

        Args:
            grads_and_vars: ``(gradient, variable)`` pairs from :meth:`compute_gradients`.
            global_step: The global step (required): compared with the snapshot, and
                incremented by the wrapped optimizer when the gradients are applied.
            name: Passed to the wrapped optimizer's ``apply_gradients``.

        Returns:
            The ``stale_counter`` after its update (``assign_add`` of 0.0 when applied, 1.0
            when dropped): fetch it to run a step.

        Raises:
            ValueError: no ``global_step``; ``stale_counter`` already exists in this variable
                scope (a second ``apply_gradients``: TensorFlow's "Variable stale_counter
                already exists, disallowed...").
            AttributeError: :meth:`compute_gradients` was not called first.
            TypeError: the global step or a variable is a reference variable
                (``use_resource=False``): tfmini's cond branches cannot update those.
        """
        if global_step is None:
            # TensorFlow fails colocating with the missing global step, with this message.
            raise ValueError(
                "Trying to reset colocation (op is None) but ignore_existing is not True "
                "(DropStaleGradientOptimizer.apply_gradients needs the global_step)"
            )
        local_step = getattr(self, "_local_step", None)
        if local_step is None:
            raise AttributeError(
                "'DropStaleGradientOptimizer' object has no attribute '_local_step' "
                "(call compute_gradients, or minimize, before apply_gradients)"
            )
        grads_and_vars = tuple(grads_and_vars)  # iterated twice
        refs = [v.name for v in [global_step, *(v for g, v in grads_and_vars if g is not None)]
                if is_ref_variable(v)]
        if refs:
            # The update runs in a tm.cond branch, a function: a reference passed into one
            # arrives as its value, so nothing could update it.
            raise TypeError(
                "DropStaleGradientOptimizer updates its variables inside tm.cond, whose "
                "branches cannot update reference variables; use resource variables "
                f"(use_resource=True, the default) for {refs}"
            )
        stale_counter = get_variable("stale_counter", [], initializer=zeros_initializer(),
                                     trainable=False)
        # IndexedSlices contribute their op, as in TensorFlow.
        gradients = [g if isinstance(g, Output) else g.op
                     for g, _ in grads_and_vars if g is not None]

        # The mutex, the check and the apply live with the global step (TF's placer puts
        # an op with the resources it uses): on a ps task, every worker process takes the
        # same mutex, so check-and-apply stays atomic across processes.
        with colocate_with(global_step):
            with name_scope(self._name):
                with scope_context(init_scope()), colocate_with(global_step):
                    mutex = build_op(current_scope(), "MutexV2", [],
                                     {"shared_name": _mutex_name(global_step)}, name="mutex")
                with control_dependencies(gradients):
                    lock = build_op(current_scope(), "MutexLock", [mutex.outputs[0]]).outputs[0]
            # Read the global step only once the lock is held: no update can slip in between the
            # check and our own apply.
            with control_dependencies(gradients + [lock]):
                # A fresh read in this scope (a reference variable's value() is its shared
                # snapshot, which would not wait for the lock).
                staleness = reshape(global_step.read_value() - local_step, shape=())

            def _accept_gradient_op() -> Output:
                applied = self._opt.apply_gradients(grads_and_vars, global_step=global_step,
                                                    name=name)
                with control_dependencies([applied]):
                    _release(lock)
                    return identity(0.0)

            def _drop_gradient_op() -> Output:
                _release(lock)
                return identity(1.0)

            decision = cond(less_equal(staleness, self._staleness), _accept_gradient_op,
                            _drop_gradient_op)
        with colocate_with(stale_counter):  # the increment runs where the counter lives
            return stale_counter.assign_add(decision)


def _release(lock: Output) -> Operation:
    return build_op(current_scope(), "ConsumeMutexLock", [lock])


__all__ = ["DropStaleGradientOptimizer"]
