"""Presentation helpers both apps' pages share: table cells and explanations, charts,
pagination, algorithm tabs, form error helpers. Imports models, selectors and the
engine; never a page module."""
