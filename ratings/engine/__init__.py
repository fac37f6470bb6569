"""The rating algorithms: pure Python on the standard library, no Django and nothing of
the project (import-linter holds it there; see .importlinter)."""
