# Settings of the scrapy-urlnorm demo project.
#
#   scrapy crawl demo                                  # the bundled demo web, no network needed
#   scrapy crawl demo -a start_url=https://example.org/ -s CLOSESPIDER_PAGECOUNT=200

BOT_NAME = "demo_project"
SPIDER_MODULES = ["demo_project.spiders"]
NEWSPIDER_MODULE = "demo_project.spiders"

ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 8
TELNETCONSOLE_ENABLED = False
COOKIES_ENABLED = False
LOG_LEVEL = "INFO"

# scrapy-urlnorm: the dupe filter, both middlewares and the report.
ADDONS = {"scrapy_urlnorm.Addon": 0}

# Reaches the demo web's hosts (apache.test, iis.test...) through its
# in-process server, as a proxy; does nothing when crawling a real site.
DOWNLOADER_MIDDLEWARES = {"demoweb.proxy.VirtualWebProxyMiddleware": 740}

# Every scrapy-urlnorm setting, with its default. See the README for more.
# URLNORM_ENABLED = True              # master switch for the add-on
# URLNORM_POLICY = "default"          # "safe", "default" or "aggressive"
# Individual steps override the preset, e.g.:
# URLNORM_LOWERCASE_PATH = False      # lower-case paths (Windows/IIS sites)
# URLNORM_TRAILING_SLASH = "keep"     # "keep", "add" or "remove"
# URLNORM_WWW = "keep"                # "keep", "strip" or "add"
# URLNORM_DEFAULT_PAGES = False       # True, or a list like ["index.html", "default.aspx"]
# URLNORM_SORT_QUERY = True
# URLNORM_TRACKING_PARAMS = True      # utm_*, fbclid, gclid...
# URLNORM_SESSION_IDS = True          # PHPSESSID, ;jsessionid=...
# URLNORM_REMOVE_PARAMS = []          # more parameter names to drop
# URLNORM_KEEP_PARAMS = []            # parameter names never to drop
# URLNORM_KEEP_FRAGMENT = False
# URLNORM_KEEP_HASHBANG = False       # keep #!/routes of AJAX sites
# URLNORM_COLLAPSE_SLASHES = False
# URLNORM_HTTPS_TO_HTTP = False
# URLNORM_HOST_POLICIES = {}          # {"*.example.com": {"lowercase_path": True}}
# URLNORM_LEARN = True                # learn each site's equivalences
# URLNORM_LEARN_MIN_EVIDENCE = 2      # agreeing pairs before a rule applies
# URLNORM_AUDIT_RATE = 0.02           # share of rule-filtered requests fetched anyway
# URLNORM_REPORT_FILE = None          # write the close-time report as JSON
# URLNORM_CRAWL_LOG = None            # one JSON line per response, for `analyze`
# URLNORM_DEBUG = False               # log every filtered request with its reason
# URLNORM_FINGERPRINT_BITS = 64       # or 128
# URLNORM_CACHE_SIZE = 4096
# URLNORM_REFETCH_START_URLS = False
# URLNORM_CRASH_SAFE = True           # with JOBDIR: the queue survives kill -9 (CrashSafeScheduler)
# URLNORM_REWRITE = False             # send normalized URLs instead of the originals
# URLNORM_SHORTCUT_REDIRECTS = True   # send links straight to the form a host's redirects taught
# URLNORM_REDIS_URL = None            # share seen set and rules through Redis (falls back to REDIS_URL)
# URLNORM_REDIS_KEY = "%(spider)s:urlnorm"
# URLNORM_REDIS_SYNC_INTERVAL = 2.0
