"""`make deploy`'s Procfile under honcho: every piece starts, a match of bots plays to its
end through the API processes and the RQ workers, and a SIGTERM stops every piece."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from harness.http import ROOT, call, children, free_port, wait_until


def test_the_deployment_starts_plays_a_match_and_stops_every_piece(tmp_path):
    data = tmp_path / "deploy"
    for part in ("store", "queue"):
        (data / part).mkdir(parents=True)
    port, metrics_port = free_port(), free_port()
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "DATA": str(data),
           "API_PORT": str(port), "STORE_PORT": str(free_port()),
           "QUEUE_PORT": str(free_port()), "BOT_PACE": "0", "METRICS_PORT": str(metrics_port)}
    honcho = subprocess.Popen([str(bin_dir / "honcho"), "start", "-f", "deploy/Procfile",
                               "-c", "worker=2"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        def up() -> bool:
            try:
                return call(base, "GET", "/healthz").body == {
                    "status": "ok", "store": "redis", "bots": "rq"}
            except OSError:
                return False

        wait_until(up, timeout=60)
        pieces = children(honcho.pid)
        assert len(pieces) == 5  # two Redis servers, the API's master, two workers
        seats = [{"name": f"b{i}", "bot": "random"} for i in range(4)]
        match = call(base, "POST", "/v1/matches", {"seats": seats,
                                                     "rules": {"end_score": 10}}).body
        wait_until(lambda: call(base, "GET", f"/v1/matches/{match['id']}").body["status"]
                   == "finished", timeout=120)
        assert call(base, "GET", f"/v1/matches/{match['id']}/verify").body["ok"]
        assert "cardems_appends_total" in call(f"http://127.0.0.1:{metrics_port}", "GET",
                                               "/metrics").body
        assert list((data / "store").rglob("*.aof")), "the store's Redis keeps its log on disk"
        everyone = pieces + [grandchild for pid in pieces for grandchild in children(pid)]
    finally:
        honcho.send_signal(signal.SIGTERM)
        honcho.wait(timeout=60)
    still = [pid for pid in everyone if Path(f"/proc/{pid}").exists()
             and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]
    assert still == [], "every piece stopped with honcho"
