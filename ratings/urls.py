"""URLs of the algorithm lab and the what-if calculator: everyone may use them."""

from django.urls import path

from ratings.calculator import views as calculator_views
from ratings.lab import views as lab_views

urlpatterns = [
    path("lab/", lab_views.lab, name="lab"),
    path("calculator/", calculator_views.calculator_page, name="calculator"),
]
