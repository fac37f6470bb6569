"""The resync with the national ranks: upload or paste a list, preview who changes, apply
it as one batch, see the batch, revert it."""

import gzip
import re
import time
from datetime import date
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from players import services
from players.models import Adjustment, AuditEntry, Player, ResyncBatch
from ratings import services as rating_services
from ratings.engine.ranks import parse_rank
from ratings.models import RatingHistory
from tests import factories

pytestmark = pytest.mark.django_db

ON = "2024-06-01"


@pytest.fixture
def connie(client):
    member = factories.committee_member()
    client.force_login(member)
    return member


@pytest.fixture
def club():
    players = {
        "thandi": factories.player("thandi", "5k", full_name="Thandi Nkosi"),
        "pieter": factories.player("pieter", "12k", full_name="Pieter Botha"),
        "js1": factories.player("js1", "9k", full_name="John Smith"),
        "js2": factories.player("js2", "3k", full_name="John Smith"),
    }
    services.record_sheet_submit(
        user=factories.volunteer(),
        games=[factories.game(players["thandi"], players["pieter"], "W", date(2024, 5, 1))],
    )
    return players


def preview(client, text, **extra):
    return client.post(
        "/committee/resync/", {"list_text": text, "effective_date": ON, "note": "", **extra}
    )


def apply(client, text, effective_date=ON, note="June list", confirm="on"):
    data = {"list": text, "effective_date": effective_date, "note": note}
    if confirm:
        data["confirm"] = confirm
    return client.post("/committee/resync/apply/", data)


def outcomes(response) -> list[tuple[str, str]]:
    """(line, result) of each row of the preview table."""
    table = response.content.decode().split('id="resync-preview"')[1].split("</table>")[0]
    return re.findall(r'data-outcome="([^"]+)"[^>]*>\s*<td[^>]*>(\d+)</td>', table)


def test_it_shows_the_list_form_with_todays_date(client, connie):
    response = client.get("/committee/resync/")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="list_text"' in html
    assert 'type="file" name="list_file"' in html
    assert f'value="{timezone.localdate():%Y-%m-%d}"' in html
    assert 'enctype="multipart/form-data"' in html


def test_the_preview_shows_who_changes_and_flags_the_rest_without_storing(client, connie, club):
    text = "username,rank\nthandi,4k\nPieter Botha,12k\nJohn Smith,8k\nNobody Here,2k\nbad,3x"

    response = preview(client, text)

    assert response.status_code == 200
    assert outcomes(response) == [
        ("changed", "2"),
        ("unchanged", "3"),
        ("shared name", "4"),
        ("bad line", "6"),
        ("unknown", "5"),
    ]
    html = response.content.decode()
    assert "players js1, js2 share this name" in html
    assert "&#x27;3x&#x27; is not a rank" in html
    assert "Apply 1 change</button>" in html
    assert 'name="list" value="username,rank\nthandi,4k' in html, "the list goes back hidden"
    assert not ResyncBatch.objects.exists()
    club["thandi"].refresh_from_db()
    assert club["thandi"].national_rank == parse_rank("5k")


def test_it_previews_an_uploaded_latin1_file(client, connie, club):
    Player.objects.filter(pk=club["pieter"].pk).update(full_name="Pièter Botha")
    upload = SimpleUploadedFile("list.csv", "Pièter Botha;11k\n".encode("latin-1"))

    response = client.post(
        "/committee/resync/", {"list_file": upload, "list_text": "", "effective_date": ON}
    )

    assert outcomes(response) == [("changed", "1")]
    assert "Pièter Botha;11k" in response.content.decode(), "the list comes back as text"


def test_a_file_and_a_pasted_list_at_once_are_refused(client, connie, club):
    upload = SimpleUploadedFile("list.csv", b"thandi;4k\n")

    response = client.post(
        "/committee/resync/", {"list_file": upload, "list_text": "pieter,11k", "effective_date": ON}
    )

    assert response.context["form"].errors == {
        "list_file": ["Upload a file or paste a list, not both."]
    }


