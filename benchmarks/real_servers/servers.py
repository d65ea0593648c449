"""Private Apache, nginx, lighttpd, Caddy, Python ``http.server``, Twisted Web, ``serve``,
``http-server``, PHP built-in server, h2o, BusyBox ``httpd``, ``mini_httpd``, Tomcat, ``webfsd``,
WEBrick, aiohttp, Tornado, Jetty, Go ``net/http``, WhiteNoise, Express and uWSGI instances, and Django,
Flask and Starlette applications, serving Debian documentation trees on 127.0.0.1; and nginx
serving them over TLS (``nginx-https``).

Used by ``benchmarks/bench_real_servers.py`` and ``tests/test_real_servers.py``. Nothing
here touches the system's own services: each server runs from a config rendered from the
templates next to this file (``http.server``: from ``pyserver.py``'s arguments; the
applications: from their modules and the server's arguments) into a temporary state
directory (pid, logs, temp files), listens on a free loopback port, and is stopped by its
pid file when the ``with`` ends. ``FAMILIES`` says how to start each.

All serve the same site root: a landing page linking to the documentation trees in
``TREES`` (symlinks to the installed packages). Each has a ``www.`` twin of its host, each
twin a different kind: Apache and Tomcat serve the same content under both names, nginx
redirects the bare host to ``www.``, lighttpd and h2o ``www.`` to the bare host with a 301,
Caddy with a 302, ``http.server``, Twisted Web, ``serve``, ``http-server``, PHP, BusyBox,
``mini_httpd``, ``webfsd``, WEBrick, aiohttp, Tornado, Jetty, Go's ``FileServer``, WhiteNoise,
Express and uWSGI ignore the name. Tomcat also runs JSP pages at ``/app/`` (``tomcat_app/``) that
write the session into their links (``;jsessionid=``) for a client without its cookie.

``nginx-https`` is an https site as most now are: plain ``http`` for either name 301s to
``https://`` on the same host, ``https://www.`` 301s to the bare host, which serves the
site as the nginx family does, with a self-signed certificate made at start. Scrapy
reaches ``https://`` through a proxy with ``CONNECT``, which nginx does not do, so the
crawl's proxy is ``tunnel.py``, run beside the server: ``CONNECT`` goes to the TLS port,
anything else to the plain one. Its landing page spells two of its links ``http://``.

The static servers only map paths to files; the framework applications are where URL
conventions come from code, so they run as such sites run, each under a real server with
its framework's defaults (``webapps.py`` and the modules it names): Django
(``djangoapp.py`` under gunicorn: ``APPEND_SLASH``'s 301 to ``/x/`` where only ``/x/``
is routed, ``PREPEND_WWW``'s 301 from the bare host, each page also under ``/tree/page/``),
Flask (``flaskapp.py`` under gunicorn: Werkzeug's 308 to a rule's trailing slash, 404 for
an added one, the host ignored, a styled real 404) and Starlette (``starletteapp.py``
under uvicorn: ``redirect_slashes``' 307 both ways, ``StaticFiles(html=True)``,
``TrustedHostMiddleware``'s 307 from the bare host). Each adds application pages whose
query parameters matter (``?page=``, an article id) or not (``?ref=``), and links them
from its landing page. Run ``setup.sh`` (as root) once first: it installs the Debian
packages, and the frameworks' pip packages into the Python it is given (``PYTHON``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: URL path -> installed HTML tree (Debian packages ``doxygen-doc``, ``debian-reference-en``,
#: ``python-requests-doc``): a Doxygen manual with its examples, the Debian Reference, Sphinx docs.
DEFAULT_TREES: dict[str, str] = {
    "doxygen": "/usr/share/doc/doxygen/html",
    "debian-reference": "/usr/share/debian-reference",
    "requests": "/usr/share/doc/python-requests-doc/html",
}
#: Other trees instead (``bench_real_servers.py --trees``): ``name=path,name=path``. An
#: environment variable, so that the applications' own processes serve the same trees.
TREES_VARIABLE = "URLNORM_BENCH_TREES"


def parse_trees(spec: str) -> dict[str, str]:
    """``name=path,name=path`` as a dict; a clear ``ValueError`` for anything else."""
    trees: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, equals, path = item.partition("=")
        if not equals or not name or "/" in name or not path:
            raise ValueError(f"a tree is name=path (the name a single URL segment), not {item!r}")
        trees[name] = path
    return trees


TREES: dict[str, str] = parse_trees(os.environ.get(TREES_VARIABLE, "")) or DEFAULT_TREES

APACHE = "/usr/sbin/apache2"
NGINX = "/usr/sbin/nginx"
LIGHTTPD = "/usr/sbin/lighttpd"
CADDY = "/usr/bin/caddy"
PHP = "/usr/bin/php"
H2O = "/usr/bin/h2o"
BUSYBOX = "/usr/bin/busybox"
MINI_HTTPD = "/usr/sbin/mini_httpd"
WEBFSD = "/usr/bin/webfsd"
#: Debian's uwsgi-core: the core without language plugins (``/usr/bin/uwsgi`` is an alternative for it).
UWSGI = "/usr/bin/uwsgi-core"
#: Ruby, for WEBrick (Debian's ``ruby-webrick``: no longer in Ruby's own library since 3.0).
RUBY = "/usr/bin/ruby"
#: Debian's tomcat10 (its ``catalina.sh``, run with a ``CATALINA_BASE`` in the state directory).
TOMCAT_HOME = "/usr/share/tomcat10"
TOMCAT = f"{TOMCAT_HOME}/bin/catalina.sh"
#: The Java compiler Tomcat's JSP engine uses (Debian's tomcat10 depends on it).
ECJ = "/usr/share/java/eclipse-jdt-core.jar"
#: Debian's jetty9 (its ``start.jar``, run with a ``jetty.base`` in the state directory).
JETTY_HOME = "/usr/share/jetty9"
JETTY = f"{JETTY_HOME}/start.jar"
#: Node.js servers, installed by ``setup-node.sh`` into ``node/`` next to this file.
NODE_BIN = HERE / "node" / "node_modules" / ".bin"
SERVE = str(NODE_BIN / "serve")
HTTP_SERVER = str(NODE_BIN / "http-server")
#: Express (a library, no command: ``expressserver.js`` requires it from ``node/``), run by Node.js.
EXPRESS = str(HERE / "node" / "node_modules" / "express" / "package.json")
NODE = "/usr/bin/node"
#: Go (Debian's ``golang-go``), which builds ``goserver.go`` at the family's start into
#: ``GO_CACHE`` (once per version of the source; its build cache there too).
GO = "/usr/bin/go"
GO_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "scrapy-urlnorm" / "goserver"

LANDING = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Documentation</title></head>
<body><h1>Documentation served by {server}</h1>
<ul>
{links}
</ul></body></html>
"""


