from collections import Counter, defaultdict

from django.db import migrations, models


def tournament_clubs_from_sheets(apps, schema_editor):
    """A tournament of no club becomes the club of most of its valid games' record
    sheets (a club's volunteers entered its rounds), when one club has more of them
    than any other; else (no sheet of a club, or a tie) it stays the federation's. Its
    games of no sheet and no club (an imported file's) become its club's, as a new
    import's are (so are those of a tournament that had a club already, as load_demo's);
    games entered on a sheet keep their sheet's club."""
    Tournament = apps.get_model("players", "Tournament")
    Game = apps.get_model("players", "Game")
    counts: dict[int, Counter] = defaultdict(Counter)
    rows = (
        Game.objects.filter(
            tournament__club__isnull=True,
            voided_at__isnull=True,
            record_sheet__club__isnull=False,
        )
        .values_list("tournament_id", "record_sheet__club_id")
        .order_by()
    )
    for tournament_id, club_id in rows.iterator(chunk_size=5000):
        counts[tournament_id][club_id] += 1
    for tournament_id, clubs in counts.items():
        ranked = clubs.most_common(2)
        if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
            continue  # a tie: no club has most of them
        Tournament.objects.filter(pk=tournament_id).update(club_id=ranked[0][0])
    held = Tournament.objects.filter(club__isnull=False).values_list("pk", "club_id")
    for tournament_id, club_id in held:
        Game.objects.filter(
            tournament_id=tournament_id, record_sheet__isnull=True, club__isnull=True
        ).update(club_id=club_id)


class Migration(migrations.Migration):
    dependencies = [("players", "0016_club_roles_and_memberships")]

    operations = [
        migrations.AddIndex(
            model_name="game",
            index=models.Index(fields=["club", "date", "seq"], name="game_club_date"),
        ),
        migrations.RunPython(tournament_clubs_from_sheets, migrations.RunPython.noop),
    ]
