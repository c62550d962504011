"""Building: inputs chosen, each loaded, everything derived, validated, and renamed into place atomically.

May import every stage before it (``parse``, ``normalise``, ``link``, ``store``).
"""
