"""Link: pure matchers between parsed documents, records in and pairings out.

CR versions to each other (diffs, renumberings), translations to their English originals,
keywords across languages, rulings to the rules they cite.

Records in, pairings out: no database. May import ``kb.records`` and ``kb.normalise``.
"""
