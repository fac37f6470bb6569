"""The what-if calculator's engine: a game not played, rated both ways by the algorithm's
own rate_unit from the two sides' states."""

from datetime import date
from fractions import Fraction

import pytest

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.lab import Matchup, Side, predictor
from ratings.engine.ranks import parse_rank
from ratings.engine.records import Entry, GameRecord, Status, Winner
from ratings.engine.whatif import Contestant, WhatIfError, what_if

DAY = date(2024, 5, 1)
HALF = Fraction(1, 2)


def changes(result):
    return [(o.winner, o.white.change, o.black.change) for o in result.outcomes]


@pytest.mark.parametrize("name", ["sagc", "egf-2021", "egf-2020", "egf-legacy", "french", "anchor"])
def test_new_players_get_what_a_replay_of_the_same_game_gives(name):
    algorithm = get_algorithm(name)
    result = what_if(
        algorithm,
        Contestant("ann", parse_rank("5k")),
        Contestant("ben", parse_rank("8k")),
        handicap=3,
        komi=HALF,
        day=DAY,
    )
    entries = {"ann": Entry(parse_rank("5k")), "ben": Entry(parse_rank("8k"))}
    for outcome in result.outcomes:
        game = GameRecord(
            date=DAY, white="ann", black="ben", winner=outcome.winner, handicap=3, komi=HALF
        )
        white_row, black_row = replay(get_algorithm(name), [game], entries)
        assert (outcome.white.change, outcome.black.change) == (white_row.change, black_row.change)
        assert outcome.white.factors == white_row.factors
    assert [o.winner for o in result.outcomes] == [Winner.WHITE, Winner.BLACK]


def test_the_anchor_gives_the_seeds_worked_example():
    result = what_if(
        get_algorithm("anchor"),
        Contestant("wendy", parse_rank("4d"), 360.0),
        Contestant("bert", parse_rank("2d"), 100.0),
        handicap=2,
        komi=HALF,
        day=DAY,
    )
    (_, white_win, black_loss), (_, white_loss, black_win) = changes(result)
    assert (round(white_win, 2), round(black_loss, 2)) == (8.12, -8.12)
    assert (round(white_loss, 2), round(black_win, 2)) == (-12.31, 12.31)
    # and the lab's P(White) is where those balance
    p = result.p_white
    assert p * white_win + (1 - p) * white_loss == pytest.approx(0.0, abs=1e-12)


def test_sagc_uses_the_opponent_memory_of_each_side():
    algorithm = get_algorithm("sagc")
    white = Contestant("ann", parse_rank("5k"), 100, 12, ("ben", "cat", "ben", "ben"))
    black = Contestant("ben", parse_rank("5k"), 0, 12, ("ann",))
    result = what_if(algorithm, white, black, komi=Fraction(13, 2), day=DAY)
    white_win = result.outcomes[0]
    assert white_win.white.factors["opponent_factor"] == "7/10"
    assert white_win.black.factors["opponent_factor"] == "9/10"
    assert result.white.value == 100 and result.white.games == 12


def test_a_typed_value_starts_the_side_there_and_a_bad_one_is_refused():
    algorithm = get_algorithm("sagc")
    result = what_if(
        algorithm,
        Contestant("(White)", parse_rank("5k"), 300.0),
        Contestant("(Black)", parse_rank("5k")),
        komi=Fraction(13, 2),
        day=DAY,
    )
    assert (result.white.value, result.black.value) == (300, 0)
    with pytest.raises(WhatIfError, match="whole number"):
        what_if(
            algorithm,
            Contestant("(White)", parse_rank("5k"), 1650.0),
            Contestant("(Black)", parse_rank("5k")),
            komi=Fraction(13, 2),
            day=DAY,
        )


def test_a_player_cannot_meet_themselves():
    with pytest.raises(WhatIfError, match="two different players"):
        what_if(
            get_algorithm("egf-2021"),
            Contestant("ann", parse_rank("5k")),
            Contestant("ann", parse_rank("5k")),
            komi=Fraction(13, 2),
            day=DAY,
        )


def test_a_game_the_algorithm_skips_is_listed_with_its_reason():
    result = what_if(
        get_algorithm("sagc"),
        Contestant("ann", parse_rank("5k")),
        Contestant("ben", parse_rank("5k")),
        komi=Fraction(13, 2),
        board_size=9,
        day=DAY,
    )
    assert all(o.white.change == 0 and "19x19" in o.white.skipped for o in result.outcomes)
    free = what_if(
        get_algorithm("egf-2021"),
        Contestant("ann", parse_rank("5k")),
        Contestant("ben", parse_rank("5k")),
        komi=Fraction(13, 2),
        status=Status.FREE,
        day=DAY,
    )
    assert "free games" in free.outcomes[0].white.skipped


def test_gcr_has_no_change_of_one_game_but_predicts_from_the_current_standings():
    gcr = get_algorithm("gcr")
    result = what_if(
        gcr,
        Contestant("ann", parse_rank("5k"), 1620.0, 30),
        Contestant("ben", parse_rank("5k"), 1500.0, 30),
        komi=Fraction(13, 2),
        day=DAY,
    )
    assert result.outcomes == ()
    assert result.p_white == pytest.approx(0.65)
    assert result.p_white == predictor(gcr)(
        Matchup(Side(parse_rank("5k"), 1620.0), Side(parse_rank("5k"), 1500.0))
    )
