"""Offline language detection for card-ruling texts and page chrome, as Scryfall language codes.

CJK and Cyrillic are decided by script (Hangul -> ko, kana -> ja, Han -> zhs/zht by which
characters only one of the two scripts uses, Cyrillic -> ru); Latin-script text goes to
py3langid restricted to our six Latin languages, with a vote from MTG game vocabulary so that
short texts ("Kreatur", "Convoke") are not left to character n-grams alone.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

LATIN_LANGS = ("en", "es", "fr", "de", "it", "pt")
SCRYFALL_LANGS = ("en", "es", "fr", "de", "it", "pt", "ja", "ko", "ru", "zhs", "zht")

# Characters that exist in only one of the two Chinese scripts (pairs simplified/traditional),
# chosen among the words rulings and card text use most.
_SIMPLIFIED_TRADITIONAL_PAIRS = (
    "这這 个個 们們 时時 对對 会會 为為 发發 与與 动動 战戰 场場 张張 横橫 蓝藍 绿綠 红紅 进進 获獲"
    " 伤傷 异異 术術 费費 结結 应應 则則 过過 还還 从從 该該 选選 择擇 数數 点點 类類 无無 给給 让讓"
    " 将將 开開 关關 后後 么麼 说說 样樣 处處 坟墳 质質 标標 记記 执執 实實 体體 线線 图圖 单單 复復"
    " 双雙 护護 启啟 属屬 击擊 阶階 续續 色 组組 权權 弃棄 衍 物 灭滅 牺犧 颜顏 错錯 难難 谁誰 间間"
    " 离離 尽盡 亲親 门門 马馬 龙龍 鸟鳥 车車 长長 东東 见見 觉覺 读讀 写寫 输輸 赢贏 胜勝 败敗"
)
# Japanese forms (shinjitai) that neither Chinese script uses: a kana-less Japanese card name
# such as 極楽鳥 is still Japanese.
_JAPANESE_ONLY = frozenset("楽黒緑変戦済払発択対権単続円気図広応効歩悪鉄駆浄剣獣竜猟霊")
_SIMPLIFIED_ONLY = frozenset(pair[0] for pair in _SIMPLIFIED_TRADITIONAL_PAIRS.split() if len(pair) == 2)
_TRADITIONAL_ONLY = frozenset(pair[1] for pair in _SIMPLIFIED_TRADITIONAL_PAIRS.split() if len(pair) == 2)

# Frequent game words and function words of each Latin language; a short text's few words
# are better evidence than its character n-grams. Words shared by two languages are left out.
_MTG_VOCABULARY: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the you your creature creatures battlefield card cards spell spells ability abilities"
        " player players opponent graveyard library hand counter counters target tap untap"
        " turn until end of each if that this can't isn't doesn't won't it's convoke"
        " mana cost damage destroy exile draw discard sacrifice token only english".split()
    ),
    "de": frozenset(
        "der die das und nicht ein eine einen du dein deine kreatur kreaturen spielfeld karte"
        " karten zauberspruch fähigkeit spieler gegner friedhof bibliothek hand marke marken"
        " ziel tappe enttappe zug ende jede wenn diese kann auf nur englisch von mit"
        " offizielle klarstellungen".split()
    ),
    "fr": frozenset(
        "le la les des un une du vous votre vos créature créatures champ bataille carte cartes"
        " sort sorts capacité joueur joueurs adversaire cimetière bibliothèque main marqueur"
        " marqueurs cible engagez dégagez tour fin chaque si cette peut ne pas est et traduction"
        " officielles anglais générée automatiquement".split()
    ),
    "es": frozenset(
        "el la los las un una tú tu tus campo batalla carta cartas hechizo hechizos"
        " habilidad jugador jugadores oponente cementerio biblioteca mano contador contadores"
        " objetivo gira endereza turno final cada si esta puede no y inglés oficiales traducción".split()
    ),
    "it": frozenset(
        "il lo gli le un una uno tu tuo tua tuoi creatura creature campo battaglia carta carte"
        " magia magie abilità giocatore giocatori avversario cimitero grimorio mano segnalino"
        " segnalini bersaglio tappa stappa turno fine ogni se questa può non e inglese ufficiali".split()
    ),
    "pt": frozenset(
        "o os as um uma você seu sua seus campo batalha carta cartas mágica"
        " habilidade jogador jogadores oponente cemitério grimório mão marcador marcadores alvo"
        " vire desvire turno final cada se esta pode não e inglês oficiais tradução".split()
    ),
}

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
# Typographic punctuation says nothing about language either: curly quotes and apostrophes,
# dashes, the ellipsis, the bullet of modal spells, the minus of loyalty costs, ™ ® ©, no-break
# space. (Guillemets and inverted marks are left out: they point at French or Spanish.)
_TYPOGRAPHY = "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u2022\u2212\u2122\u00ae\u00a9\u00a0\u2009\u202f"
_NOT_ASCII_OR_TYPOGRAPHY = re.compile(f"[^\\x00-\\x7f{_TYPOGRAPHY}]")
# Braced symbols and rule numbers say nothing about language.
_NEUTRAL = re.compile(r"\{[^}]*\}|\d+(?:\.\d+[a-z]?)*\.?")


@lru_cache(maxsize=1)
def _latin_identifier():  # -> py3langid LanguageIdentifier (loading the model takes ~0.6 s)
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LATIN_LANGS))
    return identifier


def release_language_model() -> None:
    """Let go of the n-gram model (~70 MB resident once freed) until a text needs it again.

    A build detects languages only while it reads documents; holding the model through the
    derive that follows would add it to the build's peak memory."""
    _latin_identifier.cache_clear()