@dataclass(frozen=True)
class Family:
    """How to run one server family. Its files in the state directory are named after
    ``name``: ``<name>.conf`` (from ``<name>.conf.in`` next to this file, if ``template``),
    ``<name>.pid``, ``<name>-access.log``, ``<name>-error.log``."""

    name: str
    label: str  # "Documentation served by <label>" on the landing page
    host: str  # the default host; its twin is www.<host>
    binary: str  # what setup.sh installs
    command: Callable[[Path, int], list[str]]  # (state directory, port) -> the start command
    user: str = ""  # the config's directives for dropping to www-data when started as root
    template: bool = True
    foreground: bool = False  # serves as our child until SIGTERM (the others daemonize)
    owned: tuple[str, ...] = ()  # state entries the workers open after dropping to www-data ("dir/": a directory)
    packages: tuple[str, ...] = ()  # pip packages the server needs in this Python (import name = pip name)
    # Also serves TLS on a second port (the template's @TLS_PORT@, a self-signed <name>.crt
    # and <name>.key), behind tunnel.py, the crawl's proxy; the landing page links http://.
    tls: bool = False
    # Takes an absolute-form request (``GET http://h/x``, what a proxied crawl sends) for a
    # path: reached through tunnel.py --origin-form, which sends ``GET /x`` and ``Host: h``.
    origin_form: bool = False
    # Links the landing page adds after the trees' ((href, text), ...): an application's pages.
    links: tuple[tuple[str, str], ...] = ()
    # Directories served beside the trees, linked from the landing page ((name, path), ...):
    # installed packages' doc directories, which have no index file (a server's listings).
    shelves: tuple[tuple[str, str], ...] = ()


def _nginx_command(name: str) -> Callable[[Path, int], list[str]]:
    def command(directory: Path, port: int) -> list[str]:
        # -e: the error log before the config is read (nginx >= 1.19.5), so nothing goes to /var/log.
        conf, error_log = directory / f"{name}.conf", directory / f"{name}-error.log"
        return [NGINX, "-c", str(conf), "-p", str(directory), "-e", str(error_log)]

    return command


def _caddy_command(directory: Path, port: int) -> list[str]:
    # HOME: where Caddy keeps what it autosaves; the state directory, not root's home.
    return [
        "/usr/bin/env",
        f"HOME={directory}",
        CADDY,
        "run",
        "--config",
        str(directory / "caddy.conf"),
        "--adapter",
        "caddyfile",
        "--pidfile",
        str(directory / "caddy.pid"),
    ]


def _script_command(script: str, name: str, interpreter: str = sys.executable) -> Callable[[Path, int], list[str]]:
    """A server script next to this file run by ``interpreter``, by default this one
    (``pyserver.py``: ``http.server``; ``twistedserver.py``: Twisted Web, which comes with
    Scrapy; ``aiohttpserver.py``, ``tornadoserver.py``; ``webrickserver.rb`` by Ruby;
    ``expressserver.js`` by Node.js). It writes its pid file and its request log,
    ``<name>-access.log``."""

    def command(directory: Path, port: int) -> list[str]:
        return [
            interpreter,
            str(HERE / script),
            f"--root={directory / 'www'}",
            f"--port={port}",
            f"--pid-file={directory / f'{name}.pid'}",
            f"--log={directory / f'{name}-access.log'}",
        ]

    return command


def _script_family(
    name: str,
    label: str,
    host: str,
    script: str,
    *,
    interpreter: str = sys.executable,
    packages: tuple[str, ...] = (),
    origin_form: bool = False,
) -> Family:
    """A family whose server is a script next to this file (see :func:`_script_command`),
    run in the foreground by ``interpreter``."""
    command = _script_command(script, name, interpreter)
    return Family(
        name,
        label,
        host,
        interpreter,
        command,
        template=False,
        foreground=True,
        packages=packages,
        origin_form=origin_form,
    )


