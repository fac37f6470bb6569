"""The algorithm lab (docs/lab.md): the tallies kept per month, their charts, tables,
reads, the incremental update, and the page."""
