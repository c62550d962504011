"""The Korean Comprehensive Rules of youbeebee.net (community translation, CR 2021-02-15).

The sources are Jekyll posts (``_posts/cr/2021-03-05-{index,100..900}.md``): front matter, then
Kramdown mixed with HTML::

    ### 100. 일반
    <a name="702.78"></a>
    <p class="paragraph" markdown="1">**702.78.** 집요 Persist</p>
    <p class="clause" markdown="1">**702.78a** 집요는 격발 능력입니다. …</p>
    <p class="example" markdown="1"> **Example:** …</p>

The live site serves the same ``<p class=…>`` paragraphs inside an HTML page, so nothing here
depends on the front matter. Keyword titles are bilingual ("집요 Persist"): the Korean part is
the rule's ``title``, the English part goes to ``extra["english_titles"][number]``. The index
post carries the date line ("*이 규칙은 2021년 2월 15일부터 시행됩니다.*") and the bilingual
contents list, which gives parts and sections.
"""
from __future__ import annotations

import html
import re
from dataclasses import replace

from kb.normalise.dates import parse_date
from kb.normalise.decode import decode_text
from kb.normalise.refs import SUBRULE_LETTERS
from kb.parse.cr.gaps import numbering_gaps
from kb.parse.cr.txt import RECOVERED_NUMBER
from kb.parse.cr.zh import append_paragraph, finish_rules, make_rule, nfc, rule_kind
from kb.parse.html_whole import OPENING_HTML, TAIL_CHARS, check_closed_html
from kb.records import CRDocument, ParseError, Rule

FORMAT_NAME = "cr-ko-md"
DESCRIPTION = "Korean Comprehensive Rules, youbeebee.net Markdown/HTML pages (community)"

FRONT_MATTER = re.compile(r"\A---\n(?P<body>.*?)\n---\n", re.DOTALL)
DATE_LINE = re.compile(r"이 규칙은\s*(?P<raw>\d{4}\s*년\s*\d{1,2}\s*월\s*\d{1,2}\s*일)\s*부터 시행")
# Every paragraph class of the real posts: rules, subrules, examples, the contents list, the credits.
KNOWN_CLASSES = ("paragraph", "clause", "example", "contentsList", "legal")
# One pattern for every block we read, so they come out in document order.
BLOCK = re.compile(
    r"<p\s+class=\"(?P<cls>paragraph|clause|example)\"[^>]*>(?P<para>.*?)</p>"
    # A class the source never used (``KNOWN_CLASSES``): a renamed "clause" took every subrule with it.
    rf"|<p\s+class=\"(?P<other_cls>(?!(?:{'|'.join(KNOWN_CLASSES)})\")[^\"]*)\"[^>]*>(?P<other_para>.*?)</p>"
    r"|^#{2,4}[ \t]*(?P<md_heading>[^\n]+?)[ \t]*$"
    r"|<h[1-4][^>]*>(?P<html_heading>.*?)</h[1-4]>"
    r"|<p>(?P<bare_p>.*?)</p>"
    r"|^(?P<bare_line>[1-9]\d{2}\.\d+[a-z]?\.?[ \t][^\n]*)$"
    r"|^\[(?P<toc>[1-9]\d{0,2}\.\s[^\]]+)\]\([^)]*\)",
    re.DOTALL | re.MULTILINE,
)
NUMBERED = re.compile(r"^\s*(?P<number>[1-9]\d{2}\.\d+[a-z]|[1-9]\d{2}\.\d+|[1-9]\d{2}|[1-9])\.?(?:\s+|$)(?P<text>.*)$", re.DOTALL)
BOLD_NUMBER = re.compile(r"^\s*\*\*\s*(?P<number>[^*]+?)\s*\*\*\s*")
EXAMPLE_LABEL = re.compile(r"^\s*\*\*\s*(?P<label>Example|예시|예)\s*:?\s*\*\*\s*:?\s*")
MD_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)]*)\)")
HTML_IMAGE = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
MD_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\([^)]*\)")
# Kramdown's reference links: "[Magic.Wizards.com/Rules][Rules]" in the index's intro, its target
# defined on a line of its own ("[Rules]: http://Magic.Wizards.com/Rules"). Only a defined name
# makes one: the rules print placeholders side by side ("[abilities][P/T]" in the English 2026).
REFERENCE_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\[(?P<name>[^\]]*)\]")
LINK_DEFINITION = re.compile(r"^ {0,3}\[(?P<name>[^\]]+)\]:[ \t]*\S", re.MULTILINE)
KRAMDOWN_ATTRIBUTES = re.compile(r"\{:[^}]*\}")
TAG = re.compile(r"<[^>]+>")
STRONG_TAG = re.compile(r"</?(?:strong|b)\s*>", re.IGNORECASE)
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
# The English name after the Korean one: "집요 Persist", "두 배로 하다Double", "절멸자/절멸 Annihilator",
# "팀 vs 팀 Team vs. Team Variant" (its "." once cut the name to "Team Variant").
TRAILING_ENGLISH = re.compile(r"(?P<english>[A-Za-z][A-Za-z0-9 ,.!'’\-/&()]*)$")
SYMBOL_FILE = re.compile(r"/(?P<code>[A-Za-z0-9]+)\.(?:gif|png|svg|jpe?g)$", re.IGNORECASE)
# "2B", "BP", "GW", "GUP": hybrid and Phyrexian symbols are printed without their slashes.
SPLIT_SYMBOL = re.compile(r"^(?:[2WUBRGC][WUBRGCP]|[WUBRG]{2}P)$")


