"""The short load with faults: people and bots through the whole deployment (a 3+3 Redis
Cluster, a queue Redis, two API processes, two workers) while an API process, a worker and
a Redis master are each killed with kill -9; then every acknowledged move is in the log,
every match finishes and every chain verifies."""

from __future__ import annotations

import pytest

from harness.http import call
from harness.load import (
    Deployment,
    figures,
    finish_every_match,
    missing_acknowledged_moves,
    run_load,
)


@pytest.fixture
def deployment(tmp_path):
    deployment = Deployment(tmp_path / "deploy")
    yield deployment
    deployment.stop()


def test_load_with_an_api_process_a_worker_and_a_redis_master_killed(deployment, tmp_path):
    run = run_load(deployment, tmp_path, users=24, seconds=45, faults=[
        (0.25, deployment.kill_api_process), (0.45, deployment.kill_worker),
        (0.65, deployment.kill_master)])
    print(figures(run))
    stats = {row["Name"]: row for row in run.stats()}
    assert int(stats["Aggregated"]["Request Count"]) > 1000, "the load was real"
    acks = run.records("acks.jsonl")
    assert len(acks) > 200 and len(run.faults) == 3
    assert missing_acknowledged_moves(deployment.store_url, run) == []
    finals = finish_every_match(deployment.server.base, run)
    assert len(finals) == len(run.records("matches.jsonl")) > 24
    assert {len(f["seats"]) for f in finals} == {3, 4, 5, 6}
    for final in finals:
        report = call(deployment.server.base, "GET", f"/v1/matches/{final['id']}/verify").body
        assert report["ok"] and report["chain_ok"] and report["replay_ok"], report
        assert report["deals_ok"] is True, report
