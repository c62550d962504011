"""Localized official release notes (Korean HTML, Chinese DOCX): per-card rulings with their dates.

Pure; may import ``kb.records`` and ``kb.normalise``.
"""
