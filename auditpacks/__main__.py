"""``python -m auditpacks``: the ``auditpacks`` command."""

import sys

from auditpacks.runner.cli.main import main

sys.exit(main())