def sniff(data: bytes, name: str = "") -> bool:
    head = data[:65536]
    # Paragraphs open their own lines, in the posts and in the pages the site serves; a
    # document that only quotes the markup (a README) does not match.
    return bool(
        re.search(
            rb'(?m)^[ \t]*<p\s+class="(?:paragraph|clause)"[^>]*>\s*(?:\*\*|<strong>|<b>)\s*[1-9]\d{2}\.\d+', head
        )
        or (DATE_LINE.search(head.decode("utf-8", errors="ignore")) and b'class="contentsList"' in head)
    )


def parse(data: bytes, name: str = "<bytes>", lang: str | None = None) -> CRDocument:
    text, encoding = decode_text(data, name)
    front_matter, body = _split_front_matter(text)
    warnings: list[str] = []
    body = _translator_notes_inline(body, name, warnings)
    rules: list[Rule] = []
    english_titles: dict[str, str] = {}
    part = _part_from_front_matter(front_matter)
    if part is not None:
        rules.append(part[0])
        if part[1]:
            english_titles[part[0].number] = part[1]
    seen = {rule.number for rule in rules}
    printed = set(PRINTED_NUMBER.findall(body))
    unknown_classes: dict[str, list[int]] = {}
    for match in BLOCK.finditer(body):
        line_number = body.count("\n", 0, match.start()) + 1 + _front_matter_lines(front_matter)
        if match["other_cls"] is not None:
            unknown_classes.setdefault(match["other_cls"], []).append(line_number)
        _read_block(match, rules, english_titles, (seen, printed), warnings, name, line_number)
    for cls, lines in unknown_classes.items():
        warnings.append(
            f"{name}: line {lines[0]}: {len(lines)} paragraph{'s' if len(lines) > 1 else ''} of class {cls!r},"
            " which the source never used (the markup may have changed): read by what they hold"
            " (a rule number, an example's label)"
        )
    raw_date, effective_date = _date(body)
    finish_rules(rules)
    if not rules:
        raise ParseError(f"{name}: no numbered rules, sections or contents entries found")
    _check_whole(body, rules, raw_date, name, _front_matter_lines(front_matter))
    warnings.extend(numbering_gaps(rules, name))
    return CRDocument(
        lang=lang or "ko",
        effective_date=effective_date,
        raw_date=raw_date,
        title=_document_title(body),
        intro=_intro(body) if raw_date else "",
        rules=rules,
        encoding=encoding,
        method="community",
        warnings=warnings,
        extra={"english_titles": english_titles},
    )


# Any paragraph, of rules or of the contents list: the last one opened must be closed.
PARAGRAPH_OPENING = re.compile(r"<p[\s>]")
LAST_PART = "9"


