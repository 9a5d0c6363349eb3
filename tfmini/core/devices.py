"""Device specifications (``/job:.../device:CPU:0``), parsed into a frozen value."""

from __future__ import annotations

import re

from attrs import frozen

_LEGACY = re.compile(r"^(cpu|gpu|tpu):(\d+|\*)$", re.IGNORECASE)


@frozen
class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index."""

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    device_type: str | None = None
    device_index: int | None = None

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """Parses TensorFlow's spellings: ``/device:CPU:0``, ``/cpu:0``, ``CPU:0``,
        ``/job:w/task:1``.

        Raises:
            ValueError: the text is not a device specification.
        """
        if spec is None or spec == "":
            return cls()
        if isinstance(spec, DeviceSpec):  # tf.device accepts a DeviceSpec as well
            return spec
        if not isinstance(spec, str):
            raise TypeError(f"Device specification must be a string, got {type(spec).__name__}")
        fields: dict = {}
        for part in [p for p in spec.split("/") if p]:
            m = _LEGACY.match(part)
            if m:
                fields["device_type"] = m.group(1).upper()
                fields["device_index"] = None if m.group(2) == "*" else int(m.group(2))
                continue
            key, _, rest = part.partition(":")
            if key == "job" and rest:
                fields["job"] = rest
            elif key == "replica" and rest.isdigit():
                fields["replica"] = int(rest)
            elif key == "task" and rest.isdigit():
                fields["task"] = int(rest)
            elif key == "device" and rest:
                dtype, _, idx = rest.partition(":")
                fields["device_type"] = dtype.upper()
                fields["device_index"] = int(idx) if idx.isdigit() else None
            elif key.upper() in ("CPU", "GPU", "TPU") and (rest.isdigit() or rest == "*"):
                fields["device_type"] = key.upper()
                fields["device_index"] = int(rest) if rest.isdigit() else None
            else:
                # TensorFlow's wording (tensorflow/python/framework/device_spec.py).
                raise ValueError(
                    f"Unknown attribute '{key}' is encountered while parsing the device "
                    f"spec: '{spec}'."
                )
        return cls(**fields)

    def to_string(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            idx = "*" if self.device_index is None else str(self.device_index)
            parts.append(f"/device:{self.device_type}:{idx}")
        return "".join(parts)

    def replace(self, **kwargs) -> DeviceSpec:
        """A copy with the given fields replaced (``DeviceSpec.replace`` in TensorFlow)."""
        fields = {k: getattr(self, k) for k in
                  ("job", "replica", "task", "device_type", "device_index")}
        unknown = set(kwargs) - set(fields)
        if unknown:
            raise TypeError(f"replace() got unexpected keyword arguments {sorted(unknown)}")
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """This spec with the fields ``dev`` sets overriding (TensorFlow's name)."""
        return self.merge_from(dev)

    def merge_from(self, other: DeviceSpec) -> DeviceSpec:
        """Fields set in ``other`` override this spec's (TensorFlow's merge).

        Field by field, the index too: ``/device:CPU`` inside ``/device:GPU:1`` is
        ``/device:CPU:1``, as TensorFlow's ``DeviceSpec.make_merged_spec`` makes it.
        """
        return DeviceSpec(
            job=other.job if other.job is not None else self.job,
            replica=other.replica if other.replica is not None else self.replica,
            task=other.task if other.task is not None else self.task,
            device_type=other.device_type if other.device_type is not None else self.device_type,
            device_index=(
                other.device_index if other.device_index is not None else self.device_index
            ),
        )


def canonical_device(spec: str | DeviceSpec | None) -> str:
    """The canonical spelling of a device string (``""`` for no device)."""
    if spec is None or spec == "":
        return ""
    return DeviceSpec.from_string(spec).to_string()


def device_type_of(spec: str) -> str:
    """The device type named by ``spec`` (``"CPU"`` when none is named)."""
    if not spec:
        return "CPU"
    return DeviceSpec.from_string(spec).device_type or "CPU"
