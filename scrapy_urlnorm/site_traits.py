"""What a site's pages show about it beyond pairs of URLs.

Two traits change what evidence means for the :class:`~scrapy_urlnorm.learning.Learner`:
a ``Server: Microsoft-IIS`` header (IIS serves paths case-insensitively: a prior
that lowers the pairs ``case_insensitive_path`` needs), and pages whose links are
relative to their directory (``/x`` and ``/x/`` are two pages to a crawler then,
whatever their bodies). Both sets are bounded; past the bound, every site is
taken for one that links relatively (the safe side: fewer merges, no loss).
"""

from __future__ import annotations


class SiteTraits:
    """IIS hosts and sites that link relatively to their directory, bounded by ``max_sites``."""

    def __init__(self, max_sites: int) -> None:
        self.max_sites = max_sites
        self._iis_hosts: set[str] = set()
        #: Sites (bare names) serving pages with links relative to their directory.
        self._relative_sites: set[str] = set()
        self._relative_everywhere = False

    def saw_server(self, host: str, server: str) -> None:
        """``host`` answered with ``Server: server``."""
        if "microsoft-iis" in server.lower() and len(self._iis_hosts) < self.max_sites:
            self._iis_hosts.add(host)

    def is_iis(self, host: str) -> bool:
        return host in self._iis_hosts

    def links_relatively(self, host: str) -> bool:
        """Note that ``host`` serves a page with links relative to its directory:
        ``True`` when its site was not known for it yet."""
        site = host.removeprefix("www.")
        if self._relative_everywhere or site in self._relative_sites:
            return False
        if len(self._relative_sites) >= self.max_sites:
            self._relative_everywhere = True
        else:
            self._relative_sites.add(site)
        return True

    def resolves_by_directory(self, host: str) -> bool:
        """Whether ``host``'s site was seen serving pages with links relative to their directory."""
        return self._relative_everywhere or host.removeprefix("www.") in self._relative_sites

    def sizes(self) -> dict[str, int]:
        return {"iis_hosts": len(self._iis_hosts), "sites_with_relative_links": len(self._relative_sites)}
