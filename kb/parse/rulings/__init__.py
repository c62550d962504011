"""Card and ruling parsers: Scryfall, MTGJSON, old and new Gatherer, captured card pages.

Pure; may import ``kb.records`` and ``kb.normalise``.
"""
