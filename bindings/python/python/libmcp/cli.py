"""``python -m libmcp``: the ``mcp`` command (``bindings/cli``), run by the
extension module: the same verbs, options, output and exit statuses, since
it is the same code.

Exit status: 0 success; 1 the request failed (an error answer, or a tool
result with ``isError``, printed first); 2 a bad command line; 3 no session
(the server could not be started, reached or initialized).
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Optional, Sequence

from . import _libmcp

__all__ = ["main"]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the ``mcp`` command with ``argv`` (default: ``sys.argv[1:]``)
    and returns its exit status. It prints to the process's stdout and
    stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    sys.stderr.flush()
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C then acts as it does on `mcp`: the command's own handler
        # where it has one, otherwise the default (the process ends). Python's
        # handler would only set a flag while the command runs.
        previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            return _libmcp.run_cli(args)
        finally:
            signal.signal(signal.SIGINT, previous)
    return _libmcp.run_cli(args)
