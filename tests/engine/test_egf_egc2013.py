"""egf-legacy against the official EGD rating changes of the EGC 2013 main tournament.

The data stays in ``shared/data/egc2013-opengotha`` beside the repository (real names:
never copied here); ``CLUBRATING_SHARED_DATA`` points elsewhere. Its SOURCE.md: the
EGD rated the tournament with the pre-2021 formula as two tournaments (E130728A =
rounds 1-5, E130805A = rounds 6-10), from integer ratings, and some deltas include
rank resets; a naive replay of the old formula matches with a median |error| of
about 6 GoR, "an approximate oracle, not an exact one". That median is the tolerance.
"""

from __future__ import annotations

import csv
import os
import statistics
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.ranks import parse_rank
from ratings.engine.records import Entry, GameRecord, Winner

SHARED_DATA = Path(
    os.environ.get("CLUBRATING_SHARED_DATA")
    or Path(__file__).resolve().parents[2].parent / "shared" / "data"
)
EGC2013 = SHARED_DATA / "egc2013-opengotha"
MEDIAN_TOLERANCE = 6  # GoR, the median |error| SOURCE.md reports for a naive replay

pytestmark = pytest.mark.skipif(
    not (EGC2013 / "egc2013_official_gor_delta.csv").is_file(),
    reason=f"EGC 2013 data not found in {EGC2013} (set CLUBRATING_SHARED_DATA)",
)

FIRST_HALF = ("E130728A", date(2013, 7, 28))  # rounds 1-5
SECOND_HALF = ("E130805A", date(2013, 8, 5))  # rounds 6-10


def _rows(name: str) -> list[dict[str, str]]:
    with open(EGC2013 / name, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _username(pin: str, name: str) -> str:
    return pin or name.replace(" ", "_")


def _entries() -> dict[str, Entry]:
    """Each player from the EGD list of 2013-07-17, else the rating OpenGotha registered."""
    entries = {}
    for player in _rows("egc2013_players_egd_gor.csv"):
        name = _username(player["egd_pin"], f"{player['surname']} {player['first_name']}")
        rating = player["gor_2013-07-17"] or player["opengotha_rating"]
        entries[name] = Entry(parse_rank(player["declared_rank"]), Fraction(rating))
    return entries


def _games() -> list[GameRecord]:
    records = []
    for seq, row in enumerate(_rows("egc2013_games.csv"), start=1):
        if row["by_default"] != "0":
            continue  # a forfeit is no game played: the EGD does not rate it
        round_number = int(row["round"])
        code, started = FIRST_HALF if round_number <= 5 else SECOND_HALF
        records.append(
            GameRecord(
                date=started,
                white=_username(row["white_pin"], row["white_name"]),
                black=_username(row["black_pin"], row["black_name"]),
                winner=Winner(row["winner"]),
                handicap=int(row["handicap"]),
                komi=Fraction(row["komi"]),
                tournament=code,
                round=round_number,
                seq=seq,
            )
        )
    return records


def test_legacy_replay_of_egc2013_matches_the_official_gor_changes():
    entries = _entries()
    algorithm = get_algorithm("egf-legacy")
    state = algorithm.new_state(entries)
    after_first_half: dict[str, float] = {}
    for row in replay(algorithm, _games(), entries, state):
        if row.tournament == FIRST_HALF[0]:
            after_first_half[row.player] = row.value_after

    errors = []
    for official in _rows("egc2013_official_gor_delta.csv"):
        pin = official["egd_pin"]
        start = algorithm.new_player(entries[pin]).value
        if official["rounds_in_egd_delta"] == "1-5":
            end = after_first_half.get(pin, start)
        else:
            end = state.players[pin].value if pin in state.players else start
        errors.append(abs(end - start - int(official["official_delta"])))

    assert len(errors) == 147
    assert statistics.median(errors) <= MEDIAN_TOLERANCE


def test_the_2021_formula_is_not_what_the_egd_used_in_2013():
    """The check above can tell the systems apart: egf-2021 misses by far more."""
    entries = _entries()
    algorithm = get_algorithm("egf-2021")
    state = algorithm.new_state(entries)
    list(replay(algorithm, _games(), entries, state))
    errors = []
    for official in _rows("egc2013_official_gor_delta.csv"):
        if official["rounds_in_egd_delta"] != "1-10":
            continue
        pin = official["egd_pin"]
        start = float(entries[pin].value)
        errors.append(abs(state.players[pin].value - start - int(official["official_delta"])))
    assert statistics.median(errors) > 2 * MEDIAN_TOLERANCE