def _foreground_command(
    name: str, binary: str, arguments: Callable[[Path, int], list[str]]
) -> Callable[[Path, int], list[str]]:
    """A server in the foreground that writes no pid file (the Node.js servers, BusyBox
    ``httpd``, ``mini_httpd``, ``webfsd``): a shell writes its own pid, then becomes the
    server (``exec``). Request logs go where ``arguments`` say (``mini_httpd -l``,
    ``webfsd -L``) or nowhere (``serve`` logs to the terminal, ``http-server`` is silenced,
    ``httpd`` logs nothing in the foreground without ``-v``)."""

    def command(directory: Path, port: int) -> list[str]:
        pid_file = str(directory / f"{name}.pid")
        return ["/bin/sh", "-c", 'echo $$ > "$0"; exec "$@"', pid_file, binary, *arguments(directory, port)]

    return command


def _go_binary() -> Path:
    """``goserver.go`` built by Go into ``GO_CACHE``, named after a digest of its source
    (built once per version; a build goes to a temporary name first, then is renamed)."""
    source = HERE / "goserver.go"
    binary = GO_CACHE / f"goserver-{hashlib.sha1(source.read_bytes()).hexdigest()[:12]}"
    if not binary.exists():
        GO_CACHE.mkdir(parents=True, exist_ok=True)
        partial = binary.with_name(f"{binary.name}.{os.getpid()}")
        # Its own build cache and GOPATH, and no module proxy: the standard library is all it needs.
        settings = {"GOCACHE": str(GO_CACHE / "go-build"), "GOPATH": str(GO_CACHE / "gopath"), "GOPROXY": "off"}
        build = [GO, "build", "-o", str(partial), str(source)]
        subprocess.run(build, check=True, cwd=GO_CACHE, env={**os.environ, **settings}, stdin=subprocess.DEVNULL)
        partial.replace(binary)
    return binary


def _go_command(directory: Path, port: int) -> list[str]:
    """``goserver.go`` (built first if need be, see :func:`_go_binary`) in the foreground,
    its request log ``go-access.log``."""
    arguments = [f"-root={directory / 'www'}", f"-port={port}", f"-log={directory / 'go-access.log'}"]
    return _foreground_command("go", str(_go_binary()), lambda directory, port: arguments)(directory, port)


def _tomcat_command(directory: Path, port: int) -> list[str]:
    """Tomcat in the foreground (``catalina.sh run``, which becomes the JVM, as the shell
    that wrote its pid file became it) from a ``CATALINA_BASE`` made here: the rendered
    ``tomcat.conf`` as its ``server.xml``, the package's default ``web.xml`` (the
    DefaultServlet, JSP), the JSP compiler in ``lib``. Its own log goes to ``tomcat-error.log``."""
    for name in ("conf", "lib", "temp", "webapps"):
        (directory / name).mkdir(exist_ok=True)
    links = ((directory / "conf" / "web.xml", f"{TOMCAT_HOME}/etc/web.xml"), (directory / "lib" / "ecj.jar", ECJ))
    for link, target in links:
        if not link.is_symlink():
            link.symlink_to(target)
    environment = [f"CATALINA_HOME={TOMCAT_HOME}", f"CATALINA_BASE={directory}"]
    environment.append("JAVA_OPTS=-Djava.awt.headless=true -Xmx256m -XX:TieredStopAtLevel=1")
    server = ["/usr/bin/env", *environment, TOMCAT, "run", "-config", str(directory / "tomcat.conf")]
    return _logged(directory / "tomcat.pid", directory / "tomcat-error.log", server, stdout=True)


def _jetty_command(directory: Path, port: int) -> list[str]:
    """Jetty 9 in the foreground (``start.jar`` runs the server in its own JVM, which the
    shell that wrote its pid file became) from a ``jetty.base`` made here: the modules
    ``http``, ``deploy`` and ``requestlog`` on the command line, the rendered
    ``jetty.conf`` (the site's context) copied to ``webapps/root.xml`` (the deployer skips
    links), the request log ``jetty-access.log``. Its own log goes to ``jetty-error.log``."""
    for name in ("temp", "webapps"):
        (directory / name).mkdir(exist_ok=True)
    shutil.copyfile(directory / "jetty.conf", directory / "webapps" / "root.xml")
    java = ["/usr/bin/java", "-Djava.awt.headless=true", "-Xmx256m", "-XX:TieredStopAtLevel=1"]
    java.append(f"-Djava.io.tmpdir={directory / 'temp'}")
    server = [*java, "-jar", JETTY, f"jetty.home={JETTY_HOME}", f"jetty.base={directory}"]
    server += ["--module=http,deploy,requestlog", "jetty.http.host=127.0.0.1", f"jetty.http.port={port}"]
    server.append("jetty.requestlog.filePath=jetty-access.log")  # (relative to jetty.base)
    return _logged(directory / "jetty.pid", directory / "jetty-error.log", server, stdout=True)


def _uwsgi_command(directory: Path, port: int) -> list[str]:
    """uWSGI as its documentation serves a directory of static files: ``--http-socket`` (plain
    HTTP, no router process), ``--check-static`` the site root, ``--static-index index.html``; no
    master process (SIGTERM ends it). Static files are checked for before a request reaches the
    request plugin, but uWSGI drops a request whose plugin (modifier 0) is not loaded, files
    included: the core's ``notfound`` plugin, which answers 404, is that plugin. uWSGI refuses a
    file whose real path is outside the checked directory: the trees (symlinks in the site root)
    are ``--static-safe``. Its log (no request lines: the tunnel's log has them) goes to ``uwsgi-error.log``."""
    server = [UWSGI, "--http-socket", f"127.0.0.1:{port}", "--plugin", "0:notfound"]
    server += ["--check-static", str(directory / "www"), "--static-index", "index.html"]
    for tree in dict.fromkeys(os.path.realpath(path) for path in TREES.values()):
        server += ["--static-safe", tree]
    return _logged(directory / "uwsgi.pid", directory / "uwsgi-error.log", server, stdout=True)