def test_an_empty_form_asks_for_the_list(client, connie):
    response = preview(client, "  ")

    assert response.context["form"].errors == {
        "list_text": ["Paste the list here, or upload it as a file."]
    }


def test_applying_creates_one_batch_of_adjustments_and_updates_national_ranks(client, connie, club):
    response = apply(client, "thandi,4k\npieter;13k\nJohn Smith,8k")
    rating_services.recompute_pending()  # what the task queued on commit does

    batch = ResyncBatch.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/committee/resync/{batch.pk}/"
    assert (batch.created_by, batch.effective_date, batch.note) == (
        connie,
        date(2024, 6, 1),
        "June list",
    )
    adjustments = Adjustment.objects.filter(resync_batch=batch).order_by("player__username")
    assert [(a.player.username, str(a.new_rank), a.reason) for a in adjustments] == [
        ("pieter", "13k", "resync"),
        ("thandi", "4k", "resync"),
    ]
    club["thandi"].refresh_from_db()
    assert club["thandi"].national_rank == parse_rank("4k")
    assert AuditEntry.objects.filter(action="resync_apply", user=connie).count() == 1
    row = RatingHistory.objects.get(algorithm="sagc", adjustment__player=club["thandi"])
    assert row.player == row.opponent == club["thandi"], "the player is their own opponent"


def test_the_batch_page_lists_the_adjustments(client, connie, club):
    apply(client, "thandi,4k\npieter;13k")
    batch = ResyncBatch.objects.get()

    response = client.get(f"/committee/resync/{batch.pk}/")

    html = response.content.decode()
    assert re.findall(r'data-player="([^"]+)"', html) == ["pieter", "thandi"]
    assert "Revert this resync" in html
    assert "June list" in html


def test_applying_without_the_confirmation_stores_nothing(client, connie, club):
    response = apply(client, "thandi,4k", confirm="")

    assert response.status_code == 200
    assert response.context["apply_form"].errors == {
        "confirm": ["Tick this box to apply the changes."]
    }
    assert outcomes(response) == [("changed", "1")], "the preview is shown again"
    assert not Adjustment.objects.exists()


def test_apply_reads_the_list_again_instead_of_trusting_the_preview(client, connie, club):
    preview(client, "thandi,4k\npieter,13k")
    # Meanwhile someone else's resync already moved Thandi to 4k.
    Player.objects.filter(pk=club["thandi"].pk).update(national_rank=parse_rank("4k"))

    apply(client, "thandi,4k\npieter,13k")

    assert [a.player.username for a in Adjustment.objects.all()] == ["pieter"]


def test_a_list_with_several_effective_dates_is_refused(client, connie, club):
    text = "thandi,4k,2024-05-01\npieter,13k,2024-05-02"

    preview_page = preview(client, text).content.decode()
    response = apply(client, text)

    assert "more than one effective date (2024-05-01, 2024-05-02)" in preview_page
    assert "Apply 2 changes" not in preview_page
    assert response.status_code == 200
    assert "more than one effective date" in str(response.context["apply_form"].non_field_errors())
    assert not ResyncBatch.objects.exists()


def test_a_list_that_changes_nobody_cannot_be_applied(client, connie, club):
    assert "there is nothing to apply" in preview(client, "thandi,5k").content.decode()

    response = apply(client, "thandi,5k")

    assert response.status_code == 200
    assert not ResyncBatch.objects.exists()


def test_a_long_national_list_lists_only_the_first_unknown_names(client, connie, club):
    text = "\n".join(f"Stranger {n},{n % 20 + 1}k" for n in range(150)) + "\nthandi,4k"

    response = preview(client, text)

    rows = outcomes(response)
    assert rows[0] == ("changed", "151")
    assert len(rows) == 101
    assert "and 50 more names that no player here has" in response.content.decode()


