"""Games whose file gave no colour (WAGC 2024's h-file: ``30+``, no ``w`` or ``b``) are
stored as a pair, White and Black as listed: SAGC and the EGF algorithms must rate an
even game the same whichever of the two is called White."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.formats.egd import read_egd
from ratings.engine.records import Winner, resolve_entries
from tests.engine.test_egd_format import ARCHIVE, needs_archive

SWAPPED_WINNER = {Winner.WHITE: Winner.BLACK, Winner.BLACK: Winner.WHITE, Winner.JIGO: Winner.JIGO}


def changes_by_player(algorithm: str, records) -> dict[tuple[int, str], tuple]:
    """Each player's change and value after each game, by (game, player)."""
    engine = get_algorithm(algorithm)
    entries = resolve_entries(records, {})
    return {
        (row.seq, row.player): (row.change, row.value_after)
        for row in replay(engine, records, entries)
    }


@needs_archive
@pytest.mark.parametrize("algorithm", ["sagc", "egf-2021", "egf-2020", "egf-legacy"])
def test_an_even_game_without_colours_rates_the_same_whoever_is_called_white(algorithm):
    path = ARCHIVE / "wagc" / "data" / "wagc2024.txt"
    records = read_egd(path.read_bytes(), path.name).records
    assert records and all(r.handicap == 0 and not r.colour_given for r in records)
    swapped = [
        replace(
            r,
            white=r.black,
            black=r.white,
            white_rank=r.black_rank,
            black_rank=r.white_rank,
            winner=SWAPPED_WINNER[r.winner],
        )
        for r in records
    ]
    assert changes_by_player(algorithm, swapped) == changes_by_player(algorithm, records)