def _logged(pid_file: Path, log: Path, server: list[str], *, stdout: bool = False) -> list[str]:
    """``server`` in the foreground behind a shell that writes its own pid to ``pid_file``
    and then becomes the server (``exec``), its stderr (and ``stdout`` too) appended to ``log``."""
    streams = '>>"$log" 2>&1' if stdout else '2>>"$log"'
    script = f'echo $$ > "$0"; log="$1"; shift; exec "$@" {streams}'
    return ["/bin/sh", "-c", script, str(pid_file), str(log), *server]


def _php_command(name: str, router: str = "") -> Callable[[Path, int], list[str]]:
    """PHP's built-in server (``php -S``) in the foreground, with ``router`` (a script next
    to this file) if given. It writes no pid file (a shell writes its own pid, then becomes
    the server) and logs each request to stderr, which goes to ``<name>-access.log``. With a
    router, sessions are kept in the URL for clients without cookies (``use_trans_sid``, off
    by default since PHP 5.3 but still met on old sites), in files in the state directory."""

    def command(directory: Path, port: int) -> list[str]:
        server = [PHP, "-S", f"127.0.0.1:{port}", "-t", str(directory / "www")]
        if router:
            sessions = ("use_trans_sid=1", "use_only_cookies=0", "use_strict_mode=0", f"save_path={directory}")
            server[1:1] = [item for setting in sessions for item in ("-d", f"session.{setting}")]
            server.append(str(HERE / router))
        return _logged(directory / f"{name}.pid", directory / f"{name}-access.log", server)

    return command


#: gunicorn's access log as Apache's ``bench`` format has it: the request line (absolute-form) and ``Host``.
GUNICORN_ACCESS_FORMAT = '%(h)s "%(r)s" %(s)s %(b)s "%({host}i)s"'


def _gunicorn_command(name: str, app: str) -> Callable[[Path, int], list[str]]:
    """gunicorn (the same interpreter) serving the WSGI ``app`` (``module:callable`` next to
    this file) in the foreground: one worker with threads (``gthread`` keeps connections
    alive, as Scrapy's are), no control socket (gunicorn's default one is in ``$HOME``)."""

    def command(directory: Path, port: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            f"--chdir={HERE}",
            f"--bind=127.0.0.1:{port}",
            "--worker-class=gthread",
            "--workers=1",
            "--threads=8",
            "--keep-alive=30",
            "--no-control-socket",
            f"--pid={directory / f'{name}.pid'}",
            f"--access-logfile={directory / f'{name}-access.log'}",
            f"--access-logformat={GUNICORN_ACCESS_FORMAT}",
            f"--error-logfile={directory / f'{name}-error.log'}",
            app,
        ]

    return command


def _starlette_command(directory: Path, port: int) -> list[str]:
    """uvicorn through ``starletteapp.py``, which writes the pid file uvicorn has no option for."""
    return [
        sys.executable,
        str(HERE / "starletteapp.py"),
        f"--port={port}",
        f"--pid-file={directory / 'starlette.pid'}",
        f"--log-dir={directory}",
    ]


def _apache_family(name: str, label: str, host: str, shelves: tuple[tuple[str, str], ...] = ()) -> Family:
    """Apache 2.4 from ``<name>.conf.in``, daemonized; its workers drop to www-data as root."""
    return Family(
        name=name,
        label=label,
        host=host,
        binary=APACHE,
        command=lambda directory, port: [APACHE, "-f", str(directory / f"{name}.conf"), "-k", "start"],
        user="User www-data\nGroup www-data",
        shelves=shelves,
    )


