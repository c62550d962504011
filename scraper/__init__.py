"""Fetch: the only code that touches the network.

One polite httpx client (``http``), one fetcher per site (``fetchers/``), and the raw store
(``rawstore``) that keeps the untouched bytes with a manifest. Never imports ``kb``; the knowledge
base reads the raw store, never the other way round.
"""
