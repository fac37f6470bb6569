from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from clubrating import views

urlpatterns = [
    path("", include("players.urls")),  # "/" (name "home") is the rating list
    path("", include("ratings.urls")),  # the algorithm lab and the what-if calculator
    path("health/", views.health, name="health"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/login/", views.ThrottledLoginView.as_view(), name="login"),
    # The admin's own login would bypass the throttle.
    path("admin/login/", views.ThrottledLoginView.as_view()),
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
