"""A wheel built from the source and installed in a fresh virtual environment serves the
contract and its browsable page, its compiled modules compiled: nothing it needs is left
behind in the source tree."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

from harness.http import ROOT, Server, call


def test_an_installed_wheel_serves_the_contract_and_its_page(tmp_path):
    source = tmp_path / "source"  # the tracked files only: no build left over from before
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "data", "*.egg-info", "__pycache__", ".pytest_cache"),
        symlinks=True)
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(dist), str(source)],
                   check=True, timeout=300, cwd=tmp_path)
    wheel = next(dist.glob("cardems-*.whl"))
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=False)
    python = fresh / "bin" / "python"
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                             "['purelib'])"], capture_output=True, text=True, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", target.stdout.strip(), str(wheel)], check=True, timeout=300)
    # The wheel's own code, with the libraries it depends on taken from this environment
    # (not from the source tree, which must stay out of the way: cwd elsewhere).
    libraries = os.pathsep.join(site.getsitepackages())
    env = {"PYTHONPATH": libraries, "PATH": os.environ.get("PATH", "")}
    server = Server("--store", f"sqlite:///{tmp_path / 'events.sqlite3'}", "--bots", "off",
                    python=str(python), cwd=tmp_path, env=env, clean_env=True)
    try:
        where = subprocess.run([str(python), "-c", "import api; print(api.__file__)"],
                               capture_output=True, text=True, env=env, cwd=tmp_path)
        assert Path(where.stdout.strip()).is_relative_to(fresh), where.stdout + where.stderr
        # The search's inner loop ships compiled, and runs so from the wheel.
        built = subprocess.run([str(python), "-c", "import domain.bots.rollout as r, "
                                "domain.bots.sampling as s; print(r.__file__); print(s.__file__)"],
                               capture_output=True, text=True, env=env, cwd=tmp_path)
        assert len(built.stdout.split()) == 2, built
        for module in built.stdout.split():
            assert Path(module).is_relative_to(fresh) and module.endswith(".so"), built
        spec = call(server.base, "GET", "/openapi.yaml")
        assert spec.status == 200 and spec.body.startswith("openapi:")
        page = call(server.base, "GET", "/docs/")
        assert page.status == 200 and "swagger" in page.body.lower()
        assert served_web_files(server.base) >= {"/web/js/table.js", "/web/js/start.js",
                                                 "/web/js/stream.js", "/web/cardems.css"}
    finally:
        server.stop()


def served_web_files(base: str) -> set[str]:
    """Every file the two pages load, followed through the modules' imports; each must be
    served from the installed package."""
    seen: set[str] = set()
    waiting = ["/", "/m/some-match"]
    while waiting:
        path = waiting.pop()
        reply = call(base, "GET", path)
        assert reply.status == 200, path
        seen.add(path)
        folder = path.rsplit("/", 1)[0]
        for found in re.findall(r'(?:src|href)="(/web/[^"]+)"|from "\./([^"]+)"', reply.body):
            link = found[0] or f"{folder}/{found[1]}"
            if link not in seen:
                waiting.append(link)
    return seen
