from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from clubrating import views
from notifications import forms as mail_forms
from notifications import views as mail_views

urlpatterns = [
    path("", include("players.urls")),  # "/" (name "home") is the rating list
    path("", include("notifications.urls")),  # mail settings, the links mail carries
    path("health/", views.health, name="health"),
    path("favicon.ico", views.favicon, name="favicon"),
    # The language switcher of every page: Django's set_language, which also keeps a
    # signed-in person's choice on their account.
    path("i18n/setlang/", mail_views.set_language, name="set_language"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    # Repeated failures are locked out by django-axes (its authentication backend),
    # here and in the admin's own login alike.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    # Choosing a password (changed, or through a reset link) lifts any log-in lockout
    # and tells the account's address (notifications.forms).
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(form_class=mail_forms.PasswordChangeForm),
        name="password_change",
    ),
    path(
        "accounts/password_reset/",
        auth_views.PasswordResetView.as_view(form_class=mail_forms.PasswordResetForm),
        name="password_reset",
    ),
    path(
        "accounts/password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(form_class=mail_forms.SetPasswordForm),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("admin/", admin.site.urls),
]

# A refusal for acting outside one's clubs names whom to ask on the 403 page.
handler403 = "players.permissions.denied"
