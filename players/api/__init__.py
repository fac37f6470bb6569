"""The read-only JSON API, version 1 (docs/api.md), under /api/v1/."""
