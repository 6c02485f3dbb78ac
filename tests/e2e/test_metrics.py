"""Metrics in Prometheus's text format on the operator's port alone, summed over gunicorn's
processes; request ids."""

from __future__ import annotations

import http.client
import re

import psutil
from prometheus_client.parser import text_string_to_metric_families

from harness.http import Server, call, free_port, wait_until


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    reply = call(base, "GET", "/metrics")
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(reply.body):
        for sample in family.samples:
            out[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return out


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_appends_bots_and_streams_by_route_never_by_match(tmp_path):
    port = free_port()
    server = Server("--store", f"sqlite:///{tmp_path / 'metrics.sqlite3'}", "--workers", "2",
                    "--pace", "0", "--metrics-port", str(port))
    operator = f"http://127.0.0.1:{port}"
    try:
        for _ in range(40):  # each on a connection of its own: both processes answer some
            assert call(server.base, "GET", "/healthz").status == 200
        seats = [{"name": "Ann"}, *({"name": f"b{i}", "bot": "heuristic"} for i in range(3))]
        match = call(server.base, "POST", "/v1/matches", {"seats": seats}).body
        token = match["tokens"]["0"]
        view = call(server.base, "GET", f"/v1/matches/{match['id']}", token=token).body
        call(server.base, "POST", f"/v1/matches/{match['id']}/passes",
             {"cards": view["you"]["hand"][:3]}, token=token)
        wait_until(lambda: 0 in call(server.base, "GET",
                                     f"/v1/matches/{match['id']}").body["to_act"]
                   and call(server.base, "GET", f"/v1/matches/{match['id']}").body["status"]
                   == "playing")
        stream = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        stream.request("GET", f"/v1/matches/{match['id']}/events/stream")
        assert stream.getresponse().status == 200
        samples = wait_until(lambda: (s := scrape(operator)) and value(
            s, "cardems_open_streams", kind="events") == 1 and s)
        healthz = value(samples, "cardems_http_requests_total", route="/healthz",
                        method="GET", status="200")
        assert healthz >= 40
        assert value(samples, "cardems_appends_total", store="sqlite", outcome="ok") >= 4
        assert value(samples, "cardems_bot_decision_seconds_count", level="heuristic") >= 3
        assert value(samples, "cardems_http_request_seconds_count", route="/healthz",
                     method="GET") >= 40
        # Each process publishes its live gauges every few seconds; the master sums them.
        wait_until(lambda: ("cardems_bot_turns_pending", ()) in scrape(operator))
        stream.close()
        wait_until(lambda: value(scrape(operator), "cardems_open_streams",
                                 kind="events") == 0)
        text = call(operator, "GET", "/metrics").body
        assert match["id"] not in text and token not in text
        assert re.search(r'route="/v1/matches/<match_id>"', text)
    finally:
        server.stop()


def test_the_api_port_serves_no_metrics_and_the_operator_port_listens_on_loopback(tmp_path):
    """A bot's thinking time tells whether it had a choice: a poller of the API must find
    no figure at all, and the operator's port must not be reachable from elsewhere."""
    port = free_port()
    server = Server("--store", f"sqlite:///{tmp_path / 'hidden.sqlite3'}", "--workers", "2",
                    "--pace", "0", "--metrics-port", str(port))
    try:
        seats = [{"name": f"b{i}", "bot": "expert"} for i in range(4)]
        match = call(server.base, "POST", "/v1/matches", {"seats": seats}).body
        wait_until(lambda: call(server.base, "GET",
                                f"/v1/matches/{match['id']}").body["version"] > 20)
        for path in ("/metrics", "/metrics/", "/v1/metrics"):
            reply = call(server.base, "GET", path)
            assert reply.status == 404, path
            assert "cardems_bot_decision_seconds" not in str(reply.body)
        assert "cardems_bot_decision_seconds" in call(f"http://127.0.0.1:{port}", "GET",
                                                      "/metrics").body
        listening = {c.laddr for p in [psutil.Process(server.process.pid)]
                     for c in p.net_connections("tcp") if c.status == psutil.CONN_LISTEN}
        assert ("127.0.0.1", port) in listening
        assert all(addr.ip in ("127.0.0.1", "::1") for addr in listening if addr.port == port)
    finally:
        server.stop()


def test_made_up_methods_and_paths_add_no_series(tmp_path):
    """Every label takes one of a few known values: a client sending made-up methods and
    paths cannot grow the metrics for good."""
    port = free_port()
    server = Server("--store", f"sqlite:///{tmp_path / 'labels.sqlite3'}", "--workers", "2",
                    "--metrics-port", str(port))
    operator = f"http://127.0.0.1:{port}"
    try:
        def made_up(count: int, tag: str) -> None:
            for i in range(count):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                word = "".join(chr(65 + int(d)) for d in str(i))  # gunicorn takes A-Z only
                conn.request(f"M{tag.upper()}{word}X", f"/nowhere/{tag}{i}")
                assert conn.getresponse().status in (404, 405)
                conn.close()

        made_up(20, "a")
        before = wait_until(lambda: (text := call(operator, "GET", "/metrics").body)
                            and 'method="other"' in text and text)
        made_up(300, "b")
        after = call(operator, "GET", "/metrics").body
        assert "MBBX" not in after and "/nowhere" not in after
        assert len(after) - len(before) < 2000, "no series per method or path"
        other = scrape(operator)
        assert sum(v for (name, labels), v in other.items()
                   if name == "cardems_http_requests_total"
                   and ("method", "other") in labels) >= 320
    finally:
        server.stop()


def test_no_metrics_port_unless_asked(tmp_path):
    server = Server("--store", f"sqlite:///{tmp_path / 'none.sqlite3'}")
    try:
        listening = {c.laddr.port for c in psutil.Process(server.process.pid)
                     .net_connections("tcp") if c.status == psutil.CONN_LISTEN}
        assert listening == {server.port}
        assert call(server.base, "GET", "/metrics").status == 404
    finally:
        server.stop()


def test_a_request_id_is_echoed_or_made(tmp_path):
    server = Server("--store", f"sqlite:///{tmp_path / 'ids.sqlite3'}")
    try:
        given = call(server.base, "GET", "/healthz", headers={"X-Request-ID": "abc-123"})
        assert given.headers["x-request-id"] == "abc-123"
        made = call(server.base, "GET", "/healthz")
        assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])
        odd = call(server.base, "GET", "/healthz", headers={"X-Request-ID": "<script>"})
        assert re.fullmatch(r"[0-9a-f]{32}", odd.headers["x-request-id"])
    finally:
        server.stop()


