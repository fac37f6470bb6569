"""The two roles of the site as groups, and the one row of the entry counter."""

from django.db import migrations

ROLES = ("volunteers", "committee")


def create(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in ROLES:
        Group.objects.get_or_create(name=name)
    apps.get_model("players", "EntrySequence").objects.get_or_create(pk=1)


def remove(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create, remove)]
