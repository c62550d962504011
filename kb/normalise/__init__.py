"""Normalise: pure functions that make text, dates, symbols, names and languages comparable.

Decoding bytes, NFC text, ISO 8601 dates, mana symbols as ``{T}``/``{W}``, rule references, names
folded for matching, languages.

Pure functions of their arguments: no network, no files, no database. May import only the standard
library, ``kb.records`` and the data files in ``normalise/data/``; every other stage may import it.
"""
