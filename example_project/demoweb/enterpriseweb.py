"""A tenth generator of seeded webs: how legacy enterprise web platforms spell URLs.

Written by an outside checker from what the web servers of enterprise platforms (Lotus/HCL
Domino, ColdFusion on IIS, Tomcat with Struts, WebSphere Portal, SharePoint, Oracle APEX, SAP's
ABAP application server, classic ASP on IIS) do with the spelling of a URL: spellings that answer
one page (byte for byte, by a redirect to it, or as the same document in other bytes) and, on the
same host, the one or two places they do not. Each host is one *kind*; each exception is linked
late (after the host's coincidences have been linked many times over) and is the only way to the
document behind it. Where a real page links the exception itself (a view's "Next" link, a
section's twistie, a pager, a folder in a library view), that link is left out: the exception is
linked where the model says, once.

- ``domino`` (a Domino web server on Windows): ``/KB.nsf/Articles/<key>?OpenDocument`` is also
  ``!OpenDocument`` (``!`` for ``?``), ``?Open`` (the generic command), no command at all (``Open``
  is the default), ``?opendocument`` (commands ignore case), ``/kb.nsf/articles/...`` (database
  and view names ignore case), ``/KB.nsf/0/<UNID>`` (any view, or ``0``, with a document's UNID),
  ``/KB.nsf/<view UNID>/<UNID>`` (the form Domino's own view pages link) and
  ``/__<replica id>.nsf/...`` (the database by its replica id, as doclinks are rendered); a view
  ``?OpenView`` is ``&Start=1``, ``&Count=30`` (the server's lines per view page); ``/`` is the
  server's Home URL (the database's launch page, served, not redirected); ``&ExpandSection=1``
  changes nothing on a document without sections; unknown arguments after the command are
  ignored, but a query whose first item is no command is an error. Exceptions: the long view's
  ``?OpenView&Start=31`` (its second page, listing a document linked nowhere else, in the
  ``/<view UNID>/<UNID>`` form the view writes), and the one document with a collapsible section,
  whose ``?OpenDocument&ExpandSection=1`` shows the section and its doclink to a document linked
  nowhere else (its twistie's link to that URL is left out).
- ``coldfusion`` (a Fusebox application on ColdFusion and IIS): ``/`` is ``/index.cfm`` (the
  default document), file names ignore case (``/Index.cfm``), URL-scope names and fuseactions are
  struct keys (``?FuseAction=News.Detail&ID=3``), ``fuseaction=main.home`` is the default, the
  session tokens ``CFID``/``CFTOKEN`` (and ``jsessionid`` with J2EE sessions) that
  ``URLSessionFormat`` appends for a client without cookies are ignored, ``id=07`` is ``id=7``
  (``cfqueryparam`` as an integer); on half the hosts search-engine-safe URLs
  (``/index.cfm/fuseaction/news.detail/id/7``, every page with ``<base href="/">`` as such sites
  write it, or relative links would pile up path segments the SES parser reads). Lists are
  ``<cfoutput query startrow maxrows>`` with ``startrow=1`` and ``maxrows=10`` the defaults. Exceptions: the news list's
  ``&startrow=11`` (page two), and the events list's ``&maxrows=100`` ("show all", past events
  too), each listing an item linked nowhere else.
- ``jsp`` (Tomcat, a Struts 1 application with displaytag tables): every path parameter
  (``;jsessionid=<32 hex>[.<jvmRoute>]``, written by ``encodeURL`` for a client without the cookie)
  is stripped before mapping; ``/ctx`` -> 302 ``/ctx/`` and ``/ctx/docs`` -> 302 ``/ctx/docs/``, a
  directory is its welcome file (``/ctx/`` = ``/ctx/index.jsp``); ``item.do?id=5`` is
  ``&method=view`` (the ``DispatchAction``'s ``unspecified`` forwards to ``view``: a plausible
  configuration) and ``id=05`` (BeanUtils' conversion); a displaytag table's first page
  ``&d-<table>-p=1`` is the list. Exceptions: ``list.do?cat=N&d-<table>-p=2``, the table's second
  page, listing an item linked nowhere else; and ``/ctx/help/index.jsp``, beside ``/ctx/help/``,
  which Tomcat's default welcome list (``index.html, index.htm, index.jsp``) serves from an old
  ``index.html``: the JSP's relative link ``faq.jsp`` leads to a page linked nowhere else.
- ``websphere`` (IBM WebSphere Portal 8 with friendly URLs and a WCM viewer portlet):
  ``/wps/portal/<site>/<page>`` is also any navigational state of it,
  ``.../!ut/p/z1/<state>/dz/d5/L2dBISEvZ0FBIS9nQSEh/`` (a page's links from other pages carry
  other states) and ``/wps/portal/!ut/p/z1/<state>/...`` (the state alone names the page);
  ``?1dmy&urile=wcm%3apath%3a<item>`` naming the page's own content item is the page;
  ``/wps/portal`` -> 302 the home page. Every answer names the URL it was asked at in the theme's
  ``<link id="com.ibm.lotus.NavStateUrl" rel="alternate">`` (the same document in other bytes).
  Exceptions: one state token that carries a portlet render parameter (the portlet's detail
  view: another document, linking a hidden page of the portal) and one ``urile`` naming another
  content item (another article, linking a hidden page).
- ``sharepoint`` (a SharePoint 2013 team site collection under ``/sites/<name>/``, anonymous
  access on): paths ignore case, ``/sites/x`` and ``/sites/x/`` 302 to the welcome page
  ``SitePages/Home.aspx`` (a subsite's too), ``?PageView=Shared``, ``?Source=``, ``?InitialTabId=``,
  ``&VisibilityContext=``, a view's own ``?View={GUID}`` and a library's own root
  ``?RootFolder=/sites/x/SitePages`` change nothing; ``DispForm.aspx?ID=N`` is ``?id=N``. Every
  answer carries a new ``__REQUESTDIGEST`` and echoes the request in the ASP.NET form's
  ``action`` (never two answers alike). Exceptions: ``/sites/x/default.aspx``, the team site's
  old web-part home page, left beside the wiki welcome page when "Wiki Page Home Page" was
  turned on (its relative link to the Links list a page linked nowhere else); and
  ``SitePages/Forms/AllPages.aspx?RootFolder=/sites/x/SitePages/Archive``, a folder of the
  library, listing a wiki page linked nowhere else.
- ``apex`` (Oracle APEX on ORDS, public pages): ``/ords/f?p=APP:PAGE:SESSION:REQUEST:DEBUG:
  CLEARCACHE:ITEMS:VALUES:PRINTERFRIENDLY`` where the session (``0`` on public pages, or any id
  left in a link: the real one is in the cookie), empty trailing fields, ``DEBUG`` ``NO``, a
  ``CLEARCACHE`` of ``RP``, the application's and pages' aliases (``f?p=HR:EMPLOYEES:0``) and an
  item at its default value (``::P3_DEPTNO:10``) change nothing; the report's pagination request
  for its first rows (``:pg_R_<region>:NO&pg_min_row=1&pg_max_rows=15&pg_rows_fetched=15``) is
  the report; a parameter the ``f`` procedure does not take is a 404 (ORDS finds no such
  procedure). Every page carries a new ``p_page_submission_id``. Exceptions: the report's second
  rows ``pg_min_row=16`` and another department ``::P3_DEPTNO:20``, each listing an employee
  linked nowhere else.
- ``sap`` (BSP pages on SAP's ABAP application server, default client and language set in the
  ICF service): ``?sap-client=<default>``, ``?sap-language=EN`` (or ``en``) and the URL-mangled
  ``/sap(bD1lbiZjPTEwMA==)/bc/bsp/...`` (``l=en&c=100`` in base64) or ``/sap(Yz0xMDA=)/...``
  are the page; a material number is read through the ALPHA conversion (``matnr=100234`` is
  ``matnr=000000000000100234``); unknown parameters are ignored. Exceptions: ``products.htm?
  sap-language=DE`` (the German catalog, listing a product with a German text only) and
  ``products.htm?sap-client=<another client>`` (another client's catalog), each linking a
  product linked nowhere else.
- ``asp`` (classic ASP on IIS): paths and query names ignore case (``Request.QueryString``),
  ``CLng`` reads ``id=07`` as ``7``, unknown parameters are ignored, a directory is its default
  document (``/`` = ``/default.asp``, ``/news/`` = ``/news/default.asp``) and ``/news`` -> 301
  ``/news/`` (IIS's courtesy redirect). Exception: ``/support/default.asp``: IIS's default
  document list (``Default.htm, Default.asp, index.htm, index.html, iisstart.htm``) serves
  ``/support/`` from an old ``Default.htm`` left beside it, so the script is another page, whose
  relative link ``kb.asp`` leads to a page linked nowhere else.

Where unsure of the real software, a plausible configuration is modelled and said so above:
Domino's key lookup is taken to ignore case (not spelled in links) and ``/`` to be served, not
redirected; ColdFusion's ``/index.cfm/<path>`` without SES parsing is ``index.cfm`` itself; a
WebSphere state and a friendly name that disagree are a 404; Portal's ``/wps/myportal/`` (the
authenticated area) is not modelled; APEX without a session field is taken to answer the page
(not to redirect to add a session); BSP page names and paths are taken as case-sensitive (no
case spellings linked).

Each host also draws the coincidence generator's cross-cutting quirks
(:func:`~demoweb.coincidenceweb.draw_cross_cutting`: redirect status and ``Location`` style,
validators, ``HEAD``, gzip, rotating ads, a visitor counter; kinds whose software answers with
one status set it), sometimes a ``www.`` twin that serves the same pages, and links are spelled
with an upper-case host, a trailing-dot host, ``:80``, tracking parameters and fragments where
the server ignores them (each checked).

Every document is collected by stock Scrapy by construction, which :meth:`EnterpriseWeb.check`
proves over the data, as :class:`~demoweb.quirksweb.QuirksWeb` does: each document is reached
from a start URL through URLs that answer ``200``, and no two spellings stock takes as one
(w3lib's ``canonicalize_url``) lead to different documents or to different links.
"""

