"""Players, clubs, games and the record sheets they are entered from."""
