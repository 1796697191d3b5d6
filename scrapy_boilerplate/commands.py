"""``scrapy boilerplate URL|FILE``: the main content of one page and its overview verdict.

Like ``scrapy fetch``, a URL is downloaded by Scrapy with the project's
settings (user agent, proxies, cookies, middlewares), so what it prints is
what a crawl with the same settings would put into an item. What the project's
crawls write is left alone (:data:`LEFT_ALONE`): a one-page look must not empty
the project's feed, touch its job state, fill its HTTP cache or its log file.
"""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy import Request, Spider
from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.http import HtmlResponse, TextResponse
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.datatypes import SequenceExclude
from w3lib.url import is_url

from . import settings as bp
from .cli import FORMATS, add_option_arguments
from .core.extractor import Extraction, Extractor
from .core.overview.detector import OverviewDetector, OverviewVerdict
from .core.scoring.model import ModelError

if TYPE_CHECKING:
    from argparse import ArgumentParser
    from collections.abc import AsyncIterator

    from scrapy.http import Response
    from scrapy.settings import BaseSettings
    from twisted.python.failure import Failure


#: Settings the command sets for its one-page crawl unless its own command line gives them: the
#: project's feeds (FEEDS with "overwrite": True emptied the project's feed file), its job
#: directory (the scheduler's queues and spider state), its HTTP cache and its log file stay as they
#: were, and the log shows warnings only (its output is the page's content; -L INFO shows more).
LEFT_ALONE: dict[str, Any] = {
    "FEEDS": {},
    "FEED_URI": None,
    "JOBDIR": None,
    "HTTPCACHE_ENABLED": False,
    "LOG_FILE": None,
    "LOG_LEVEL": "WARNING",
}


