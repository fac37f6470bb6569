"""Counts the engine says in running text (the one-date warning's "all 1,234 games", a
file with too many players) are grouped as the page's language writes numbers: "1 234"
in French and Afrikaans (a non-breaking space), "1,234" in English. Any other number of
an engine message (a line, a round, a PIN) is left as it is."""

import pickle

import pytest
from django.utils import translation

from players.translated import translated
from ratings.engine.formats import one_day_warning
from ratings.engine.formats.egd import read_egd
from ratings.engine.messages import Count, Message

NBSP = "\u00a0"


def one_date_h9(players: int, rounds: int) -> str:
    """An h-file of ``players`` new players dated one day, each pair meeting each round."""
    lines = ["; EV[Marathon]", "; DT[2024-03-02,2024-03-02]", "; KM[6.5]", ";"]
    for number in range(1, players + 1):
        opponent, result = (number + 1, "+/w0") if number % 2 else (number - 1, "-/b0")
        results = " ".join(f"{opponent}{result}" for _ in range(rounds))
        lines.append(f"{number:4d} Marathon{number:04d} Given 10k ZA CTGC 1 0 {results}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("language", "games"),
    [("fr", f"1{NBSP}002"), ("af", f"1{NBSP}002"), ("en", "1,002")],
)
def test_the_one_date_warning_groups_its_game_count_as_the_language_writes_it(language, games):
    # 334 players, 167 games a round, 6 rounds: 1,002 games on one day
    warning = one_day_warning(read_egd(one_date_h9(334, 6)))

    with translation.override(language):
        shown = translated(warning)

    assert f" {games} " in shown
    assert "2024-03-02" in shown, "a date is no count"


def test_the_engine_writes_a_count_the_english_way_and_keeps_its_number():
    message = Message("all %(games)s games in round %(round)s", games=Count(1234), round=1234)

    assert message == "all 1,234 games in round 1234"
    assert message.values["games"] == 1234
    assert pickle.loads(pickle.dumps(message)) == message


@pytest.mark.parametrize(
    ("language", "shown"),
    [("fr", f"all 1{NBSP}234 games in round 1234"), ("en", "all 1,234 games in round 1234")],
)
def test_a_page_groups_only_the_counts_of_an_engine_message(language, shown):
    message = Message("all %(games)s games in round %(round)s", games=Count(1234), round=1234)

    with translation.override(language):
        assert translated(message) == shown
