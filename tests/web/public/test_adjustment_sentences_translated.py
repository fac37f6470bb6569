"""An adjustment's stored English in French and Afrikaans: a resync's comment (players.
stored_sentences) on the player's log page and the resync batch's table, and why an
adjustment's value was refused when it was replayed (ratings.engine.messages), each a
sentence of a marked template that the page reads back in its language."""

from datetime import date
from decimal import Decimal
from html import unescape

import pytest

from players.services.adjustments import ResyncChange, adjustment_apply, resync_apply
from ratings.engine.ranks import parse_rank
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html
from tests.web.public.test_player_log import cells, sheet_rows

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "french")]


@pytest.fixture
def resynced(connie):
    """Ann's rank from the national list of May, with its note."""
    ann = factories.player("ann", "5k")
    batch = resync_apply(
        user=connie,
        changes=[ResyncChange(ann, parse_rank("4k"))],
        effective_date=date(2024, 6, 1),
        note="May list",
    )
    recompute_pending()
    return batch


def comments(client, url: str, language: str) -> str:
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    return unescape(cells(sheet_rows(page_html(client, url))[0])[-1])


@pytest.mark.parametrize(
    ("language", "comment"),
    [
        ("fr", "Resynchronisation avec le niveau national (May list)"),
        ("af", "Hersinkronisasie met die nasionale rang (May list)"),
        ("en", "Resync with national rank (May list)"),
    ],
)
def test_a_resyncs_comment_reads_in_the_pages_language_on_the_log(
    client, resynced, language, comment
):
    assert comments(client, "/players/ann/?algorithm=sagc", language) == comment


def test_a_resyncs_comment_reads_in_french_in_the_batchs_table(client, connie, resynced):
    client.force_login(connie)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "fr"

    html = unescape(page_html(client, f"/committee/resync/{resynced.pk}/"))

    table = html[html.index('id="adjustments"') :]
    assert "Resynchronisation avec le niveau national (May list)" in table
    assert "Resync with national rank" not in table


def refused_value_reason(client, connie, algorithm: str, value: int, language: str) -> str:
    """The comments of Ann's adjustment of ``algorithm`` to ``value``, which it refuses
    when it replays it, on her log page in ``language``."""
    adjustment_apply(
        user=connie,
        player=factories.player("ann", "5k"),
        date=date(2024, 1, 1),
        new_rank=parse_rank("5k"),
        value=Decimal(value),
        algorithm=algorithm,
    )
    recompute_pending()
    return comments(client, f"/players/ann/?algorithm={algorithm}", language)


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("fr", "un indice SAGC est un nombre entier entre -999 et 999, pas 1500"),
        ("af", "'n SAGC-indeks is 'n heelgetal tussen -999 en 999, nie 1500 nie"),
        ("en", "an SAGC index is a whole number in -999..999, not 1500"),
    ],
)
def test_a_refused_sagc_index_reads_in_the_pages_language(client, connie, language, reason):
    assert reason in refused_value_reason(client, connie, "sagc", 1500, language)


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        (
            "fr",
            "un niveau de l’échelle française n’est pas sous la barrière -2950.0, pas -3000.0",
        ),
        ("af", "'n Franse leervlak is nie onder die grens -2950.0 nie, nie -3000.0 nie"),
    ],
)
def test_a_refused_french_level_reads_in_the_pages_language(client, connie, language, reason):
    assert reason in refused_value_reason(client, connie, "french", -3000, language)
