"""The shape Scryfall documents for its ruling and card objects, checked where they are read.

A field missing or in another shape means the layout changed (or the file was damaged): each such
object imported with exit 0 before, losing or inventing data (a ruling without its text, a card
without a name, a printing without its oracle id, faces without their names).
"""
from __future__ import annotations

from typing import Any

from kb.parse.rulings.fields import check_iso_date, check_uuid
from kb.records import ParseError

# The text and the date of Scryfall's ruling object. The API documents both as always present
# and every real response has them: one missing means the layout changed (a renamed "comment"
# gave rulings without text, each dropped, and an import that published none). A ruling without
# its oracle_id is kept, flagged (kb.build.checks).
RULING_FIELDS = ("published_at", "comment")


def check_ruling_fields(obj: dict[str, Any], where: str) -> None:
    if "comment" not in obj or "published_at" not in obj:
        missing = ", ".join(repr(field) for field in RULING_FIELDS if field not in obj)
        raise ParseError(f"{where} has no {missing}: not the layout of Scryfall's ruling object")
    check_uuid(obj.get("oracle_id"), f"{where}: oracle_id", "Scryfall's ruling object")
    check_iso_date(obj.get("published_at"), f"{where}: published_at", "Scryfall's ruling object")
    for field in ("comment", "source"):
        value = obj.get(field)
        if value is not None and type(value) is not str:
            # Read on, it failed in Python's words ("'list' object has no attribute 'isascii'").
            kind = type(value).__name__
            raise ParseError(f"{where}: {field} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} ({repr(value)[:40]}), not text:"
                             " not the layout of Scryfall's ruling object")


# The layouts whose card objects always give each face in card_faces (Scryfall's "Layouts and
# Faces"): without them a transforming card lost the names of its faces, with exit 0.
MULTI_FACED_LAYOUTS = frozenset(
    {"split", "flip", "transform", "modal_dfc", "adventure", "reversible_card", "double_faced_token", "art_series"}
)


def check_card_fields(card: dict[str, Any], where: str) -> None:
    """A card object's name and oracle id as Scryfall documents them. A card named "" was saved
    and shown as a card without a name; one without an oracle id (reversible cards give it on
    their faces) was left out, and with it every name of the printing, with exit 0."""
    name = card.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ParseError(f"{where} has no name ({name!r}): not the layout of Scryfall's card object")
    if card.get("layout") in MULTI_FACED_LAYOUTS and len(faces_of(card)) < 2:
        raise ParseError(
            f"{where} ({name}) is a {card['layout']} card without its card_faces: not the layout of Scryfall's card object"
        )
    oracle_id = oracle_id_of(card)
    if oracle_id is None:
        raise ParseError(f"{where} ({name}) has no oracle_id, nor on its faces: not the layout of Scryfall's card object")
    check_uuid(oracle_id, f"{where} ({name}): oracle_id", "Scryfall's card object")


def faces_of(card: dict[str, Any]) -> list[dict[str, Any]]:
    return card.get("card_faces") or []


# What a face of a reversible printing says of its card, where both sides are one card.
ONE_CARD_FIELDS = ("name", "oracle_id", "oracle_text", "type_line", "mana_cost", "printed_name", "printed_text",
                   "printed_type_line", "power", "toughness", "loyalty", "defense")


def as_one_sided(card: dict[str, Any]) -> dict[str, Any]:
    """A reversible printing of one card on both sides (Secret Lair's "Okaun, Eye of Chaos //
    Okaun, Eye of Chaos", its oracle id on each face) as a printing of that card: the card's
    name, Oracle text, type line and cost once. Joined from both faces, cards.name was the
    doubled name, which no search by the card's name finds, and its text twice."""
    faces = faces_of(card)
    if card.get("layout") != "reversible_card" or len(faces) < 2:
        return card
    first = faces[0]
    if any(face.get("name") != first.get("name") or face.get("oracle_id") != first.get("oracle_id") for face in faces):
        return card
    one = {key: value for key, value in card.items() if key != "card_faces"}
    one.update({key: first[key] for key in ONE_CARD_FIELDS if first.get(key) is not None})
    return one


def oracle_id_of(card: dict[str, Any]) -> str | None:
    # Reversible cards carry oracle_id only on their faces.
    return card.get("oracle_id") or next((f["oracle_id"] for f in faces_of(card) if f.get("oracle_id")), None)
