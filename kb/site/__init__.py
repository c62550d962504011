"""The Datasette plugin package: routes, page data, search, rendering, the feed, metadata, templates, static files.

Reads the built database only (never writes). May import ``kb.records``, ``kb.normalise``, the pure
matchers of ``kb.link`` (a diff between any two versions is computed on request) and ``kb.store``
for the declared shape, column descriptions and history queries (never its writers);
works under plain ``datasette`` as well as ``mtgkb serve``.
"""

# The ``datasette`` entry point names this package, so that Datasette serves its templates/ and
# static/ folders; pluggy finds the hooks as attributes of the package, so every hook the plugin
# module declares is lifted here.
from kb.site import plugin as _plugin  # noqa: E402

globals().update({name: hook for name, hook in vars(_plugin).items() if hasattr(hook, "datasette_impl")})
