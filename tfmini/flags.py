"""``tm.flags`` (also ``tm.app.flags``): command-line flags as TF1 programs define them.

TensorFlow's ``tf.compat.v1.flags`` is absl's flags module (``absl/flags``) behind a wrapper
(``tensorflow/python/platform/flags.py``) that parses ``sys.argv`` the first time a flag is
read before parsing. This is a small implementation of the same surface, without absl (see
docs/queues.md, "tf.app"): the ``DEFINE_*`` functions, ``FLAGS`` and absl's parsing rules:

* ``--name=value``, ``-name=value``, ``--name value`` (not for booleans);
* booleans: ``--flag``, ``--noflag``, ``--flag=true|false|t|f|1|0`` (any case);
* ``--`` ends the flags; other arguments are kept, in order, after ``argv[0]``;
* an unknown flag raises :class:`UnrecognizedFlagError` (unless ``known_only=True``, which
  keeps it in the returned arguments, as ``tm.app.run`` parses);
* a bad value raises :class:`IllegalFlagValueError`; defining a name twice,
  :class:`DuplicateFlagError`.

Example::

    tm.flags.DEFINE_integer("steps", 10, "Training steps.")
    FLAGS = tm.flags.FLAGS

    def main(argv):
        print(FLAGS.steps)

    tm.app.run(main)   # python prog.py --steps=20
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any


class Error(Exception):
    """The base class of the flag errors (absl's ``flags.Error``)."""


class DuplicateFlagError(Error):
    """A flag name was defined twice."""


class UnrecognizedFlagError(Error):
    """A command line names a flag that was not defined."""

    def __init__(self, flagname: str, flagvalue: str = ""):
        self.flagname = flagname
        self.flagvalue = flagvalue
        super().__init__(f"Unknown command line flag '{flagname}'")


class IllegalFlagValueError(Error):
    """A flag's value cannot be parsed, or is out of its bounds or choices."""


class UnparsedFlagAccessError(Error):
    """A flag was read before parsing (only where parsing is not implicit)."""


class Flag:
    """One defined flag: its name, help, default, current value and parser.

    Attributes:
        name: The flag's name.
        help: Its description.
        default: The default value (parsed).
        value: The current value.
        present: How many times the command line set it.
        boolean: Whether it is a boolean flag (``--name`` / ``--noname``).
    """

    def __init__(self, name: str, default: Any, help: str, parse: Callable[[str], Any],
                 boolean: bool = False, multi: bool = False, flag_type: str = "string",
                 location: str = "<unknown>"):
        self.name = name
        self.help = help
        self.parse = parse
        self.boolean = boolean
        self.multi = multi
        self.flag_type = flag_type
        self.location = location
        self.present = 0
        self.default = self._parse_default(default)
        self.value = self.default

    def _parse_default(self, default: Any) -> Any:
        if default is None:
            return None
        if self.multi:
            items = [default] if isinstance(default, str) else list(default)
            return [self.parse(v) if isinstance(v, str) else v for v in items]
        if isinstance(default, str):
            return self.parse(default)
        return default

    def set_from_argument(self, argument: str) -> None:
        """Sets the value from a command-line argument (appends for a multi flag)."""
        try:
            value = self.parse(argument)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={argument}: {e}") from None
        if self.multi:
            if not self.present:
                self.value = []
            self.value.append(value)
        else:
            self.value = value
        self.present += 1


def _parse_bool(argument: str) -> bool:
    text = argument.lower()
    if text in ("true", "t", "1"):
        return True
    if text in ("false", "f", "0"):
        return False
    raise ValueError(("Non-boolean argument to boolean flag", argument))


def _parse_int(argument: str) -> int:
    text = argument.strip()
    lowered = text.lower().lstrip("+-")
    base = 16 if lowered.startswith("0x") else 8 if lowered.startswith("0o") else 10
    return int(text, base)


def _parse_list(argument: str) -> list[str]:
    return [item.strip() for item in argument.split(",")] if argument else []


def _bounded(parse: Callable[[str], Any], lower: Any, upper: Any) -> Callable[[str], Any]:
    if lower is None and upper is None:
        return parse

    def check(argument: str) -> Any:
        value = parse(argument)
        if lower is not None and value < lower:
            raise ValueError(f"{value} is not greater than or equal to {lower}")
        if upper is not None and value > upper:
            raise ValueError(f"{value} is not less than or equal to {upper}")
        return value

    return check


def _enum_parser(enum_values: Sequence[str], case_sensitive: bool) -> Callable[[str], str]:
    choices = list(enum_values)
    if not choices:
        raise ValueError("enum_values cannot be empty")

    def parse(argument: str) -> str:
        if case_sensitive:
            if argument in choices:
                return argument
        else:
            for choice in choices:
                if choice.upper() == argument.upper():
                    return choice
        raise ValueError(f"value should be one of <{'|'.join(choices)}>")

    return parse


class FlagValues:
    """The registry of defined flags and their values (absl's ``FlagValues``).

    Read a flag as an attribute (``FLAGS.steps``). Reading one before the flags are parsed
    parses ``sys.argv`` first, as TensorFlow's wrapper does.
    """

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)

    # -- definition -----------------------------------------------------------------------
    def register(self, flag: Flag) -> None:
        """Adds ``flag``.

        Raises:
            DuplicateFlagError: a flag of that name exists.
        """
        flags = self._flags
        if flag.name in flags:
            first = flags[flag.name]
            raise DuplicateFlagError(
                f"The flag '{flag.name}' is defined twice. First from {first.location}, "
                f"second from {flag.location}. Description from first occurrence: "
                f"{first.help}")
        flags[flag.name] = flag

    # -- parsing --------------------------------------------------------------------------
    def __call__(self, argv: Sequence[str], known_only: bool = False) -> list[str]:
        """Parses ``argv`` (``argv[0]`` is the program) and marks the flags parsed.

        Args:
            argv: The command line.
            known_only: Keep unknown flags in the result instead of raising.

        Returns:
            ``argv[0]`` followed by the arguments that are not (known) flags.

        Raises:
            UnrecognizedFlagError: an unknown flag (unless ``known_only``).
            IllegalFlagValueError: a value cannot be parsed.
            Error: a flag that needs a value is last ("Missing value for flag --n").
        """
        if isinstance(argv, str):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program "
                             "name as the first element.")
        program, args = argv[0], list(argv[1:])
        rest: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                rest.extend(args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, eq, value = body.partition("=")
            flag = self._flags.get(name)
            if flag is None and not eq and name.startswith("no"):
                negated = self._flags.get(name[2:])
                if negated is not None and negated.boolean:
                    negated.set_from_argument("false")
                    continue
            if flag is None:
                if known_only:
                    rest.append(arg)
                    continue
                raise UnrecognizedFlagError(name, value)
            if eq:
                flag.set_from_argument(value)
            elif flag.boolean:
                flag.set_from_argument("true")
            elif i < len(args):
                flag.set_from_argument(args[i])
                i += 1
            else:
                raise Error(f"Missing value for flag {arg}")
        object.__setattr__(self, "_parsed", True)
        return [program, *rest]

    def is_parsed(self) -> bool:
        """Whether the flags were parsed."""
        return self._parsed

    def mark_as_parsed(self) -> None:
        """Marks the flags parsed without parsing anything."""
        object.__setattr__(self, "_parsed", True)

    def unparse_flags(self) -> None:
        """Resets every flag to its default and marks the flags unparsed."""
        for flag in self._flags.values():
            flag.value = flag.default
            flag.present = 0
        object.__setattr__(self, "_parsed", False)

    # -- access ---------------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            self(sys.argv)  # TensorFlow's wrapper parses implicitly on first read
        return flags[name].value

    def __setattr__(self, name: str, value: Any) -> None:
        flags = self._flags
        if name not in flags:
            raise AttributeError(f"Unknown flag '{name}'")
        flags[name].value = value

    def __getitem__(self, name: str) -> Flag:
        return self._flags[name]

    def __contains__(self, name: str) -> bool:
        return name in self._flags

    def __iter__(self):
        return iter(self._flags)

    def __len__(self) -> int:
        return len(self._flags)

    def __dir__(self) -> Iterable[str]:
        return sorted(self._flags)

    def flag_values_dict(self) -> dict[str, Any]:
        """The current value of every flag, by name."""
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name: str, default: Any) -> Any:
        """The value of flag ``name``, or ``default`` if there is no such flag."""
        flag = self._flags.get(name)
        return default if flag is None else flag.value


