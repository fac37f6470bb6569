"""Standings by placement criteria (points or McMahon score, SOS, SOSOS, SODOS)."""

from fractions import Fraction

from ratings.engine.formats.standings import Round, known_criteria, place_players, score_text

WIN, LOSS, JIGO = Fraction(1), Fraction(0), Fraction(1, 2)

# Ann beat Ben and drew with Cat; Ben beat Dan; Cat beat Dan; Dan had a bye (1 point).
ROUNDS = {
    "ann": [Round("ben", WIN), Round("cat", JIGO)],
    "ben": [Round("ann", LOSS), Round("dan", WIN)],
    "cat": [Round("dan", WIN), Round("ann", JIGO)],
    "dan": [Round("cat", LOSS), Round("ben", LOSS), Round(None, WIN)],
}


def table(placed):
    return [(p.player, p.place, p.tied, tuple(map(score_text, p.scores))) for p in placed]


def test_points_then_sos():
    # without Dan's bye, Ann and Cat (1.5 points) part on SOS: Ann met Ben (1), Cat Dan (0)
    rounds = {**ROUNDS, "dan": ROUNDS["dan"][:2]}
    assert table(place_players(rounds)) == [
        ("ann", 1, False, ("1.5", "2.5", "3")),
        ("cat", 2, False, ("1.5", "1.5", "5")),
        ("ben", 3, False, ("1", "1.5", "5")),
        ("dan", 4, False, ("0", "2.5", "3")),
    ]


def test_players_equal_on_every_criterion_share_a_place_in_the_order_given():
    assert table(place_players(ROUNDS, order=["cat", "ann", "dan", "ben"])) == [
        ("cat", 1, False, ("1.5", "2.5", "5")),
        ("ann", 1, True, ("1.5", "2.5", "5")),
        ("dan", 3, False, ("1", "2.5", "5")),
        ("ben", 3, True, ("1", "2.5", "5")),
    ]


def test_the_mcmahon_score_starts_from_each_players_start_and_sodos_weighs_the_beaten():
    start = {"ann": Fraction(10), "ben": Fraction(12), "cat": Fraction(9), "dan": Fraction(9)}
    placed = place_players(ROUNDS, ("MMS", "SODOSM"), start=start)
    assert table(placed) == [
        ("ben", 1, False, ("13", "10")),
        ("ann", 2, False, ("11.5", "18.25")),
        ("cat", 3, False, ("10.5", "15.75")),
        ("dan", 4, False, ("10", "0")),
    ]


def test_criteria_the_standings_do_not_compute_are_left_out():
    # OpenGotha's NULL and category (its limits are not kept) go; Rating and SOS-1 stay
    assert known_criteria(["MMS", "SOSM", "NULL", "CAT", "Rating", "SOSM-1", "sososm"]) == (
        "MMS",
        "SOSM",
        "RATING",
        "SOSM-1",
        "SOSOSM",
    )


def test_scores_stay_exact_fractions_whatever_the_points_denominators():
    # summed as integers over a common denominator (6, and 36 for SODOS), given back exact
    rounds = {
        "ann": [Round("ben", Fraction(1, 3)), Round("cat", Fraction(1, 2))],
        "ben": [Round("ann", Fraction(1))],
        "cat": [Round("ann", Fraction(0))],
    }
    placed = place_players(rounds, ("NBW", "SOS", "SOSOS", "SODOS"))
    assert [(p.player, p.scores) for p in placed] == [
        ("ben", (Fraction(1), Fraction(5, 6), Fraction(1), Fraction(5, 6))),
        ("ann", (Fraction(5, 6), Fraction(1), Fraction(5, 3), Fraction(1, 3))),
        ("cat", (Fraction(0), Fraction(5, 6), Fraction(1), Fraction(0))),
    ]
    assert all(isinstance(score, Fraction) for p in placed for score in p.scores)
