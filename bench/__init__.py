"""Benchmarks: ``python -m bench`` (``make bench``); see docs/performance.md."""
