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
