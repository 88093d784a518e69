"""Prompt text as AGL401 compares it: normalised, tokenised, shingled.

Placeholders of every template syntax (`{name}`, `{{name}}`, `${name}`, `%(name)s`,
`%s`, an f-string's replacement fields) become `{}`, so `{docs}` and `{docs_text}` are
the same text; whitespace runs become one space. Tokens are lower-cased runs of
letters, digits and `_`, and single other characters (a CJK character is one token).
A *shingle* is a 32-bit hash (CRC-32, stable across runs and interpreters) of five
consecutive tokens, placeholders left out; two texts that share most of their shingles
are copies of each other, whatever was added around them.
"""

from __future__ import annotations

import re
import zlib
from typing import Iterator

from agentlint.lazy_regex import lazy_compile

PLACEHOLDER = lazy_compile(r"\{\{\s*[\w.]*\s*\}\}|\{[^{}\s]*\}|\$\{\w+\}|%\(\w+\)[sdrif]|%[sdr]")
_TOKEN = lazy_compile(r"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]")
_WORD = lazy_compile(r"[A-Za-z][A-Za-z']*")
SHINGLE = 5
MAX_TEXT = 8000
"""Characters of normalised text kept per prompt (the rest is not compared)."""

_INSTRUCTION = lazy_compile(
    r"\b(?:you|your|please|respond|answer|return|provide|output|must|should|do not|don't|never|always|"
    r"analy[sz]e|summari[sz]e|generate|create|classify|extract|identify|given|based on|write|evaluate|assess)\b",
    re.IGNORECASE,
)
_NOT_PROSE = lazy_compile(
    r"(?i:<(?:div|span|style|html|body|head|script|table|p|br|h\d)\b|Mozilla/5\.0|^https?://\S+$)|"
    r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT INTO\b|\bCREATE (?:TABLE|VIEW|INDEX)\b|\bUPDATE \w+ SET\b|\bDELETE FROM\b"
)
"""Markup, SQL (its keywords in capitals), user agents, a bare URL."""


def normalise(text: str) -> str:
    return " ".join(PLACEHOLDER.sub(" {} ", text).split())[:MAX_TEXT]


def tokens(normalised: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(normalised)]


def content_tokens(toks: list[str]) -> list[str]:
    return [t for t in toks if t != "{" and t != "}"]


def shingles(toks: list[str]) -> tuple[int, ...]:
    """The sorted distinct shingles of a token list (placeholders left out)."""
    words = content_tokens(toks)
    if len(words) < SHINGLE:
        return (zlib.crc32(" ".join(words).encode("utf-8", "surrogatepass")),) if words else ()
    crc = zlib.crc32
    return tuple(sorted({
        crc(" ".join(words[i : i + SHINGLE]).encode("utf-8", "surrogatepass")) for i in range(len(words) - SHINGLE + 1)
    }))


_DROP_ASCII = dict.fromkeys(range(128))
"""A `str.translate` table that leaves only a text's characters outside ASCII."""


def _cjk_characters(text: str) -> Iterator[str]:
    """The Chinese, Japanese and Korean characters of ``text`` (kana, the unified
    ideographs and their extension A, Hangul syllables). Tested by code point: a
    regular expression of these ranges took 3.5 ms to compile, more than a project's
    prompts take to test, and most texts are ASCII or hold a few other characters."""
    return (c for c in text.translate(_DROP_ASCII)
            if "\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character (the first one
    found answers)."""
    return not text.isascii() and next(_cjk_characters(text), None) is not None


def word_count(normalised: str) -> float:
    """Words outside placeholders; a CJK character counts as half a word."""
    literal = normalised.replace("{}", " ")
    cjk = 0 if literal.isascii() else sum(1 for _ in _cjk_characters(literal))
    return len(_WORD.findall(literal)) + cjk / 2


def literal_length(normalised: str) -> int:
    return len(" ".join(normalised.replace("{}", " ").split()))


def prose_ratio(toks: list[str]) -> float:
    """Share of word tokens among the non-placeholder tokens (code, markup and data
    have many punctuation tokens)."""
    words = content_tokens(toks)
    if not words:
        return 0.0
    return sum(1 for t in words if t[0].isalnum() or has_cjk(t[0])) / len(words)


def reads_as_instructions(normalised: str) -> bool:
    """Text that tells a model what to do, and is not markup, SQL or a URL."""
    return bool(_INSTRUCTION.search(normalised)) and not _NOT_PROSE.search(normalised)


def not_prose(normalised: str) -> bool:
    return bool(_NOT_PROSE.search(normalised))
