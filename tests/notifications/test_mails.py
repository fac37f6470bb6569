"""The other mails: a report's answer, a rank changed by an adjustment or a resync, the
volunteers' daily list of open reports, the committee's alerts; how the outbox sends
(once, retried when the server fails, in the reader's language), and unsubscribing."""

from __future__ import annotations

import re
import smtplib
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone, translation

from notifications import alerts, services, tasks
from notifications.models import MailProfile, OutgoingMail
from notifications.senders import open_reports_send
from players.models import Game
from players.roles import COMMITTEE
from players.services import reports as report_services
from players.services.adjustments import ResyncChange, resync_apply
from players.services.games import record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.models import RecomputeState
from ratings.recompute import liveness
from ratings.recompute.run import sweep
from tests import factories
from tests.notifications.conftest import yesterday
from tests.stand_in_catalogue import stand_in_translations

pytestmark = pytest.mark.django_db


@pytest.fixture
def report(vera, pat, ann, ben):
    game = record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", yesterday())])
    return report_services.report_create(
        user=pat, player=ann, game_id=game.games[0].pk, kind="wrong_result"
    )


def with_address(account, email: str):
    account.email = email
    account.save(update_fields=["email"])
    return account


def test_the_answer_to_a_report_reaches_the_player(report, vera, delivered):
    report_services.report_resolve(
        user=vera, report_id=report.pk, resolution="as_recorded", answer="Ben won by 3.5."
    )

    (mail,) = delivered()
    assert mail.to == ["ann@example.org"]
    assert mail.subject == f"Your report on the game of {yesterday().isoformat()} was answered"
    assert "Stands as recorded" in mail.body and "Ben won by 3.5." in mail.body
    assert "http://127.0.0.1:8000/me/" in mail.body


def test_an_adjustment_of_the_club_rank_tells_the_player(pat, ann, connie, delivered):
    factories.adjustment(ann, yesterday(), "3k", user=connie, comment="Won the club cup")

    (mail,) = delivered()
    assert mail.to == ["ann@example.org"]
    assert mail.subject == "Your rank is now 3k"
    assert "Committee decision" in mail.body and "Won the club cup" in mail.body


def test_a_resync_tells_each_player_once_even_with_a_rating_per_egf_algorithm(
    pat, ann, connie, delivered
):
    resync_apply(
        user=connie,
        changes=[ResyncChange(ann, parse_rank("4k"), rating=2050)],
        effective_date=yesterday(),
    )

    (mail,) = delivered()
    assert mail.subject == "Your rank is now 4k"
    assert "Resync with national rank" in mail.body


def test_a_resync_with_a_rating_tells_the_player_once_when_an_egf_algorithm_is_primary(
    pat, ann, connie, delivered, settings
):
    settings.RATINGS_PRIMARY_ALGORITHM = "egf-2021"

    resync_apply(
        user=connie,
        changes=[ResyncChange(ann, parse_rank("4k"), rating=2050)],
        effective_date=yesterday(),
    )

    assert len(delivered()) == 1


def test_a_failing_alert_never_stops_the_sweep(vera, connie, ann, ben, monkeypatch):
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", yesterday())])
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=timezone.now() - timedelta(hours=1), running_on="dead-host:4242"
    )

    def broken(*args):
        raise RuntimeError("the template is broken")

    monkeypatch.setattr(alerts, "recompute_stalled", broken)
    sweep()

    assert RecomputeState.objects.get(algorithm="sagc").running_since is None, "taken over"


def test_an_adjustment_of_one_other_algorithm_sends_nothing(pat, ann, connie, delivered):
    factories.adjustment(ann, yesterday(), "3k", user=connie, algorithm="egf-2021", value=2100)

    assert delivered() == []


def test_volunteers_get_the_open_reports_once_a_day_from_the_hour_set(
    report, vera, connie, delivered, settings
):
    with_address(vera, "vera@example.org")
    with_address(connie, "connie@example.org")
    settings.MAIL_DAILY_HOUR = 18
    day = timezone.localtime().replace(hour=17, minute=0)

    assert open_reports_send(now=day) == 0, "before the hour"
    assert open_reports_send(now=day + timedelta(hours=1)) == 2
    assert open_reports_send(now=day + timedelta(hours=3)) == 0, "once a day"

    mails = delivered()
    assert sorted(mail.to[0] for mail in mails) == ["connie@example.org", "vera@example.org"]
    assert mails[0].subject == "1 open report of a mistake"
    assert "One report of a mistake waits for an answer" in mails[0].body
    assert f"/reports/{report.pk}/" in mails[0].body
    assert open_reports_send(now=day + timedelta(days=1, hours=1)) == 2, "the next day"


