"""``python -m tfmini``: the same as the ``tfmini`` command."""

import sys

from tfmini.cli import main

sys.exit(main())
