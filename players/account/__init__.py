"""A player's own pages: My page, reporting a mistake in a game, and the report queue the
volunteers answer."""
