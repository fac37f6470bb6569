"""A game was shown "corrected" (the tournament page's ✎, a report's "corrected") when
its ``version`` had moved, but every write moves it: a void, a comment, and a merge of
two records of one person, which re-points the duplicate's every game. ``Game.revision``
now says whether what was played changed (``GAME_CONTENT_FIELDS``), ``stored_content``
what was stored, and a report keeps the revision it saw (``GameReport.game_revision``,
for ``game_version``).

Filled from the change history: each game's corrections in the audit trail
(``game_correct``, before and after), compared field by field with the players as people
(a record merged into another is that other). A correction that changed what was played
gives the game the version it wrote; one back to the stored game gives 0; a correction
of the comment alone leaves it. A report gets the revision its game had at the version
it saw. What cannot be told from the trail: whether the colours were given when stored
(the snapshots do not say; taken as now), and a player or tournament renamed since a
snapshot (kept by name, so the game stays corrected rather than wrongly cleared)."""

from decimal import Decimal

from django.db import migrations, models

# What a game_correct snapshot says of what was played (colour_given aside).
PLAYED = (
    "date",
    "round",
    "white",
    "black",
    "handicap",
    "komi",
    "winner",
    "status",
    "board_size",
    "time_minutes",
    "tournament",
)
CHUNK = 500


def game_revisions(apps) -> dict[int, tuple[int, dict | None, list[tuple[int, int]]]]:
    """Each game written since it was stored (version above 1) that a correction of
    what was played left corrected: its revision, what was stored (``Game.content()``),
    and the revision it had from each version on, oldest first."""
    Game = apps.get_model("players", "Game")
    Player = apps.get_model("players", "Player")
    Tournament = apps.get_model("players", "Tournament")
    AuditEntry = apps.get_model("players", "AuditEntry")
    merged_into = dict(
        Player.objects.filter(merged_into__isnull=False).values_list("pk", "merged_into")
    )
    player_ids = dict(Player.objects.values_list("username", "pk"))
    tournament_ids = dict(Tournament.objects.values_list("code", "pk"))

    def person(pk):
        while pk in merged_into:
            pk = merged_into[pk]
        return pk

    def played(snapshot):
        content = {name: snapshot.get(name) for name in PLAYED}
        for side in ("white", "black"):
            content[side] = player_ids.get(content[side], content[side])
        if content["tournament"] is not None:
            code = content["tournament"]
            content["tournament"] = tournament_ids.get(code, code)
        if content["komi"] is not None:
            content["komi"] = str(Decimal(content["komi"]).quantize(Decimal("0.1")))
        return content

    def as_people(content):
        return content | {side: person(content[side]) for side in ("white", "black")}

    found = {}
    written = list(Game.objects.filter(version__gt=1).values_list("pk", "version", "colour_given"))
    for start in range(0, len(written), CHUNK):
        chunk = written[start : start + CHUNK]
        corrections: dict[str, list] = {}
        for object_id, before, after in (
            AuditEntry.objects.filter(
                action="game_correct",
                object_type="game",
                object_id__in=[str(pk) for pk, _, _ in chunk],
            )
            .order_by("at", "pk")
            .values_list("object_id", "before", "after")
        ):
            if isinstance(before, dict) and isinstance(after, dict):
                corrections.setdefault(object_id, []).append((before, after))
        for pk, version, colour_given in chunk:
            stored, revision, revisions = None, 0, [(1, 0)]
            for before, after in corrections.get(str(pk), []):
                was, now = played(before), played(after)
                stored = stored or was
                if as_people(now) == as_people(was):
                    pass  # the comment only
                elif as_people(now) == as_people(stored):
                    revision = 0  # put back as stored
                else:
                    revision = after.get("version") or version
                revisions.append((after.get("version") or version, revision))
            found[pk] = (
                revision,
                stored | {"colour_given": colour_given} if revision else None,
                revisions,
            )
    return found


def revision_seen(revisions: list[tuple[int, int]], version: int) -> int:
    """The revision a game had at ``version``, by ``game_revisions``'s list."""
    return [revision for since, revision in revisions if since <= version][-1]


def fill_revisions(apps, schema_editor):
    Game = apps.get_model("players", "Game")
    GameReport = apps.get_model("players", "GameReport")
    found = game_revisions(apps)
    for pk, (revision, stored, _) in found.items():
        if revision:
            Game.objects.filter(pk=pk).update(revision=revision, stored_content=stored)
    for report_id, game_id, version in GameReport.objects.values_list(
        "pk", "game_id", "game_version"
    ):
        seen = revision_seen(found[game_id][2], version) if game_id in found else 0
        if seen:
            GameReport.objects.filter(pk=report_id).update(game_revision=seen)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0011_game_colour_given"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="revision",
            field=models.PositiveIntegerField(
                default=0,
                editable=False,
                help_text=(
                    "0 while the game is as stored (entered or imported); the version a "
                    "correction of what was played (GAME_CONTENT_FIELDS) gave it; 0 again "
                    "when a correction restores the stored game."
                ),
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="stored_content",
            field=models.JSONField(
                blank=True,
                editable=False,
                help_text="What was played as stored (Game.content()), kept while corrected.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="gamereport",
            name="game_revision",
            field=models.PositiveIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.RunPython(fill_revisions, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="gamereport",
            name="game_version",
        ),
    ]
