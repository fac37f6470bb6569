"""URLs of mail: a reader's settings and the links mail carries."""

from django.urls import path

from . import views

urlpatterns = [
    path("me/mail/", views.mail_settings, name="mail_settings"),
    path("mail/unsubscribe/<str:token>/", views.unsubscribe, name="mail_unsubscribe"),
    path("mail/confirm/<str:token>/", views.confirm_email, name="mail_confirm"),
    path("accounts/invitation/<str:token>/", views.invitation_accept, name="invitation_accept"),
]
