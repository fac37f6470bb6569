"""Ratings: the pure rating engines (``ratings.engine``) and the Django app storing history.

This package must stay importable without Django: ``python -m ratings`` runs on the
standard library alone.
"""
