from django.contrib import admin
from django.urls import include, path

from clubrating import views

urlpatterns = [
    path("", include("players.urls")),  # "/" (name "home") is the rating list
    path("", include("ratings.urls")),  # the algorithm lab and the what-if calculator
    path("health/", views.health, name="health"),
    # Before the auth URLs so that this view answers to the name "logout".
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/login/", views.ThrottledLoginView.as_view(), name="login"),
    # The admin's own login would bypass the throttle.
    path("admin/login/", views.ThrottledLoginView.as_view()),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
