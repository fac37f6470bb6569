"""The volunteers' pages: record sheets, games (edit, void), new players, the lookup,
tournaments (create, import), the audit list."""
