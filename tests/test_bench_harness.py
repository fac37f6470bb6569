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


def test_the_cli_ratio_times_each_command_and_its_ratio_to_the_float_script(tmp_path, capsys):
    from bench.cli_ratio import main as cli_ratio
    from bench.generate import main as generate

    games = tmp_path / "games.csv"
    generate(["--games", "300", "--players", "20", "--years", "1", str(games)])
    capsys.readouterr()

    assert cli_ratio([str(games), "--rounds", "2"]) == 0

    report = capsys.readouterr().out
    assert report.count("round ") == 2
    (sagc,) = [line for line in report.splitlines() if line.strip().startswith("sagc:")]
    ratios = sagc.split("/ float: ")[1].split(";")[0].split(", ")
    assert len(ratios) == 2 and all(float(ratio) > 0 for ratio in ratios)
    assert "/ float, cycle collector off: " in sagc
