"""The signals the players app's writes send to the pages that keep what they show.

Documented here, sent by the services, received by the pages (connected in
``PlayersConfig.ready()``), so that no service imports a page module.
"""

from django.dispatch import Signal

player_shown_changed = Signal()
"""A write changed what the pages show of player ``player_id`` without changing any
rating (their name, country or club), so no recompute will follow. Sent inside the
write's transaction; a receiver that acts later does so on commit. The public pages'
receiver builds again the crosstables the player is in (``players/public/receivers.py``)."""

club_games_changed = Signal()
"""A write changed what a club's activity counts: the games entered for the clubs of
``club_ids`` (a sheet, a correction, a void, an import, a tournament's club changed),
the games of the players of ``player_ids`` (their clubs count their members who
played, anywhere: a merge moves games to another record) or the members of the clubs
of ``club_ids`` (a membership started or ended). Sent inside the write's transaction.
The public pages' receiver forgets the activity it keeps for those clubs and the
players' clubs, at once and again on commit (``players/public/club_cache.py``)."""
