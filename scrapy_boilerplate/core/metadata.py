"""The page's metadata from <head> and JSON-LD: title, Open Graph, base and canonical URLs.

Read during the walk (``<head>`` and ``ld+json`` scripts are skipped subtrees
there), into the Page's metadata fields.
"""

from __future__ import annotations

import json


def read_head(head, page) -> None:
    """Title, Open Graph tags, JSON-LD, the base and the canonical URL from <head>."""
    for el in head.iter("title", "meta", "script", "base", "link"):
        tag = el.tag
        if tag == "title":
            if page.title is None and el.text:
                page.title = " ".join(el.text.split())
        elif tag == "meta":
            prop = (el.get("property") or el.get("name") or "").lower()
            content = el.get("content")
            if not content:
                continue
            if prop.startswith("og:"):
                page.og.setdefault(prop[3:], " ".join(content.split()))
            elif prop in ("description", "twitter:title", "twitter:description"):
                page.og.setdefault(prop.replace("twitter:", "tw_"), " ".join(content.split()))
        elif tag == "script":
            if (el.get("type") or "").endswith("ld+json") and el.text:
                read_jsonld(el.text, page.jsonld)
        elif tag == "base":
            if page.base_href is None and el.get("href"):
                page.base_href = el.get("href")
        elif tag == "link":
            if page.canonical_url is None and "canonical" in (el.get("rel") or "").lower().split():
                page.canonical_url = (el.get("href") or "").strip() or None


def read_jsonld(text: str, jsonld: dict) -> None:
    """Into `jsonld`: the longest articleBody, the first headline, the main @type and all types.

    Iterative and bounded (200 items, 50 per list): JSON-LD can be large and deep.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return
    stack, seen = [data], 0
    while stack and seen < 200:
        item = stack.pop()
        seen += 1
        if isinstance(item, list):
            stack.extend(item[:50])
        elif isinstance(item, dict):
            kind = item.get("@type")
            if isinstance(kind, list):
                kind = kind[0] if kind else None
            body = item.get("articleBody") or item.get("text") if kind else item.get("articleBody")
            if isinstance(body, str) and len(body) > len(jsonld.get("articleBody", "")):
                jsonld["articleBody"] = body
            if isinstance(kind, str):
                if "type" not in jsonld and kind not in ("WebSite", "Organization", "BreadcrumbList",
                                                          "WebPage", "ImageObject", "Person"):
                    jsonld["type"] = kind
                jsonld.setdefault("types", []).append(kind)
            headline = item.get("headline")
            if isinstance(headline, str) and "headline" not in jsonld:
                jsonld["headline"] = headline
            graph = item.get("@graph")
            if graph is not None:
                stack.append(graph)
            main = item.get("mainEntity")
            if isinstance(main, dict | list):
                stack.append(main)


def document_lang(root) -> str | None:
    """The `lang` of the document's root element (<html lang>), whatever part of it is walked."""
    return root.getroottree().getroot().get("lang")