def _count_in(folder: str, times: int) -> None:
    from service import metrics

    metrics.use_folder(folder)
    for _ in range(times):
        metrics.REQUESTS.labels("/healthz", "GET", "200").inc()


def test_counts_of_several_processes_meet_in_one_scrape(tmp_path):
    """What `cardems serve` sets up for gunicorn's processes, with two processes of our own:
    each counts into the folder, and a scrape from a third sums them."""
    import multiprocessing
    import subprocess
    import sys

    spawn = multiprocessing.get_context("spawn")
    folder = str(tmp_path)
    procs = [spawn.Process(target=_count_in, args=(folder, n)) for n in (3, 4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    code = (f"from service import metrics; metrics.use_folder({folder!r});"
            " print(metrics.exposition().decode())")
    text = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout
    assert 'cardems_http_requests_total{method="GET",route="/healthz",status="200"} 7.0' in text


def test_the_dashboard_asks_only_for_metrics_that_are_served():
    import json

    from harness.http import ROOT

    board = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    asked = {name for panel in board["panels"] for target in panel["targets"]
             for name in re.findall(r"cardems_[a-z_]+", target["expr"])}
    from service import metrics

    served = {"cardems_bot_turns_queued", "cardems_bot_turns_pending"}
    for metric in (metrics.REQUESTS, metrics.APPENDS, metrics.RATE_LIMITED):
        served.add(metric._name + "_total")
    for metric in (metrics.LATENCY, metrics.BOT_DECISIONS):
        served.add(metric._name + "_bucket")
    served.add(metrics.OPEN_STREAMS._name)
    assert asked and asked <= served, asked - served
