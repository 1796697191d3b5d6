"""What hides an element from readers, and what a reader can open again.

Hidden: the `hidden` attribute, aria-hidden, modal dialogs, popovers and tooltips, and
styles that hide (display:none, visibility:hidden, a clipped zero-height box).
Read all the same: a hidden box that a control on the page opens
(``ToggleTargets``), a tab panel, or a box whose class says a click opens it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .cues import opens_on_click

if TYPE_CHECKING:
    from lxml import etree

HIDDEN_ROLES = frozenset(("dialog", "alertdialog", "tooltip", "menu", "menubar"))
HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
# A box collapsed to no height whose content is cut off or transparent: a bar or
# panel that a script opens (a site's promo bar). Neither alone hides: opacity:0 is
# the start of many fade-in animations, height:0 of many boxes that grow.
ZERO_HEIGHT_RE = re.compile(r"(?:^|[;\s])(?:max-)?height\s*:\s*0(?:px|em|rem|%)?\s*(?:!important\s*)?(?:;|$)", re.I)
CLIPPED_RE = re.compile(r"overflow(?:-y)?\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?\s*(?:!important\s*)?(?:;|$)", re.I)


def hidden_style(style: str) -> bool:
    """A style that hides its element: display:none, visibility:hidden, or a clipped zero-height box."""
    if HIDDEN_STYLE_RE.search(style) is not None:
        return True
    return ZERO_HEIGHT_RE.search(style) is not None and CLIPPED_RE.search(style) is not None


def is_hidden(el: etree._Element, opened: ToggleTargets | tuple[()] = ()) -> bool:
    """Hidden from readers: `hidden`, aria-hidden, modal dialogs, popovers and tooltips, hiding styles.

    A box that is hidden only until a reader clicks is read: its id is in `opened`, the ids
    that controls on the page open (`aria-controls`, `data-target`), or it is a tab panel or
    has an accordion-like class. Modal dialogs, popovers and tooltips stay hidden even then.
    """
    role = el.get("role")
    modal = el.get("aria-modal")
    # A dialog declared non-modal is a panel on the page, not a pop-up over it.
    if modal == "true" or (role in HIDDEN_ROLES and not (role == "dialog" and modal == "false")):
        return True
    if el.get("popover") is not None:
        # The popover attribute: shown only over the page, on request (a menu, a tooltip,
        # an "install the app" card), and hidden until then.
        return True
    if el.get("hidden") is not None:
        # React/Next.js streaming puts server-rendered segments in <div hidden id="S:n">
        # and reveals them with a script: that text is on the page.
        hidden = not (el.get("id") or "").startswith("S:")
    elif el.get("aria-hidden") == "true":
        hidden = True
    else:
        style = el.get("style")
        hidden = bool(style and hidden_style(style))
    if not hidden:
        return False
    if opened:
        idv = el.get("id")
        if idv and idv in opened:
            return False
    # Tab panels, accordion and FAQ answers, "read more" text: hidden until a click that a
    # script handles, without aria-controls to say so, and on the page all along.
    if role == "tabpanel":
        return False
    cls = el.get("class")
    return not (cls and opens_on_click(cls))


class ToggleTargets:
    """The ids that controls on a page open (`aria-controls`, `data-target`,
    `data-bs-target`), read from the whole document on the first question: most
    pages never ask, since few hidden elements have an id."""

    __slots__ = ("_ids", "_root")

    def __init__(self, root: etree._Element | None) -> None:
        # Any: None only where __bool__ is False, and then nothing asks __contains__.
        self._root: Any = root
        self._ids: frozenset[str] | None = None

    def __bool__(self) -> bool:
        return self._root is not None

    def __contains__(self, idv: str) -> bool:
        if self._ids is None:
            ids = set()
            for value in self._root.getroottree().xpath("//@aria-controls | //@data-target | //@data-bs-target"):
                for target in value.split():
                    ids.add(target.removeprefix("#"))
            self._ids = frozenset(ids)
        return idv in self._ids