#: Server families by kind (``Server.kind``, the benchmark's ``--servers``).
FAMILIES: dict[str, Family] = {
    "apache": _apache_family("apache2", "Apache", "docs.test"),
    # Debian's default /var/www handling (listings), with installed doc directories beside the trees.
    "apache-indexes": _apache_family(
        "apache2-indexes",
        "Apache with listings",
        "ai.test",
        shelves=(("apache2", "/usr/share/doc/apache2"), ("requests-doc", "/usr/share/doc/python-requests-doc")),
    ),
    "nginx": Family(
        name="nginx",
        label="nginx",
        host="ref.test",
        binary=NGINX,
        command=_nginx_command("nginx"),
        user="user www-data;",
    ),
    "lighttpd": Family(
        name="lighttpd",
        label="lighttpd",
        host="lt.test",
        binary=LIGHTTPD,
        command=lambda directory, port: [LIGHTTPD, "-f", str(directory / "lighttpd.conf")],
        user='server.username = "www-data"\nserver.groupname = "www-data"',
        # lighttpd opens its logs after dropping privileges.
        owned=("lighttpd-access.log", "lighttpd-error.log", "lighttpd-uploads/"),
    ),
    "caddy": Family(name="caddy", label="Caddy", host="cd.test", binary=CADDY, command=_caddy_command, foreground=True),
    "python": _script_family("pyserver", "Python http.server", "py.test", "pyserver.py"),
    # Twisted's static.File: /dir -> 302 /dir/, no ETag, no vhosts (twistedserver.py).
    "twisted": _script_family("twisted", "Twisted Web", "tw.test", "twistedserver.py"),
    # Vercel's serve with its defaults: cleanUrls (``/x.html`` -> 301 ``/x``, ``/d/index.html``
    # -> 301 ``/d/index`` -> 301 ``/d``), ``/d`` and ``/d/`` both the index (relative links
    # resolve differently), ``/x/`` serves ``/x``, a styled 404, content ETags, no vhosts.
    "serve": Family(
        name="serve",
        label="serve",
        host="sv.test",
        binary=SERVE,
        command=_foreground_command(
            "serve",
            "/usr/bin/env",  # NO_UPDATE_CHECK: serve asks npm's registry for a newer version at start
            lambda directory, port: [
                "NO_UPDATE_CHECK=1",
                SERVE,
                f"--listen=tcp://127.0.0.1:{port}",
                "--no-clipboard",
                "--no-port-switching",
                "--no-request-logging",
                "--symlinks",
                str(directory / "www"),
            ],
        ),
        template=False,
        foreground=True,
    ),
    # http-server with its defaults: ``/x`` serves ``/x.html`` (``-e html``), ``/d`` -> 302
    # ``/d/``, listings, weak ``ino-size-mtime`` ETags, no vhosts.
    "httpserver": Family(
        name="http-server",
        label="http-server",
        host="hs.test",
        binary=HTTP_SERVER,
        command=_foreground_command(
            "http-server",
            HTTP_SERVER,
            lambda directory, port: [str(directory / "www"), "-a", "127.0.0.1", "-p", str(port), "--silent"],
        ),
        template=False,
        foreground=True,
    ),
    # PHP's built-in server, as ``php -S`` is used to serve a directory: ``/d`` serves the
    # index of ``/d/`` (no redirect: relative links resolve differently), a path with no
    # file serves the nearest index above it (``/d/nothere`` and ``/D/`` answer 200),
    # ``/x.html/anything`` serves ``/x.html``; no ETag, no vhosts, ``Connection: close``.
    "php": Family(
        name="php",
        label="PHP built-in server",
        host="ph.test",
        binary=PHP,
        command=_php_command("php"),
        template=False,
        foreground=True,
    ),
    # The same server whose HTML pages open a PHP session (php_session_router.php) with
    # ``session.use_trans_sid``: links carry ``?PHPSESSID=`` for a client that returned no
    # session cookie (a new session per such request), and plain for one that keeps it.
    "php-session": Family(
        name="php-session",
        label="PHP built-in server with sessions",
        host="ps.test",
        binary=PHP,
        command=_php_command("php-session", "php_session_router.php"),
        template=False,
        foreground=True,
    ),
    "django": Family(
        name="django",
        label="Django",
        host="dj.test",
        binary=sys.executable,
        command=_gunicorn_command("django", "djangoapp:application"),
        template=False,
        foreground=True,
        packages=("django", "gunicorn"),
    ),
    "flask": Family(
        name="flask",
        label="Flask",
        host="fl.test",
        binary=sys.executable,
        command=_gunicorn_command("flask", "flaskapp:app"),
        template=False,
        foreground=True,
        packages=("flask", "gunicorn"),
    ),
    "starlette": Family(
        name="starlette",
        label="Starlette",
        host="st.test",
        binary=sys.executable,
        command=_starlette_command,
        template=False,
        foreground=True,
        packages=("starlette", "uvicorn", "httptools"),
    ),
    # BusyBox httpd (``-f -h root``): ``/d`` -> 302 ``/d/`` (relative), ``index.html``, mtime-size
    # ETags, ``Connection: close``, no vhosts; origin-form only.
    "busybox": Family(
        name="busybox",
        label="BusyBox httpd",
        host="bb.test",
        binary=BUSYBOX,
        command=_foreground_command(
            "busybox",
            BUSYBOX,
            lambda directory, port: ["httpd", "-f", "-p", f"127.0.0.1:{port}", "-h", str(directory / "www")],
        ),
        template=False,
        foreground=True,
        origin_form=True,
    ),
    # mini_httpd (``-D``): ``/d`` -> 302 ``/d/`` (relative), ``index.html``, ``Last-Modified`` and
    # no ETag, ``Connection: close``, no vhosts (without ``-v``); origin-form only.
    "mini-httpd": Family(
        name="mini-httpd",
        label="mini_httpd",
        host="mh.test",
        binary=MINI_HTTPD,
        command=_foreground_command(
            "mini-httpd",
            MINI_HTTPD,
            lambda directory, port: [
                *("-D", "-h", "127.0.0.1", "-p", str(port), "-d", str(directory / "www")),
                *("-l", str(directory / "mini-httpd-access.log")),
            ],
        ),
        template=False,
        foreground=True,
        origin_form=True,
    ),
    # h2o (h2o.conf.in): its file handler (``/d`` -> 301 ``/d/``, ``index.html``, no
    # listings, mtime-size ETags), ``www.`` 301-redirected to the bare host; origin-form only.
    "h2o": Family(
        name="h2o",
        label="h2o",
        host="h2.test",
        binary=H2O,
        command=lambda directory, port: [H2O, "-c", str(directory / "h2o.conf")],
        user="user: www-data",
        foreground=True,
        # h2o opens its pid file and logs after dropping privileges.
        owned=("h2o.pid", "h2o-access.log", "h2o-error.log"),
        origin_form=True,
    ),
    # Tomcat 10 (tomcat.conf.in): the DefaultServlet (``/d`` -> 302 ``/d/``, ``index.html``, weak
    # size-mtime ETags, path parameters ignored: ``/x;p=1`` is ``/x``), ``www.`` an alias of the
    # host; at ``/app/``, JSP pages (tomcat_app/) whose links carry ``;jsessionid=`` for a client
    # without the session cookie, ``?page=`` and ``&sort=`` that matter, ``?ref=`` that does not.
    "tomcat": Family(
        name="tomcat",
        label="Apache Tomcat",
        host="tc.test",
        binary=TOMCAT,
        command=_tomcat_command,
        foreground=True,
        links=(("/app/", "catalogue"),),
    ),
    # nginx over TLS (nginx-https.conf.in): http:// -> 301 https://, https://www. -> 301 the
    # bare host, which serves as the nginx family does; reached through tunnel.py.
    "nginx-https": Family(
        name="nginx-https",
        label="nginx over TLS",
        host="tls.test",
        binary=NGINX,
        command=_nginx_command("nginx-https"),
        user="user www-data;",
        tls=True,
    ),
    # webfsd (``-F -f index.html``): ``/d`` -> 302 ``http://<host>:<its port>/d/`` (the port it
    # listens on, always written: behind the crawl's proxy a second authority of the site,
    # ``wf.test:<port>``, which the proxy reaches too), ``index.html``, listings where there is
    # none, ``/x.html/`` a 403, ``Last-Modified`` and no ETag, no vhosts (without ``-v``),
    # case-sensitive, a plain-text 404.
    "webfs": Family(
        name="webfs",
        label="webfs",
        host="wf.test",
        binary=WEBFSD,
        command=_foreground_command(
            "webfs",
            WEBFSD,
            lambda directory, port: [
                *("-F", "-i", "127.0.0.1", "-p", str(port), "-r", str(directory / "www"), "-f", "index.html"),
                *("-L", str(directory / "webfs-access.log")),
            ],
        ),
        template=False,
        foreground=True,
    ),
    # Ruby's WEBrick (webrickserver.rb: ``DocumentRoot``, its defaults): ``/d`` -> 301
    # ``http://<host>/d/``, ``index.html``, listings where there is none, ``/x.html/anything``
    # serves ``/x.html``, inode-size-mtime ETags, no vhosts, case-sensitive, an HTML 404.
    "webrick": _script_family("webrick", "WEBrick", "rb.test", "webrickserver.rb", interpreter=RUBY),
    # aiohttp's ``web.static`` (aiohttpserver.py, ``show_index=True``): no index files, ``/d``
    # and ``/d/`` both a listing (absolute links; ``/`` one that links ``/index.html``), no
    # redirects, ``/x.html/`` serves ``/x.html``, ``/a//b`` a 404, mtime-size ETags, no vhosts,
    # case-sensitive.
    "aiohttp": _script_family("aiohttp", "aiohttp", "ah.test", "aiohttpserver.py", packages=("aiohttp",)),
    # Tornado's ``StaticFileHandler`` (tornadoserver.py, ``default_filename="index.html"``):
    # ``/d`` -> 301 ``/d/`` (relative, query dropped), no listings (404), ``/x.html/`` and
    # ``/a//b`` serve the file, SHA-512 content ETags, no vhosts, case-sensitive; origin-form only.
    "tornado": _script_family(
        "tornado", "Tornado", "to.test", "tornadoserver.py", packages=("tornado",), origin_form=True
    ),
    # Jetty 9.4 (jetty.conf.in: the site root as the root web application, the package's
    # webdefault.xml): the DefaultServlet (``/d`` -> 302 ``http://<host>/d/``, ``index.html``
    # served in place, listings where there is none, ``/x.html/`` -> 302 ``/x.html``, path
    # parameters ignored, ``Last-Modified`` and no ETag), no vhosts, case-sensitive.
    "jetty": Family(
        name="jetty",
        label="Jetty",
        host="jt.test",
        binary=JETTY,
        command=_jetty_command,
        foreground=True,
    ),
    # Go's net/http FileServer (goserver.go: ``http.ListenAndServe(addr,
    # http.FileServer(http.Dir(root)))``, as the net/http documentation serves a directory):
    # ``/d`` -> 301 ``d/`` and ``/d/index.html`` -> 301 ``./`` (relative ``Location`` values, the
    # query kept), listings where there is no ``index.html`` (relative links), ``/x.html/`` ->
    # 301 ``../x.html``, ``/x.html/anything`` a 404, ``/a//b`` and ``/a/./b`` serve ``/a/b``,
    # ``Last-Modified`` and no ETag, no vhosts, case-sensitive, a plain-text 404.
    "go": Family(
        name="go",
        label="Go net/http",
        host="go.test",
        binary=GO,
        command=_go_command,
        template=False,
        foreground=True,
    ),
    # WhiteNoise under gunicorn (whitenoiseapp.py: ``WhiteNoise(app, root=, index_file=True)``):
    # ``/d`` -> 302 ``d/`` and ``/d/index.html`` -> 302 ``./`` (relative, the query dropped), for a
    # directory with an ``index.html`` only: another is a 404 with or without its slash (no
    # listings), a file only at its exact path (``/x.html/``, ``/a//b``: 404), mtime-size ETags,
    # ``Cache-Control: max-age=60``, no vhosts, case-sensitive, the wrapped application's
    # plain-text 404.
    "whitenoise": Family(
        name="whitenoise",
        label="WhiteNoise",
        host="wn.test",
        binary=sys.executable,
        command=_gunicorn_command("whitenoise", "whitenoiseapp:application"),
        template=False,
        foreground=True,
        packages=("whitenoise", "gunicorn"),
    ),
    # Express's static middleware (expressserver.js: ``app.use(express.static(root))``, serve-static's
    # defaults): ``/d`` -> 301 ``/d/`` (the query kept; for an absolute-form request, such as the
    # proxied crawl sends, ``http://<host>/d/``), ``index.html`` (also served by its name), no
    # listings (404), ``/x.html/`` a 404, ``/a//b`` serves ``/a/b``, weak size-mtime ETags, no vhosts,
    # case-sensitive, Express's HTML 404 (``Cannot GET /x``).
    "express": Family(
        name="express",
        label="Express",
        host="ex.test",
        binary=EXPRESS,
        command=_script_command("expressserver.js", "express", NODE),
        template=False,
        foreground=True,
    ),
    # uWSGI's static files (``--http-socket --check-static <root> --static-index index.html``, the
    # ``notfound`` plugin as the application): ``/d`` serves ``/d/index.html`` in place, no redirect
    # (relative links resolve differently), ``/d/index.html`` too; no listings (404), ``/x.html/`` a
    # 404, ``/a//b`` and ``/a/./b`` serve ``/a/b``, ``/x;p=1`` a 404, percent-escapes decoded
    # (``%2F`` too), ``Last-Modified`` (and 304) and no ETag, no keep-alive, no vhosts,
    # case-sensitive, a plain-text 404 (``Not Found``); a file whose real path is outside the root
    # and the trees (Requests' ``_static/jquery.js``, a link into ``/usr/share/javascript``) is a
    # 404. An absolute-form request (``GET http://h/x``) is a 404, for a file too: origin-form only.
    "uwsgi": Family(
        name="uwsgi",
        label="uWSGI",
        host="uw.test",
        binary=UWSGI,
        command=_uwsgi_command,
        template=False,
        foreground=True,
        origin_form=True,
    ),
}


