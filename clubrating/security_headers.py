"""The Content-Security-Policy of every answer.

Every script and style the site uses is a file it serves itself (static/, vendored
Bootstrap): the policy allows those and nothing else, no inline script, no style
attribute, nothing from another origin. An injected ``<script>`` or ``onclick`` would
not run. Bootstrap's CSS draws its form icons as ``data:`` SVG images, hence
``img-src data:``.
"""

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response
