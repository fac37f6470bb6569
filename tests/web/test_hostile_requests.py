"""Issue 25, item 16: requests built to be slow or hungry stay cheap (bench/hostile.py
times them). What each pins is the bound that makes it so."""

from datetime import date

import pytest

from players.committee.views import REPEATED_SHOWN
from players.entry.forms import SheetGameFormSet
from players.resync import LINES_NAMED, Outcome, match_rank_list, parse_rank_list
from tests import factories
from tests.web.entry.test_sheet_entry import sheet_post

pytestmark = pytest.mark.django_db

FORGED = {
    "form-TOTAL_FORMS": "1000",
    "form-INITIAL_FORMS": "0",
    "form-MIN_NUM_FORMS": "0",
    "form-MAX_NUM_FORMS": "200",
    "sheet-received_on": "2024-06-01",
}


def test_a_forged_total_forms_builds_no_more_forms_than_a_sheet_holds():
    formset = SheetGameFormSet(FORGED)

    assert len(formset.forms) == 200
    assert not formset.is_valid()


def test_a_forged_total_forms_renders_three_empty_rows_back(client, vera):
    client.force_login(vera)

    html = client.post("/sheets/new/", FORGED).content.decode()

    assert html.split('id="sheet-rows"')[1].split("<template")[0].count('class="sheet-row"') == 3


def test_a_sheet_with_an_error_shows_its_filled_rows_and_three_empty_ones(client, vera):
    client.force_login(vera)
    data = sheet_post({"white": "nobody", "black": "nobody-else", "winner": "W"}, blank_rows=10)

    html = client.post("/sheets/new/", data).content.decode()

    assert html.split('id="sheet-rows"')[1].split("<template")[0].count('class="sheet-row"') == 4


def test_one_player_on_many_lines_names_a_few_of_them_in_each_note():
    thandi = factories.player("thandi", "5k", full_name="Thandi Nkosi")
    listed = parse_rank_list(
        "thandi,4k\n" * 3000, default_date=date(2024, 6, 1), today=date(2024, 6, 2)
    )

    preview = match_rank_list(listed, [thandi])

    notes = {row.note for row in preview.rows}
    assert len(preview.rows) == 3000
    assert all(row.outcome == Outcome.REPEATED for row in preview.rows)
    first = ", ".join(map(str, range(1, LINES_NAMED + 1)))
    assert notes == {f"thandi is on 3,000 lines ({first}, …): list them once"}


def test_the_preview_page_lists_the_first_repeated_lines_only(client, connie):
    factories.player("thandi", "5k", full_name="Thandi Nkosi")
    client.force_login(connie)

    response = client.post(
        "/committee/resync/",
        {"list_text": "thandi,4k\n" * 1000, "effective_date": "2024-06-01", "note": ""},
    )

    table = response.content.decode().split('id="resync-preview"')[1].split("</table>")[0]
    assert table.count('data-outcome="listed twice"') == REPEATED_SHOWN
