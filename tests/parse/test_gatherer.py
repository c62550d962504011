"""Old Gatherer pages (real, tests/fixtures/gatherer/old) and the new Gatherer parser
(on a RECONSTRUCTED page, tests/fixtures/gatherer/new — see its README)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.parse.rulings import gatherer_new, gatherer_old
from kb.records import CardName, ParseError, QualityIssue

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gatherer"
OLD = FIXTURES / "old"
NEW_PAGE = FIXTURES / "new" / "jace-wunderkind-von-vryn_de.html"


def old_page(stem: str):
    return gatherer_old.parse((OLD / f"{stem}.html").read_bytes(), f"{stem}.html")


def test_recall_rulings_with_iso_dates() -> None:
    document = old_page("recall")
    # The saved page holds two ruling rows (ctl00, ctl01); the third "rulingDate" in the file is
    # a JavaScript ClientIDs line, not a ruling.
    assert [(r.raw_date, r.published_at, r.source, r.lang) for r in document.rulings] == [
        ("10/1/2009", "2009-10-01", "wotc", "en"),
        ("10/1/2009", "2009-10-01", "wotc", "en"),
    ]
    assert document.rulings[0].text == (
        "You don't discard cards until Recall resolves. If you don't have X cards in your hand at that time, "
        "you discard all the cards in your hand."
    )
    card = document.cards[0]
    assert (card.name, card.lang, card.mana_cost, card.type_line, card.multiverse_id, card.set_code) == (
        "Recall", "en", "{X}{X}{U}", "Sorcery", 1496, "LE"
    )
    assert document.rulings[0].card_name == "Recall" and document.rulings[0].multiverse_id == 1496
    assert document.card_names == [CardName("en", "Recall", None, "Recall")]
    assert document.issues == []


def test_a_ruling_date_not_written_as_the_us_page_writes_it_is_not_guessed() -> None:
    # "1.10.2009", day first as a German page writes it, was read as 10 January (a review).
    data = (OLD / "recall.html").read_bytes().replace(b">10/1/2009</td>", b">1.10.2009</td>")
    document = gatherer_old.parse(data, "recall.html")
    assert [(r.raw_date, r.published_at) for r in document.rulings] == [("1.10.2009", None), ("1.10.2009", None)]


def test_an_empty_ruling_is_said_dropped() -> None:
    # Dropped without a word, where a bulk file's empty ruling is flagged (a review).
    page = (OLD / "recall.html").read_bytes().decode("utf-8")
    start = page.index('rulingsRepeater_ctl01_rulingText" style="width: 610px; padding-right: 5px;">') + 76
    emptied = page[:start] + page[page.index("</td>", start):]
    document = gatherer_old.parse(emptied.encode(), "recall.html")
    assert len(document.rulings) == 1
    assert document.issues == [QualityIssue(
        "empty-ruling", "recall.html: face 1: the ruling of 10/1/2009"
        " (ctl00_ctl00_ctl00_MainContent_SubContent_SubContent_rulingsRepeater_ctl01_rulingDate) has no text; dropped")]


def test_crackleburr_text_has_hybrid_tap_and_untap_symbols() -> None:
    card = old_page("crackleburr").cards[0]
    assert card.mana_cost == "{1}{U/R}{U/R}"
    assert card.oracle_text == (
        "{U/R}{U/R}, {T}, Tap two untapped red creatures you control: Crackleburr deals 3 damage to target "
        "creature or player.\n"
        "{U/R}{U/R}, {Q}, Untap two tapped blue creatures you control: Return target creature to its owner's "
        "hand. ({Q} is the untap symbol.)"
    )
    assert len(old_page("crackleburr").rulings) == 4


def test_vault_skirge_phyrexian_mana() -> None:
    document = old_page("vaultskirge")
    assert document.cards[0].mana_cost == "{1}{B/P}"
    assert document.cards[0].oracle_text.startswith("({B/P} can be paid with either {B} or 2 life.)\nFlying\n")
    assert (document.cards[0].type_line, document.cards[0].power, document.cards[0].toughness) == (
        "Artifact Creature — Imp", "1", "1"
    )
    assert len(document.rulings) == 5
    assert {r.published_at for r in document.rulings} == {"2011-06-01"}


def test_werewolf_ransacker_two_faces_and_rulings() -> None:
    document = old_page("werewolfransacker")
    card = document.cards[0]
    assert card.faces == ["Afflicted Deserter", "Werewolf Ransacker"]
    assert card.name == "Afflicted Deserter // Werewolf Ransacker"
    assert card.type_line == "Creature — Human Werewolf // Creature — Werewolf"
    # The page is Werewolf Ransacker's (Details.aspx?multiverseid=262698; its face's image carries
    # that id and "Card #: 81b"; Afflicted Deserter's is 262675, 81a). The printing is the whole
    # card, numbered by both faces as their costs are joined: "81b" alone was shown beside the
    # front face's cost (a review; Scryfall numbers the card 81).
    assert (card.multiverse_id, card.collector_number, card.set_code) == (262698, "81a // 81b", "DKA")
    # Each face's "P/T:" row, faces joined as their costs are: 3/2 and 5/4.
    assert (card.power, card.toughness, card.loyalty) == ("3 // 5", "2 // 4", None)
    # Four ruling rows in the (collapsed, display:none) container of the first face.
    assert len(document.rulings) == 4
    assert [r.position for r in document.rulings] == [0, 1, 2, 3]
    assert {r.published_at for r in document.rulings} == {"2011-01-22"}
    assert document.rulings[3].text == (
        'If something becomes a copy of Werewolf Ransacker, that doesn\'t count as "transforming into Werewolf '
        'Ransacker." The first triggered ability of the new Werewolf Ransacker doesn\'t trigger.'
    )
    assert [n.name for n in document.card_names] == [
        "Afflicted Deserter // Werewolf Ransacker", "Afflicted Deserter", "Werewolf Ransacker"
    ]


@pytest.mark.parametrize(
    "stem, lang, name, type_line, text, multiverse_id",
    [
        ("birdsofparadise_de", "de", "Paradiesvögel", "Kreatur — Vogel",
         "Fliegend\n{T}: Erhöhe deinen Manavorrat um ein Mana einer beliebigen Farbe.", 263789),
        ("birdsofparadise_fr", "fr", "Oiseaux de paradis", "Créature : - oiseau",
         "Vol\n{T} : Ajoutez un mana de la couleur de votre choix à votre réserve.", 263540),
        ("birdsofparadise_ja", "ja", "極楽鳥", "クリーチャー ― - 鳥",
         "飛行\n{T}：あなたのマナ・プールに、好きな色１色のマナ１点を加える。", 264287),
    ],
)
def test_localized_birds_of_paradise(stem: str, lang: str, name: str, type_line: str, text: str, multiverse_id: int) -> None:
    document = old_page(stem)
    card = document.cards[0]
    assert (document.lang, card.lang, card.printed_name, card.printed_type_line, card.printed_text) == (
        lang, lang, name, type_line, text
    )
    assert (card.oracle_text, card.mana_cost, card.multiverse_id, card.collector_number) == (None, "{G}", multiverse_id, "165")
    assert (card.power, card.toughness) == ("0", "1")
    # The set is printed in words ("Magic 2012"); its code comes from the same page's list of
    # the card's printings, whose "Magic 2012 (Rare)" icon carries set=M12.
    assert card.set_code == "M12"
    # The page never names the English card: english_name stays unknown (resolve by multiverse id).
    assert document.card_names == [CardName(lang, name, None, None)]
    assert document.rulings == [] and document.issues == []
    assert document.extra == {"display": "printed", "set_name": "Magic 2012"}


def test_french_printed_page_with_english_rulings_and_double_spaces() -> None:
    document = old_page("angeduvoldalbatre_fr")
    assert document.lang == "fr"
    assert document.cards[0].printed_name == "Ange du vol d'albâtre"
    assert document.cards[0].mana_cost == "{4}{W}"
    [ruling] = document.rulings
    assert (ruling.raw_date, ruling.published_at, ruling.lang, ruling.source) == ("9/22/2011", "2011-09-22", "en", "wotc")
    assert (ruling.card_name, ruling.card_name_lang) == ("Ange du vol d'albâtre", "fr")
    assert ruling.text == (
        "The Spirit card must already be in your graveyard when the ability triggers at the beginning of your "
        "upkeep. If there is no Spirit card in your graveyard when your upkeep begins, the ability will be "
        "removed from the stack with no effect."
    )


def test_printed_page_without_a_set_listing_keeps_no_set_code() -> None:
    # Ange du vol d'albâtre was printed once: no list of printings, so no code to read.
    assert old_page("angeduvoldalbatre_fr").cards[0].set_code is None


SCRYFALL = FIXTURES.parent / "scryfall"


def chinese_printings() -> list[tuple[str, str, str, str]]:
    """(lang, printed name, type line, text) of every Chinese printing in the real Scryfall
    every-language searches of the fixtures."""
    import json

    found = []
    paths = sorted((SCRYFALL / "api-2025-11-01").glob("search-langany-*.json"))
    for path in [*paths, SCRYFALL / "fryatog" / "wickedguardian-langs.json"]:
        for card in json.loads(path.read_text(encoding="utf-8"))["data"]:
            if card["lang"] in ("zhs", "zht"):
                faces = card.get("card_faces") or [card]
                found.append((
                    card["lang"],
                    " // ".join(face.get("printed_name") or "" for face in faces),
                    " // ".join(face.get("printed_type_line") or "" for face in faces),
                    "\n".join(face.get("printed_text") or "" for face in faces),
                ))
    return found


def test_chinese_printed_cards_detected_by_script() -> None:
    printings = chinese_printings()
    assert sorted(lang for lang, *_ in printings) == ["zhs"] * 3 + ["zht"] * 3
    for lang, name, type_line, text in printings:
        assert gatherer_old.detect_printed_language(type_line, text, name) == lang, name


def test_traditional_chinese_printed_page_is_zht_not_english() -> None:
    # A plain creature's type line ("生物～人類／貴族") holds only words both Chinese scripts
    # share; the name and text decide. The page is the real Japanese Birds of Paradise page
    # with its printed name, type and text replaced by Scryfall's zht printing of
    # Wicked Guardian 邪惡守護者 (real text; the combination is constructed here).
    [(name, type_line, text)] = [(n, t, x) for lang, n, t, x in chinese_printings() if lang == "zht" and "～" in t and "傳奇" not in t] or [("", "", "")]
    assert name, "the fixtures hold a non-legendary zht creature"
    page = (OLD / "birdsofparadise_ja.html").read_text(encoding="utf-8")
    page = page.replace("極楽鳥", name).replace("クリーチャー ― - 鳥", type_line)
    page = page.replace("飛行", text.split("\n")[0]).replace("あなたのマナ・プールに、好きな色１色のマナ１点を加える。", "")
    document = gatherer_old.parse(page.encode("utf-8"), "zht-page.html")
    assert (document.lang, document.cards[0].lang, document.cards[0].printed_name) == ("zht", "zht", name)
    assert document.card_names == [CardName("zht", name, None, None)]
    assert not [issue for issue in document.issues if issue.kind == "unknown-language"]


def test_lang_argument_overrides_detection() -> None:
    document = gatherer_old.parse((OLD / "birdsofparadise_de.html").read_bytes(), "x.html", lang="de")
    assert document.lang == "de"


def test_unknown_symbol_is_kept_as_question_mark_with_issue() -> None:
    data = (OLD / "recall.html").read_bytes().replace(b'name=U&amp;type=symbol" alt="Blue"', b'name=ZZ&amp;type=symbol" alt="Mystery"')
    document = gatherer_old.parse(data, "recall.html")
    assert document.cards[0].mana_cost == "{X}{X}{?}"
    assert document.issues == [
        QualityIssue("unknown-symbol", "recall.html: face 1: image alt='Mystery' name='ZZ' kept as {?}")
    ]


def test_sniff_claims_only_old_gatherer_pages() -> None:
    for path in OLD.glob("*.html"):
        assert gatherer_old.sniff(path.read_bytes()) and not gatherer_new.sniff(path.read_bytes())
    assert gatherer_new.sniff(NEW_PAGE.read_bytes()) and not gatherer_old.sniff(NEW_PAGE.read_bytes())


def test_not_a_card_page_raises() -> None:
    with pytest.raises(ParseError, match="^page.html: not a Gatherer card page"):
        gatherer_old.parse(b"<html><body>Hello</body></html>", "page.html")
    layout_changed = (OLD / "recall.html").read_bytes().replace(b"cardComponentContainer", b"somethingElse")
    with pytest.raises(ParseError, match=r"^recall.html: no card block"):
        gatherer_old.parse(layout_changed, "recall.html")


def test_a_page_cut_short_is_refused() -> None:
    """Cut after its third ruling's row, the page still parses into three rulings of four: the
    missing closing tag is what tells."""
    page = (OLD / "crackleburr.html").read_bytes()
    cut = page[: page.rfind(b"</tr>", 0, page.find(b"rulingsRepeater_ctl03")) + len(b"</tr>")]
    with pytest.raises(ParseError, match=r"^crackleburr\.html: truncated: the page ends before its closing </html> tag$"):
        gatherer_old.parse(cut, "crackleburr.html")
    # What may follow the closing tag: white space and comments (a saved page's note).
    saved = gatherer_old.parse(page + b"\n<!-- saved by a browser -->\n", "crackleburr.html")
    assert len(saved.rulings) == len(old_page("crackleburr").rulings) == 4
    new_page = NEW_PAGE.read_bytes()
    with pytest.raises(ParseError, match=r"^new\.html: truncated: the page ends before its closing </html> tag$"):
        gatherer_new.parse(new_page[: len(new_page) * 9 // 10], "new.html")


def test_new_gatherer_reconstructed_page() -> None:
    document = gatherer_new.parse(NEW_PAGE.read_bytes(), "jace_de.html")
    [card] = document.cards  # the nested back face (relatedCardInstances) is not a second card
    assert (card.name, card.lang, card.printed_name, card.multiverse_id, card.set_code, card.collector_number) == (
        "Jace, Vryn's Prodigy", "de", "Jace, Wunderkind von Vryn", 399265, "ORI", "60"
    )
    # "oT" (old Gatherer code) in the printed text is written as {T}
    assert card.printed_text.startswith("{T}: Ziehe eine Karte und wirf dann eine Karte ab.")
    assert (card.mana_cost, card.printed_type_line) == ("{1}{U}", "Legendäre Kreatur — Mensch, Zauberer")
    assert document.card_names == [
        CardName("de", "Jace, Wunderkind von Vryn", None, "Jace, Vryn's Prodigy"),
        CardName("en", "Jace, Vryn's Prodigy", None, "Jace, Vryn's Prodigy"),
    ]
    assert [(r.raw_date, r.published_at, r.source, r.position) for r in document.rulings] == [
        ("2017-09-29", "2017-09-29", "wotc", 0),
        ("2016-04-08", "2016-04-08", "wotc", 1),
        ("2015-06-22", "2015-06-22", "wotc", 2),
    ]
    assert document.issues == []


def test_new_gatherer_us_dates_and_unknown_date_format() -> None:
    page = NEW_PAGE.read_bytes()
    us = page.replace(b'\\"rulingDate\\":\\"2017-09-29\\"', b'\\"rulingDate\\":\\"9/29/2017\\"')
    assert gatherer_new.parse(us, "us.html").rulings[0].published_at == "2017-09-29"
    odd = page.replace(b'\\"rulingDate\\":\\"2017-09-29\\"', b'\\"rulingDate\\":\\"Sept 2017\\"')
    document = gatherer_new.parse(odd, "odd.html")
    assert (document.rulings[0].raw_date, document.rulings[0].published_at) == ("Sept 2017", None)
    assert document.issues == []  # the build reports the undated ruling (unparseable-date)


def test_new_gatherer_without_card_raises() -> None:
    with pytest.raises(ParseError, match="^x.html: no self.__next_f.push"):
        gatherer_new.parse(b"<html>instanceName</html>", "x.html")
    with pytest.raises(ParseError, match="^y.html: flight data holds no card object"):
        gatherer_new.parse(b'<script>self.__next_f.push([1,"0:[\\"x\\"]\\n"])</script>', "y.html")


@pytest.mark.parametrize("code", ["zh-tw", "zh_TW", "zh-Hant"])
def test_new_gatherer_traditional_chinese_locale_forms(code: str) -> None:
    # The page's own languageCode decides, in either locale spelling (RECONSTRUCTED page).
    page = NEW_PAGE.read_bytes().replace(b'languageCode\\":\\"de-de\\"', f'languageCode\\":\\"{code}\\"'.encode())
    document = gatherer_new.parse(page, "new.html")
    assert document.lang == "zht" and document.cards[0].lang == "zht"
    assert not [issue for issue in document.issues if issue.kind == "unknown-language"]


def test_a_utf8_page_with_a_few_bad_bytes_is_repaired_byte_by_byte_not_read_as_windows_1252() -> None:
    data = (OLD / "birdsofparadise_de.html").read_bytes()
    whole = gatherer_old.parse(data, "bop.html")
    cut = data.index(b"</head>")
    damaged = gatherer_old.parse(data[:cut] + b"\x93" + data[cut:], "bop.html")
    # Read whole as Windows-1252, "Paradiesvögel" was "ParadiesvÃ¶gel" and nothing said so.
    assert [card.printed_name for card in damaged.cards] == [card.printed_name for card in whole.cards] == ["Paradiesvögel"]
    assert [r.text for r in damaged.rulings] == [r.text for r in whole.rulings]
    [issue] = damaged.issues
    assert issue.kind == "invalid-utf8" and issue.detail.startswith("bop.html: 1 bytes are not valid UTF-8 (lines ")


def test_a_page_encoded_as_utf8_twice_is_read_as_meant_and_said_so() -> None:
    data = (OLD / "birdsofparadise_de.html").read_bytes()
    whole = gatherer_old.parse(data, "bop.html")
    damaged = gatherer_old.parse(data.decode("latin-1").encode("utf-8"), "bop.html")
    assert [card.printed_name for card in damaged.cards] == ["Paradiesvögel"]
    assert [r.text for r in damaged.rulings] == [r.text for r in whole.rulings]
    [issue] = damaged.issues
    assert issue.kind == "double-encoded" and "characters were encoded as UTF-8 twice" in issue.detail


def test_a_ruling_row_whose_date_cell_changed_markup_is_named_not_left_out_quietly() -> None:
    data = (OLD / "crackleburr.html").read_bytes()
    assert len(gatherer_old.parse(data, "c.html").rulings) == 4
    document = gatherer_old.parse(data.replace(b"ctl01_rulingDate", b"ctl01_rulingDay"), "c.html")
    assert len(document.rulings) == 3
    [issue] = document.issues
    assert issue.kind == "layout-changed"
    assert issue.detail.startswith("c.html: face 1: 4 ruling text cells but 3 date cells: 1 rulings whose row was not recognised")


@pytest.mark.parametrize("row, lost", [
    ("textRow", "printed_text"), ("typeRow", "printed_type_line"), ("numberRow", "collector_number"), ("ptRow", "power"),
])
def test_a_field_row_renamed_is_named_not_left_out_quietly(row: str, lost: str) -> None:
    """A renamed row took its field with it, and a page need not have every row (a vanilla card
    has no text row): a row outside the ones the real pages show is named, left unread."""
    data = (OLD / "birdsofparadise_ja.html").read_bytes()
    whole = gatherer_old.parse(data, "b.html")
    assert whole.issues == [] and getattr(whole.cards[0], lost)
    renamed = gatherer_old.parse(data.replace(f"_{row}".encode(), f"_{row}2".encode()), "b.html")
    assert getattr(renamed.cards[0], lost) is None
    assert [(issue.kind, issue.detail) for issue in renamed.issues] == [(
        "layout-changed",
        f"b.html: face 1 shows a field this page layout never had ({row}2), left unread: the Gatherer markup may have changed",
    )]


def test_a_face_without_numbers_leaves_its_place_empty_not_the_others_lost() -> None:
    # As a creature that transforms into a non-creature prints: the back face's row taken out of
    # the real page. Left out, the front face's 3/2 was lost; alone, "3" would be either face's.
    data = (OLD / "werewolfransacker.html").read_bytes()
    row = data.index(b'<div id="ctl00_ctl00_ctl00_MainContent_SubContent_SubContent_ctl06_ptRow"')
    end = data.index(b"5 / 4</div>\n                </div>", row) + len(b"5 / 4</div>\n                </div>")
    card = gatherer_old.parse(data[:row] + data[end:], "w.html").cards[0]
    assert (card.power, card.toughness) == ("3 // ", "2 // ")


def test_numbers_the_site_printed_otherwise_are_read_not_alarmed() -> None:
    # Un-sets' halves ("{1/2} / {1/2}"), and a Vanguard's "Hand/Life:" row, which holds no card's
    # numbers: both read as a changed layout (a code review).
    data = (OLD / "vaultskirge.html").read_bytes()
    halves = gatherer_old.parse(data.replace(b"1 / 1</div>", b"{1/2} / {1/2}</div>"), "v.html")
    assert (halves.cards[0].power, halves.cards[0].toughness, halves.issues) == ("{1/2}", "{1/2}", [])
    vanguard = gatherer_old.parse(
        data.replace(b"P/T:</div>", b"Hand/Life:</div>").replace(b"1 / 1</div>", b"Hand Modifier: +1 , Life Modifier: -3</div>"), "v.html")
    assert (vanguard.cards[0].power, vanguard.issues) == (None, [])


def test_a_power_toughness_row_read_otherwise_is_named_not_left_out_quietly() -> None:
    data = (OLD / "vaultskirge.html").read_bytes()
    relabelled = gatherer_old.parse(data.replace(b"P/T:</div>", b"Stats:</div>"), "v.html")
    assert (relabelled.cards[0].power, relabelled.cards[0].toughness) == (None, None)
    assert [(issue.kind, issue.detail) for issue in relabelled.issues] == [(
        "layout-changed",
        "v.html: face 1: the power/toughness row reads 'Stats:' '1 / 1', left unread: the Gatherer markup may have changed",
    )]


def test_every_real_page_shows_known_rows_only() -> None:
    for page in sorted(OLD.glob("*.html")):
        assert [issue for issue in gatherer_old.parse(page.read_bytes(), page.name).issues if issue.kind == "layout-changed"] == []
