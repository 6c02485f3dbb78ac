"""The access log, when it is asked for (`cardems serve --access-log`): one JSON object per
request on standard output, written by a thread of its own so that no request waits on it.

It is off by default: in front of a deployment a load balancer or proxy logs every request
already, and a line written per request is work on every request's path.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections.abc import MutableMapping
from typing import Any

from gunicorn.glogging import Logger

FLUSH_EVERY = 256  # lines written at once when requests come faster than they are written


class JsonAccessLog(Logger):
    """gunicorn's logger with the access line as JSON, queued for a writer thread."""

    _lines: queue.SimpleQueue[str] | None = None
    _pid = 0

    def access(self, resp: Any, req: Any, environ: MutableMapping[str, Any],
               request_time: Any) -> None:
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "remote": environ.get("REMOTE_ADDR"),
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),  # never the query string: it is the caller's
            "status": getattr(resp, "status_code", None),
            "bytes": getattr(resp, "sent", None),
            "ms": round(request_time.total_seconds() * 1000, 2),
            "request_id": environ.get("cardems.request_id"),
            "match_id": environ.get("cardems.match_id"),
        }
        self._queue().put(json.dumps(entry, separators=(",", ":")))

    def _queue(self) -> queue.SimpleQueue[str]:
        """This process's queue and writer (made again in each forked worker)."""
        if self._lines is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._lines = queue.SimpleQueue()
            threading.Thread(target=_write, args=(self._lines,), daemon=True,
                             name="access-log").start()
        return self._lines


def _write(lines: queue.SimpleQueue[str]) -> None:
    while True:
        batch = [lines.get()]
        while len(batch) < FLUSH_EVERY and not lines.empty():
            batch.append(lines.get())
        sys.stdout.write("\n".join(batch) + "\n")
        sys.stdout.flush()