def test_the_open_reports_go_to_each_volunteer_in_their_language_with_the_plural_it_needs(
    report, vera, connie, delivered, settings
):
    with_address(vera, "vera@example.org")
    with_address(connie, "connie@example.org")
    services.language_save(user=vera, language="fr")
    services.language_save(user=connie, language="af")
    settings.MAIL_DAILY_HOUR = 18

    # a report's line is one message, its colon in it (as the catalogue will say it)
    french = {"game of %(day)s: %(kind)s": "partie du %(day)s\N{NO-BREAK SPACE}: %(kind)s"}
    with stand_in_translations("fr", french):
        open_reports_send(now=timezone.localtime().replace(hour=19, minute=0))

    mails = {mail.to[0]: mail for mail in delivered()}
    assert mails["vera@example.org"].subject == "1 signalement d'erreur ouvert"
    french_body = mails["vera@example.org"].body
    line = r", partie du \d{4}-\d\d-\d\d\N{NO-BREAK SPACE}: Mauvais résultat http"
    assert re.search(line, french_body)
    # French's space before a colon (a non-breaking one) read as a space
    french_body = french_body.replace("\N{NO-BREAK SPACE}", " ")
    assert "Un signalement d'erreur attend une réponse :" in french_body
    assert mails["connie@example.org"].subject == "1 oop foutverslag"
    assert "Een foutverslag wag vir 'n antwoord:" in mails["connie@example.org"].body


def test_a_clubs_volunteer_gets_only_their_clubs_open_reports(report, delivered, settings):
    cape_town, durban = factories.club("Cape Town Go Club"), factories.club("Durban Go Club")
    Game.objects.filter(pk=report.game_id).update(club=cape_town)
    with_address(factories.club_volunteer("thandi", cape_town), "thandi@example.org")
    with_address(factories.club_volunteer("sipho", durban), "sipho@example.org")
    settings.MAIL_DAILY_HOUR = 0

    open_reports_send()

    assert [mail.to[0] for mail in delivered()] == ["thandi@example.org"]


def test_no_daily_list_when_no_report_is_open(vera, delivered, settings):
    with_address(vera, "vera@example.org")
    settings.MAIL_DAILY_HOUR = 0

    assert open_reports_send() == 0


def test_the_committee_is_told_once_of_a_stalled_recompute(vera, connie, ann, ben, delivered):
    with_address(connie, "connie@example.org")
    with_address(vera, "vera@example.org")
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", yesterday())])
    since = timezone.now() - timedelta(seconds=liveness.STALE_AFTER_SECONDS + 5)
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=since, running_on="dead-host:4242"
    )

    sweep()
    sweep()

    (mail,) = delivered()
    assert mail.to == ["connie@example.org"], "the committee only"
    assert mail.subject == "Ratings: a recompute stalled"
    assert "sagc" in mail.body and "dead-host:4242" in mail.body
    assert "/committee/recompute/" in mail.body


def test_the_committee_is_told_once_when_the_worker_goes_silent(connie, delivered, monkeypatch):
    with_address(connie, "connie@example.org")
    liveness.worker_beat("worker@host")
    assert alerts.worker_silence_check() == 0, "the worker is alive"
    later = timezone.now().timestamp() + liveness.STALE_AFTER_SECONDS + 5
    monkeypatch.setattr(liveness.time, "time", lambda: later)

    assert alerts.worker_silence_check() == 1, "sent from here: no worker is there to"
    assert alerts.worker_silence_check() == 0

    (mail,) = delivered()
    assert mail.subject == "Ratings: the worker has gone silent"
    assert "worker@host" in mail.body


def test_a_mail_is_sent_once_however_often_its_task_runs(report, vera, delivered):
    report_services.report_resolve(
        user=vera, report_id=report.pk, resolution="as_recorded", answer="As on the sheet."
    )
    mail = OutgoingMail.objects.get()

    assert tasks.send_mail.apply(args=[mail.pk]).get() is True
    assert tasks.send_mail.apply(args=[mail.pk]).get() is False
    assert len(delivered()) == 1


