"""Numbers as the pages show them (players/web/numbers.py)."""

from fractions import Fraction

from players.web.numbers import shown_change


def test_a_change_an_engine_keeps_as_a_fraction_is_shown_like_a_float_change():
    # The engines' rows may carry a Fraction (ratings.engine.base.Number); Python 3.11
    # cannot format one to two places, so the page would answer 500.
    assert shown_change(Fraction(-65, 8), False) == shown_change(-8.125, False) == "\u22128.12"
    assert shown_change(Fraction(7, 2), True) == shown_change(3.5, True) == "+3"
