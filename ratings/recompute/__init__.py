"""The recompute: which algorithms are maintained and which dates are dirty (dirty.py), the
run that replays from the earliest dirty date with its checkpoints and stored rows
(run.py), bulk row writes (bulk.py), progress and worker liveness in the cache
(progress.py, liveness.py). The Celery tasks stay in ratings/tasks.py (their names are
in queued messages)."""
