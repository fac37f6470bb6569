"""A merged record remembers the record it was merged into (records merged before this
migration learn it from their "player_deactivate" audit entry); a player's entry and
national ranks are bounded in the database as everywhere (SPEC section 1)."""

import django.db.models.deletion
from django.db import migrations, models


def merged_into_from_audit(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    AuditEntry = apps.get_model("players", "AuditEntry")
    usernames = dict(Player.objects.values_list("username", "pk"))
    for object_id, after in AuditEntry.objects.filter(action="player_deactivate").values_list(
        "object_id", "after"
    ):
        kept = usernames.get((after or {}).get("merged_into"))
        if kept is not None and object_id.isdigit():
            Player.objects.filter(pk=int(object_id)).update(merged_into=kept)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0003_national_id_and_resync_upload"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="merged_into",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="merged_records",
                to="players.player",
            ),
        ),
        migrations.RunPython(merged_into_from_audit, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.CheckConstraint(
                condition=models.Q(("entry_rank__gte", -50), ("entry_rank__lte", 17)),
                name="player_entry_rank_in_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("national_rank__isnull", True),
                    models.Q(("national_rank__gte", -50), ("national_rank__lte", 17)),
                    _connector="OR",
                ),
                name="player_national_rank_in_range",
            ),
        ),
    ]
