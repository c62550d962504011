"""Comprehensive Rules parsers: the official English TXT, the Chinese and Korean translations, per-rule pages.

Pure; may import ``kb.records`` and ``kb.normalise``.
"""
