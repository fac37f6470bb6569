from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from clubrating import views

urlpatterns = [
    path("", include("players.urls")),  # "/" (name "home") is the rating list
    path("", include("ratings.urls")),  # the algorithm lab and the what-if calculator
    path("health/", views.health, name="health"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    # Repeated failures are locked out by django-axes (its authentication backend),
    # here and in the admin's own login alike.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    # No password reset by e-mail: the site assumes no mail server, and a committee
    # member sets a temporary password instead (committee accounts page).
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
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
