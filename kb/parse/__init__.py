"""Parse: the bytes of one document in, plain records (``kb.records``) out.

Pure: no network, no files, no database. May import ``kb.records`` and ``kb.normalise``.
``formats`` is the registry that detects a document's format from its content; ``cr/`` reads
Comprehensive Rules documents, ``rulings/`` card and ruling sources, ``release_notes/`` the
localized release notes.
"""