def missing(kinds: Iterable[str] | None = None) -> list[str]:
    """What ``setup.sh`` still has to install for ``kinds`` (default: all): server binaries,
    documentation trees, and the frameworks' pip packages (``pip:<name>``) this Python lacks."""
    families = [FAMILIES[kind] for kind in (FAMILIES if kinds is None else kinds)]
    needed = [family.binary for family in families] + [f"{tree}/index.html" for tree in TREES.values()]
    needed += [path for family in families for _, path in family.shelves]
    packages = dict.fromkeys(package for family in families for package in family.packages)
    return [path for path in needed if not Path(path).exists()] + [
        f"pip:{package}" for package in packages if importlib.util.find_spec(package) is None
    ]


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """``count`` distinct free ports (each socket held until all are drawn)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]


def wait_for_port(port: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def build_root(
    root: Path,
    server: str,
    http_links: str = "",
    extra: tuple[tuple[str, str], ...] = (),
    shelves: tuple[tuple[str, str], ...] = (),
) -> None:
    """The site root: a landing page and one symlink per documentation tree. With
    ``http_links`` (an https site's host), the landing page links the second tree as
    ``http://<host>/...`` and the third as ``http://www.<host>/...``, as pages of a site
    that moved to https still do; the first stays relative. ``extra``: ``(href, text)``
    links after the trees'; ``shelves``: ``(name, path)`` directories linked and served
    beside the trees."""
    root.mkdir(parents=True, exist_ok=True)
    bases = ["", f"http://{http_links}", f"http://www.{http_links}"] if http_links else [""]
    links = "\n".join(
        [f'<li><a href="{bases[index % len(bases)]}/{name}/">{name}</a></li>' for index, name in enumerate(TREES)]
        + [f'<li><a href="{href}">{text}</a></li>' for href, text in extra]
        + [f'<li><a href="/{name}/">{name}</a></li>' for name, _ in shelves]
    )
    (root / "index.html").write_text(LANDING.format(server=server, links=links), encoding="utf-8")
    for name, tree in (*TREES.items(), *shelves):
        link = root / name
        if not link.is_symlink():
            link.symlink_to(tree)


def user_directives(kind: str) -> str:
    """As root, the workers drop to www-data (Apache refuses to serve as root)."""
    return FAMILIES[kind].user if os.geteuid() == 0 else ""


@dataclass
class Server:
    """One running server: its family, canonical host, port and state directory."""

    kind: str  # a key of FAMILIES
    host: str  # the site's host; its www twin is www.<host>
    port: int
    state: Path
    tunnel_port: int | None = None  # tunnel.py in front of a TLS family: the crawl's proxy

    @property
    def proxy(self) -> str:
        """Scrapy's ``meta["proxy"]`` for this server: requests go to 127.0.0.1:port in
        absolute form (``GET http://docs.test/x``), which every server answers as an origin
        server, choosing the virtual host by the URL's host (``http.server`` has none). For
        a TLS family, the tunnel's port: ``CONNECT`` for ``https://``, the rest relayed."""
        return f"http://127.0.0.1:{self.tunnel_port or self.port}"

    @property
    def start_url(self) -> str:
        return f"http://{self.host}/"

    @property
    def hosts(self) -> list[str]:
        return [self.host, f"www.{self.host}"]

    def log(self, name: str) -> str:
        path = self.state / f"{FAMILIES[self.kind].name}-{name}.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def render(template: str, target: Path, **values: str) -> Path:
    text = (HERE / template).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    target.write_text(text, encoding="utf-8")
    return target


def _stop(pidfile: Path, child: subprocess.Popen[bytes] | None, seconds: float = 10.0) -> None:
    """SIGTERM to the pid in ``pidfile``, then wait until it is gone (reaped, if it is our ``child``)."""
    with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError, subprocess.TimeoutExpired):
        pid = int(pidfile.read_text().strip())
        os.kill(pid, signal.SIGTERM)
        if child is not None and child.pid == pid:
            child.wait(seconds)
            return
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            os.kill(pid, 0)  # raises ProcessLookupError once it is gone
            time.sleep(0.05)
    if child is not None and child.poll() is None:  # it never wrote its pid file
        child.kill()
        child.wait()


@contextlib.contextmanager
def serve(kind: str, host: str | None = None, state: Path | None = None) -> Iterator[Server]:
    """A private ``kind`` server (a key of ``FAMILIES``) for ``host`` and its www twin: its
    site root, its config, started, and stopped by its pid file when the ``with`` ends."""
    family = FAMILIES[kind]
    host = host or family.host
    with _state(state, kind) as directory:
        build_root(directory / "www", family.label, host if family.tls else "", family.links, family.shelves)
        port, tls_port, tunnel_port = free_ports(3)
        if family.tls:
            self_signed(directory / f"{family.name}.crt", directory / f"{family.name}.key", [host, f"www.{host}"])
        if family.template:
            render(
                f"{family.name}.conf.in",
                directory / f"{family.name}.conf",
                STATE=str(directory),
                ROOT=str(directory / "www"),
                PORT=str(port),
                TLS_PORT=str(tls_port),
                HOST=host,
                APP=str(HERE / "tomcat_app"),
                USER_DIRECTIVES=user_directives(kind),
            )
        _own(directory, family.owned)
        site = {
            "URLNORM_SITE_ROOT": str(directory / "www"),
            "URLNORM_SITE_HOST": host,
            "URLNORM_SITE_LABEL": family.label,
        }
        if TREES_VARIABLE in os.environ:  # (the applications serve the trees it names)
            site[TREES_VARIABLE] = os.environ[TREES_VARIABLE]
        child = _start(family.command(directory, port), family.foreground, site)
        try:
            wait_for_port(port)
            if family.origin_form:
                with _tunnel(directory / family.name, tunnel_port, port, tls_port, [], origin_form=True):
                    yield Server(kind, host, port, directory, tunnel_port)
                return
            if not family.tls:
                yield Server(kind, host, port, directory)
                return
            wait_for_port(tls_port)
            with _tunnel(directory / family.name, tunnel_port, port, tls_port, [host, f"www.{host}"]):
                yield Server(kind, host, port, directory, tunnel_port)
        finally:
            _stop(directory / f"{family.name}.pid", child)


@contextlib.contextmanager
def _tunnel(
    prefix: Path, port: int, http_port: int, tls_port: int, hosts: list[str], *, origin_form: bool = False
) -> Iterator[None]:
    """``tunnel.py`` on ``port`` in front of a TLS server (or, ``origin_form``, of one that
    answers only origin-form requests), our child until the ``with`` ends; its pid file and
    connection log are ``<prefix>-tunnel.pid`` and ``.log``."""
    pid_file = prefix.with_name(f"{prefix.name}-tunnel.pid")
    command = [sys.executable, str(HERE / "tunnel.py"), f"--port={port}", f"--http-port={http_port}"]
    command += [f"--tls-port={tls_port}", f"--pid-file={pid_file}", f"--log={prefix}-tunnel.log"]
    command += [f"--host={host}" for host in hosts] + (["--origin-form"] if origin_form else [])
    child = _start(command, True, {})
    try:
        wait_for_port(port)
        yield
    finally:
        _stop(pid_file, child)


def self_signed(certificate: Path, key: Path, hosts: list[str], days: int = 30) -> None:
    """A self-signed certificate for ``hosts`` and its key, written to ``certificate`` and
    ``key`` (see ``demoweb.server.self_signed_pem``)."""
    from demoweb.server import self_signed_pem

    pem, private = self_signed_pem(hosts, days)
    certificate.write_bytes(pem)
    key.touch(mode=0o600)
    key.write_bytes(private)


def _start(command: list[str], foreground: bool, site: dict[str, str]) -> subprocess.Popen[bytes] | None:
    """A daemonizing server has started when its command returns; a foreground one is our child."""
    if foreground:
        return subprocess.Popen(command, env=_clean_env(site), stdin=subprocess.DEVNULL)
    subprocess.run(command, check=True, env=_clean_env(site))
    return None


def _own(directory: Path, names: tuple[str, ...]) -> None:
    """Create the state entries a server opens after dropping to www-data, and give them
    to www-data if we are root."""
    for name in names:
        path = directory / name
        if name.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.touch()
        if os.geteuid() == 0:
            shutil.chown(path, "www-data", "www-data")


@contextlib.contextmanager
def _state(state: Path | None, kind: str) -> Iterator[Path]:
    if state is not None:
        state.mkdir(parents=True, exist_ok=True)
        state.chmod(0o755)
        yield state
        return
    directory = Path(tempfile.mkdtemp(prefix=f"urlnorm-{kind}-"))
    directory.chmod(0o755)  # the workers (www-data when started as root) read the site root here
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _clean_env(site: dict[str, str]) -> dict[str, str]:
    """The servers get a minimal environment (no proxy variables, a C locale) and ``site``:
    the site root, host, label and any other trees, which the framework applications
    read (``webapps.py``)."""
    return {"PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"), "LANG": "C", **site}