class Command(ScrapyCommand):
    requires_project = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_LEVEL": "WARNING"}
    # Built by run() from the settings (read once, checked) and the options.
    extractor: Extractor | None = None
    detector: OverviewDetector | None = None

    def syntax(self) -> str:
        return "[options] <url|file>"

    def short_desc(self) -> str:
        return "Print the main content of a page and whether it is an overview page"

    def long_desc(self) -> str:
        return (
            "Download a URL with Scrapy (or read a local HTML file) and print its main "
            "content, as MainContentPipeline would write it into an item, and the verdict "
            "of OverviewMiddleware. BOILERPLATE_* settings apply; the options override them. "
            "--explain OUT.html writes the explain page instead: every block of the page, kept "
            "or dropped, and why."
        )

    def add_options(self, parser: ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument(
            "--format", choices=FORMATS, default="text", help="what to print of the extraction (default: text)"
        )
        parser.add_argument("--url", help="the page's URL when reading a file (resolves image links)")
        # The extraction options that are settings too: given, they win over BOILERPLATE_*.
        add_option_arguments(parser, bp.EXTRACTION_OPTIONS, default=None)
        parser.add_argument("--no-redirect", action="store_true", help="do not follow HTTP redirects")
        parser.add_argument(
            "--explain",
            metavar="OUT.html",
            help="write the explain page (every block, kept or dropped, and why; "
            "one self-contained HTML file) there instead of printing",
        )

    def process_options(self, args: list[str], opts: Namespace) -> None:
        super().process_options(args, opts)
        settings = self.settings
        assert settings is not None  # Scrapy sets it before processing the options
        for name, value in LEFT_ALONE.items():
            if (settings.getpriority(name) or 0) < SETTINGS_PRIORITIES["cmdline"]:
                settings.set(name, value, priority="cmdline")

    def run(self, args: list[str], opts: Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one URL or one HTML file")
        source = args[0]
        if opts.explain and Path(opts.explain).is_dir():
            raise UsageError(f"--explain {opts.explain}: is a folder; give the HTML file to write")
        settings = self.settings
        assert settings is not None  # Scrapy sets it before running a command
        try:
            # Before any download: a bad BOILERPLATE_* value (a site rule's selector) is one line.
            read = bp.read(settings)
            self.extractor = extractor_from_settings(settings, opts, read)
            self.detector = read.detector()
        except ValueError as exc:
            if not isinstance(exc, bp.SettingError | ModelError):
                raise
            print(f"scrapy boilerplate: error: {exc}", file=sys.stderr)
            self.exitcode = 1
            return
        path = Path(source)
        if path.is_file():
            html = path.read_bytes()
            self.report(html, opts.url, opts, settings, source)
            return
        if not is_url(source):
            raise UsageError(f"{source!r} is neither a file nor an http(s) URL")
        self.fetch(source, opts)

    def fetch(self, url: str, opts: Namespace) -> None:
        command = self
        # Judged here, so that an OverviewMiddleware set to "drop" in the project
        # does not hide the page from this command.
        meta: dict[str, Any] = {bp.META_OVERVIEW: False}
        if opts.no_redirect:
            meta["handle_httpstatus_all"] = True
        else:
            meta["handle_httpstatus_list"] = SequenceExclude(range(300, 400))

        class BoilerplateCommandSpider(Spider):
            name = "boilerplate_command"

            async def start(self) -> AsyncIterator[Any]:
                yield Request(url, meta=meta, dont_filter=True, callback=self.parse, errback=self.failed)

            def parse(self, response: Response) -> None:
                if not isinstance(response, TextResponse):
                    print(f"Not a text response ({type(response).__name__}): {response.url}", file=sys.stderr)
                    command.exitcode = 1
                    return
                if not 200 <= response.status < 300:
                    print(f"Note: HTTP status {response.status}", file=sys.stderr)
                page = response.selector if isinstance(response, HtmlResponse) else response.text
                command.report(page, response.url, opts, self.crawler.settings)

            def failed(self, failure: Failure) -> None:
                print(f"Cannot download {url}: {failure.value!r}", file=sys.stderr)
                command.exitcode = 1

        assert self.crawler_process is not None
        self.crawler_process.crawl(BoilerplateCommandSpider)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1

    def report(
        self, page: Any, url: str | None, opts: Namespace, settings: BaseSettings, source: str | None = None
    ) -> None:
        assert self.extractor is not None and self.detector is not None  # run() built them
        extractor, detector = self.extractor, self.detector
        if opts.explain:
            from .core.render.explain import explain_html, written_note

            try:
                Path(opts.explain).write_text(
                    explain_html(page, url, extractor, detector, source=source), encoding="utf-8"
                )
            except OSError as exc:
                print(f"Cannot write the explain page: {exc}", file=sys.stderr)
                self.exitcode = 1
                return
            print(written_note(opts.explain), file=sys.stderr)
            return
        extraction = extractor.extract(page, url=url)
        verdict = detector.detect(page, url=url)
        sys.stdout.write(render(extraction, verdict, url, opts.format))


def extractor_from_settings(
    settings: BaseSettings, opts: Namespace | None = None, read: bp.BoilerplateSettings | None = None
) -> Extractor:
    """An Extractor with the BOILERPLATE_* options (`read`: those settings, read already); command-line
    options win."""
    read = read or bp.read(settings)
    options = read.extractor_options()
    for name in options:
        value = getattr(opts, name, None) if opts is not None else None
        if value is not None:
            options[name] = value
    return Extractor(read.model, **options)


def render(extraction: Extraction, verdict: OverviewVerdict, url: str | None, fmt: str) -> str:
    if fmt == "json":
        return (
            json.dumps(
                {"url": url, "overview": verdict.to_dict(), "extraction": extraction.to_dict()},
                ensure_ascii=False,
                indent=2,
            )
            + "\n"
        )
    body = {"text": extraction.text, "markdown": extraction.markdown, "html": extraction.html}[fmt]
    kind = "yes" if verdict.is_overview else "no"
    lines = [
        f"Overview page: {kind} (score {verdict.score:.2f}; {verdict.reason})",
        f"Title: {extraction.title or ''}",
        "",
    ]
    if not body:
        lines.append("(no main content found)")
    return "\n".join(lines) + "\n" + (body + "\n" if body else "")