def test_reverting_a_batch_voids_its_adjustments_and_restores_national_ranks(client, connie, club):
    apply(client, "thandi,4k\npieter;13k")
    batch = ResyncBatch.objects.get()

    response = client.post(f"/committee/resync/{batch.pk}/revert/", follow=True)

    batch.refresh_from_db()
    assert batch.reverted_by == connie
    assert not Adjustment.objects.valid().exists()
    club["thandi"].refresh_from_db()
    assert club["thandi"].national_rank == parse_rank("5k")
    html = response.content.decode()
    assert f"Resync #{batch.pk} reverted" in html
    assert "Revert this resync" not in html


def test_reverting_asks_first_on_a_page_that_says_what_will_change(client, connie, club):
    apply(client, "thandi,4k\npieter;13k")
    batch = ResyncBatch.objects.get()

    batch_page = client.get(f"/committee/resync/{batch.pk}/").content.decode()
    confirm = client.get(f"/committee/resync/{batch.pk}/revert/")

    assert f'href="/committee/resync/{batch.pk}/revert/"' in batch_page
    assert f'action="/committee/resync/{batch.pk}/revert/"' not in batch_page
    html = confirm.content.decode()
    assert f"Revert resync #{batch.pk}?" in html
    row = re.search(r"<tr>\s*<td><a href=\"/players/thandi/\">.*?</tr>", html, re.S).group(0)
    assert "reset to 4k from" in row
    assert re.search(r"<td>4k</td>\s*<td>5k</td>", row), row
    assert not Adjustment.objects.filter(voided_at__isnull=False).exists()
    batch.refresh_from_db()
    assert batch.reverted_at is None


def test_a_batch_is_reverted_only_once(client, connie, club):
    apply(client, "thandi,4k")
    batch = ResyncBatch.objects.get()
    client.post(f"/committee/resync/{batch.pk}/revert/")

    response = client.post(f"/committee/resync/{batch.pk}/revert/", follow=True)

    assert f"resync {batch.pk} was already reverted" in response.content.decode()
    assert AuditEntry.objects.filter(action="resync_revert").count() == 1


def test_the_list_of_batches_takes_a_fixed_number_of_queries(
    client, connie, club, django_assert_max_num_queries
):
    for rank in ("4k", "3k", "2k"):
        apply(client, f"thandi,{rank}")

    with django_assert_max_num_queries(8):
        response = client.get("/committee/resync/batches/")

    assert response.status_code == 200
    assert len(re.findall(r'href="/committee/resync/\d+/"', response.content.decode())) == 3


def test_the_batch_page_takes_a_fixed_number_of_queries(
    client, connie, club, django_assert_max_num_queries
):
    apply(client, "thandi,4k\npieter;13k\njs1,8k\njs2,2k")
    batch = ResyncBatch.objects.get()

    with django_assert_max_num_queries(8):
        client.get(f"/committee/resync/{batch.pk}/")


EGD_LIST = Path("/work/shared/data/egd-ratinglists/allworld_lp_2018-12-27.html.gz")


@pytest.mark.skipif(not EGD_LIST.exists(), reason=f"{EGD_LIST} is not on this machine")
def test_a_whole_real_national_list_previews_in_reasonable_time(client, connie, club):
    """The EGD's world list of 2018 (45,000 players), written as name;grade, with one of
    our players added: a preview of a whole national list stays quick."""
    lines = ["Name;Grade"]
    with gzip.open(EGD_LIST, "rt", encoding="latin-1") as text:
        for line in text:
            fields = line.split()
            # PIN, name..., country, club, grade, P&D, GoR, NT, last appearance
            if len(fields) >= 9 and fields[0].isdigit():
                lines.append(f"{' '.join(fields[1:-7])};{fields[-5]}")
    lines.append("Thandi Nkosi;4k")

    started = time.monotonic()
    response = preview(client, "\n".join(lines))
    elapsed = time.monotonic() - started

    assert outcomes(response)[0] == ("changed", str(len(lines)))
    counts = {outcome.value: n for outcome, n in response.context["counts"]}
    assert counts["changed"] == 1
    assert counts["unknown"] + counts.get("bad line", 0) == len(lines) - 2
    assert elapsed < 30, f"the preview took {elapsed:.1f} s"
