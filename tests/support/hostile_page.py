"""A hostile article page for the explain page's safety tests: everything in it that could run,
apply or fetch (scripts, event handlers, javascript: URLs, styles, external resources) would
leave a trace (a window global, a hidden body, a request to `origin`) if it ever did."""

from __future__ import annotations

#: The window globals the page's scripts and handlers would set.
GLOBALS = (
    "__hostile_script",
    "__hostile_onload",
    "__hostile_onerror",
    "__hostile_js",
    "__hostile_svg",
    "__hostile_src",
    "__hostile_text",
)

PARAGRAPHS = (
    "The harbour authority said on Tuesday that the old ferry pier will close for repairs in May, "
    "after divers found that two of its wooden piles had rotted through below the waterline.",
    "Ferries to the island will leave from the temporary landing at the fish market while the "
    "work lasts, which the authority expects to take about eleven weeks if the weather holds.",
    "Residents asked for a later last crossing during the closure, since the walk from the market "
    "landing to the bus station takes twenty minutes longer than from the pier.",
    "A click here <script>window.__hostile_text = 1</script> is only text, and so is "
    "javascript:alert(1) written out in a sentence about what the page must never run.",
)


def hostile_page(origin: str) -> str:
    """The page; its external resources point at `origin` (a loopback server that counts requests)."""
    body = "".join(f"<p>{p.replace('<', '&lt;')}</p>" for p in PARAGRAPHS[:3])
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Ferry pier to close for repairs</title>
<base href="{origin}/base/">
<meta http-equiv="refresh" content="0; url=javascript:window.__hostile_js=1">
<link rel="stylesheet" href="{origin}/evil.css">
<style>body {{ display: none !important; }} * {{ color: red !important; }}</style>
<script>window.__hostile_script = 1;</script>
<script src="{origin}/evil.js"></script>
</head>
<body onload="window.__hostile_onload = 1" style="display:none">
<nav class="menu"><a href="javascript:window.__hostile_js = 1">Home</a> <a href="/news">News</a></nav>
<article class="story"><h1 onclick="window.__hostile_js = 1">Ferry pier to close for repairs</h1>
<img src="{origin}/photo.jpg" onerror="window.__hostile_onerror = 1" alt="The pier">
{body}
<p>Read the <a href="javascript:window.__hostile_js=1" onmouseover="window.__hostile_js=1">full notice</a>
<svg onload="window.__hostile_svg = 1"><circle r="4"/></svg> on the authority's site.</p>
<p>{PARAGRAPHS[3].replace("<", "&lt;")}</p>
<iframe src="javascript:parent.__hostile_src = 1"></iframe>
<object data="{origin}/evil.swf"></object>
</article>
<div class="comments"><p>First! <img src="x" onerror="window.__hostile_onerror = 1"></p></div>
<footer style="position:fixed;inset:0;background:red">Footer <form action="{origin}/steal">
<input name="q" value="x" autofocus onfocus="window.__hostile_js = 1"></form></footer>
</body></html>"""
