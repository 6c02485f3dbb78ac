"""The build's one step beyond pyproject.toml: the rollout, the inner loop of every search
the expert and the analysis make, is compiled to C by mypyc from its own typed source. It
plays card for card as that source does (tests/unit/test_rollout_compiled.py), about twice
as fast (docs/performance.md)."""

from mypyc.build import mypycify
from setuptools import setup

setup(ext_modules=mypycify(["domain/bots/rollout.py"], opt_level="3"))
