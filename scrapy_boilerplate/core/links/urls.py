"""URLs as a crawl sees them: the key a link is requested by, what a URL says by itself, its shape.

A site's pages link to the same URLs over and over (menus, tags, the posts beside each post): the
keys and kinds are cached across pages, in caches bounded by the characters they hold (a page may
hold links of any length).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from w3lib.url import safe_url_string

from ..caches import BoundedCache
from ..render.urls import safe_url

#: What a URL says by itself (url_kind).
PLAIN_URL, JUNK_URL, LISTING_URL = 0, 1, 2

# Share intents and bookmarklets of the common networks.
SHARE_URL_RE = re.compile(
    r"^https?://(?:[\w-]+\.)*(?:twitter\.com/(?:intent|share|home\?status)|x\.com/intent|"
    r"facebook\.com/(?:sharer|share|dialog)|linkedin\.com/(?:share|sharing|cws/share)|reddit\.com/submit|"
    r"pinterest\.[a-z.]+/pin/create|api\.whatsapp\.com/send|wa\.me/|t\.me/share|telegram\.me/share|"
    r"news\.ycombinator\.com/submitlink|getpocket\.com/(?:save|edit)|tumblr\.com/(?:share|widgets/share)|"
    r"vk\.com/share|plus\.google\.com/share|buffer\.com/add|flipboard\.com/bookmarklet|xing\.com/spi/shares|"
    r"digg\.com/submit|addthis\.com/bookmark|mix\.com/add|weibo\.com/share|service\.weibo\.com/share|"
    r"connect\.qq\.com|sns\.qzone\.qq\.com|line\.me/R/msg)",
    re.IGNORECASE,
)
# Path segments of pages no article crawl wants: legal, account, feeds, print, admin.
BOILERPLATE_PATH_RE = re.compile(
    r"(?:^|/)(?:wp-login\.php|wp-admin|login|log-in|signin|sign-in|signup|sign-up|register|registration|"
    r"account|my-account|profile/edit|cart|checkout|basket|logout|lost-password|impressum|imprint|"
    r"privacy|privacy-policy|datenschutz|datenschutzerklaerung|datenschutzerklärung|terms|"
    r"terms-of-use|terms-of-service|terms-and-conditions|tos|legal|legal-notice|mentions-legales|"
    r"aviso-legal|politica-de-privacidad|politica-de-privacidade|cookies|cookie-policy|disclaimer|"
    r"feed|feeds|rss|atom|print|trackback|xmlrpc\.php|cdn-cgi)(?:/|\.html?|\.php|$)",
    re.IGNORECASE,
)
# Files and feeds: not pages.
FILE_PATH_RE = re.compile(
    r"\.(?:xml|rss|atom|rdf|json|txt|csv|jpe?g|png|gif|svg|webp|avif|ico|bmp|tiff?|css|js|mjs|map|pdf|"
    r"zip|gz|tgz|bz2|xz|7z|rar|exe|dmg|apk|mp3|mp4|m4a|ogg|wav|webm|mov|avi|woff2?|ttf|otf|eot|ics|epub)$",
    re.IGNORECASE,
)
# Query parameters of replies, print and sort/filter variants, calendar days, feeds, actions.
BOILERPLATE_QUERY_RE = re.compile(
    r"(?:^|&)(?:replytocom|share|print|format=(?:print|amp|pdf|feed)|output=|action=|orderby|order|sort|"
    r"sortby|sort_by|filter|filters|view=|display=|m=\d{6,8}|ical|outlook-ical|feed=|redirect_to|"
    r"returnurl|return_to|utm_[a-z]+|fbclid|amp(?:=|&|$))",
    re.IGNORECASE,
)
# Listing pages a link names by its path: tags, categories, authors, archives.
LISTING_PATH_RE = re.compile(
    r"(?:^|/)(?:tag|tags|category|categories|categoria|categorias|kategorie|kategorien|rubrik|topics?|"
    r"label|labels|author|authors|autor|auteur|archive|archives|archiv|etiqueta|etiquetas)(?:/|\.html?|$)",
    re.IGNORECASE,
)

# A date archive: a path of a year, a month, a day and no more (``/2009/``, ``/2009/04/``,
# ``/en/2009/04/index.html``, ``/2009/04/page/2/``): a list of that date's posts.
DATE_ARCHIVE_PATH_RE = re.compile(
    r"^(?:/[a-z]{2}(?:-[a-z]{2})?)?/(?:19|20)\d\d(?:/\d\d?){0,2}/?(?:index\.html?|page/\d+/?)?$", re.IGNORECASE
)

# A post under a listing's word: WordPress's ``/archives/123`` and Hexo's ``/archives/59303.html``,
# ``/archives/7b152142.html`` permalinks (the post's number, decimal or hexadecimal, not a year):
# not the archive.
ARCHIVED_POST_PATH_RE = re.compile(
    r"/archives?/(?!(?:19|20)\d\d/?$)(?=[0-9a-f]*\d)[0-9a-f]{3,}(?:\.html?)?/?$", re.IGNORECASE
)


#: Each cache below holds at most 2 x 50,000 entries and 2 x MAX_CHARS characters (BoundedCache); a
#: crawl of one site needs a few hundred KB.
MAX_CHARS = 4 * 1024 * 1024
# href and the base it is joined to -> the key ("" for None: BoundedCache keeps no None).
_KEYS: BoundedCache[tuple[str, str | None], str] = BoundedCache(50_000, MAX_CHARS)
_KINDS: BoundedCache[str, int] = BoundedCache(50_000, MAX_CHARS)


def link_key(href: str | None, base: str | None) -> str | None:
    """The URL of a request made from `href` on a page whose base is `base`, without its fragment:
    joined as ``response.follow`` and ``LinkExtractor`` join it, then ``safe_url_string`` as
    ``Request`` does. None for anything but an absolute http(s) URL."""
    if not href:
        return None
    # A site's pages repeat their menus: an absolute href or a path from the root is resolved
    # the same on every page of a host, so it is cached by the base's origin only.
    if href.startswith(("http://", "https://")):
        cache_key: tuple[str, str | None] = (href, None)
    elif href.startswith("/") and not href.startswith("//") and base:
        cache_key = (href, base[: base.find("/", base.find("//") + 2)] if base.count("/") > 2 else base)
    else:
        cache_key = (href, base)
    cached = _KEYS.get(cache_key)
    if cached is not None:
        return cached or None
    key = _link_key(href, base)
    _KEYS.put(cache_key, key or "")
    return key


# A relative path of plain characters (no scheme, query, fragment, escape or space) on a plain
# base: joined here as urljoin joins it (RFC 3986: merged with the base's folder, dot segments
# removed), and safe_url_string leaves such a URL as it is. Relative links are not cached across
# pages (each page is its own base) and a theme may write every link so: urljoin and
# safe_url_string cost 25 us a link, 60 % of reading a page's anchors on such a site.
_PLAIN_PATH_RE = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=@/]+\Z")
_PLAIN_BASE_RE = re.compile(r"(https?://[a-z0-9.\-]+(?::[0-9]+)?)(/[A-Za-z0-9\-._~!$&'()*+,;=@/]*)?\Z")


def _join_plain(href: str, base: str | None) -> str | None:
    """`href` joined to `base` when both are plain (above), else None (the general way)."""
    if base is None or href.startswith("//") or _PLAIN_PATH_RE.match(href) is None:
        return None
    m = _PLAIN_BASE_RE.match(base)
    if m is None:
        return None
    origin, base_path = m.group(1), m.group(2) or "/"
    # urllib.parse.urljoin's path resolution, step by step (its empty segments included).
    if href.startswith("/"):
        segments = href.split("/")
    else:
        base_parts = base_path.split("/")
        if base_parts[-1] != "":
            del base_parts[-1]
        segments = base_parts + href.split("/")
        segments[1:-1] = [segment for segment in segments[1:-1] if segment]
    resolved: list[str] = []
    for segment in segments:
        if segment == "..":
            if resolved:
                resolved.pop()
        elif segment != ".":
            resolved.append(segment)
    if segments[-1] in (".", ".."):
        resolved.append("")
    path = "/".join(resolved)
    return origin + (path if path.startswith("/") else "/" + path)


def _link_key(href: str, base: str | None) -> str | None:
    plain = _join_plain(href, base)
    if plain is not None:
        return plain
    absolute = safe_url(href, base)
    if absolute is None:
        return None
    try:
        url = safe_url_string(absolute, encoding="utf-8")
    except (ValueError, UnicodeError):
        return None
    return url.split("#", 1)[0]


def url_kind(key: str) -> int:
    """What a URL says by itself: a share intent, a legal, account or feed page, a file, a reply,
    sort or filter variant (JUNK_URL); a tag, category, author, archive or date list (LISTING_URL);
    else PLAIN_URL. Cached: a site's pages link to the same URLs."""
    kind = _KINDS.get(key)
    if kind is None:
        path, query = url_path(key), key.partition("?")[2]
        if (
            SHARE_URL_RE.match(key)
            or BOILERPLATE_PATH_RE.search(path)
            or FILE_PATH_RE.search(path)
            or (query and BOILERPLATE_QUERY_RE.search(query))
        ):
            kind = JUNK_URL
        elif (LISTING_PATH_RE.search(path) and not ARCHIVED_POST_PATH_RE.search(path)) or DATE_ARCHIVE_PATH_RE.match(
            path
        ):
            kind = LISTING_URL
        else:
            kind = PLAIN_URL
        _KINDS.put(key, kind)
    return kind


