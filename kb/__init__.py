"""mtg-rules-kb: the Magic: The Gathering Comprehensive Rules and card rulings, in every language, as a database.

Data flows one way through the sub-packages, and each may import only the stages before it:
``parse`` (bytes → records) → ``normalise`` (pure helpers the parsers use) → ``link`` (pure matchers)
→ ``store`` (the only code that writes SQL) → ``build`` → ``refresh``; ``site`` reads the built
database; ``cli`` ties them together. ``kb.records`` holds the plain records every stage shares.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mtg-rules-kb")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
