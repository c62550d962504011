"""The Datasette plugin package: routes, page data, search, rendering, the feed, metadata, templates, static files.

Reads the built database only (never writes). May import ``kb.normalise`` and ``kb.store.schema``
for shared helpers and the declared shape; works under plain ``datasette`` as well as ``mtgkb serve``.
"""
