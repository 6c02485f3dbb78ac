"""The long load runs of the whole deployment (harness/load.py): `bench load`, hundreds
of people and tables of bots for five minutes while an API process, a worker and a Redis
master are killed; `bench soak`, thirty minutes without faults, with the memory of every
process read each half minute, and the latency and memory over time drawn to
docs/img/soak.png."""

from __future__ import annotations

import csv
import shutil
import tempfile
import threading
import time
from pathlib import Path

from harness.http import call, children, resident_mib
from harness.load import (
    Deployment,
    Run,
    figures,
    finish_every_match,
    missing_acknowledged_moves,
    run_load,
)

ROOT = Path(__file__).resolve().parents[1]


def _checks(deployment: Deployment, run: Run) -> None:
    missing = missing_acknowledged_moves(deployment.store_url, run)
    finals = finish_every_match(deployment.server.base, run, timeout=900)
    broken = [f["id"] for f in finals
              if not call(deployment.server.base, "GET", f"/v1/matches/{f['id']}/verify")
              .body["ok"]]
    print(f"  after: {len(run.records('acks.jsonl'))} acknowledged moves, {len(missing)}"
          f" missing from the logs; {len(finals)} matches all finished;"
          f" {len(broken)} failing verification")


def load(users: int = 200, seconds: int = 300) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cardems-load-"))
    deployment = Deployment(folder / "deploy", api_processes=2, workers=2)
    try:
        print(f"load: {users} people (a quarter of them watching tables of bots alone) for"
              f" {seconds} s through a 3+3 cluster, a queue Redis, 2 API processes and"
              " 2 workers; kill -9 of an API process, a worker and a Redis master")
        run = run_load(deployment, folder, users, seconds, faults=[
            (0.2, deployment.kill_api_process), (0.45, deployment.kill_worker),
            (0.7, deployment.kill_master)])
        print(figures(run))
        _checks(deployment, run)
    finally:
        deployment.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _memory(deployment: Deployment) -> dict[str, float]:
    """Resident memory (MiB) of every process of the deployment."""
    pids = {"API master": deployment.server.process.pid}
    for i, pid in enumerate(children(deployment.server.process.pid)):
        pids[f"API process {i + 1}"] = pid
    for i, worker in enumerate(deployment.workers):
        pids[f"worker {i + 1}"] = worker.pid
    nodes = [*deployment.cluster.nodes, deployment.queue]
    for i, node in enumerate(nodes):
        assert node.process is not None
        name = "queue Redis" if node is deployment.queue else f"cluster node {i + 1}"
        pids[name] = node.process.pid
    readings = {name: resident_mib(pid) for name, pid in pids.items()}
    return {name: mib for name, mib in readings.items() if mib is not None}  # none if gone


MEMORY_EVERY = 30.0  # seconds between two readings of every process's memory


class MemoryLog:
    """Every process's resident memory, read every MEMORY_EVERY seconds on a thread of its
    own until stopped: whether a process's memory levels off shows only over the run."""

    def __init__(self, deployment: Deployment) -> None:
        self._deployment = deployment
        self._stop = threading.Event()
        self._start = time.monotonic()
        self.readings: list[tuple[float, dict[str, float]]] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            minutes = (time.monotonic() - self._start) / 60
            self.readings.append((minutes, _memory(self._deployment)))
            if self._stop.wait(MEMORY_EVERY):
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.readings.append(((time.monotonic() - self._start) / 60,
                              _memory(self._deployment)))

    def report(self) -> str:
        """Per process: at the start, the end, the least and the most, and the minute from
        which it stayed level (see _levelled_at)."""
        lines = []
        for name in self.readings[0][1]:
            series = [(m, r[name]) for m, r in self.readings if name in r]
            values = [v for _, v in series]
            level = _levelled_at(series)
            lines.append(f"  memory {name:15s} {values[0]:7.1f} MiB at the start,"
                         f" {values[-1]:7.1f} at the end (least {min(values):.1f}, most"
                         f" {max(values):.1f}); level from minute {level:.1f}")
        return "\n".join(lines)


def _levelled_at(series: list[tuple[float, float]]) -> float:
    """The first minute after which the memory stays within a tenth of the run's whole gain
    (or within 1 MiB, for a process that hardly grew) of its final reading."""
    final = series[-1][1]
    margin = max(1.0, 0.1 * (final - series[0][1]))
    level = series[-1][0]
    for minute, value in reversed(series):
        if abs(value - final) > margin:
            break
        level = minute
    return level


def soak(users: int = 80, seconds: int = 1800, chart: str = "docs/img/soak.png") -> None:
    folder = Path(tempfile.mkdtemp(prefix="cardems-soak-"))
    deployment = Deployment(folder / "deploy", api_processes=2, workers=2)
    try:
        print(f"soak: {users} people for {seconds // 60} minutes, no faults")
        time.sleep(5)  # the processes settle after their start
        memory = MemoryLog(deployment)
        try:
            run = run_load(deployment, folder, users, seconds, faults=[], history=True)
        finally:
            memory.stop()
        print(figures(run))
        print(memory.report())
        _draw(folder / "load_stats_history.csv", memory.readings, ROOT / chart)
        print(f"  chart: {chart}")
        _checks(deployment, run)
    finally:
        deployment.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _draw(history: Path, memory: list[tuple[float, dict[str, float]]], path: Path) -> None:
    """Latency percentiles and failures over the run, from locust's history of all requests,
    and the memory of the serving and bot processes."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    with history.open() as rows:
        points = [r for r in csv.DictReader(rows) if r["Name"] == "Aggregated"
                  and r["50%"] not in ("N/A", "0")]
    start = int(points[0]["Timestamp"])
    minutes = [(int(r["Timestamp"]) - start) / 60 for r in points]
    figure, (latency, failures, resident) = pyplot.subplots(
        3, 1, figsize=(8, 7), sharex=True, height_ratios=(3, 1, 2))
    for column in ("50%", "95%", "99%"):
        latency.plot(minutes, [float(r[column]) for r in points], label=f"p{column[:-1]}")
    latency.set_ylabel("latency (ms)")
    latency.legend()
    latency.set_title("Soak: every request's latency, the failures and the memory over time")
    failures.plot(minutes, [float(r["Total Failure Count"]) for r in points], color="#c0504d")
    failures.set_ylabel("failed (total)")
    for name in memory[0][1]:
        if name.startswith(("API", "worker", "queue")):
            resident.plot([m for m, _ in memory], [r.get(name, float("nan")) for _, r in memory],
                          label=name)
    resident.set_ylabel("memory (MiB)")
    resident.legend(fontsize="small", ncol=3)
    resident.set_xlabel("minutes")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    pyplot.close(figure)


def main() -> None:
    load()


if __name__ == "__main__":
    main()
