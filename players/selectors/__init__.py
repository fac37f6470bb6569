"""The reads of the players app, by entity (ratings, players, games, tournaments, clubs,
audit) and for the pages that assemble several (api, committee, reports, exports, resync
matching, head-to-head, club night, game search). Selectors import models and ratings'
selectors, never services or views."""
