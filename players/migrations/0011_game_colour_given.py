"""Games whose file gave no colour (an h-file's ``30+``: WAGC 2024) were stored with
invented colours, the player listed first as White. ``Game.colour_given`` says so from
now on; for the h-file tournaments imported before, it is read back from what the
import kept of each player's rounds as written (``TournamentPlayer.results``): an even
game, never corrected, neither of whose two tokens gives a colour. Their score columns
the heading left unnamed (KPMC 2017) are named by their figures, as an import now
names them (``named_by_figures``)."""

import re

from django.db import migrations, models

from ratings.engine.formats.egd import named_by_figures

# An h-file round: opponent, result, separator, colour, handicap (as the reader's).
RESULT_RE = re.compile(r"^(\d+)([-+=?])([/!]?)([wWbB?]?)(\d?)(!?)$")


def _no_colour(token: str, opponent: int) -> bool:
    """Whether ``token`` is a game against ``opponent`` that gives no colour."""
    match = RESULT_RE.match(token)
    return bool(match) and int(match[1]) == opponent and match[4] in ("", "?")


def read_back_from_the_files(apps, schema_editor):
    Game = apps.get_model("players", "Game")
    Tournament = apps.get_model("players", "Tournament")
    TournamentPlayer = apps.get_model("players", "TournamentPlayer")
    for tournament in Tournament.objects.filter(standings="egd").iterator():
        entrants = list(TournamentPlayer.objects.filter(tournament=tournament))
        if not entrants:
            continue
        by_player = {entrant.player_id: entrant for entrant in entrants}
        no_colour = []
        games = Game.objects.filter(tournament=tournament, handicap=0, version=1, round__gt=0)
        for game_id, white_id, black_id, round_number in games.values_list(
            "pk", "white_id", "black_id", "round"
        ):
            white, black = by_player.get(white_id), by_player.get(black_id)
            if white is None or black is None:
                continue
            if round_number > min(len(white.results), len(black.results)):
                continue
            white_token = white.results[round_number - 1]
            black_token = black.results[round_number - 1]
            if _no_colour(white_token, black.number) and _no_colour(black_token, white.number):
                no_colour.append(game_id)
        Game.objects.filter(pk__in=no_colour).update(colour_given=False)
        lines = [(e.number, e.scores, e.results) for e in entrants]
        score_names = list(named_by_figures(tournament.score_names, lines))
        after = [(e.number, e.after_rounds, e.results) for e in entrants]
        after_round_names = list(named_by_figures(tournament.after_round_names, after))
        if (score_names, after_round_names) != (
            tournament.score_names,
            tournament.after_round_names,
        ):
            tournament.score_names = score_names
            tournament.after_round_names = after_round_names
            tournament.save(update_fields=["score_names", "after_round_names"])


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0010_player_updated_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="colour_given",
            field=models.BooleanField(
                default=True,
                help_text=(
                    "Off for an even game whose tournament file gave no colour: White and "
                    "Black are then the pair as stored, not who played which."
                ),
            ),
        ),
        migrations.RunPython(read_back_from_the_files, migrations.RunPython.noop, elidable=True),
    ]
