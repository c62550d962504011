"""The database: its declared shape, stable ids, ``save_*`` writers and the SQL side of deriving.

The only package that writes SQL. May import ``kb.records``, ``kb.normalise`` and ``kb.link``
(deriving runs the pure matchers over what is stored, and saves their answers), and
``kb.checksums`` (the digest of the code that linked a file).
"""
