"""The build's one step beyond pyproject.toml: the inner loop of every search the expert and
the analysis make (the rollout, and the dealing of the unseen cards) is compiled to C by
mypyc from its own typed source. It plays and deals card for card as that source does
(tests/unit/test_compiled.py), in about half the time (docs/performance.md)."""

from mypyc.build import mypycify
from setuptools import setup

# Each module its own library, beside its source, rather than one shared at the top level.
COMPILED = ["domain/bots/rollout.py", "domain/bots/sampling.py"]

setup(ext_modules=mypycify(COMPILED, opt_level="3", separate=True))
