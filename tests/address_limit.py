"""Imported by a zygote (tests/crash_runner.py, as one of its ``preload`` modules): limits the
zygote's address space to ``PBEM_TEST_ADDRESS_SPACE`` bytes (RLIMIT_AS, hard and soft), and so
that of every command it forks, which inherits the limit with the zygote's memory."""
from __future__ import annotations

import os
import resource

LIMIT = int(os.environ["PBEM_TEST_ADDRESS_SPACE"])
resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
