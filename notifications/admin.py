"""The outbox in the admin, read-only: what was sent, to whom, and what failed."""

from django.contrib import admin

from notifications.models import OutgoingMail


@admin.register(OutgoingMail)
class OutgoingMailAdmin(admin.ModelAdmin):
    list_display = ("created_at", "kind", "to", "subject", "sent_at", "attempts", "last_error")
    list_filter = ("kind", ("sent_at", admin.EmptyFieldListFilter))
    search_fields = ("to", "subject", "key")
    readonly_fields = [field.name for field in OutgoingMail._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