FLAGS = FlagValues()


def _caller() -> str:
    """The defining module's name, as absl reports it (the script for ``__main__``)."""
    frame = sys._getframe(2)
    name = frame.f_globals.get("__name__", "<unknown>")
    if name == "__main__" and sys.argv:
        return sys.argv[0]
    return name


def _define(flag_values: FlagValues | None, flag: Flag) -> Flag:
    (flag_values if flag_values is not None else FLAGS).register(flag)
    return flag


def DEFINE_string(name: str, default: str | None, help: str,  # noqa: N802
                  flag_values: FlagValues | None = None, **kwargs: Any) -> Flag:
    """Defines a string flag."""
    return _define(flag_values, Flag(name, default, help, str, location=_caller()))


def DEFINE_integer(name: str, default: int | None, help: str,  # noqa: N802
                   lower_bound: int | None = None, upper_bound: int | None = None,
                   flag_values: FlagValues | None = None, **kwargs: Any) -> Flag:
    """Defines an integer flag (optionally bounded)."""
    parse = _bounded(_parse_int, lower_bound, upper_bound)
    return _define(flag_values, Flag(name, default, help, parse, flag_type="int",
                                     location=_caller()))


def DEFINE_float(name: str, default: float | None, help: str,  # noqa: N802
                 lower_bound: float | None = None, upper_bound: float | None = None,
                 flag_values: FlagValues | None = None, **kwargs: Any) -> Flag:
    """Defines a float flag (optionally bounded)."""
    parse = _bounded(float, lower_bound, upper_bound)
    return _define(flag_values, Flag(name, default, help, parse, flag_type="float",
                                     location=_caller()))


