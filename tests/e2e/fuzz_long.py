"""`make fuzz`: schemathesis against a fresh server, every phase, thousands of cases."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.http import Server

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        server = Server("--store", f"sqlite:///{folder}/fuzz.sqlite3", "--bots", "off",
                        "--keepalive", "0.5")
        try:
            return subprocess.call(
                [str(Path(sys.executable).with_name("st")), "--config-file",
                 "tests/e2e/schemathesis.toml", "run", f"{server.base}/openapi.yaml",
                 "--max-examples", os.environ.get("FUZZ_EXAMPLES", "500"), "--workers", "1"],
                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
