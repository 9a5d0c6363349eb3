"""``tm.train.Coordinator`` and ``tm.train.LooperThread``: stopping a set of threads together
(TensorFlow's ``tensorflow/python/training/coordinator.py``).

Threads poll :meth:`Coordinator.should_stop`; any of them (or the main thread) calls
:meth:`Coordinator.request_stop`, possibly with the exception that made it stop; the main
thread's :meth:`Coordinator.join` waits for them all, re-raises the first exception recorded
(an OutOfRangeError counts as a clean stop) and fails with RuntimeError naming the threads
still running ``stop_grace_period_secs`` after the stop was requested.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tfmini import errors

_log = logging.getLogger("tfmini")


class Coordinator:
    """A coordinator for threads (``tf.compat.v1.train.Coordinator``).

    Example::

        coord = tm.train.Coordinator()
        threads = tm.train.start_queue_runners(sess, coord)
        try:
            while not coord.should_stop():
                sess.run(train_op)
        except tm.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)

    Args:
        clean_stop_exception_types: Exception types that stop the threads without being
            re-raised by :meth:`join` (default: ``(tm.errors.OutOfRangeError,)``).
    """

    def __init__(self, clean_stop_exception_types: Iterable[type] | None = None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: tuple | None = None
        self._joined = False
        self._registered_threads: set[threading.Thread] = set()

    def _filter_exception(self, ex: Any) -> Any:
        """None for a clean-stop exception, else ``ex``."""
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex: BaseException | tuple | None = None) -> None:
        """Asks the threads to stop; records ``ex`` (an exception or ``sys.exc_info()``) for
        :meth:`join` unless one is recorded already or it is a clean-stop exception.

        Raises:
            ValueError: ``ex`` is neither an exception nor an exc_info tuple.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, ex_instance, _ = ex
                else:
                    ex_instance = ex
                if ex_instance is not None:
                    # Too late to be re-raised by join(): raise it here.
                    if isinstance(ex, tuple):
                        raise ex[1].with_traceback(ex[2])
                    raise ex
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        _log.info("Error reported to Coordinator: %s", ex[1])
                        self._exc_info_to_raise = ex
                    else:
                        _log.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                        self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                    if (len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0]
                            or not self._exc_info_to_raise[1]):
                        try:
                            raise ValueError(
                                f"ex must be a tuple or sys.exc_info must return the current "
                                f"exception: {self._exc_info_to_raise}")
                        except ValueError:
                            self._exc_info_to_raise = sys.exc_info()
                self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop flag and the recorded exception (to reuse the coordinator)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """A context that requests a stop with the exception raised inside it (if any)."""
        try:
            yield
        except:  # noqa: E722  (any exception, as TensorFlow: it is recorded, not lost)
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits until a stop is requested; returns whether it was (False on a timeout)."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        """Adds ``thread`` to those :meth:`join` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads: Iterable[threading.Thread] | None = None,
             stop_grace_period_secs: float = 120, ignore_live_threads: bool = False) -> None:
        """Waits for the threads (given and registered) to end.

        Waits until they all end or a stop is requested; after a stop they get
        ``stop_grace_period_secs`` to end.

        Raises:
            Exception: the first exception passed to :meth:`request_stop`.
            RuntimeError: threads still run after the grace period ("Coordinator stopped
                with threads still running: <names>") and ``ignore_live_threads`` is False.
        """
        with self._lock:
            threads = set(threads or ()) | self._registered_threads
        # Wait for every thread to end, or for a stop to be requested.
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.05):
            pass
        # Then give them the grace period, polling with a growing interval.
        stop_wait = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait)
            stop_grace_period_secs -= stop_wait
            stop_wait = max(min(2 * stop_wait, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex, tb = self._exc_info_to_raise
                raise ex.with_traceback(tb)
            if stragglers:
                if ignore_live_threads:
                    _log.info("Coordinator stopped with threads still running: %s",
                              " ".join(stragglers))
                else:
                    raise RuntimeError(
                        "Coordinator stopped with threads still running: "
                        + " ".join(stragglers))

    @property
    def joined(self) -> bool:
        """Whether :meth:`join` has completed."""
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raises the exception recorded by :meth:`request_stop`, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _, ex, tb = self._exc_info_to_raise
                raise ex.with_traceback(tb)


class LooperThread(threading.Thread):
    """A thread that runs code repeatedly, optionally on a timer, until the coordinator
    stops (``tf.compat.v1.train.LooperThread``).

    Args:
        coord: The Coordinator.
        timer_interval_secs: Seconds between calls, or None to call back to back.
        target: The callable to run (else override :meth:`run_loop`).
        args: Positional arguments for ``target``.
        kwargs: Keyword arguments for ``target``.

    Raises:
        ValueError: ``target`` is given together with an overridden ``run_loop``.
    """

    def __init__(self, coord: Coordinator, timer_interval_secs: float | None,
                 target: Callable | None = None, args: Any = None, kwargs: Any = None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord: Coordinator, timer_interval_secs: float | None, target: Callable,
             args: Any = None, kwargs: Any = None) -> LooperThread:
        """Starts a LooperThread that calls ``target(*args, **kwargs)`` repeatedly."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once before the loop starts."""

    def stop_loop(self) -> None:
        """Called once after the loop ends."""

    def run_loop(self) -> None:
        """Called at each iteration: calls the target."""
        if self._target:
            self._target(*self._args, **self._kwargs)


__all__ = ["Coordinator", "LooperThread"]
