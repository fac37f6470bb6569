"""Pagination of the site's tables from the query string, within bounds."""

from django_tables2 import RequestConfig

# A page of 500 rows renders in well under a second; more asks the server to build
# a page nobody reads (the audit trail at 100,000 rows took 18 s).
MAX_PER_PAGE = 500


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
