"""OpenGotha tournaments imported before the site scored them as OpenGotha does (MMS,
SOSM and SOSOSM of byes, absences and rounds without a game; EGC 2013 was 486 places
off) are placed again from what the import stored: each player's rounds as written,
rank, McMahon correction, and the file's criteria and McMahon parameters
(``gotha_replaced``). Rounds a player's ``participating`` flag left out were then
stored like rounds without a pairing: they count as such (the same, unless the file
gave absences a value). Only places and tie-breakers change; the rounds stay as stored.
Tournaments imported since come out as they are."""

from datetime import date

from django.db import migrations

from ratings.engine.formats import FilePlayer, TournamentFile, TournamentInfo
from ratings.engine.formats.opengotha import gotha_replaced


def replace_opengotha_standings(apps, schema_editor):
    Tournament = apps.get_model("players", "Tournament")
    TournamentPlayer = apps.get_model("players", "TournamentPlayer")
    for tournament in Tournament.objects.filter(standings="opengotha").iterator():
        entrants = list(TournamentPlayer.objects.filter(tournament=tournament).order_by("number"))
        if not entrants or [e.number for e in entrants] != list(range(1, len(entrants) + 1)):
            continue  # an OpenGotha file's players are numbered by position
        info = TournamentInfo(
            code=tournament.code,
            name=tournament.name,
            start=tournament.start_date or date.min,
            end=tournament.end_date or date.min,
            rounds=max(len(e.results) for e in entrants),
            score_names=tuple(tournament.score_names),
            mcmahon=tuple(tuple(pair) for pair in tournament.mcmahon),
            file_format="opengotha",
        )
        players = [
            FilePlayer(
                number=e.number,
                surname=e.family_name,
                given_name=e.given_name,
                rank=e.rank,
                username=str(e.pk),
                results=tuple(e.results),
                mcmahon_correction=e.mcmahon_correction,
            )
            for e in entrants
        ]
        placed = gotha_replaced(TournamentFile(info, players, []))
        by_pk = {int(p.username): p for p in placed.players}
        for entrant in entrants:
            entrant.place = by_pk[entrant.pk].place
            entrant.scores = list(by_pk[entrant.pk].scores)
        TournamentPlayer.objects.bulk_update(entrants, ["place", "scores"], batch_size=500)
        tournament.score_names = list(placed.tournament.score_names)
        tournament.save(update_fields=["score_names"])


class Migration(migrations.Migration):
    dependencies = [("players", "0008_tournament_after_round_columns")]

    operations = [
        migrations.RunPython(replace_opengotha_standings, migrations.RunPython.noop, elidable=True)
    ]
