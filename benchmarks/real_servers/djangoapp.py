"""A Django site for bench_real_servers.py, run by gunicorn (``djangoapp:application``).

One module is the whole project (settings, URLconf, views, templates), configured as Django
sites are, so the URL conventions are Django's own rather than imitated:

- ``CommonMiddleware`` with ``APPEND_SLASH=True``: ``/x`` answers 301 ``/x/`` when ``/x``
  matches no URL pattern and ``/x/`` matches one (whatever the view then answers), and 404
  otherwise;
- ``PREPEND_WWW=True``: the bare host answers 301 ``http://www.<host>/...`` (with the slash
  appended in the same redirect where ``APPEND_SLASH`` would add one);
- the documentation trees under pretty URLs: ``/doxygen/faq/`` serves ``doxygen/faq.html``
  while ``/doxygen/faq.html`` keeps serving the file itself (``django.views.static.serve``:
  ``Last-Modified`` and ``If-Modified-Since``, no ETag), so a page has two spellings as in a
  Django app that grew around static HTML; ``/doxygen/`` serves the tree's ``index.html``;
- application pages (``webapps.py``): ``/articles/`` (a ``ListView``, ``?page=N``, page 1 =
  no parameter, 404 past the last page), ``/article/?id=N`` (404 without a known id),
  ``/about/?ref=...`` (ignores ``ref``); the landing page also links a few documents in the
  pretty spelling.

``DEBUG=False``: 404s are Django's plain "Not Found" page. ``ALLOWED_HOSTS`` is the site's
host and its ``www.`` twin (anything else: 400).
"""

from __future__ import annotations

import re
from typing import Any

import webapps
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="bench-real-servers",
    ALLOWED_HOSTS=[webapps.HOST, f"www.{webapps.HOST}"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"],
    APPEND_SLASH=True,
    PREPEND_WWW=True,
    INSTALLED_APPS=[],
    USE_I18N=False,
    USE_TZ=True,
    TEMPLATES=[
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "OPTIONS": {
                "loaders": [
                    (
                        "django.template.loaders.locmem.Loader",
                        {
                            "base.html": (
                                '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{% block title %}'
                                "{% endblock %}</title></head>\n<body>{% block content %}{% endblock %}\n"
                                '<p><a href="/">Home</a> <a href="/articles/">Articles</a>'
                                ' <a href="/about/?ref=footer">About</a></p></body></html>\n'
                            ),
                            "article_list.html": (
                                '{% extends "base.html" %}{% block title %}Articles, page {{ page_obj.number }}'
                                "{% endblock %}{% block content %}<h1>Articles</h1>\n<ul>\n"
                                '{% for article in page_obj %}<li><a href="/article/?id={{ article.id }}">'
                                "{{ article.title }}</a></li>\n{% endfor %}</ul>\n<p>"
                                '{% if page_obj.has_previous %}<a href="?page=1">first</a> '
                                '<a href="?page={{ page_obj.previous_page_number }}">previous</a> {% endif %}'
                                "Page {{ page_obj.number }} of {{ page_obj.paginator.num_pages }}"
                                '{% if page_obj.has_next %} <a href="?page={{ page_obj.next_page_number }}">next</a>'
                                ' <a href="?page={{ page_obj.paginator.num_pages }}">last</a>{% endif %}'
                                "</p>{% endblock %}"
                            ),
                            "article.html": (
                                '{% extends "base.html" %}{% block title %}{{ article.title }}{% endblock %}'
                                "{% block content %}<h1>{{ article.title }}</h1>\n<p>{{ article.body }}</p>\n"
                                '<p><a href="/about/?ref=article-{{ article.id }}">About these articles</a></p>'
                                "{% endblock %}"
                            ),
                            "about.html": (
                                '{% extends "base.html" %}{% block title %}About{% endblock %}{% block content %}'
                                "<h1>About</h1>\n<p>Articles and documentation served by Django.</p>{% endblock %}"
                            ),
                        },
                    )
                ]
            },
        }
    ],
)
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import Http404, HttpRequest, HttpResponse  # noqa: E402
from django.shortcuts import render  # noqa: E402
from django.urls import path, re_path  # noqa: E402
from django.views.generic import ListView  # noqa: E402
from django.views.static import serve  # noqa: E402


def landing(request: HttpRequest) -> HttpResponse:
    links = ["/articles/", "/about/?ref=landing", *webapps.featured("/{tree}/{page}/")]
    return HttpResponse(webapps.landing(links))


class ArticleList(ListView):
    paginate_by = webapps.PER_PAGE
    template_name = "article_list.html"

    def get_queryset(self) -> list[webapps.Article]:
        return webapps.ARTICLES


def article(request: HttpRequest) -> HttpResponse:
    try:
        found = webapps.ARTICLES_BY_ID[int(request.GET.get("id", ""))]
    except (KeyError, ValueError):
        raise Http404("No such article") from None
    return render(request, "article.html", {"article": found})


def about(request: HttpRequest) -> HttpResponse:
    return render(request, "about.html")


def tree_index(request: HttpRequest, tree: str) -> Any:
    return serve(request, "index.html", document_root=webapps.TREE_DIRS[tree])


def doc_page(request: HttpRequest, tree: str, page: str) -> Any:
    """``/<tree>/<page>/``: the tree's ``<page>.html``."""
    return serve(request, f"{page}.html", document_root=webapps.TREE_DIRS[tree])


def doc_file(request: HttpRequest, tree: str, file: str) -> Any:
    """``/<tree>/<file>``: any file of the tree by its own name (a name with an extension)."""
    return serve(request, file, document_root=webapps.TREE_DIRS[tree])


TREE = "|".join(re.escape(name) for name in webapps.TREE_DIRS)

urlpatterns = [
    path("", landing),
    path("articles/", ArticleList.as_view()),
    path("article/", article),
    path("about/", about),
    re_path(rf"^(?P<tree>{TREE})/$", tree_index),
    re_path(rf"^(?P<tree>{TREE})/(?P<page>.+)/$", doc_page),
    re_path(rf"^(?P<tree>{TREE})/(?P<file>.+\.\w+)$", doc_file),
]

application = get_wsgi_application()
