from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    verbose_name = "mail"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from notifications.receivers import apply_account_language

        user_logged_in.connect(apply_account_language, dispatch_uid="account-language")
