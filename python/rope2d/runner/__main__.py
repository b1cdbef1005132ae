"""`python3 -m rope2d.runner SOLUTION_DIR ENTRY_POINT DPS WORK_DIR [BUILD_JSON]`: the relay
(relay.py, whose docstring is the usage)."""
import sys

from rope2d.runner.relay import main

sys.exit(main())
