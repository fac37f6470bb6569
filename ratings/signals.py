"""The signals the ratings app sends to the apps that show its results.

The ratings app never imports the pages: a page that keeps something built from the
stored history connects a receiver in its app's ``ready()`` (pretix's ``base/signals.py``
is the model). Receivers run in the process that sent the signal, after the commit of
what it announces; an error in one is logged by the sender and never undoes or retries
the write.
"""

from django.dispatch import Signal

history_rewritten = Signal()
"""A recompute of ``algorithm`` committed history rows rewritten from ``replayed_from``
(a ``date``; ``None``: the whole history). Sent by the recompute task, in the worker.
The public pages' receiver builds again the tournament pages those rows changed
(``players/public/receivers.py``)."""
