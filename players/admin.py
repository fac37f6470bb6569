"""Admin pages of the players app, for the committee."""
