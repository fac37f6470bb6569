"""A running recompute's heartbeat: recorded while its block is open, gone after, beaten
by one thread of the process for every open block."""

import os
import time

from django.core.cache import cache

from ratings.recompute import liveness


def beat_of(runner: str) -> liveness.Heartbeat | None:
    return cache.get(f"recompute-runner:{runner}")


def test_a_runner_is_recorded_alive_while_its_block_is_open_and_forgotten_after():
    with liveness.RunnerHeartbeat("worker-host:11"):
        beat = beat_of("worker-host:11")
        assert beat is not None and liveness._fresh(beat)
        cache.delete("recompute-runner:worker-host:11")  # as if it had expired
        liveness._beats().beat_open()  # what the thread does every HEARTBEAT_SECONDS
        assert beat_of("worker-host:11") is not None

    assert beat_of("worker-host:11") is None
    liveness._beats().beat_open()
    assert beat_of("worker-host:11") is None, "no beat of a runner whose block is closed"


def test_the_thread_beats_every_heartbeat_seconds(monkeypatch):
    monkeypatch.setattr(liveness, "HEARTBEAT_SECONDS", 0.01)
    beats = liveness._Beats()  # a thread of its own, sleeping 0.01 s between beats
    beats.open("worker-host:12")
    first = beat_of("worker-host:12")
    assert first is not None

    deadline = time.monotonic() + 5
    while beat_of("worker-host:12") == first and time.monotonic() < deadline:
        time.sleep(0.01)

    later = beat_of("worker-host:12")
    assert later is not None and later["at"] > first["at"]
    beats.close("worker-host:12")
    assert beat_of("worker-host:12") is None


def test_the_beats_of_every_block_come_from_one_thread():
    with liveness.RunnerHeartbeat("worker-host:13"):
        thread = liveness._beats().thread
    with liveness.RunnerHeartbeat("worker-host:14"):
        assert liveness._beats().thread is thread
    assert thread is not None and thread.is_alive()


def test_a_runner_in_two_blocks_stays_recorded_until_the_last_closes():
    with liveness.RunnerHeartbeat("worker-host:15"):
        with liveness.RunnerHeartbeat("worker-host:15"):
            pass
        assert beat_of("worker-host:15") is not None
    assert beat_of("worker-host:15") is None


def test_a_forked_process_starts_beats_of_its_own():
    with liveness.RunnerHeartbeat("worker-host:16"):
        parents = liveness._beats()
        child = os.fork()
        if child == 0:  # pragma: no cover (the child)
            own = liveness._beats()
            os._exit(0 if own is not parents and own.thread is None and not own.blocks else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
