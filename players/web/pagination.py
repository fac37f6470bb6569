"""Pagination of the site's tables from the query string, within bounds; a page's rows
picked before their joins (the tables' and the API's)."""

from django.db.models import QuerySet
from django_tables2 import RequestConfig
from django_tables2.data import TableQuerysetData

# A page of 500 rows renders in well under a second; more asks the server to build
# a page nobody reads (the audit trail at 100,000 rows took 18 s).
MAX_PER_PAGE = 500
# The rows a page of the public and committee tables shows unless asked otherwise.
PER_PAGE = 50


class BoundedRequestConfig(RequestConfig):
    """django-tables2's RequestConfig, with ``per_page`` from the query string kept
    between 1 and MAX_PER_PAGE: a value below 1 (or not a number) gives the page's
    default, one above the maximum gives the maximum."""

    def configure(self, table):
        name = table.prefixed_per_page_field
        raw = self.request.GET.get(name)
        if raw is not None:
            try:
                wanted = int(raw)
            except ValueError:
                wanted = 0
            bounded = min(wanted, MAX_PER_PAGE) if wanted >= 1 else None
            if str(bounded) != raw:
                # The table's own links repeat the query string: they carry the bound.
                query = self.request.GET.copy()
                if bounded is None:
                    del query[name]
                else:
                    query[name] = str(bounded)
                self.request.GET = query
        return super().configure(table)


def page_first(queryset: QuerySet, window: slice) -> list:
    """The rows of ``queryset`` in ``window``, picked before joining what they show.

    Slicing a queryset with ``select_related`` makes the database join every row it
    skips: the last page of a 2,000-game log joined 2,000 rows to show 50. Here a page
    is ``WHERE id IN (SELECT id ... ORDER BY ... LIMIT 50 OFFSET n)``, still one query,
    the subquery reading the index alone.
    """
    return list(queryset.filter(pk__in=queryset.values("pk")[window]))


class PageFirstData(TableQuerysetData):
    """Table data whose pages are :func:`page_first`."""

    def __getitem__(self, key):
        if not isinstance(key, slice):
            return self.data[key]
        return page_first(self.data, key)
