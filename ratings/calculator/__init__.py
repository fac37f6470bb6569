"""The what-if calculator: its form, the results under each maintained algorithm, and the
page."""
