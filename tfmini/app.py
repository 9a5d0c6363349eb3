"""``tm.app``: TensorFlow's ``tf.compat.v1.app`` (``tensorflow/python/platform/app.py``).

``run(main)`` parses the command line into ``tm.flags.FLAGS`` (tolerating flags nobody
defined, which stay in ``argv``, as TensorFlow's ``_parse_flags_tolerate_undef`` does), calls
``main(argv)`` with the remaining arguments and exits with its result (``sys.exit``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from tfmini import flags


def run(main: Callable[[list[str]], Any] | None = None,
        argv: Sequence[str] | None = None) -> None:
    """Runs ``main(argv)`` after parsing flags, then exits with its return value.

    Args:
        main: The program's main function (default: ``__main__.main``).
        argv: The command line (default ``sys.argv``).

    Raises:
        SystemExit: always; code 1 after a flag parsing error (printed to stderr, as absl
            does), else ``main``'s result.
    """
    main = main or sys.modules["__main__"].main
    try:
        args = flags.FLAGS(list(sys.argv if argv is None else argv), known_only=True)
    except flags.Error as e:
        print(f"FATAL Flags parsing error: {e}", file=sys.stderr)
        print("Pass --helpshort or --helpfull to see help on flags.", file=sys.stderr)
        sys.exit(1)
    sys.exit(main(args))


__all__ = ["flags", "run"]
