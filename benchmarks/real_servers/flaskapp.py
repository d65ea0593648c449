"""A Flask site for bench_real_servers.py, run by gunicorn (``flaskapp:app``).

Routing is Werkzeug's with its defaults (``strict_slashes``), so the URL conventions are
Flask's own rather than imitated:

- a rule ending in ``/`` answers the path without it with a 308 to the slash
  (``/articles`` -> ``/articles/``, ``/doxygen`` -> ``/doxygen/``); a rule without the
  slash answers 404 to the path with it (``/about/``);
- the documentation trees through ``send_from_directory`` (ETags, ``Last-Modified``,
  conditional answers; a directory or a missing file is 404): ``/<tree>/`` serves the
  tree's ``index.html``, ``/<tree>/<path>`` the file itself, no other spelling (no
  ``/x`` -> ``/x.html``, no ``index.html`` for a subdirectory);
- case-sensitive paths; the host is not looked at, so ``fl.test`` and ``www.fl.test``
  serve the same pages (a twin that does not redirect);
- application pages (``webapps.py``): ``/articles/`` (``?page=N``, page 1 = no parameter,
  404 past the last page), ``/article/<int:id>`` (404 for an unknown id), ``/about`` linked
  with ``?ref=...`` (ignored);
- one error handler for every 404: a site-styled page with the site's links, answered with
  status 404 (a real 404, not a soft one).
"""

from __future__ import annotations

import webapps
from flask import Flask, abort, render_template_string, request, send_from_directory
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response

app = Flask(__name__)

TREE = f"any({', '.join(repr(name) for name in webapps.TREE_DIRS)})"

BASE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{ title }}</title></head>
<body>{{ content|safe }}
<p><a href="/">Home</a> <a href="/articles/">Articles</a> <a href="/about?ref=footer">About</a></p></body></html>
"""

LIST = """<h1>Articles</h1>
<ul>
{% for article in articles %}<li><a href="/article/{{ article.id }}">{{ article.title }}</a></li>
{% endfor %}</ul>
<p>{% if page > 1 %}<a href="{{ url_for('articles', page=page - 1) }}">previous</a> {% endif %}
Page {{ page }} of {{ pages }}
{% if page < pages %}<a href="{{ url_for('articles', page=page + 1) }}">next</a>{% endif %}</p>"""


def page(title: str, content: str, **context: object) -> str:
    inner = render_template_string(content, **context)
    return render_template_string(BASE, title=title, content=inner)


@app.route("/")
def landing() -> str:
    return webapps.landing(["/articles/", "/about?ref=landing", "/article/1"])


@app.route("/articles/")
def articles() -> str:
    number = request.args.get("page", 1, type=int)
    pages = (len(webapps.ARTICLES) + webapps.PER_PAGE - 1) // webapps.PER_PAGE
    if not 1 <= number <= pages:
        abort(404)
    shown = webapps.ARTICLES[(number - 1) * webapps.PER_PAGE : number * webapps.PER_PAGE]
    return page(f"Articles, page {number}", LIST, articles=shown, page=number, pages=pages)


@app.route("/article/<int:article_id>")
def article(article_id: int) -> str:
    found = webapps.ARTICLES_BY_ID.get(article_id)
    if found is None:
        abort(404)
    return page(
        found.title,
        '<h1>{{ a.title }}</h1>\n<p>{{ a.body }}</p>\n<p><a href="/about?ref=article-{{ a.id }}">About</a></p>',
        a=found,
    )


@app.route("/about")
def about() -> str:
    return page("About", "<h1>About</h1>\n<p>Articles and documentation served by Flask.</p>")


@app.route(f"/<{TREE}:tree>/")
def tree_index(tree: str) -> Response:
    return send_from_directory(webapps.TREE_DIRS[tree], "index.html")


@app.route(f"/<{TREE}:tree>/<path:filename>")
def doc_file(tree: str, filename: str) -> Response:
    return send_from_directory(webapps.TREE_DIRS[tree], filename)


@app.errorhandler(404)
def not_found(error: NotFound) -> tuple[str, int]:
    return page("Not found", "<h1>Not found</h1>\n<p>No page at {{ path }}.</p>", path=request.path), 404
