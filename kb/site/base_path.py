"""The site under Datasette's ``base_url`` setting (``--setting base_url /kb/``), as behind a proxy
that forwards only that path.

Datasette writes its own links with the prefix. The site's pages, JSON and redirects write their
paths from the root ("/rule/702.19", ``"url":"/card/…"``, the rule numbers a text cites), many of
them in pure helpers that know nothing of the setting; under a prefix every one led off the site
(a review: 101 of a rule page's links were 404s through such a proxy). So the site's own
responses are marked (``SITE_PATHS_HEADER``, set by ``kb.site.views``) and ``prefixed_site_paths``
writes the prefix into them as they leave; the header Datasette's own pages share with ours
(``base.html``) and the cells it links on Datasette's table pages take the prefix themselves
(``root``).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# Set on the site's own responses, whose paths are written from the root; removed before sending.
SITE_PATHS_HEADER = b"x-kb-site-paths"

_HTML_PATH = re.compile(rb'(?P<attribute>\b(?:href|src|action)=")(?P<path>/(?!/)[^"]*)')
_JSON_URL = re.compile(rb'(?P<attribute>"url":")(?P<path>/(?!/)[^"]*)')
_REWRITTEN = (b"text/html", b"application/json")


def root(base_url: str | None) -> str:
    """The path the site lives under, without its last slash: "" for Datasette's default "/"."""
    return (base_url or "/").rstrip("/")


def prefixed_path(path: bytes, prefix: bytes) -> bytes:
    """``path`` (from the root) under ``prefix``; Datasette's own static files are linked with it
    already (``urls.static``: "/kb/-/static/app.css")."""
    if path.startswith(prefix + b"/-/"):
        return path
    return prefix + path


def prefixed_body(body: bytes, content_type: bytes, prefix: bytes) -> bytes:
    """The paths of an HTML page's links, forms and sources, or of a JSON answer's "url"s, under ``prefix``."""
    pattern = _JSON_URL if content_type.startswith(b"application/json") else _HTML_PATH
    return pattern.sub(lambda found: found["attribute"] + prefixed_path(found["path"], prefix), body)


def prefixed_html(html: str, prefix: str) -> str:
    """``prefixed_body`` of a piece of HTML, as text."""
    return prefixed_body(html.encode(), b"text/html", prefix.encode()).decode()


def prefixed_site_paths(app: Callable, base_url: str) -> Callable:
    """ASGI middleware: the site's own responses (marked ``SITE_PATHS_HEADER``) under ``base_url``:
    their links, "url"s and redirects. Every other response passes as it came, the marker removed."""
    prefix = root(base_url).encode()

    async def wrapped(scope: dict, receive: Callable, send: Callable) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        held: dict[str, Any] = {}

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                marked = any(name.lower() == SITE_PATHS_HEADER for name, _value in headers)
                headers = [(name, value) for name, value in headers if name.lower() != SITE_PATHS_HEADER]
                if not marked or not prefix:
                    await send({**message, "headers": headers})
                    return
                headers = [(name, prefixed_path(value, prefix) if name.lower() == b"location" and value.startswith(b"/")
                            and not value.startswith(b"//") else value) for name, value in headers]
                content_type = next((value for name, value in headers if name.lower() == b"content-type"), b"")
                if not content_type.startswith(_REWRITTEN) or scope.get("method") == "HEAD":
                    await send({**message, "headers": headers})
                    return
                # The body is held until it is whole (the site's pages are sent in one piece).
                held.update(start={**message, "headers": headers}, body=[], content_type=content_type)
                return
            if message["type"] == "http.response.body" and held:
                held["body"].append(message.get("body", b""))
                if message.get("more_body"):
                    return
                body = prefixed_body(b"".join(held["body"]), held["content_type"], prefix)
                start = held["start"]
                start["headers"] = [(name, str(len(body)).encode() if name.lower() == b"content-length" else value)
                                    for name, value in start["headers"]]
                held.clear()
                await send(start)
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await app(scope, receive, sending)

    return wrapped
