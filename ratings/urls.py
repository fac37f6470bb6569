"""URLs of the algorithm lab and the what-if calculator: everyone may use them."""

from django.urls import path

from . import views

urlpatterns = [
    path("lab/", views.lab, name="lab"),
    path("calculator/", views.calculator_page, name="calculator"),
]
