"""The access log: off by default; with --access-log, one JSON object per request."""

from __future__ import annotations

import json
import subprocess
import sys

from harness.http import ROOT, call, free_port, wait_until


def serve(tmp_path, *flags: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--store",
         f"sqlite:///{tmp_path / 'log.sqlite3'}", *flags], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return call(base, "GET", "/healthz").status == 200
        except OSError:
            return False

    wait_until(up, timeout=30)
    return process, base


def stop(process: subprocess.Popen) -> str:
    process.terminate()
    out, _ = process.communicate(timeout=30)
    return out


def test_with_the_flag_each_request_is_one_json_line(tmp_path):
    process, base = serve(tmp_path, "--access-log")
    try:
        reply = call(base, "GET", "/v1/matches/nope?secret=1",
                     headers={"X-Request-ID": "req-42"})
        assert reply.status == 404
        made = call(base, "GET", "/healthz").headers["x-request-id"]
    finally:
        out = stop(process)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    mine = [line for line in lines if line["request_id"] == "req-42"]
    assert len(mine) == 1
    assert mine[0]["path"] == "/v1/matches/nope" and mine[0]["status"] == 404
    assert mine[0]["method"] == "GET" and mine[0]["ms"] >= 0
    assert mine[0]["match_id"] == "nope"
    assert [line["path"] for line in lines if line["request_id"] == made] == ["/healthz"]
    assert "secret" not in out


def test_without_it_requests_are_not_logged(tmp_path):
    process, base = serve(tmp_path)
    try:
        assert call(base, "GET", "/healthz").status == 200
    finally:
        out = stop(process)
    assert "/healthz" not in out