def _check_whole(body: str, rules: list[Rule], raw_date: str | None, name: str, front_lines: int) -> None:
    """Refuse a post cut short, as the English parser refuses a file without its closing parts.

    A page of the live site ends with its closing ``</html>``. In a post, a cut inside a paragraph
    leaves it open (each rule is one ``<p>``, the contents list one per part; HTML may leave a
    ``<p>`` open, so pages are not judged by this). The index (the one with the date line) lists
    every part, Casual Variants (9) last. A chapter post cut exactly between two paragraphs is not
    seen here: the source prints nothing after its last rule (kb.link.cr_translations looks for
    the sections it lacks)."""
    if OPENING_HTML.search(body, 0, TAIL_CHARS):
        check_closed_html(body, name)
    else:
        _check_last_paragraph_closed(body, name, front_lines)
    if raw_date is not None and not any(rule.number == LAST_PART for rule in rules):
        raise ParseError(f"{name}: truncated: the contents list ends before part {LAST_PART} (Casual Variants)")


def _check_last_paragraph_closed(body: str, name: str, front_lines: int) -> None:
    opened = [match.start() for match in PARAGRAPH_OPENING.finditer(body)]
    if opened and body.find("</p>", opened[-1]) == -1:
        line = body.count("\n", 0, opened[-1]) + 1 + front_lines
        raise ParseError(f"{name}: line {line}: truncated: the paragraph opened here never closes")


def merge_documents(documents: list[CRDocument]) -> CRDocument:
    """One CRDocument from the index post and the chapter posts of the same translation.

    The date, title and intro come from the document that has them (the index); rules are kept
    in number order, a rule printed in a chapter winning over a contents-list entry.
    """
    if not documents:
        raise ValueError("no documents to merge")
    dated = next((doc for doc in documents if doc.effective_date), documents[0])
    by_number: dict[str, Rule] = {}
    english_titles: dict[str, str] = {}
    for doc in sorted(documents, key=lambda d: d.effective_date is None):
        english_titles.update(doc.extra.get("english_titles", {}))
        for rule in doc.rules:
            if rule.number not in by_number or rule.text:
                by_number[rule.number] = rule
    rules = sorted(by_number.values(), key=lambda rule: number_sort_key(rule.number))
    return replace(
        dated,
        rules=rules,
        warnings=[warning for doc in documents for warning in doc.warnings],
        extra={**dated.extra, "english_titles": english_titles},
    )


def number_sort_key(number: str) -> tuple:
    """702.9 before 702.10; a part (7) before its sections (700)."""
    kind = rule_kind(number)
    if kind == "part":
        return (int(number) * 100 - 1, -1, "")
    section, _, rest = number.partition(".")
    digits = re.match(r"\d*", rest).group()  # type: ignore[union-attr]  # \d* always matches
    return (int(section), int(digits) if digits else -1, rest[len(digits):])


def split_bilingual_title(title: str) -> tuple[str, str | None]:
    """("집요", "Persist") for "집요 Persist"; an all-English title is its own English name."""
    title = title.strip()
    if not HANGUL.search(title):
        return title, (title if re.search(r"[A-Za-z]", title) else None)
    last_hangul = max(match.end() for match in HANGUL.finditer(title))
    match = TRAILING_ENGLISH.search(title[last_hangul:])
    if not match or not match["english"].strip():
        return title, None
    english = match["english"].strip()
    korean = title[: last_hangul + match.start()].strip()
    return korean, english


# Kramdown footnotes: "… Abilities. [^2]" in a paragraph, "[^2]:  주-흔히 '스택 쌓고'라고 하지요" below it.
FOOTNOTE_MARKER = re.compile(r"[ \t]?\[\^(?P<label>[^\]\s]+)\](?!:)")
FOOTNOTE = re.compile(r"^\[\^(?P<label>[^\]\s]+)\]:[ \t]*(?P<note>[^\n]*?)[ \t]*$", re.MULTILINE)


def _translator_notes_inline(body: str, name: str, warnings: list[str]) -> str:
    """The translator's footnotes put in brackets where their markers stand, as the Chinese
    translators write theirs ("（译注：…）"): the note stays beside what it explains, and no
    "[^2]" is left in a rule's text. A marker with no note is dropped, with a warning."""
    notes = {match["label"]: match["note"] for match in FOOTNOTE.finditer(body)}
    unexplained: list[str] = []

    def inline(marker: re.Match) -> str:
        note = notes.get(marker["label"])
        if not note:
            unexplained.append(marker["label"])
            return ""
        return f" ({note})"

    body = FOOTNOTE_MARKER.sub(inline, body)
    if unexplained:
        warnings.append(f"{name}: footnote markers without a note: {', '.join(f'[^{label}]' for label in unexplained)}")
    return body


