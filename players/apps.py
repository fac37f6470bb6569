from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"
    verbose_name = "Players and games"

    def ready(self) -> None:
        # Connects the public pages' receivers of the signals of ratings.signals and
        # players.signals, and registers the pages' Celery tasks.
        from players.public import receivers  # noqa: F401
