"""The writes of the players app, one module per entity (games, players and merges,
adjustments and resyncs, imports, tournaments, accounts, reports, privacy) plus base.py
(ServiceError, the system user) and audit.py (the audit trail). Services may import
selectors, never views."""
