"""Schemathesis against the running server: every operation, every check, stateful links.

A longer run (thousands of cases, the exhaustive coverage phase too) is `make fuzz`.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.http import Server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def quiet_server(tmp_path_factory):
    """Bots stay still here: the fuzzer creates many bot matches that would otherwise all be
    played out in the background while it runs."""
    store = tmp_path_factory.mktemp("fuzz") / "cardems.sqlite3"
    server = Server("--store", f"sqlite:///{store}", "--bots", "off", "--keepalive", "0.5")
    yield server
    server.stop()


def test_the_running_api_keeps_its_contract_under_fuzzing(quiet_server):
    server = quiet_server
    st = Path(sys.executable).with_name("st")
    result = subprocess.run(
        [str(st), "--config-file", "tests/e2e/schemathesis.toml", "run",
         f"{server.base}/openapi.yaml", "--phases", "examples,fuzzing,stateful",
         "--max-examples", "25", "--workers", "1", "--seed", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=480,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert counts and int(counts[1]) == int(counts[2]) > 100, result.stdout[-3000:]
