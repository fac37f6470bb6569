"""The pages everyone may read, no login: the rating list, player logs, games, tournaments,
clubs, head-to-head, and the downloads (CSV, record sheets, h-files, OpenGotha)."""