_HOME_PATH_RE = re.compile(r"^/?(?:index\.(?:html?|php))?$", re.IGNORECASE)


def url_path(key: str) -> str:
    """The path of a link key (an absolute URL), without its query: "/" when it has none."""
    rest = key.split("://", 1)[-1].partition("?")[0]
    return rest[rest.find("/") :] if "/" in rest else "/"


def is_home(url: str) -> bool:
    """Whether an absolute URL is its host's home page (``/``, ``/index.html``, no query)."""
    rest = url.split("/", 3)
    return len(rest) < 4 or ("?" not in rest[3] and _HOME_PATH_RE.match(rest[3]) is not None)


def url_host(url: str | None) -> str | None:
    """The host of an absolute URL, without "www." (None for None)."""
    if not url:
        return None
    host = url.split("/", 3)[2].lower() if url.count("/") >= 2 else ""
    return host[4:] if host.startswith("www.") else host


# A page number in a query (not WordPress's ?p=, a post's id).
_QUERY_PAGE_RE = re.compile(r"(?:^|&)(?:page|paged|pg|pagenum|start|offset)=\d", re.IGNORECASE)


def continues(page_key: str | None, key: str) -> bool:
    """Whether `key` is a further page of the page at `page_key` (an article in parts): a path
    under the page's (``/post/`` -> ``/post/2/``), or the page's path with a page number in its
    query (``?page=2``). A post's next post is neither."""
    if not page_key:
        return False
    path, _, query = key.partition("?")
    own, _, own_query = page_key.partition("?")
    if query and path == own:
        return _QUERY_PAGE_RE.search(query) is not None and query != own_query
    if own.endswith("/"):
        return path.startswith(own) and len(path) > len(own)
    # /story.html -> /story-2.html, /story/2
    stem = own.rsplit(".", 1)[0] if "." in own.rsplit("/", 1)[-1] else own
    return path != own and path.startswith(stem) and path[len(stem) : len(stem) + 1] in ("-", "/", "_")


