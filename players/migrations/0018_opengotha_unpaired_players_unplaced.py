"""OpenGotha tournaments imported before the site left out, as OpenGotha's standings
and h-file do, the players paired in no round (no game, no bye): they lose their
place, and the places below them close up (``places_closed_up``). Only places change;
the rounds and tie-breakers stay as stored (a player in no game counts in nobody's)."""

import re

from django.db import migrations

from ratings.engine.formats.opengotha import places_closed_up

# A round as the import stored it: a game names its opponent's number (a forfeit, a
# game without a result too); a bye is "0+" whatever its worth.
_PAIRED = re.compile(r"^(?:[1-9]\d*|0\+)")


def unplace_unpaired_players(apps, schema_editor):
    Tournament = apps.get_model("players", "Tournament")
    TournamentPlayer = apps.get_model("players", "TournamentPlayer")
    for tournament in Tournament.objects.filter(standings="opengotha").iterator():
        entrants = list(TournamentPlayer.objects.filter(tournament=tournament))
        if not all(entrant.place.strip().isdigit() for entrant in entrants):
            continue  # placed since (or by hand): leave it
        ordered = sorted(entrants, key=lambda entrant: (int(entrant.place), entrant.number))
        paired = {
            entrant.pk
            for entrant in entrants
            if any(_PAIRED.match(str(token).strip()) for token in entrant.results)
        }
        if len(paired) == len(entrants):
            continue
        places = places_closed_up([(e.pk, int(e.place)) for e in ordered], paired)
        for entrant in entrants:
            entrant.place = places.get(entrant.pk, "")
        TournamentPlayer.objects.bulk_update(entrants, ["place"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("players", "0017_tournament_clubs")]

    operations = [
        migrations.RunPython(unplace_unpaired_players, migrations.RunPython.noop, elidable=True)
    ]
