"""Hangul syllable arithmetic shared by the PII gate, the name model and the scripted engines.

Examples
--------
>>> has_final("민지"), has_final("지훈"), has_final("AI"), has_final("")
(False, True, False, False)
>>> subject_particle("지훈"), subject_particle("민지")
('이', '가')
"""

from __future__ import annotations

__all__ = ["has_final", "subject_particle"]

_FIRST, _LAST = 0xAC00, 0xD7A3  # 가 … 힣


def has_final(text: str) -> bool:
    """True when the last character of ``text`` is a Hangul syllable with a final consonant (받침)."""
    if not text:
        return False
    code = ord(text[-1])
    return _FIRST <= code <= _LAST and (code - _FIRST) % 28 != 0


def subject_particle(word: str) -> str:
    """"이" after a final consonant or a non-Hangul ending, "가" after a vowel."""
    last = word[-1:] if word else ""
    if last and _FIRST <= ord(last) <= _LAST:
        return "이" if has_final(last) else "가"
    return "이"