def same_site(a: str, b: str) -> bool:
    """Whether two absolute URLs have the same scheme and host."""
    return a.split("/", 3)[:3] == b.split("/", 3)[:3]


_YEAR_RE = re.compile(r"(?:19|20)\d\d\Z")

#: A URL's shape (url_shape): its path's segments as kinds, its file extension, whether it has a query.
Shape = tuple[tuple[str, ...], str, bool]


def url_shape(url: str) -> Shape | None:
    """The shape of an absolute URL's path, which a site's URLs of one kind share: each segment
    as "Y" (a year), "N" (a number) or "w" (a word), but the first of several as itself (posts/,
    tags/, archives/); the file extension ("index.html" as its folder); whether there is a query.
    ``/2009/04/`` and ``/2009/01/07/slug/`` differ, two posts' or two tags' URLs do not."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    segments = [segment for segment in parts.path.split("/") if segment]
    extension = ""
    if segments and "." in segments[-1]:
        name, extension = segments[-1].rsplit(".", 1)
        extension = extension.lower()
        if name.lower() == "index":
            segments.pop()
            extension = ""
        else:
            segments[-1] = name
    kinds = []
    for i, segment in enumerate(segments):
        if _YEAR_RE.match(segment):
            kinds.append("Y")
        elif segment.isdigit():
            kinds.append("N")
        elif i == 0 and len(segments) > 1:
            kinds.append(segment.lower())
        else:
            kinds.append("w")
    return tuple(kinds), extension, bool(parts.query)


def folder_of(url: str) -> str | None:
    """The path under which a URL's own pages would lie: ``/2009/04/`` for ``/2009/04/`` and
    ``/2009/04/index.html``, ``/story.html/`` for ``/story.html`` (nothing lies under a file)."""
    try:
        path = urlsplit(url).path or "/"
    except ValueError:
        return None
    if path.endswith("/"):
        return path
    head, _, last = path.rpartition("/")
    return head + "/" if last.startswith("index.") else path + "/"