def _script_counts(text: str) -> dict[str, int]:
    return {
        "hangul": len(_HANGUL.findall(text)),
        "kana": len(_KANA.findall(text)),
        "han": len(_HAN.findall(text)),
        "cyrillic": len(_CYRILLIC.findall(text)),
        "latin": len(_LATIN.findall(text)),
    }


def chinese_variant(text: str) -> tuple[str, float]:
    """'zhs' or 'zht' for Han text, by characters only one script uses; zhs when no evidence."""
    simplified = sum(1 for char in text if char in _SIMPLIFIED_ONLY)
    traditional = sum(1 for char in text if char in _TRADITIONAL_ONLY)
    if simplified == traditional == 0:
        return "zhs", 0.5
    if traditional > simplified:
        return "zht", traditional / (simplified + traditional)
    return "zhs", simplified / (simplified + traditional)


def _vocabulary_scores(text: str) -> dict[str, float]:
    words = [word.lower() for word in _WORD.findall(text)]
    if not words:
        return {}
    hits = {lang: sum(1 for word in words if word in vocab) for lang, vocab in _MTG_VOCABULARY.items()}
    total = sum(hits.values())
    return {lang: count / total for lang, count in hits.items()} if total else {}


def _detect_latin(text: str) -> tuple[str, float]:
    ranked = dict(_latin_identifier().rank(text))
    vocabulary = _vocabulary_scores(text)
    word_count = len(_WORD.findall(text))
    # The shorter the text, the more the known game words count against the n-gram model.
    weight = 0.7 if word_count <= 3 else 0.4 if word_count <= 8 else 0.2
    if not vocabulary:
        weight = 0.0
    combined = {
        lang: (1 - weight) * float(ranked.get(lang, 0.0)) + weight * vocabulary.get(lang, 0.0)
        for lang in LATIN_LANGS
    }
    best = max(combined, key=lambda lang: combined[lang])
    return best, round(combined[best], 3)


def ascii_but_typography(text: str) -> bool:
    """True when every non-ASCII character of ``text`` is typographic punctuation: the text is
    in plain ASCII letters, so (like an ASCII text) its declared English needs no checking."""
    return text.isascii() or _NOT_ASCII_OR_TYPOGRAPHY.search(text) is None


def detect_lang(text: str) -> tuple[str, float]:
    """(Scryfall language code, confidence 0..1) of ``text``; ('und', 0.0) when nothing to go on."""
    text = unicodedata.normalize("NFKC", text or "")
    text = _NEUTRAL.sub(" ", text)
    counts = _script_counts(text)
    letters = sum(counts.values())
    if letters == 0:
        return "und", 0.0
    # Korean and Japanese text routinely embed Han characters; their own scripts decide.
    if counts["hangul"] and counts["hangul"] >= counts["kana"]:
        return "ko", round((counts["hangul"] + counts["han"]) / letters, 3)
    if counts["kana"]:
        return "ja", round((counts["kana"] + counts["han"]) / letters, 3)
    if counts["han"] and counts["han"] >= counts["latin"] / 4:
        japanese = sum(1 for char in text if char in _JAPANESE_ONLY)
        if japanese:
            return "ja", round(min(1.0, 0.5 + japanese / counts["han"]), 3)
        variant, certainty = chinese_variant(text)
        return variant, round(certainty * counts["han"] / (counts["han"] + counts["latin"]), 3)
    if counts["cyrillic"] > counts["latin"]:
        return "ru", round(counts["cyrillic"] / letters, 3)
    return _detect_latin(text)
