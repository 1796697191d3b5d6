"""The page's language as an ISO 639-1 code: what the page declares, unless its text says otherwise.

With py3langid installed (the ``[metadata]`` extra; it ships its model), the main text is
identified when the page declares no language or declares one its text contradicts.
Without it, the declared language alone.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

from ..document.head import document_lang

if TYPE_CHECKING:
    from ..document.page import Page

#: Characters of main text identified (enough for a confident answer, bounded cost).
SAMPLE_CHARS = 300
#: Less main text than this is too little to contradict what the page declares.
MIN_CONTRADICT_CHARS = 200
#: ...or to name a language the page does not declare.
MIN_DETECT_CHARS = 40
#: py3langid's normalised probability at which its answer overrides a declaration.
OVERRIDE_PROBABILITY = 0.95
MIN_PROBABILITY = 0.5

_CODE_RE = re.compile(r"^([a-z]{2,3})(?:[-_][a-z0-9]+)*$")
# ISO 639-2/3 codes that pages declare, with their 639-1 form.
_THREE_TO_TWO = {
    "eng": "en",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "spa": "es",
    "ita": "it",
    "por": "pt",
    "nld": "nl",
    "dut": "nl",
    "rus": "ru",
    "jpn": "ja",
    "zho": "zh",
    "chi": "zh",
    "hun": "hu",
    "pol": "pl",
    "swe": "sv",
    "tur": "tr",
}


def language_code(value: object) -> str | None:
    """ "en-US", "en_GB", "EN" -> "en"; None for what is no language code ("x-default", "")."""
    if not isinstance(value, str):
        return None
    match = _CODE_RE.match(value.strip().lower())
    if not match:
        return None
    code = match.group(1)
    if len(code) == 3:
        return _THREE_TO_TWO.get(code)
    return code


def page_language(page: Page, text: str, declared_meta: str | None) -> str | None:
    """<html lang>, else a declared <meta>/JSON-LD language, checked against the main text."""
    declared = language_code(document_lang(page.root) if page.root is not None else page.lang) or language_code(
        declared_meta
    )
    if len(text) < (MIN_DETECT_CHARS if declared is None else MIN_CONTRADICT_CHARS):
        return declared  # too short to identify, or to contradict the declared language
    if (identifier := _get_identifier()) is None:
        return declared
    found: str  # py3langid is untyped: (language code, probability)
    probability: float
    try:
        found, probability = identifier.classify(text[:SAMPLE_CHARS])
    except Exception:  # noqa: BLE001 - a third-party model must not cost the page
        return declared
    if declared is None:
        return found if probability >= MIN_PROBABILITY else None
    if found != declared and len(text) >= MIN_CONTRADICT_CHARS and probability >= OVERRIDE_PROBABILITY:
        return found
    return declared


_lock = threading.Lock()
_identifier: list[Any] = []  # [the py3langid identifier (untyped), or None without it], once loaded


def _get_identifier() -> Any:
    """py3langid's identifier, loaded on first use (its model takes a fraction of a second)."""
    if not _identifier:
        with _lock:
            if not _identifier:
                _identifier.append(_load_identifier())
    return _identifier[0]


def _load_identifier() -> Any:
    try:  # the [metadata] extra
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
