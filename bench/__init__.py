"""Benchmarks that print figures; run with `python -m bench [name ...]`."""
