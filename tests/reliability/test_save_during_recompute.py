"""On the embedded set-up (SQLite), a sheet saved while a recompute replays commits at
once: the recompute holds the database's write lock only while it writes."""

import json
import subprocess

from .helpers import embedded_environment, python

SETUP = """
import django
django.setup()
from datetime import date, timedelta
from players.services.games import record_sheet_submit
from tests import factories
vera = factories.volunteer()
players = [factories.player(f"p{n}", f"{10 + n}k") for n in range(8)]
record_sheet_submit(
    user=vera,
    allow_duplicates=True,
    games=[
        factories.game(players[n % 8], players[(n + 3) % 8], "WB"[n % 2],
                       date(2023, 1, 1) + timedelta(n))
        for n in range(400)
    ],
)
"""

# A recompute that pauses in the middle of its replay until the file named by its
# argument appears (the first replay only), then reports what it replayed.
PAUSED_RECOMPUTE = """
import json, pathlib, sys, time, django
django.setup()
from ratings.recompute import replay, run
go_on = pathlib.Path(sys.argv[1])
real_rated_units = replay.rated_units
replays = []
def rated_units_pausing_once(*args, **kwargs):
    replays.append(1)
    for number, rated in enumerate(real_rated_units(*args, **kwargs)):
        if number == 100 and len(replays) == 1:
            print("replaying", flush=True)
            deadline = time.monotonic() + 120
            while not go_on.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        yield rated
replay.rated_units = rated_units_pausing_once
results = run.recompute_pending(["sagc"])
print(json.dumps({"replays": len(replays), "rows": [result.rows for result in results]}))
"""

SAVE = """
import json, time, django
django.setup()
from datetime import date
from players.models import Player
from players.services.games import record_sheet_submit
from tests import factories
from django.contrib.auth import get_user_model
vera = get_user_model().objects.get(username="vera")
white, black = Player.objects.get(username="p1"), Player.objects.get(username="p2")
started = time.monotonic()
record_sheet_submit(user=vera, games=[factories.game(white, black, "B", date(2024, 6, 1))])
print(json.dumps({"seconds": time.monotonic() - started}))
"""

CHECK = """
import json, django
django.setup()
from players.models import Game
from ratings.models import RecomputeState
from tests.reliability.helpers import mismatches
state = RecomputeState.objects.get(algorithm="sagc")
print(json.dumps({
    "games": Game.objects.count(),
    "dirty_from": str(state.dirty_from),
    "mismatches": mismatches("sagc"),
}))
"""


def test_a_sheet_saved_during_a_recompute_commits_without_waiting_for_it(tmp_path):
    env = embedded_environment(tmp_path, RATINGS_ALGORITHMS="sagc")
    for command in (["manage.py", "migrate", "--noinput", "-v0"], ["-c", SETUP]):
        subprocess.run([python(), *command], env=env, check=True, timeout=300)
    go_on = tmp_path / "go-on"
    recompute = subprocess.Popen(
        [python(), "-c", PAUSED_RECOMPUTE, str(go_on)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = recompute.stdout.readline()
        assert line.strip() == "replaying", recompute.stderr.read()

        # Under the old one-transaction recompute this waited for the busy timeout (a
        # minute) and failed with "database is locked". The save's own time is checked
        # below; the process's includes starting Django (8 s on a loaded machine).
        saved = subprocess.run(
            [python(), "-c", SAVE], env=env, capture_output=True, text=True, timeout=110
        )
        assert saved.returncode == 0, saved.stderr
        assert recompute.poll() is None, "the recompute was still replaying"
    finally:
        go_on.touch()
    out, err = recompute.communicate(timeout=120)
    assert recompute.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    seconds = json.loads(saved.stdout.strip().splitlines()[-1])["seconds"]
    print(f"the save took {seconds:.2f} s while the recompute was paused mid-replay")
    assert seconds < 10  # a save's own work (the pause lasts up to two minutes)

    # The paused replay read the database before the save: its rows before the saved
    # game's date went in (all 800, up to the checkpoint at the end of the history),
    # and the recompute went on from there with the saved game alone.
    assert report == {"replays": 2, "rows": [2]}
    check = subprocess.run(
        [python(), "-c", CHECK], env=env, capture_output=True, text=True, timeout=120
    )
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout.strip().splitlines()[-1]) == {
        "games": 401,
        "dirty_from": "None",
        "mismatches": 0,
    }
