"""The benchmark harness measures what it says (its figures go into docs/performance.md)."""

import sys
from pathlib import Path

import pytest

from bench.__main__ import run_child


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_child_s_peak_memory_is_its_own_not_its_parent_s(tmp_path):
    held = bytearray(150 * 1024 * 1024)  # this process's memory, touched page by page
    held[::4096] = b"\x01" * len(held[::4096])
    child = (
        "import time; x = bytearray(20 << 20); x[::4096] = b'1' * len(x[::4096]); "
        "time.sleep(0.1)"  # the peak is sampled every few milliseconds
    )

    _seconds, peak_kib = run_child([sys.executable, "-c", child], str(tmp_path / "out"), 60)

    assert 20 * 1024 < peak_kib < 100 * 1024
    del held
