"""The README's curl block works as written, against a live server: it creates a match,
passes the first three cards of the hand, waits for its turn, plays and reads the log."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.parse

from harness.http import ROOT, a_move, call, view_when

OVER = ("finished", "abandoned")


def readme_block(heading: str) -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index(heading):]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found, f"no sh block under {heading}"
    return found.group(1)


def test_the_readmes_curl_block_plays_as_written(server):
    script = readme_block("## Playing over HTTP")
    assert script.startswith("BASE=http://127.0.0.1:8000\n")
    script = script.replace("BASE=http://127.0.0.1:8000", f"BASE={server.base}", 1)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # After the hand: the version after the pass, after the play, and the log's.
    passed, played, logged = (int(word) for word in done.stdout.split()[-3:])
    assert 0 < passed < played <= logged, done.stdout


def test_the_readmes_kit_block_plays_its_seat_as_written(server):
    """The Python block beside it: a person plays the seat whose link it prints, and the kit's
    bot plays its own seat to the end."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", text[text.index("## Playing over HTTP"):], re.S)
    assert block and "http://127.0.0.1:8000" in block.group(1)
    script = block.group(1).replace("http://127.0.0.1:8000", server.base)
    kit = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        link = kit.stdout.readline().strip()  # type: ignore[union-attr]
        assert link.startswith(f"{server.base}/m/"), kit.stderr.read()  # type: ignore[union-attr]
        match_id = link.split("/m/")[1].split("#")[0]
        token = urllib.parse.unquote(link.split("#token=")[1])
        while True:  # Ann, in place of the browser: her top three, then her lowest legal card
            view = view_when(server.base, match_id, lambda v: v["status"] in OVER
                             or v["you"]["seat"] in v["to_act"], token=token)
            if view["status"] in OVER:
                break
            path, body = a_move(view)
            reply = call(server.base, "POST", f"/v1/matches/{match_id}/{path}", body,
                         token=token)
            assert reply.status == 200, reply.body
        out, err = kit.communicate(timeout=120)
    finally:
        if kit.poll() is None:
            kit.kill()
    assert kit.returncode == 0, err
    assert out.startswith("finished ["), out