def test_a_failing_mail_server_leaves_the_mail_to_be_retried(report, vera, monkeypatch, mailoutbox):
    report_services.report_resolve(
        user=vera, report_id=report.pk, resolution="as_recorded", answer="As on the sheet."
    )
    mail = OutgoingMail.objects.get()

    def refuse(self, *args, **kwargs):
        raise smtplib.SMTPServerDisconnected("the server went away")

    with monkeypatch.context() as patched:
        patched.setattr("django.core.mail.EmailMultiAlternatives.send", refuse)
        with pytest.raises(smtplib.SMTPServerDisconnected):
            services.mail_send(mail.pk)
    mail.refresh_from_db()
    assert (mail.sent_at, mail.claimed_at, mail.attempts) == (None, None, 1)
    assert "went away" in mail.last_error

    assert services.unsent_mail_ids(older_than_seconds=-60) == [mail.pk]
    assert services.mail_send(mail.pk) is True
    assert len(mailoutbox) == 1


def test_the_sweep_queues_again_mail_whose_task_was_lost(report, vera, mailoutbox):
    report_services.report_resolve(
        user=vera, report_id=report.pk, resolution="as_recorded", answer="As on the sheet."
    )
    OutgoingMail.objects.update(created_at=timezone.now() - timedelta(hours=1))

    done = tasks.mail_sweep.apply().get()

    assert done["requeued"] == 1
    assert len(mailoutbox) == 1


def test_a_mail_is_written_in_its_readers_language(report, vera, pat, delivered, monkeypatch):
    profile = services.profile_of(pat)
    profile.language = "fr"
    profile.save()
    seen = []
    real = services.render_to_string

    def render(*args, **kwargs):
        seen.append(translation.get_language())
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "render_to_string", render)
    report_services.report_resolve(
        user=vera, report_id=report.pk, resolution="as_recorded", answer="As on the sheet."
    )

    assert seen == ["fr", "fr"]
    assert translation.get_language() != "fr", "the request's language is back"


def test_unsubscribing_needs_no_log_in_and_a_forged_token_does_nothing(
    report, vera, pat, client, delivered
):
    report_services.report_resolve(
        user=vera, report_id=report.pk, resolution="as_recorded", answer="As on the sheet."
    )
    (mail,) = delivered()
    path = re.sub(r"^http://[^/]+", "", mail.extra_headers["List-Unsubscribe"].strip("<>"))

    page = client.get(path)
    assert page.status_code == 200 and 'id="unsubscribe"' in page.content.decode()
    assert MailProfile.objects.get(user=pat).muted == [], "a GET changes nothing"
    done = client.post(path)
    assert 'id="unsubscribed"' in done.content.decode()
    assert MailProfile.objects.get(user=pat).muted == ["report_answer"]
    forged = client.post(path.replace("/mail/unsubscribe/", "/mail/unsubscribe/x"))
    assert forged.status_code == 404


def test_the_mail_settings_page_offers_each_reader_their_kinds(client, pat, connie):
    with_address(connie, "connie@example.org")
    client.force_login(pat)
    own = client.get("/me/mail/").content.decode()
    client.force_login(connie)
    committee = client.get("/me/mail/").content.decode()

    assert 'value="games"' in own and 'value="alerts"' not in own
    assert 'value="alerts"' in committee and 'value="open_reports"' in committee
    assert 'value="games"' not in committee
    client.post("/me/mail/", {"email": "connie@example.org", "wanted": ["open_reports"]})
    assert MailProfile.objects.get(user=connie).muted == [
        "games",
        "report_answer",
        "rank_change",
        "alerts",
    ]


def test_a_committee_member_without_the_group_gets_no_alert(connie, delivered):
    with_address(connie, "connie@example.org")
    connie.groups.remove(Group.objects.get(name=COMMITTEE))

    alerts.recompute_stalled("sagc", timezone.now(), "dead-host:1")

    assert delivered() == []


def test_a_stalled_alert_says_when_the_run_started(connie, delivered):
    with_address(connie, "connie@example.org")
    started = timezone.make_aware(datetime(2024, 3, 1, 20, 15))

    alerts.recompute_stalled("sagc", started, "dead-host:1")

    assert "started 2024-03-01 20:15 on dead-host:1" in delivered()[0].body


def test_make_run_says_where_the_mail_goes(settings):
    from clubrating.devserver import mail_destination

    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = "/club/var/mail"
    assert mail_destination(settings) == (
        "mail is written to files in /club/var/mail/ (EMAIL_URL sends it)"
    )
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "mail.example.org", 587
    assert mail_destination(settings) == "mail is sent through mail.example.org:587"
