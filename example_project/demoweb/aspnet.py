"""ASP.NET session state with ``cookieless="AutoDetect"``, in front of a site (``--cookies``).

An ASP.NET page that reads the session does not know at first whether the client keeps
cookies, so it asks: a request with neither a session cookie nor a session in its URL is
answered with a ``302`` to the same URL plus ``?AspxAutoDetectCookieSupport=1``, offering
a test cookie. A client that returns the cookie gets the page there, with a session
cookie, and every later request that brings it gets its page directly. One that does not
is sent to the page under a session in its path, ``/(S(<24 characters>))/page.aspx``,
where relative links keep it (and root-relative ones lose it, starting over).

So, with cookies, the first pages of such a host answer by a redirect that adds a
parameter and later ones, at the same URLs, with the page itself; without cookies, every
page is served under as many path prefixes as sessions reach it.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Mapping

from .server import Reply, Site, request_cookie, site_draw, with_cookie

PROBE = "AspxAutoDetectCookieSupport"
SESSION_COOKIE = "ASP.NET_SessionId"
_SESSION_IN_PATH = re.compile(r"/\(S\(([a-z0-5]{24})\)\)(?=/)", re.IGNORECASE)
_DOCUMENT = b'<meta name="doc-id"'


class AspNetSessions:
    """``site`` with about half its IIS hosts (drawn from ``salt`` and the bare host)
    running ASP.NET session state in ``AutoDetect`` mode on their documents' pages."""

    def __init__(self, site: Site, salt: str) -> None:
        self.site = site
        self.salt = salt

    def runs_aspnet(self, host: str) -> bool:
        return site_draw(self.salt, host) % 2 == 0

    def handle(self, path: str, query: str, headers: Mapping[str, str]) -> Reply:
        host = headers.get("Host", "")
        if not self.runs_aspnet(host):
            return self.site.handle(path, query, headers)
        in_path = _SESSION_IN_PATH.match(path)
        routed = path[in_path.end() :] if in_path else path
        pairs = [pair for pair in query.split("&") if pair]
        kept = "&".join(pair for pair in pairs if pair.partition("=")[0] != PROBE)
        probed = any(pair.partition("=")[0] == PROBE for pair in pairs)
        reply = self.site.handle(routed, kept, headers)
        server = reply.headers.get("Server", "")
        if (
            reply.status != 200
            or _DOCUMENT not in reply.body
            or "IIS" not in server
            or in_path
            or request_cookie(headers, SESSION_COOKIE)
        ):
            return reply
        session = hashlib.md5(f"{host}{routed}".encode()).hexdigest()[:24].translate(_BASE32)
        if not probed:
            location = f"{path}?{query}&{PROBE}=1" if query else f"{path}?{PROBE}=1"
            return _redirect(location, server, f"{PROBE}=1; path=/")
        if request_cookie(headers, PROBE):
            cookie = f"{SESSION_COOKIE}={session}; path=/; HttpOnly; SameSite=Lax"
            # (beside the site's own: a session written into its links offered as a cookie too)
            return Reply(200, reply.body, with_cookie(reply.headers, cookie))
        return _redirect(f"/(S({session})){routed}" + (f"?{kept}" if kept else ""), server)


#: Hex digits as ASP.NET's session ids spell them (``a-z``, ``0-5``).
_BASE32 = str.maketrans("6789", "wxyz")


def _redirect(location: str, server: str, cookie: str = "") -> Reply:
    link = html.escape(location)
    body = f'<html><head><title>Object moved</title></head><body><h2>Object moved to <a href="{link}">here</a>.</h2>'
    headers = {"Location": location, "Content-Type": "text/html; charset=utf-8", "Server": server}
    if cookie:
        headers["Set-Cookie"] = cookie
    return Reply(302, (body + "</body></html>").encode(), headers)
