"""The demo web: five hosts, one per server family, linking to each other.

``build_sites()`` returns host -> site for :class:`~demoweb.server.VirtualWeb`;
``START_URLS`` are the hosts' home pages; ``DOCUMENTS`` counts the distinct
documents each host serves (every one must be collected).
"""

from __future__ import annotations

from .server import Site
from .sites import ApacheSite, BlogSite, Doc, IISSite, TrapSite, TwinSite


def _docs(pages: dict[str, tuple[str, list[str]]]) -> dict[str, Doc]:
    return {path: Doc(doc_id, links) for path, (doc_id, links) in pages.items()}


def build_sites() -> dict[str, Site]:
    apache = ApacheSite(
        "apache.test",
        _docs(
            {
                "/": ("apache:home", ["/docs", "/news", "/about.html", "http://www.apache.test/docs/guide.html"]),
                "/docs/": (
                    "apache:docs",
                    ["/", "/docs/guide.html", "/docs/index.html", "/news/index.html", "http://www.apache.test/news/"],
                ),
                "/docs/guide.html": ("apache:guide", ["/docs", "/news/2024.html", "http://www.apache.test/about.html"]),
                "/news/": ("apache:news", ["/news/2024.html", "/news/index.html", "/docs/", "/"]),
                "/news/2024.html": ("apache:news-2024", ["/news", "/docs/guide.html", "/about.html"]),
                "/about.html": ("apache:about", ["/", "/news/", "http://iis.test/"]),
            }
        ),
    )
    iis = IISSite(
        "iis.test",
        _docs(
            {
                "/": ("iis:home", ["/Products/", "/products/Item1.aspx", "/About.aspx", "/Default.htm"]),
                "/products/": (
                    "iis:products",
                    ["/products/item1.aspx", "/Products/Item2.aspx", "/PRODUCTS/default.htm", "/"],
                ),
                "/products/item1.aspx": ("iis:item-1", ["/Products/Item1.aspx", "/products/item2.aspx", "/about.aspx"]),
                "/products/item2.aspx": ("iis:item-2", ["/Products/", "/PRODUCTS/ITEM1.ASPX", "/products/Default.htm"]),
                "/about.aspx": ("iis:about", ["/", "/products/default.htm", "http://twin.test/"]),
            }
        ),
    )
    twin_pages = _docs(
        {
            "/": (
                "twin:home",
                ["/world/", "http://www.twin.test/world/", "/sport/?utm_source=rss", "http://www.twin.test/sport/"],
            ),
            "/world/": (
                "twin:world",
                ["/world/story-1.html", "http://www.twin.test/world/story-1.html;jsessionid=A1B2C3D4E5F6", "/"],
            ),
            "/sport/": (
                "twin:sport",
                ["/sport/match-7.html", "http://www.twin.test/sport/match-7.html", "http://www.twin.test/"],
            ),
            "/world/story-1.html": ("twin:story-1", ["/sport/", "http://www.twin.test/world/"]),
            "/sport/match-7.html": ("twin:match-7", ["/world/story-1.html?utm_medium=email", "http://blog.test/"]),
        }
    )
    twin = TwinSite("twin.test", twin_pages)
    blog = BlogSite(
        "blog.test",
        _docs(
            {
                "/": ("blog:home", ["/post/hello/", "/post/second", "/about/"]),
                "/post/hello": ("blog:hello", ["/post/second/", "/", "/post/hello"]),
                "/post/second": ("blog:second", ["/post/hello", "/about"]),
                "/about": ("blog:about", ["/post/second/", "http://trap.test/"]),
            }
        ),
    )
    trap = TrapSite(
        "trap.test",
        _docs(
            {
                "/": (
                    "trap:home",
                    ["/api/", "/API/", "/report", "/report/", "http://www.trap.test/", "/Readme.txt", "/readme.txt"],
                ),
                "/api/": ("trap:api-lower", ["/", "/API/"]),
                "/API/": ("trap:api-upper", ["/api/"]),
                "/report": ("trap:report-file", ["/report/"]),
                "/report/": ("trap:report-dir", ["/report"]),
                "//www.trap.test/": ("trap:www-home", ["http://trap.test/"]),
                "/Readme.txt": ("trap:readme-upper", ["/"]),
                "/readme.txt": ("trap:readme-lower", ["/"]),
            }
        ),
    )
    return {
        "apache.test": apache,
        "www.apache.test": apache,
        "iis.test": iis,
        "twin.test": twin,
        "www.twin.test": twin,
        "blog.test": blog,
        "trap.test": trap,
        "www.trap.test": trap,
    }


START_URLS = ["http://apache.test/", "http://iis.test/", "http://twin.test/", "http://blog.test/", "http://trap.test/"]

DOCUMENTS = {"apache.test": 6, "iis.test": 5, "twin.test": 5, "blog.test": 4, "trap.test": 8}