from __future__ import annotations

import base64
import binascii
import html
import random
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl, quote

from .commerceweb import _hex, _int, _tail
from .communityweb import CommunitySite
from .quirksweb import QuirksWeb, compare_kinds, web_of_kinds
from .randomweb import CrawlOrder, FamilyComparison, Page
from .server import Reply

KINDS = ("domino", "coldfusion", "jsp", "websphere", "sharepoint", "apex", "sap", "asp")
_DATABASES = ("kb", "support", "news", "library", "products", "web", "policies")
_VIEWS = ("Articles", "ByTitle", "News", "Products", "ByDate", "Docs", "Bulletins")
_KEYS = (
    "annual-report",
    "travel-policy",
    "WX-100",
    "WX-220",
    "install-guide",
    "release-9",
    "faq-printers",
    "holiday-2019",
    "vpn-setup",
    "TN-4711",
    "safety-sheet",
    "price-list",
)
_PAGES = ("about", "contact", "careers", "privacy", "locations", "history", "terms")
_SECTIONS = ("products", "services", "about", "news", "careers", "contact", "support")
_CHILDREN = ("overview", "pricing", "downloads", "faq", "partners", "events")
_WIKI = ("Policies", "Onboarding", "Contacts", "Calendar", "Travel", "Benefits", "Projects")
_MATERIALS = range(100000, 999999)
#: The state suffix WebSphere Portal appends to every stateful URL (``/gA!!/gA!!/gA!!`` in base64).
_STATE_TAIL = "/dz/d5/L2dBISEvZ0FBIS9nQSEh/"
_STATE_CHARS = string.ascii_letters + string.digits + "_-"


def _unid(rng: random.Random) -> str:
    """A Domino universal id: 32 hex digits, as Domino writes them (upper-case)."""
    return _hex(rng, 32).upper()


def _state(rng: random.Random) -> str:
    """A WebSphere Portal navigational state token (base64-like, a constant prefix, ``!`` at the end)."""
    body = "".join(rng.choice(_STATE_CHARS) for _ in range(rng.randint(40, 72)))
    return f"04_Sj9CPykssy0xPLMnMz0vMAfIjo8zi{body}!"


def _mangled(text: str) -> str:
    """A BSP URL-mangling segment: ``text`` (``l=en&c=100``) in base64, between parentheses."""
    return f"({base64.b64encode(text.encode()).decode()})"


class EnterpriseSite(CommunitySite):
    """A host of one kind; :meth:`echoed` renders a page with markup of the request's own."""

    def echoed(self, page: Page, markup: str) -> Reply:
        """``page`` with ``markup`` in its ``<head>`` (the same document, in bytes of this request)."""
        reply = self.render(page)
        return Reply(reply.status, reply.body.replace(b"</head>", markup.encode() + b"</head>", 1), reply.headers)

    def plain(self, page: Page) -> bool:
        """Whether ``page`` is neither an exception nor behind one (only those have spellings)."""
        return page.doc_id not in self.late and page.doc_id not in self.hidden

    def spellings(self, page: Page) -> list[str]:
        """The kind's :meth:`forms` of ``page`` other than its own URL (none for exceptions and what
        hides behind them)."""
        if not self.plain(page):
            return []
        return list(dict.fromkeys(url for url in self.forms(page) if url != page.url))

    def forms(self, page: Page) -> list[str]:
        """Other URLs that answer ``page`` (each kind's coincidences)."""
        return []

    def lower_params(self, query: str) -> dict[str, str]:
        """The query with its names lower-cased (a case-insensitive collection: CF's URL scope, ASP's)."""
        return {name.lower(): value for name, value in parse_qsl(query, keep_blank_values=True)}


# -- kinds ------------------------------------------------------------------------------------


