"""The periodic job: lock, fetch incrementally, build, carry what only a refresh knows, check, publish, record the run.

May import ``scraper`` (to fetch) and ``kb.build``/``kb.store``; nothing imports it but the CLI.
"""