def _split_front_matter(text: str) -> tuple[str, str]:
    match = FRONT_MATTER.match(text)
    if not match:
        return "", text
    return match["body"], text[match.end():]


def _front_matter_lines(front_matter: str) -> int:
    return front_matter.count("\n") + 3 if front_matter else 0


def _part_from_front_matter(front_matter: str) -> tuple[Rule, str | None] | None:
    """The chapter post's part ("7. 추가 규칙 Additional Rules" in its description)."""
    fields = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition(":") for line in front_matter.split("\n"))
        if value
    )
    heading = fields.get("description") or fields.get("title") or ""
    match = re.match(r"^([1-9])\.\s+(.+)$", heading)
    if not match:
        return None
    korean, english = split_bilingual_title(match[2])
    rule = make_rule(match[1], korean)
    return rule, english


def _read_block(
    match: re.Match[str],
    rules: list[Rule],
    english_titles: dict[str, str],
    numbers: tuple[set[str], set[str]],
    warnings: list[str],
    name: str,
    line_number: int,
) -> None:
    """``numbers``: the numbers read so far, and every number the file prints in bold."""
    seen = numbers[0]
    raw = match["para"] or match["other_para"] or match["bare_p"] or match["bare_line"]
    if raw is not None:
        raw = STRONG_TAG.sub("**", raw)  # the live site's HTML: <strong>100.1.</strong>
    if match["cls"] == "example" or (match["other_cls"] is not None and EXAMPLE_LABEL.match(raw or "")):
        if not rules:
            raise ParseError(f"{name}: line {line_number}: example before any rule")
        rules[-1].examples.append(_example_text(raw or ""))
        return
    heading = match["md_heading"] or match["html_heading"] or match["toc"]
    if raw is not None:
        _read_paragraph(raw, match["bare_line"] is not None or match["bare_p"] is not None,
                        rules, english_titles, numbers, warnings, name, line_number)
    elif heading is not None:
        _read_heading(heading, rules, english_titles, seen)


def _read_paragraph(
    raw: str,
    unmarked: bool,
    rules: list[Rule],
    english_titles: dict[str, str],
    numbers: tuple[set[str], set[str]],
    warnings: list[str],
    name: str,
    line_number: int,
) -> None:
    seen, printed = numbers
    bold = BOLD_NUMBER.match(raw)
    if bold:
        number_text, rest = bold["number"], raw[bold.end():]
        match = NUMBERED.match(number_text)
        if not match or match["text"].strip():
            raise ParseError(f"{name}: line {line_number}: {bold['number']!r} is not a rule number")
        number = match["number"]
    else:
        match = NUMBERED.match(clean_inline(raw))
        if not match or "." not in match["number"]:
            return  # an unnumbered paragraph of prose (introduction, notes)
        number, rest = match["number"], match["text"]
    content = clean_inline(rest)
    recovered = False  # a number read from its place, not as printed
    twin = _next_letter(number) if number in seen and not unmarked else None
    if twin is not None and twin not in seen and twin not in printed:
        # The 2021 chapter post prints 101.4d and 120.4c twice, each a paragraph of its own with
        # its own anchor: the second is the English 101.4e and 120.4d (as in the English files,
        # a number printed twice whose next letter the file never prints).
        warnings.append(
            f"{name}: line {line_number}: {number} printed twice: the second read as {twin}, a letter the file never prints"
        )
        number, recovered = twin, True
    elif number in seen:
        # The 2021 source prints "702.85 같은 생물에…" without markup: the lost subrule 702.85b.
        warnings.append(
            f"{name}: line {line_number}: unmarked paragraph numbered {number} repeats that rule;"
            " kept as its text"
        )
        target = next(rule for rule in reversed(rules) if rule.number == number or rule.parent == number)
        append_paragraph(target, content)
        return
    if unmarked:
        warnings.append(f"{name}: line {line_number}: rule {number} printed without its paragraph markup")
    seen.add(number)
    rule = make_rule(number, content)
    if recovered:
        rule.number_confidence = RECOVERED_NUMBER  # as the English files' twins: its page says so
    if rule.title:
        rule.title, english = split_bilingual_title(rule.title)
        if english:
            english_titles[number] = english
    rules.append(rule)


