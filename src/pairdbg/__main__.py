"""`python -m pairdbg`: the same as the `pairdbg` command."""

import sys

from pairdbg.cli import main

sys.exit(main())
