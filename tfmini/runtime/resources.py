"""Resource managers: the state (variables, accumulators, tables) a device holds for a Session.

Resources are found by ``(container, shared_name)``; kernels reach them only
through the kernel context, so op modules never import the runtime.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tfmini import errors


class ResourceManager:
    """A thread-safe map from (container, name) to a resource object."""

    def __init__(self, device: str):
        self.device = device
        self._resources: dict[tuple[str, str], Any] = {}
        self._lock = threading.RLock()

    def lookup(self, container: str, name: str) -> Any | None:
        """The resource, or None if there is none."""
        return self._resources.get((container, name))

    def get(self, container: str, name: str, what: str = "resource") -> Any:
        """The resource; NotFoundError naming it when absent."""
        res = self._resources.get((container, name))
        if res is None:
            where = f"{container}/{name}" if container else name
            raise errors.NotFoundError(
                None, None, f"Resource {where} ({what}) does not exist on {self.device}."
            )
        return res

    def create(self, container: str, name: str, resource: Any) -> Any:
        """Adds a resource; AlreadyExistsError if the name is taken."""
        with self._lock:
            key = (container, name)
            if key in self._resources:
                raise errors.AlreadyExistsError(
                    None, None, f"Resource {container}/{name} already exists on {self.device}."
                )
            self._resources[key] = resource
            return resource

    def lookup_or_create(self, container: str, name: str, factory: Callable[[], Any]) -> Any:
        """The existing resource, or a new one from ``factory()`` (atomically)."""
        res = self._resources.get((container, name))
        if res is not None:
            return res
        with self._lock:
            res = self._resources.get((container, name))
            if res is None:
                res = factory()
                self._resources[(container, name)] = res
            return res

    def delete(self, container: str, name: str) -> None:
        with self._lock:
            if self._resources.pop((container, name), None) is None:
                raise errors.NotFoundError(
                    None, None, f"Resource {container}/{name} does not exist on {self.device}."
                )

    def clear(self) -> None:
        with self._lock:
            self._resources.clear()

    def items(self) -> list[tuple[tuple[str, str], Any]]:
        with self._lock:
            return list(self._resources.items())
