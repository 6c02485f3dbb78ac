"""The README's curl block works as written, against a live server: it creates a match,
passes the first three cards of the hand, waits for its turn, plays and reads the log."""

from __future__ import annotations

import re
import subprocess

from harness.http import ROOT


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