# A rule number printed in bold, as a paragraph opens: "**101.4d**", "<strong>100.1.</strong>".
PRINTED_NUMBER = re.compile(r"(?:\*\*|<strong>|<b>)\s*([1-9]\d{2}\.\d+[a-z]?)")


def _next_letter(number: str) -> str | None:
    """The subrule after ``number`` (101.4d → 101.4e; the CR skips l and o); None for a rule."""
    letter = number[-1]
    if not letter.isalpha() or letter not in SUBRULE_LETTERS or letter == SUBRULE_LETTERS[-1]:
        return None
    return number[:-1] + SUBRULE_LETTERS[SUBRULE_LETTERS.index(letter) + 1]


def _read_heading(
    heading: str, rules: list[Rule], english_titles: dict[str, str], seen: set[str]
) -> None:
    match = NUMBERED.match(clean_inline(heading))
    if not match or rule_kind(match["number"]) not in ("part", "section"):
        return  # document headings ("매직: 더 개더링 종합 규칙서", "목차")
    number = match["number"]
    if number in seen:
        return
    seen.add(number)
    korean, english = split_bilingual_title(match["text"])
    rules.append(make_rule(number, korean))
    if english:
        english_titles[number] = english


def clean_inline(fragment: str) -> str:
    """Markdown/HTML inline markup to plain NFC text; symbol images become {T}, {2/B}, …"""
    text = MD_IMAGE.sub(lambda m: _symbol(m["alt"], m["src"]), fragment)
    text = HTML_IMAGE.sub(_html_symbol, text)
    text = MD_LINK.sub(lambda m: m["text"], text)
    text = KRAMDOWN_ATTRIBUTES.sub("", text)
    text = TAG.sub("", text)
    text = text.replace("**", "")
    text = html.unescape(text)
    return nfc(re.sub(r"[ \t]+", " ", text).strip())


def _html_symbol(match: re.Match[str]) -> str:
    tag = match.group(0)
    alt = re.search(r'alt="([^"]*)"', tag)
    src = re.search(r'src="([^"]*)"', tag)
    return _symbol(alt[1] if alt else "", src[1] if src else "")


def _symbol(alt: str, src: str) -> str:
    code = alt.strip()
    if code.startswith("{") and code.endswith("}"):
        code = code[1:-1]
    elif (file_match := SYMBOL_FILE.search(src)) is not None:
        code = file_match["code"]
    if not code:
        return alt
    code = code.upper()
    if "/" not in code and SPLIT_SYMBOL.match(code):
        code = "/".join(code)
    return "{" + code + "}"


def _example_text(fragment: str) -> str:
    label = EXAMPLE_LABEL.match(fragment)
    if label:
        return "Example: " + clean_inline(fragment[label.end():])
    return clean_inline(fragment)


def _date(body: str) -> tuple[str | None, str | None]:
    match = DATE_LINE.search(body)
    if not match:
        return None, None
    raw = re.sub(r"\s+", " ", match["raw"])
    return raw, parse_date(raw, "ko")


def _document_title(body: str) -> str | None:
    match = re.search(r"^#{1,4}\s*\*{0,2}(?P<title>[^*\n]*종합 규칙[^*\n]*)", body, re.MULTILINE)
    return match["title"].strip() if match else None


def _intro(body: str) -> str:
    """The introduction paragraphs of the index post (between 소개 and 목차)."""
    match = re.search(r"소개\**\s*\n(?P<intro>.*?)\n\s*\*{3}", body, re.DOTALL)
    if not match:
        return ""
    defined = {found["name"].casefold() for found in LINK_DEFINITION.finditer(body)}
    lines = [clean_inline(_without_reference_links(line, defined))
             for line in match["intro"].split("\n") if not LINK_DEFINITION.match(line)]
    return "\n".join(line for line in lines if line)


def _without_reference_links(text: str, defined: set[str]) -> str:
    """Each reference link to a defined name as its text ("[text][]" names itself)."""
    def text_of(link: re.Match[str]) -> str:
        name = (link["name"] or link["text"]).casefold()
        return link["text"] if name in defined else link[0]
    return REFERENCE_LINK.sub(text_of, text)