class DominoSite(EnterpriseSite):
    """A Domino web server: see the module's docstring."""

    #: Rows a view page shows (the server document's "Default lines per view page").
    COUNT = 30
    COMMANDS = ("open", "opendatabase", "openview", "opendocument")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Lotus-Domino"
        name = rng.choice(_DATABASES)
        self.db = rng.choice((name, name.upper(), name.title())) + ".nsf"
        folder = rng.choice(("", "", "web", "apps"))
        self.prefix = f"/{folder}/{self.db}" if folder else f"/{self.db}"
        self.replica = _hex(rng, 16).upper()
        self.home = self.add("/")  # (the server's Home URL: the database's launch page)
        names = rng.sample(_VIEWS, 2)
        self.views: dict[str, tuple[str, Page]] = {}  # view name -> (its UNID, its first page)
        for view in names:
            self.views[view] = (_unid(rng), self.add(f"{self.prefix}/{view}", "OpenView"))
        count = max(3, min(8, budget - 7))
        keys = rng.sample(_KEYS, count + 2)
        self.docs: dict[str, tuple[str, str, Page]] = {}  # document UNID -> (view, key, page)
        for key in keys[:count]:
            view, unid = rng.choice(names), _unid(rng)
            self.docs[unid] = (view, key, self.add(f"{self.prefix}/{view}/{key}", "OpenDocument"))
            view_unid, listing = self.views[view]
            listing.links.append(f"{self.prefix}/{view_unid}/{unid}?OpenDocument")  # (as Domino renders a view)
        self.long = names[0]
        long_unid, first = self.views[self.long]
        self.texts[first.doc_id] = f"{self.long}: 1 - {self.COUNT} of {self.COUNT + 9}."
        self.paged = self.exception(self.add(f"{self.prefix}/{self.long}", f"OpenView&Start={self.COUNT + 1}"))
        self.texts[self.paged.doc_id] = f"{self.long}: {self.COUNT + 1} - {self.COUNT + 9} of {self.COUNT + 9}."
        unid = _unid(rng)
        self.docs[unid] = (self.long, keys[count], self.add(f"{self.prefix}/{long_unid}/{unid}", "OpenDocument"))
        self.behind(self.paged, self.docs[unid][2])
        self.sectioned = next(iter(self.docs))
        view, key, page = self.docs[self.sectioned]
        self.texts[page.doc_id] = f"{key}. > Related documents (collapsed section)"
        self.expanded = self.exception(self.add(f"{self.prefix}/{view}/{key}", "OpenDocument&ExpandSection=1"))
        self.texts[self.expanded.doc_id] = f"{key}. v Related documents: see the superseded edition."
        unid = _unid(rng)
        self.docs[unid] = (names[1], keys[count + 1], self.add(f"{self.prefix}/0/{unid}", "OpenDocument"))
        self.behind(self.expanded, self.docs[unid][2])  # (a doclink, rendered by UNID)
        self.traps.append(
            f"!, ?Open, no command, names' case, /0/<UNID>, view UNIDs, replica id, &Start=1&Count=30, "
            f"&ExpandSection on plain documents; but {self.prefix}/{self.long}?OpenView&Start={self.COUNT + 1} "
            f"and {key}?OpenDocument&ExpandSection=1"
        )

    def database(self, path: str) -> list[str] | None:
        """The path's parts below the database (by its file name or its replica id), else ``None``."""
        for prefix in (self.prefix, f"/__{self.replica}.nsf"):
            if path.lower() == prefix.lower() or path.lower().startswith(prefix.lower() + "/"):
                return [part for part in path[len(prefix) :].split("/") if part]
        return None

    def view_named(self, token: str) -> str | None:
        """The view a path segment names (by name or UNID, case ignored), ``"0"`` for the UNID view."""
        if token == "0":
            return "0"
        return next(
            (name for name, (unid, _) in self.views.items() if token.lower() in (name.lower(), unid.lower())), None
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if "!" in path:  # (Domino reads "!" as "?")
            path, _, query = path.partition("!")
        pairs = parse_qsl(query, keep_blank_values=True)
        command, args = "open", {}
        if pairs:
            name, value = pairs[0]
            if value or name.lower() not in self.COMMANDS:
                return None  # (the first item of the query must be a command)
            command = name.lower()
            args = {key.lower(): value for key, value in pairs[1:]}
        if path == "/":
            return self.home if not pairs else None
        parts = self.database(path)
        if parts is None:
            return None
        if not parts:
            return self.home if command in ("open", "opendatabase") else None
        view = self.view_named(parts[0])
        if view is None or len(parts) > 2:
            return None
        if len(parts) == 1:
            if view == "0" or command not in ("open", "openview"):
                return None
            start, count = _int(args.get("start", "1"), 1), _int(args.get("count", str(self.COUNT)), 0)
            if count != self.COUNT:
                return None  # (another page size: not modelled)
            if start == 1:
                return self.views[view][1]
            return self.paged if (view, start) == (self.long, self.COUNT + 1) else None
        if command not in ("open", "opendocument"):
            return None
        key = parts[1]
        if re.fullmatch(r"[0-9A-Fa-f]{32}", key):
            unid: str | None = key.upper()
        elif view != "0":  # (a key: the view's first sorted column, case ignored)
            unid = next((u for u, (v, k, _) in self.docs.items() if v == view and k.lower() == key.lower()), None)
        else:
            unid = None
        if unid not in self.docs:
            return None
        expand = args.get("expandsection", "")
        if unid == self.sectioned and expand:
            return self.expanded if expand == "1" else None
        return self.docs[unid][2]

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        replica = f"{base}/__{self.replica}.nsf"
        prefix = self.prefix
        if page is self.home:
            forms = [f"{base}{prefix}", f"{base}{prefix}?OpenDatabase", f"{base}{prefix}!OpenDatabase"]
            return [*forms, f"{base}{prefix.lower()}?opendatabase", f"{base}{prefix.upper()}?Open", f"{replica}?Open"]
        for view, (unid, listing) in self.views.items():
            if listing is page:
                bare = f"{base}{page.path}"
                forms = [f"{bare}!OpenView", f"{bare}?Open", bare, f"{page.url}&Start=1", f"{page.url}&Count=30"]
                forms += [f"{page.url}&Start=1&Count={self.COUNT}", f"{base}{prefix.lower()}/{view.lower()}?openview"]
                return [*forms, f"{base}{prefix}/{unid}?OpenView", f"{replica}/{unid.lower()}!OpenView"]
        for unid, (view, key, document) in self.docs.items():
            if document is not page:
                continue
            bare = f"{base}{page.path}"
            other = next(name for name in self.views if name != view)
            forms = [f"{bare}!OpenDocument", f"{bare}?Open", bare, f"{bare}?opendocument"]
            forms += [
                f"{base}{prefix}/0/{unid}?OpenDocument",
                f"{base}{prefix}/{self.views[view][0]}/{unid}?OpenDocument",
            ]
            forms += [
                f"{base}{prefix.lower()}/{view.lower()}/{key}?OpenDocument",
                f"{base}{prefix}/{other}/{unid}!Open",
            ]
            forms.append(f"{replica}/0/{unid.lower()}?OpenDocument")
            if unid != self.sectioned:  # (no section to expand: the argument changes nothing)
                forms.append(f"{page.url}&ExpandSection=1")
            return forms
        return []


class ColdFusionSite(EnterpriseSite):
    """A Fusebox application on ColdFusion and IIS: see the module's docstring."""

    #: The lists' defaults (``<cfparam name="url.startrow" default="1">``, ``maxrows`` 10) and "show all".
    ROWS, ALL = 10, 100

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Microsoft-IIS/7.5", "Microsoft-IIS/8.5", "Microsoft-IIS/10.0"))
        self.redirect_status = 302
        self.ses = rng.random() < 0.5  # (search-engine-safe URLs parsed from the path)
        self.j2ee = rng.random() < 0.5  # (J2EE sessions: a jsessionid beside CFID and CFTOKEN)
        self.home = self.add("/")
        self.by_key: dict[tuple[str, int], Page] = {("main.home", 0): self.home}  # (fuseaction, id) -> page
        for fuseaction in rng.sample(("main.about", "main.contact", "main.sitemap"), 2):
            self.by_key[(fuseaction, 0)] = self.add("/index.cfm", f"fuseaction={fuseaction}")
        count = max(2, min(4, (budget - 7) // 2))
        self.lists: dict[str, Page] = {}
        for circuit in ("news", "events"):
            listing = self.add("/index.cfm", f"fuseaction={circuit}.list")
            self.lists[circuit] = self.by_key[(f"{circuit}.list", 0)] = listing
            for number in rng.sample(range(2, 400), count):
                page = self.add("/index.cfm", f"fuseaction={circuit}.detail&id={number}")
                self.by_key[(f"{circuit}.detail", number)] = page
                listing.links.append(f"index.cfm?{page.query}")  # (relative, as the templates write them)
        self.texts[self.lists["news"].doc_id] = f"News: 1 - {self.ROWS} of 14. Next"
        self.paged = self.exception(self.add("/index.cfm", f"fuseaction=news.list&startrow={self.ROWS + 1}"))
        self.texts[self.paged.doc_id] = f"News: {self.ROWS + 1} - 14 of 14."
        self.every = self.exception(self.add("/index.cfm", f"fuseaction=events.list&maxrows={self.ALL}"))
        self.texts[self.every.doc_id] = "Events: all 12, past events too."
        for page, circuit in ((self.paged, "news"), (self.every, "events")):
            number = rng.choice([n for n in range(400, 600) if (f"{circuit}.detail", n) not in self.by_key])
            hidden = self.add("/index.cfm", f"fuseaction={circuit}.detail&id={number}")
            self.by_key[(f"{circuit}.detail", number)] = self.behind(page, hidden, f"index.cfm?{hidden.query}")
        if self.ses:  # (SES sites write <base href="/">: relative links resolve as from /index.cfm)
            for page in self.pages:
                self.bases[page.doc_id] = "/"
        self.cfid = str(rng.randrange(1000, 9_999_999))
        self.cftoken = str(rng.randrange(10**7, 10**8))
        self.traps.append(
            f"/ = /index.cfm, case, CFID/CFTOKEN{'/jsessionid' if self.j2ee else ''}, id=07, startrow=1, "
            f"maxrows=10{', SES paths' if self.ses else ''}; but news.list&startrow={self.ROWS + 1} "
            f"and events.list&maxrows={self.ALL}"
        )

    def session_token(self, page: Page) -> str:
        """The session token ``URLSessionFormat`` appended to a link to ``page`` (an earlier visitor's)."""
        rng = random.Random(page.doc_id)
        token = f"CFID={self.cfid}&CFTOKEN={rng.randrange(10**7, 10**8)}"
        return token + (f"&jsessionid={_hex(rng, 36)}" if self.j2ee else "")

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        folded = path.lower()
        params = self.lower_params(query)
        if folded.startswith("/index.cfm/"):
            if self.ses:  # (the SES parser: /name/value pairs into the URL scope)
                parts = [part for part in path[len("/index.cfm/") :].split("/") if part]
                if len(parts) % 2:
                    return None
                params.update({name.lower(): value for name, value in zip(parts[::2], parts[1::2], strict=True)})
            folded = "/index.cfm"  # (without SES parsing, CGI.PATH_INFO is read by nobody)
        if folded not in ("/", "/index.cfm"):
            return None
        fuseaction = params.get("fuseaction", "main.home").lower()
        if fuseaction.endswith(".list"):
            rows = (_int(params.get("startrow", "1"), 1), _int(params.get("maxrows", str(self.ROWS)), self.ROWS))
            if rows == (1, self.ROWS):
                return self.lists.get(fuseaction.removesuffix(".list"))
            if (fuseaction, rows) == ("news.list", (self.ROWS + 1, self.ROWS)):
                return self.paged
            return self.every if (fuseaction, rows) == ("events.list", (1, self.ALL)) else None
        number = _int(params.get("id", ""), -1) if fuseaction.endswith(".detail") else 0
        return self.by_key.get((fuseaction, number))

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        token = self.session_token(page)
        if page is self.home:
            forms = [f"{base}/index.cfm", f"{base}/Index.cfm", f"{base}/index.cfm?fuseaction=main.home"]
            return [*forms, f"{base}/?FuseAction=Main.Home&{token}", f"{base}/index.cfm?{token}"]
        params = self.params(page.query)
        fuseaction, number = params["fuseaction"], params.get("id", "")
        circuit, _, action = fuseaction.partition(".")
        title = f"FuseAction={circuit.title()}.{action.title()}" + (f"&ID={number}" if number else "")
        forms = [f"{base}/Index.cfm?{page.query}", f"{base}/INDEX.CFM?{page.query}", f"{base}/?{page.query}"]
        forms += [f"{base}/index.cfm?{title}", f"{page.url}&{token}", f"{base}/index.cfm?{token}&{page.query}"]
        if self.ses:
            forms.append(f"{base}/index.cfm/fuseaction/{fuseaction}" + (f"/id/{number}" if number else ""))
        if number:
            forms.append(f"{base}/index.cfm?fuseaction={fuseaction}&id=0{number}")
        if action == "list":
            forms += [f"{page.url}&startrow=1", f"{page.url}&maxrows={self.ROWS}"]
            forms.append(f"{page.url}&startrow=1&maxrows={self.ROWS}&{token}")
        return forms


class JspSite(EnterpriseSite):
    """Tomcat with a Struts 1 application: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Apache-Coyote/1.1", ""))
        self.redirect_status = 302  # (Tomcat's mapper and DefaultServlet)
        self.ctx = "/" + rng.choice(("catalog", "shop", "store", "portal", "intranet"))
        self.table = rng.randrange(10000, 99999)  # (displaytag: d-<hash of the table's id>-p)
        self.route_suffix = rng.choice(("", "", ".node1", ".jvm2"))  # (Tomcat's jvmRoute)
        #: Directories below the context -> their welcome file (Tomcat's default list, the first found).
        self.welcome = {"": "index.jsp", "docs/": "index.jsp", "help/": "index.html"}
        self.files: dict[str, Page] = {"index.jsp": self.add(f"{self.ctx}/")}
        self.home = self.files["index.jsp"]
        for name in rng.sample(("about.jsp", "contact.jsp", "terms.jsp"), 2):
            self.files[name] = self.add(f"{self.ctx}/{name}")
        self.files["docs/index.jsp"] = self.add(f"{self.ctx}/docs/")
        for word in rng.sample(("setup", "api", "changes", "limits"), 2):
            self.files[f"docs/{word}.jsp"] = self.add(f"{self.ctx}/docs/{word}.jsp")
        self.files["help/index.html"] = self.add(f"{self.ctx}/help/")
        self.texts[self.files["help/index.html"].doc_id] = "Help (2009). This page is no longer maintained."
        categories = rng.sample(range(1, 40), 2)
        self.lists: dict[tuple[int, int], Page] = {}  # (category, table page) -> list
        self.items: dict[int, Page] = {}
        numbers = rng.sample(range(100, 999), max(2, min(6, budget - 11)) + 1)
        for category in categories:
            self.lists[(category, 1)] = self.add(f"{self.ctx}/list.do", f"cat={category}")
        for index, number in enumerate(numbers[:-1]):
            self.items[number] = self.add(f"{self.ctx}/item.do", f"id={number}")
            self.lists[(categories[index % 2], 1)].links.append(f"item.do?id={number}")
        self.long = categories[0]
        self.paged = self.exception(self.add(f"{self.ctx}/list.do", f"cat={self.long}&d-{self.table}-p=2"))
        self.lists[(self.long, 2)] = self.paged
        self.texts[self.paged.doc_id] = "21 items found, displaying 11 to 20. [First/Prev] 1, 2, 3 [Next/Last]"
        hidden = self.add(f"{self.ctx}/item.do", f"id={numbers[-1]}")
        self.items[numbers[-1]] = self.behind(self.paged, hidden, f"item.do?id={numbers[-1]}")
        self.help = self.exception(self.add(f"{self.ctx}/help/index.jsp"))
        self.files["help/index.jsp"] = self.help
        self.texts[self.help.doc_id] = "Help. Frequently asked questions: see the FAQ."
        self.files["help/faq.jsp"] = self.behind(self.help, self.add(f"{self.ctx}/help/faq.jsp"), "faq.jsp")
        self.traps.append(
            f";jsessionid stripped, /dir/ = /dir/index.jsp, &method=view, d-{self.table}-p=1; "
            f"but list.do?cat={self.long}&d-{self.table}-p=2 and {self.ctx}/help/index.jsp (help/ is index.html)"
        )

    def session_id(self, page: Page) -> str:
        return f";jsessionid={_hex(random.Random(page.doc_id), 32).upper()}{self.route_suffix}"

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        clean = "/".join(segment.split(";", 1)[0] for segment in path.split("/"))  # (path parameters)
        if clean == self.ctx:
            return self.redirect(authority, f"{self.ctx}/" + _tail(query))
        if not clean.startswith(self.ctx + "/"):
            return None
        rest = clean[len(self.ctx) + 1 :]
        params = self.params(query)
        if rest == "" or rest.endswith("/"):
            if rest not in self.welcome:
                return None
            rest += self.welcome[rest]
        elif rest + "/" in self.welcome:  # (DefaultServlet: a directory's slash added)
            return self.redirect(authority, f"{self.ctx}/{rest}/" + _tail(query))
        if rest == "list.do":
            page = _int(params.get(f"d-{self.table}-p", "1"), 1)
            return self.lists.get((_int(params.get("cat", ""), -1), page))
        if rest == "item.do":
            if params.get("method", "view") != "view":
                return None  # (the DispatchAction's other methods: not modelled)
            return self.items.get(_int(params.get("id", ""), -1))
        return self.files.get(rest)

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}{self.ctx}"
        session = self.session_id(page)
        if page.path.endswith("/"):
            welcome = "index.html" if page.path.endswith("/help/") else "index.jsp"
            forms = [f"{page.url}{welcome}", page.url[:-1], f"{page.url}{session}", f"{page.url}{welcome}{session}"]
            return forms if page is not self.home else [*forms, f"{page.url[:-1]}{session}"]
        if page.path.endswith("/list.do"):
            category = self.params(page.query)["cat"]
            forms = [f"{base}/list.do{session}?{page.query}", f"{page.url}&d-{self.table}-p=1"]
            return [*forms, f"{base}/list.do?d-{self.table}-p=1&cat={category}", f"{base}/list.do?cat=0{category}"]
        if page.path.endswith("/item.do"):
            number = self.params(page.query)["id"]
            forms = [f"{page.url}&method=view", f"{base}/item.do{session}?{page.query}", f"{base}/item.do?id=0{number}"]
            return [*forms, f"{base}/item.do{session}?method=view&id={number}"]
        return [f"{page.url}{session}"]


class WebSphereSite(EnterpriseSite):
    """WebSphere Portal with friendly URLs: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "IBM_HTTP_Server"
        self.redirect_status = 302
        self.site = rng.choice(("internet", "public", "acme", "citizen"))
        self.root = f"/wps/portal/{self.site}"
        self.library = rng.choice(("webcontent", "acme_content", "public_site"))
        self.home = self.add(f"{self.root}/home")
        names = rng.sample(_SECTIONS, max(2, min(5, budget - 9)) + 1)
        sections, spare = names[:-1], names[-1]
        self.friendly: dict[str, Page] = {self.home.path: self.home}
        for name in sections:
            self.friendly[f"{self.root}/{name}"] = self.add(f"{self.root}/{name}")
        self.parent = sections[0]
        children = rng.sample(_CHILDREN, 3)
        for child in children[:2]:
            self.friendly[f"{self.root}/{self.parent}/{child}"] = self.add(f"{self.root}/{self.parent}/{child}")
        #: Friendly path -> the content item its WCM viewer shows by default.
        self.items = {path: f"/{self.library}/{self.site}{path[len(self.root) :]}" for path in self.friendly}
        #: State token -> (the page it selects, the friendly path it may be prefixed with).
        self.states: dict[str, tuple[Page, str]] = {}
        for path, page in self.friendly.items():
            for _ in range(2):
                self.states[_state(rng)] = (page, path)
        token = _state(rng)
        section = f"{self.root}/{self.parent}"
        self.detail = self.exception(self.add(f"{section}/!ut/p/z1/{token}{_STATE_TAIL}"))
        self.states[token] = (self.detail, section)
        self.texts[self.detail.doc_id] = "Product detail (the catalog portlet's detail view). Related: archive."
        hidden = self.add(f"{section}/{children[2]}")  # (a page hidden from the navigation)
        self.friendly[hidden.path] = self.behind(self.detail, hidden)
        other = sections[-1]
        self.other_item = f"/{self.library}/{self.site}/{other}/{spare}-2012"
        query = f"1dmy&urile={quote('wcm:path:' + self.other_item, safe='')}"
        self.article = self.exception(self.add(f"{self.root}/{other}", query))
        self.texts[self.article.doc_id] = f"Archived article ({spare}, 2012). See also the retired page."
        retired = self.add(f"{self.root}/{other}/{spare}")
        self.friendly[retired.path] = self.behind(self.article, retired)
        self.traps.append(
            f"any navigational state of a page, the state alone, its own urile; but one state under "
            f"{section}/ (a portlet's detail view) and {self.root}/{other}?urile=...{spare}-2012"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path in ("/wps/portal", "/wps/portal/"):
            return self.redirect(authority, self.home.path)
        if not path.startswith("/wps/portal/"):
            return None
        found: Page | None
        rest, _, state = path.partition("/!ut/p/")
        if state:
            match = re.fullmatch(rf"z1/([\w!-]+){re.escape(_STATE_TAIL)}?", state)
            entry = self.states.get(match.group(1)) if match else None
            if entry is None or rest not in ("/wps/portal", entry[1]):
                return None  # (an unknown state, or a friendly name the state contradicts: not modelled)
            found, rest = entry
        else:
            found = self.friendly.get(rest)
        if found is None:
            return None
        urile = self.params(query).get("urile")
        if urile is not None:
            if rest not in self.items or found is self.detail:
                return None
            if urile == f"wcm:path:{self.items[rest]}":
                pass
            elif urile == f"wcm:path:{self.other_item}" and rest == self.article.path:
                found = self.article
            else:
                return None  # (another content item: not modelled)
        href = html.escape(raw_path + _tail(query))
        return self.echoed(found, f'<link id="com.ibm.lotus.NavStateUrl" rel="alternate" href="{href}">')

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        forms = []
        for token, (target, path) in self.states.items():
            if target is page:
                forms += [
                    f"{base}{path}/!ut/p/z1/{token}{_STATE_TAIL}",
                    f"{base}/wps/portal/!ut/p/z1/{token}{_STATE_TAIL}",
                ]
        if page.path in self.items:
            forms.append(f"{page.url}?1dmy&urile=wcm%3apath%3a{quote(self.items[page.path], safe='')}")
        if page is self.home:
            forms += [f"{base}/wps/portal", f"{base}/wps/portal/"]
        return forms


class SharePointSite(EnterpriseSite):
    """A SharePoint 2013 team site collection: see the module's docstring."""

    token_markup = '<input type="hidden" name="__REQUESTDIGEST" value="0x{},14 Nov 2023 08:12:31 -0000">'

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("Microsoft-IIS/8.5", "Microsoft-IIS/10.0"))
        self.redirect_status = 302
        site = "/sites/" + rng.choice(("intranet", "hr", "projects", "finance", "teams"))
        self.site = site
        self.sub = f"{site}/{rng.choice(('wiki', 'it', 'legal'))}"
        self.home = self.add(f"{site}/SitePages/Home.aspx")
        self.welcome = {site.lower(): self.home, self.sub.lower(): self.add(f"{self.sub}/SitePages/Home.aspx")}
        for name in rng.sample(_WIKI, max(2, min(5, budget - 10))):
            self.add(f"{site}/SitePages/{name}.aspx")
        self.library = self.add(f"{site}/SitePages/Forms/AllPages.aspx")
        self.announcements = self.add(f"{site}/Lists/Announcements/AllItems.aspx")
        self.views = {self.library.doc_id: _hex(rng, 32).upper(), self.announcements.doc_id: _hex(rng, 32).upper()}
        self.items: dict[int, Page] = {}
        for number in rng.sample(range(1, 60), 2):
            self.items[number] = self.add(f"{site}/Lists/Announcements/DispForm.aspx", f"ID={number}")
            self.announcements.links.append(f"DispForm.aspx?ID={number}")
        self.old_home = self.exception(self.add(f"{site}/default.aspx"))
        self.texts[self.old_home.doc_id] = "Team site (web part page). Shared Documents. Links."
        self.behind(self.old_home, self.add(f"{site}/Lists/Links/AllItems.aspx"), "Lists/Links/AllItems.aspx")
        archive = f"{site}/SitePages/Archive"
        self.archive = self.exception(self.add(self.library.path, f"RootFolder={quote(archive, safe='')}"))
        self.texts[self.archive.doc_id] = "Site Pages > Archive."
        old = rng.choice(
            [name for name in _WIKI if not any(page.path.endswith(f"/{name}.aspx") for page in self.pages)]
        )
        self.behind(self.archive, self.add(f"{archive}/{old}.aspx"))
        self.by_path = {page.path.lower(): page for page in self.pages if not page.query}
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"MicrosoftSharePointTeamServices": "15.0.0.4797"}
        self.traps.append(
            f"case, /sites/x/ -> Home.aspx, ?Source, ?PageView=Shared, own View and RootFolder, ?id=; "
            f"but {site}/default.aspx and ?RootFolder={archive}"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        folded = path.lower()
        params = self.lower_params(query)
        if folded.rstrip("/") in self.welcome:  # (a web's root: 302 to its welcome page)
            return self.redirect(authority, self.welcome[folded.rstrip("/")].path)
        if params.get("pageview", "shared").lower() != "shared":
            return None  # (the personal view: anonymous users have none)
        found = self.by_path.get(folded)
        if found is None:
            if folded == self.announcements.path.lower().replace("/allitems.aspx", "/dispform.aspx"):
                found = self.items.get(_int(params.get("id", ""), -1))
        elif found.doc_id in self.views:
            view = params.get("view", "").strip("{}").upper()
            if view and view != self.views[found.doc_id]:
                return None  # (another view: not modelled)
            if found is self.library:
                folder = params.get("rootfolder", "").lower().rstrip("/")
                if folder == f"{self.site}/sitepages/archive".lower():
                    found = self.archive
                elif folder not in ("", f"{self.site}/sitepages".lower()):
                    return None
        if found is None:
            return None
        action = html.escape("./" + raw_path.rsplit("/", 1)[1] + _tail(query))
        return self.echoed(found, f'<form method="post" action="{action}" id="aspnetForm"></form>')

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        forms = [f"{base}{page.path.lower()}" + _tail(page.query), f"{page.url}{'&' if page.query else '?'}Source=%2F"]
        for root, welcome in self.welcome.items():
            if welcome is page:
                forms += [f"{base}{root}", f"{base}{root}/", f"{base}{root.upper()}/SitePages/Home.aspx"]
        if page.path.endswith("/DispForm.aspx"):
            number = self.params(page.query)["ID"]
            listing = quote(f"{base}{self.announcements.path}", safe="")
            return [*forms, f"{base}{page.path}?id={number}", f"{page.url}&Source={listing}&ContentTypeId=0x0104"]
        if page.doc_id in self.views:
            guid = self.views[page.doc_id]
            forms += [
                f"{page.url}?View=%7B{guid}%7D",
                f"{page.url}?View=%7b{guid.lower()}%7d&InitialTabId=Ribbon.Document",
            ]
            forms.append(f"{page.url}?InitialTabId=Ribbon.Library&VisibilityContext=WSSTabPersistence")
            if page is self.library:
                forms.append(f"{page.url}?RootFolder={quote(self.site + '/SitePages', safe='')}")
            return forms
        return [*forms, f"{page.url}?PageView=Shared", f"{page.url}?InitialTabId=Ribbon.WikiPageTab"]


class ApexSite(EnterpriseSite):
    """Oracle APEX on ORDS: see the module's docstring."""

    token_markup = '<input type="hidden" name="p_page_submission_id" value="{}" id="pPageSubmissionId">'
    #: Rows a page of the report shows.
    ROWS = 15
    #: Page aliases by page number: the home, the report, a department, an employee, two of text.
    ALIASES: ClassVar[dict[int, str]] = {
        1: "HOME",
        2: "EMPLOYEES",
        3: "DEPARTMENT",
        4: "EMPLOYEE",
        10: "ABOUT",
        11: "HELP",
    }
    #: The ``f`` procedure's parameters (any other: ORDS finds no procedure to call).
    ARGUMENTS = ("p", "pg_min_row", "pg_max_rows", "pg_rows_fetched", "cs")

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(("", "Oracle-HTTP-Server", "Apache"))
        self.prefix = rng.choice(("/ords", "/apex"))
        self.app, self.app_alias = rng.randrange(100, 300), rng.choice(("HR", "CATALOG", "PORTAL", "LIBRARY"))
        self.region = rng.randrange(10**15, 10**16)
        #: (page, its item's value or "", first row) -> page
        self.views: dict[tuple[int, str, int], Page] = {}
        for number in (1, 2, 10, 11):
            self.views[(number, "", 1)] = self.add(f"{self.prefix}/f", f"p={self.app}:{number}:0")
        self.home = self.views[(1, "", 1)]
        self.views[(3, "10", 1)] = self.add(f"{self.prefix}/f", f"p={self.app}:3:0")  # (P3_DEPTNO's default: 10)
        employees = rng.sample(range(7300, 8000), max(2, min(6, budget - 9)) + 2)
        for number in employees:
            self.views[(4, str(number), 1)] = self.add(f"{self.prefix}/f", f"p={self.app}:4:0::NO::P4_EMPNO:{number}")
        report, department = self.views[(2, "", 1)], self.views[(3, "10", 1)]
        report.links += [f"f?{self.views[(4, str(n), 1)].query}" for n in employees[:-2]]
        department.links += [f"f?{self.views[(4, str(n), 1)].query}" for n in employees[: len(employees) // 2]]
        self.texts[report.doc_id] = f"Employees: row(s) 1 - {self.ROWS} of 19. Next"
        paging = f"pg_min_row={self.ROWS + 1}&pg_max_rows={self.ROWS}&pg_rows_fetched={self.ROWS}"
        self.paged = self.exception(self.add(f"{self.prefix}/f", f"p={self.app}:2:0:pg_R_{self.region}:NO&{paging}"))
        self.views[(2, "", self.ROWS + 1)] = self.paged
        self.texts[self.paged.doc_id] = f"Employees: row(s) {self.ROWS + 1} - 19 of 19."
        self.other = self.exception(self.add(f"{self.prefix}/f", f"p={self.app}:3:0::NO::P3_DEPTNO:20"))
        self.views[(3, "20", 1)] = self.other
        self.texts[self.other.doc_id] = "Department 20: RESEARCH, DALLAS."
        for page, number in ((self.paged, employees[-2]), (self.other, employees[-1])):
            self.behind(page, self.views[(4, str(number), 1)], f"f?{self.views[(4, str(number), 1)].query}")
        self.traps.append(
            f"any session, empty trailing fields, NO, RP, aliases ({self.app_alias}), P3_DEPTNO:10, pg_min_row=1; "
            f"but pg_min_row={self.ROWS + 1} and P3_DEPTNO:20"
        )

    def page_number(self, text: str) -> int | None:
        if text == "":
            return 1
        if text.isdigit():
            return int(text)
        return next((number for number, alias in self.ALIASES.items() if alias == text.upper()), None)

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        if path != f"{self.prefix}/f":
            return None
        params = self.lower_params(query)
        if set(params) - set(self.ARGUMENTS):
            return None
        fields = params.get("p", "").split(":")
        if len(fields) > 9:
            return None
        app, page, session, request, debug, _, names, values, printer = fields + [""] * (9 - len(fields))
        number = self.page_number(page)
        if app.upper() not in (str(self.app), self.app_alias) or number is None or (session and not session.isdigit()):
            return None
        if debug.upper() not in ("", "NO") or printer.upper() not in ("", "NO"):
            return None  # (debug and printer-friendly renders: not modelled)
        items = dict(zip(names.upper().split(","), values.split(","), strict=False)) if names else {}
        first = 1
        if request:
            if request.upper() != f"PG_R_{self.region}" or _int(params.get("pg_max_rows", ""), 0) != self.ROWS:
                return None  # (another request: not modelled)
            first = _int(params.get("pg_min_row", "1"), 1)
        value = ""
        if number == 3:
            value = items.pop("P3_DEPTNO", "10")
        elif number == 4:
            value = items.pop("P4_EMPNO", "")
        if items:
            return None  # (items of another page: not modelled)
        return self.views.get((number, value, first))

    def forms(self, page: Page) -> list[str]:
        fields = self.params(page.query)["p"].split(":")
        number, items = int(fields[1]), ":".join(fields[5:])
        url = f"http://{self.host}{self.prefix}/f?p="
        session = random.Random(page.doc_id).randrange(10**12, 10**14)
        alias = self.ALIASES[number]
        forms = [f"{url}{self.app}:{number}:{session}" + (f"::NO:{items}" if items else "")]
        forms += [
            f"{url}{self.app}:{number}:0::NO:" + (items or "::"),
            f"{url}{self.app_alias}:{alias}:0::NO:{items or '::'}",
        ]
        forms.append(f"{url}{self.app}:{alias.lower()}:{session}:::" + (items or "::"))
        if not items:
            forms += [f"{url}{self.app}:{number}:0::NO:RP::", f"{url}{self.app_alias.lower()}:{number}"]
        if number == 3:
            forms.append(f"{url}{self.app}:3:0::NO::P3_DEPTNO:10")
        if number == 2:
            paging = f"pg_min_row=1&pg_max_rows={self.ROWS}&pg_rows_fetched={self.ROWS}"
            forms.append(f"{url}{self.app}:2:{session}:pg_R_{self.region}:NO&{paging}")
        return forms


class SapSite(EnterpriseSite):
    """BSP pages on SAP's ABAP application server: see the module's docstring."""

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = rng.choice(
            ("SAP NetWeaver Application Server / ABAP 731", "SAP NetWeaver Application Server 7.50 / AS ABAP")
        )
        self.client, self.other_client = rng.sample(("100", "200", "300", "800"), 2)
        self.base = f"/sap/bc/bsp/sap/{rng.choice(('zcatalog', 'zsupplier', 'zportal', 'zshop'))}"
        self.home = self.add(f"{self.base}/default.htm")
        self.files = {"default.htm": self.home}
        for name in rng.sample(("about.htm", "contact.htm", "terms.htm", "news.htm"), 2):
            self.files[name] = self.add(f"{self.base}/{name}")
        self.products = self.add(f"{self.base}/products.htm")
        self.files["products.htm"] = self.products
        #: (material number, language, client) -> its page
        self.materials: dict[tuple[str, str, str], Page] = {}
        numbers = [str(number) for number in rng.sample(_MATERIALS, max(2, min(7, budget - 8)) + 2)]
        for number in numbers[:-2]:
            page = self.add(f"{self.base}/detail.htm", f"matnr={number}")
            self.materials[(number, "EN", self.client)] = page
            self.products.links.append(f"detail.htm?matnr={number}")
        self.german = self.exception(self.add(self.products.path, "sap-language=DE"))
        self.texts[self.german.doc_id] = "Produktkatalog (Deutsch)."
        self.foreign = self.exception(self.add(self.products.path, f"sap-client={self.other_client}"))
        self.texts[self.foreign.doc_id] = f"Product catalog (client {self.other_client})."
        for page, number, language, client in (
            (self.german, numbers[-2], "DE", self.client),
            (self.foreign, numbers[-1], "EN", self.other_client),
        ):
            query = f"matnr={number}&" + ("sap-language=DE" if language == "DE" else f"sap-client={client}")
            self.materials[(number, language, client)] = self.behind(
                page, self.add(f"{self.base}/detail.htm", query), f"detail.htm?{query}"
            )
        self.traps.append(
            f"sap-client={self.client}, sap-language=EN, /sap(<l=en&c={self.client}>)/, matnr's zeros; but "
            f"products.htm?sap-language=DE and ?sap-client={self.other_client}"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        params = self.lower_params(query)
        match = re.fullmatch(r"/sap\(([A-Za-z0-9+/=]*)\)(/.*)", path)
        if match:  # (URL mangling: the logon's language and client, in base64)
            try:
                mangled = base64.b64decode(match.group(1), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                return None
            names = {"l": "sap-language", "c": "sap-client"}
            for name, value in parse_qsl(mangled, keep_blank_values=True):
                if name in names:
                    params.setdefault(names[name], value)
            path = "/sap" + match.group(2)
        if not path.startswith(self.base + "/"):
            return None
        language = params.get("sap-language", "EN").upper()
        client = params.get("sap-client", self.client)
        name = path[len(self.base) + 1 :]
        if name == "detail.htm":
            number = params.get("matnr", "").lstrip("0")  # (CONVERSION_EXIT_ALPHA_INPUT)
            return self.materials.get((number, language, client))
        if name == "products.htm" and (language, client) != ("EN", self.client):
            return {("DE", self.client): self.german, ("EN", self.other_client): self.foreign}.get((language, client))
        return self.files.get(name) if (language, client) == ("EN", self.client) else None

    def forms(self, page: Page) -> list[str]:
        host, client = f"http://{self.host}", self.client
        join = "&" if page.query else "?"
        tail = page.path[len("/sap") :] + _tail(page.query)
        forms = [f"{page.url}{join}sap-client={client}", f"{page.url}{join}sap-language=EN"]
        forms += [
            f"{page.url}{join}sap-language=en&sap-client={client}",
            f"{host}/sap{_mangled(f'l=en&c={client}')}{tail}",
        ]
        forms.append(f"{host}/sap{_mangled(f'c={client}')}{tail}")
        if page.query.startswith("matnr="):
            forms.append(f"{host}{page.path}?matnr={page.query[len('matnr=') :].zfill(18)}")
        return forms


class AspSite(EnterpriseSite):
    """Classic ASP on IIS: see the module's docstring."""

    #: Directories -> the default document IIS serves there (the first of its list that exists).
    DIRECTORIES: ClassVar[dict[str, str]] = {"/": "default.asp", "/news/": "default.asp", "/support/": "default.htm"}

    def build(self, rng: random.Random, budget: int, others: list[Page]) -> None:
        self.server = "Microsoft-IIS/" + rng.choice(("6.0", "7.5", "8.5", "10.0"))
        self.redirect_status = 301  # (IIS's courtesy redirect)
        self.home = self.add("/")
        self.files: dict[str, Page] = {"/default.asp": self.home}
        for name in rng.sample(_PAGES, 2):
            self.files[f"/{name}.asp"] = self.add(f"/{name}.asp")
        self.files["/news/default.asp"] = self.add("/news/")
        self.files["/support/default.htm"] = self.add("/support/")
        self.texts[self.files["/support/default.htm"].doc_id] = "Support (static page, 2004). Call us."
        #: (script, the number its one parameter names) -> page
        self.records: dict[tuple[str, int], Page] = {}
        for number in rng.sample(range(1, 30), 2):
            self.records[("/products.asp", number)] = self.add("/products.asp", f"cat={number}")
        for number in rng.sample(range(10, 500), max(2, min(5, budget - 11))):
            self.records[("/product.asp", number)] = self.add("/product.asp", f"id={number}")
        for number in rng.sample(range(1, 200), 2):
            self.records[("/news/article.asp", number)] = self.add("/news/article.asp", f"id={number}")
        self.script = self.exception(self.add("/support/default.asp"))
        self.files["/support/default.asp"] = self.script
        self.texts[self.script.doc_id] = "Support centre. Search the knowledge base."
        self.files["/support/kb.asp"] = self.behind(self.script, self.add("/support/kb.asp"), "kb.asp")
        for page in self.pages:
            self.extra_headers[page.doc_id] = {"X-Powered-By": "ASP.NET"}
        self.traps.append(
            "case, / = /default.asp, /news -> /news/, ?ID=07; but /support/default.asp (/support/ is Default.htm)"
        )

    def route(self, authority: str, path: str, raw_path: str, query: str) -> Page | Reply | None:
        folded = path.lower()
        if folded in self.DIRECTORIES:
            folded += self.DIRECTORIES[folded]
        elif folded + "/" in self.DIRECTORIES:
            return self.redirect(authority, f"{path}/" + _tail(query))
        params = self.lower_params(query)
        name = {"/products.asp": "cat", "/product.asp": "id", "/news/article.asp": "id"}.get(folded)
        if name is not None:  # (CLng(Request.QueryString(name)))
            return self.records.get((folded, _int(params.get(name, ""), -1)))
        return self.files.get(folded)

    def forms(self, page: Page) -> list[str]:
        base = f"http://{self.host}"
        title = "/".join(part.title() for part in page.path.split("/"))
        if page.query:
            name, _, value = page.query.partition("=")
            forms = [f"{base}{page.path}?{name.upper()}={value}", f"{base}{title}?{name.title()}=0{value}"]
            return [*forms, f"{base}{page.path.upper()}?{page.query}&src=home", f"{page.url}&"]
        if page.path.endswith("/"):
            file = self.DIRECTORIES[page.path]
            forms = [f"{base}{page.path}{file}", f"{base}{page.path}{file.title()}", f"{base}{page.path.upper()}"]
            return forms if page is self.home else [*forms, f"{base}{page.path[:-1]}", f"{base}{title}"]
        return [f"{base}{page.path.upper()}", f"{base}{title}"]


_CLASSES: dict[str, type[EnterpriseSite]] = {
    "domino": DominoSite,
    "coldfusion": ColdFusionSite,
    "jsp": JspSite,
    "websphere": WebSphereSite,
    "sharepoint": SharePointSite,
    "apex": ApexSite,
    "sap": SapSite,
    "asp": AspSite,
}


# -- the web ------------------------------------------------------------------------------------


class EnterpriseWeb(QuirksWeb):
    """A :class:`~demoweb.quirksweb.QuirksWeb` of enterprise kinds (the same checks)."""


def generate_enterprise_web(seed: int, *, meta_refresh: bool = False, query_pages: bool = False) -> EnterpriseWeb:
    """A web of 3-5 hosts and about 30-80 documents, determined by ``seed`` alone.
    ``meta_refresh``: a few pages move on by ``<meta http-equiv="refresh">``; ``query_pages``:
    more links in the spellings the hosts coincide on (evidence twice over)."""
    return web_of_kinds(
        "enterprise", seed, KINDS, _CLASSES, EnterpriseWeb, meta_refresh=meta_refresh, query_pages=query_pages
    )


# -- the comparison ---------------------------------------------------------------------------


class EnterpriseComparison(FamilyComparison):
    """A comparison on an enterprise web: requests, pages and documents per kind of host."""


async def compare_enterprise(
    seed: int, workdir: Path, addon_settings: Mapping[str, Any] | None = None, order: CrawlOrder | None = None
) -> EnterpriseComparison:
    """:func:`~demoweb.randomweb.compare` on ``generate_enterprise_web(seed)``, with per-kind tallies."""
    return await compare_kinds(generate_enterprise_web, EnterpriseComparison, seed, workdir, addon_settings, order)