def DEFINE_boolean(name: str, default: bool | str | None, help: str,  # noqa: N802
                   flag_values: FlagValues | None = None, **kwargs: Any) -> Flag:
    """Defines a boolean flag (``--name``, ``--noname``, ``--name=false``)."""
    return _define(flag_values, Flag(name, default, help, _parse_bool, boolean=True,
                                     flag_type="bool", location=_caller()))


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name: str, default: Any, help: str,  # noqa: N802
                flag_values: FlagValues | None = None, **kwargs: Any) -> Flag:
    """Defines a flag holding a comma-separated list of strings."""
    return _define(flag_values, Flag(name, default, help, _parse_list, flag_type="list",
                                     location=_caller()))


def DEFINE_enum(name: str, default: str | None, enum_values: Sequence[str],  # noqa: N802
                help: str, flag_values: FlagValues | None = None,
                case_sensitive: bool = True, **kwargs: Any) -> Flag:
    """Defines a string flag restricted to ``enum_values``."""
    parse = _enum_parser(enum_values, case_sensitive)
    return _define(flag_values, Flag(name, default, help, parse, flag_type="enum",
                                     location=_caller()))


def DEFINE_multi_string(name: str, default: Any, help: str,  # noqa: N802
                        flag_values: FlagValues | None = None, **kwargs: Any) -> Flag:
    """Defines a string flag that may be repeated; its value is the list of values."""
    return _define(flag_values, Flag(name, default, help, str, multi=True,
                                     flag_type="multi_string", location=_caller()))


__all__ = [
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_multi_string",
    "DEFINE_string",
    "FLAGS",
    "DuplicateFlagError",
    "Error",
    "Flag",
    "FlagValues",
    "IllegalFlagValueError",
    "UnparsedFlagAccessError",
    "UnrecognizedFlagError",
]
