"""The recompute: which algorithms are maintained and which places are dirty (dirty.py),
the runner that takes the mark, replays and writes in one transaction and tells the
pages (run.py), the replay of a per-game history (replay.py) with its checkpoints
(checkpoints.py), the pass of a holistic algorithm (holistic.py), the current ratings
and month ends both end with (current.py, month_ends.py), bulk row writes (bulk.py,
staging.py), progress and worker liveness in the cache (progress.py, liveness.py). The
Celery tasks stay in ratings/tasks.py (their names are in queued messages)."""
