"""Each algorithm explains a change as data (ratings/engine/explanation.py): steps of a
kind with their numbers, which the pages word."""

from __future__ import annotations

from fractions import Fraction

from ratings.engine.algorithms import get_algorithm
from ratings.engine.explanation import StoredChange, Term
from ratings.engine.ranks import Rank, parse_rank
from tests.engine.test_sagc import one_game


def kinds(steps) -> list[str]:
    return [step.kind for step in steps]


def test_sagc_explains_the_specs_example_as_its_product_handicap_and_zone():
    _, black = one_game("12k", "14k", "W", handicap=2, komi="0.5", black_index=-10)

    steps = get_algorithm("sagc").explain(black.stored_change())

    assert kinds(steps) == ["product", "effective_handicap", "differential", "zone"]
    product, handicap, differential, zone = (step.numbers for step in steps)
    assert product["terms"] == (
        Term("LF", "level factor", "1775/3"),
        Term("GSF", "game status factor", "1"),
        Term("OF", "opponent factor", "1"),
        Term("GRF", "game result factor", "-3/5"),
        Term("HF", "handicap factor", "9/10"),
    )
    assert (product["product"], product["change"]) == ("-639/2", -320)
    assert handicap == {"effective": 2, "handicap": 2, "komi": Fraction(1, 2)}
    assert differential == {"differential": 0}
    assert zone == {"zone": "demotion", "index": -10, "rank": parse_rank("14k")}


def test_sagc_names_the_promotion_at_its_index_limit():
    white, _ = one_game("10k", "10k", "W", white_index=630)

    steps = get_algorithm("sagc").explain(white.stored_change())

    assert steps[-1].kind == "promoted"
    assert steps[-1].numbers == {"limit": 999, "rank": Rank(-9)}


def test_sagc_names_the_loss_barrier_and_the_change_it_stopped():
    change = StoredChange(
        factors={"level_factor": "1775/3", "barrier": -950, "product": "-639/2"},
        value_before=-850,
        change=-320,  # the product's, which the barrier stopped at -950
        value_after=-950,
        rank_before=parse_rank("14k"),
        rank_after=parse_rank("14k"),
    )

    steps = get_algorithm("sagc").explain(change)

    assert steps[-1].kind == "loss_barrier"
    assert steps[-1].numbers == {"barrier": -950, "unbarred": -1170}


def test_a_game_sagc_does_not_rate_says_why_and_nothing_else():
    _, black = one_game("12k", "14k", "W", board_size=9)

    steps = get_algorithm("sagc").explain(black.stored_change())

    assert kinds(steps) == ["not_rated"]
    assert "19x19" in steps[0].numbers["reason"]


def test_another_algorithm_explains_before_change_after_then_its_labelled_factors():
    change = StoredChange(
        factors={"se": 0.25, "brand_new_factor": 1.5, "adjustment": False},
        value_before=2000.0,
        change=15.0,
        value_after=2015.0,
        rank_before=parse_rank("1k"),
        rank_after=parse_rank("1k"),
        handicap=0,
        komi=Fraction(13, 2),
    )

    steps = get_algorithm("egf-2021").explain(change)

    assert kinds(steps) == ["sum", "factor", "factor"]
    assert steps[0].numbers == {"before": 2000.0, "change": 15.0, "after": 2015.0}
    assert [(step.numbers["label"], step.numbers["value"]) for step in steps[1:]] == [
        ("Expected result (Se)", 0.25),
        ("Brand new factor", 1.5),  # a key no algorithm labels, made readable
    ]


def test_an_adjustment_is_explained_as_the_rank_and_value_it_set():
    change = StoredChange(
        factors={"adjustment": True},
        value_before=-10,
        change=10,
        value_after=0,
        rank_before=parse_rank("5k"),
        rank_after=parse_rank("4k"),
        is_adjustment=True,
    )

    for name in ("sagc", "egf-2021", "french", "anchor"):
        steps = get_algorithm(name).explain(change)

        assert kinds(steps) == ["adjustment"], name
        assert steps[0].numbers["rank_after"] == parse_rank("4k")


def test_the_value_label_and_status_factors_are_the_algorithms_own():
    sagc = get_algorithm("sagc")

    assert [get_algorithm(name).value_label for name in ("sagc", "egf-2021", "french")] == [
        "index",
        "GoR",
        "level",
    ]
    assert sagc.status_factors is not None and sagc.status_factors.symbol == "GSF"
    assert {status.value: factor for status, factor in sagc.status_factors.by_status.items()} == {
        "free": 0,
        "normal": 1,
        "tournament": Fraction(3, 2),
        "internet": Fraction(1, 2),
    }
    assert get_algorithm("egf-2021").status_factors is None
