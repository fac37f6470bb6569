"""Ratings: the pure rating engines (``ratings.engine``) and the Django app that stores their history.

This package must stay importable without Django: ``python -m ratings`` runs on the
standard library alone.
"""
