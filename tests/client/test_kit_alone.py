"""The kit as a bot author gets it: built into a wheel and installed with pip in a fresh
virtual environment, with none of the server's packages. Its command creates a match, and three
of its bots, each a process of its own (two of them the bot of docs/clients.md, as written), play
it to the end beside one of the service's bots."""

from __future__ import annotations

import json
import subprocess
import sys
import venv

import pytest

from harness.http import ROOT, call, wait_until

WHEEL_TIMEOUT = 300


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """The fresh environment's bin folder, with cardems-client and its dependencies alone."""
    folder = tmp_path_factory.mktemp("kit")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(folder / "dist"),
                    str(ROOT / "client")], check=True, timeout=WHEEL_TIMEOUT, cwd=folder)
    wheel = next((folder / "dist").glob("cardems_client-*.whl"))
    venv.create(folder / "venv", with_pip=True)
    bin_ = folder / "venv" / "bin"
    subprocess.run([str(bin_ / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", str(wheel)],
                   check=True, timeout=WHEEL_TIMEOUT, cwd=folder)
    return bin_


def run(kit, *args, cwd):
    env = {"PATH": f"{kit}:/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run([str(kit / "cardems-client"), *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=env)


def test_the_kit_installs_alone(kit, tmp_path):
    installed = subprocess.run([str(kit / "python"), "-m", "pip", "list", "--format", "json"],
                               capture_output=True, text=True, check=True, cwd=tmp_path)
    names = {p["name"].lower() for p in json.loads(installed.stdout)}
    assert "cardems-client" in names and "httpx" in names and "httpx-sse" in names
    assert not names & {"cardems", "flask", "marshmallow", "redis", "rq", "gunicorn"}
    lonely = subprocess.run([str(kit / "python"), "-c", "import domain"], capture_output=True,
                            cwd=tmp_path)
    assert lonely.returncode != 0, "the server's packages must not be reachable"


def the_docs_bot() -> str:
    """The bot of docs/clients.md, as written there."""
    block = (ROOT / "docs" / "clients.md").read_text().split("```python\n")[1]
    assert block.startswith("# mybot.py"), "the page's first Python block is the bot"
    return block.split("```")[0]


def test_three_kit_bots_and_a_service_bot_play_a_whole_match(kit, server, tmp_path):
    (tmp_path / "mybot.py").write_text(the_docs_bot())
    created = run(kit, "new", server.base, "Ann", "Bob", "Cid", "Hal=heuristic",
                  "--rules", '{"end_score": 40}', "--json", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    match = json.loads(created.stdout)
    assert sorted(match["tokens"]) == ["0", "1", "2"]
    assert match["links"]["0"].startswith(f"{server.base}/m/{match['id']}#token=")
    env = {"PATH": f"{kit}:/usr/bin:/bin", "HOME": str(tmp_path)}
    bots = {"0": "mybot:Shedder", "1": "cardems_client.bots:LowestCard", "2": "mybot:Shedder"}
    players = [subprocess.Popen(
        [str(kit / "cardems-client"), "play", server.base, match["id"], "--bot", bot],
        env={**env, "CARDEMS_TOKEN": match["tokens"][seat]}, cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seat, bot in bots.items()]
    try:  # a bot that fails leaves the others waiting for its seat: stop at the first
        wait_until(lambda: all(p.poll() is not None for p in players)
                   or any(p.poll() for p in players), timeout=300, every=0.2)
    finally:
        for player in players:
            if player.poll() is None:
                player.kill()
    outputs = [player.communicate() for player in players]
    for player, (out, err) in zip(players, outputs, strict=True):
        assert player.returncode == 0, err
        assert out.splitlines()[-1].startswith("finished: seat "), out
        assert "round 1: pass " in out and "round 1: play " in out
    final = call(server.base, "GET", f"/v1/matches/{match['id']}").body
    assert final["status"] == "finished"
    assert final["seats"][3]["bot"] == "heuristic"
    report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
    assert report["ok"] and report["deals_ok"], report


def test_the_command_prints_each_seats_link_and_refuses_plainly(kit, server, tmp_path):
    created = run(kit, "new", server.base, "Ann", "Bob", "Cid", "Dee=expert", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    lines = created.stdout.splitlines()
    assert lines[0].startswith("match ") and lines[1].startswith(f"watch: {server.base}/m/")
    assert "#token=" in lines[2] and lines[2].startswith("seat 0 Ann: ")
    assert lines[5] == "seat 3 Dee: the service's expert bot"
    two = run(kit, "new", server.base, "Ann", "Bob", cwd=tmp_path)
    assert two.returncode == 1 and "invalid_request" in two.stderr
    assert "Traceback" not in two.stderr
    tokenless = run(kit, "play", server.base, "some-match", cwd=tmp_path)
    assert tokenless.returncode == 2 and "token" in tokenless.stderr
    unknown = run(kit, "play", server.base, "some-match", "--token", "t", "--bot",
                  "nowhere:Bot", cwd=tmp_path)
    assert unknown.returncode == 2 and "nowhere" in unknown.stderr
