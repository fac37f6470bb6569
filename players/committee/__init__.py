"""The committee's pages: resyncs with national lists, accounts, adjustments, player edits
and merges, recomputes."""
