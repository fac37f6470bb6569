"""Mail: the readers' addresses and choices, the outbox, and what is sent (account
links, the players' digests of their games, answers, rank changes, the volunteers'
daily list, the committee's alerts). Requests only write outbox rows; Celery sends."""
