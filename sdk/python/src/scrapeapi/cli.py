"""`scrapeapi`: the API from a shell. Token from --token or SCRAPING_API_TOKEN, service from --url or SCRAPING_API_URL.

    scrapeapi scrape URL [--format html|markdown] [--main-content] [--browser heavy|light] [--extract name=selector]…
                         [--extract-all name=selector]… [--max-age SECONDS] [--json | --output json|markdown] [--out FILE]
    scrapeapi collect FILE.csv [same page flags] [--name NAME] [--json] [--out FILE]
    scrapeapi viability URL… [--depth quick|standard|full] [--output json|markdown]
    scrapeapi monitor URL… --every SECONDS [--ignore-selector CSS]… [--ignore-pattern RE2]… [--webhook URL]
    scrapeapi monitor URL --crawl [--max-pages N] [--max-depth N] --every SECONDS …   (the pages a crawl from URL finds, each tick)
    scrapeapi changes MONITOR_ID [--limit N]

Errors print the contract's error_code and detail on stderr and exit 1 (2 for usage errors).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any, Sequence, TextIO, cast

from ._generated.models import LlmsTxtRequest, ScrapeResultBody, SyncScrapeRequest, ViabilityResult
from .client import RunResult, ScrapingClient
from .errors import ScrapingApiError


def _page_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.markdown or args.format == "markdown" or args.main_content:
        options["format"] = "markdown"
    if args.main_content:
        options["only_main_content"] = True
    if args.browser:
        options["browser"] = True
        options["browser_type"] = args.browser
    extract: dict[str, Any] = {}
    for flag, pairs, every in (("--extract", args.extract, False), ("--extract-all", args.extract_all, True)):
        for pair in pairs or []:
            name, sep, selector = pair.partition("=")
            if not sep or not name or not selector:
                raise SystemExit(f"scrapeapi: {flag} takes name=selector, not {pair!r}")
            # Every match, as a list: the API's {selector, multiple} form.
            extract[name] = {"selector": selector, "multiple": True} if every else selector
    if extract:
        options["extract"] = extract
    return options


def _failed(result: ScrapeResultBody | None) -> bool:
    """A page that is no content: no answer, an error status, or a block (spec 2.8's success false)."""
    if result is None:
        return True
    guidance: dict[str, Any] = dict(result.get("guidance") or {})
    return result["statusCode"] == 0 or result["statusCode"] >= 400 or guidance.get("success") is False


EXAMPLES = {
    "scrapeapi": """examples:
  export SCRAPING_API_TOKEN=sk_…           # or --token sk_… before the command
  scrapeapi scrape https://example.com/ --main-content --output markdown
  scrapeapi collect urls.csv --format markdown --out pages.json
  scrapeapi COMMAND --help                  # each command's flags and examples

exit status: 0 done; 1 an API error (its error_code and detail on stderr) or a page that failed; 2 a usage error.""",
    "read": """examples:
  scrapeapi read https://example.com/post                       # the page as markdown
  scrapeapi read https://example.com/post --main-content --out post.md
  scrapeapi read https://example.com/long --max-tokens 2000      # the first 2,000 tokens; stderr says how to read on
  scrapeapi read https://example.com/long --max-tokens 2000 --all   # every window, one after the other
  scrapeapi read https://example.com/post --json                 # the whole scrape answer""",
    "scrape": """examples:
  scrapeapi scrape https://example.com/ --json
  scrapeapi scrape https://example.com/post --main-content --output markdown --out post.md
  scrapeapi scrape https://example.com/shop --extract title=css:h1 --extract-all prices=css:.price --json
  scrapeapi scrape https://example.com/app --browser heavy --format markdown
  scrapeapi scrape https://example.com/ --max-age 3600   # the page cache's copy when under an hour old: 0 credits""",
    "collect": """FILE.csv has a url column (and optionally custom_id), or one URL a line.
A page that failed (no answer, 4xx/5xx, a block) is listed as failed, not printed as content;
the exit status is 1 when a page failed.

examples:
  scrapeapi collect urls.csv --json --out results.json
  scrapeapi collect urls.csv --main-content --output markdown""",
    "viability": """examples:
  scrapeapi viability https://example.com/ https://example.org/ --output markdown
  scrapeapi viability https://example.com/ --depth standard --json""",
    "monitor": """examples:
  scrapeapi monitor https://example.com/pricing --every 3600 --ignore-pattern '\\d{2}:\\d{2}'
  scrapeapi monitor https://example.com/ --crawl --max-pages 50 --every 86400 --webhook https://hooks.example.com/x""",
    "llms-txt": """Crawls the site (a credit a page, 5 with --browser) and prints the llms.txt its pages make.

examples:
  scrapeapi llms-txt https://docs.example.com/ --out llms.txt
  scrapeapi llms-txt https://docs.example.com/ --max-pages 300 --include-path '/docs/**'
  scrapeapi llms-txt https://example.com/ --crawl-id 5f0c…   # the file of a crawl already made (free)""",
    "changes": """examples:
  scrapeapi changes 5f0c…-monitor-id --limit 10""",
    "convert": """examples:
  scrapeapi convert report.pdf --pages 1-3 --out report.md
  scrapeapi convert scan.pdf --ocr
  scrapeapi convert prices.xlsx --json""",
}


def _print_json(value: Any, out: TextIO) -> None:
    out.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _page_as_markdown(url: str, result: ScrapeResultBody | None, out: TextIO) -> None:
    if result is None:
        out.write(f"## {url}\n\n(no result)\n\n")
        return
    if _failed(result):
        # An error page (a 404, a block page) is not the content asked for: say so, do not print it.
        guidance: dict[str, Any] = dict(result.get("guidance") or {})
        why = guidance.get("error_type") or result.get("message") or "failed"
        out.write(f"## {url}\n\nfailed: status {result['statusCode']} ({why}); its page is not shown (--json has it)\n\n")
        return
    out.write(f"## {url}\n\nstatus {result['statusCode']}\n\n")
    if result.get("extracted_data"):
        out.write("```json\n" + json.dumps(result.get("extracted_data"), indent=2, ensure_ascii=False) + "\n```\n\n")
    body = result.get("markdown") or result.get("html") or ""
    out.write(body.rstrip() + "\n\n")


def _llms_txt(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    if args.crawl_id:
        made = client.wait_for_llms_txt(args.crawl_id, timeout=args.timeout)
    else:
        request: dict[str, Any] = {"url": args.url}
        if args.max_pages is not None:
            request["max_pages"] = args.max_pages
        if args.max_depth is not None:
            request["max_depth"] = args.max_depth
        if args.include_path:
            request["include_paths"] = args.include_path
        if args.exclude_path:
            request["exclude_paths"] = args.exclude_path
        if args.browser:
            request["browser"] = True
        made = client.make_llms_txt(cast(LlmsTxtRequest, request), timeout=args.timeout)
    if args.output == "json":
        _print_json(made, out)
    else:
        out.write(made["llms_txt"] or "")
    sys.stderr.write(
        f"scrapeapi: {made['pages_listed']} pages listed of {made['pages_scraped']} scraped"
        f"{' (more than one file lists)' if made['truncated'] else ''}; crawl {made['crawl_id']}, {made['credits_charged']} credits\n"
    )
    return 0


def _read(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    options: dict[str, Any] = {"only_main_content": True if args.main_content else None, "browser": True if args.browser else None}
    if args.max_age is not None:
        options["max_age"] = args.max_age
    if args.max_tokens is None:
        parts = [client.read(args.url, **options)]
    elif args.all:
        parts = list(client.read_windows(args.url, max_tokens=args.max_tokens, tokenizer=args.tokenizer, **options))
    else:
        parts = [client.read(args.url, max_tokens=args.max_tokens, cursor=args.cursor, tokenizer=args.tokenizer, **options)]
    if args.output == "json":
        _print_json(parts if len(parts) > 1 else parts[0], out)
        return 0
    for part in parts:
        window = part.get("content_window")
        error = window["error"] if window else None
        if error:
            sys.stderr.write(f"scrapeapi: {error['code']}: {error['message']}\n")
            return 1
        out.write(part.get("markdown") or "")
    last = parts[-1].get("content_window")
    if last and last.get("cursor"):
        sys.stderr.write(
            f"scrapeapi: {last['tokens']} of {last['total_tokens']} tokens ({last['tokenizer']}); the next window: "
            f"scrapeapi read {args.url} --max-tokens {args.max_tokens} --cursor {last['cursor']}\n"
        )
    return 0


def _scrape(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    options = _page_options(args)
    if args.max_age is not None:
        options["max_age"] = args.max_age
    result = client.scrape(args.url, **options)
    if args.output == "json":
        _print_json(result, out)
    else:
        _page_as_markdown(args.url, result, out)
    return 1 if _failed(result) else 0


def _requests_of(path: str, options: dict[str, Any]) -> list[SyncScrapeRequest]:
    """A CSV with a `url` column (and optionally `custom_id`), or one URL per line without a header."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise SystemExit(f"scrapeapi: {path} is empty")
    header = [cell.strip().lower() for cell in rows[0]]
    if "url" in header:
        url_at, id_at = header.index("url"), header.index("custom_id") if "custom_id" in header else None
        body = rows[1:]
    else:
        url_at, id_at, body = 0, None, rows
    requests: list[SyncScrapeRequest] = []
    for row in body:
        if len(row) <= url_at or not row[url_at].strip():
            continue
        request: dict[str, Any] = {"url": row[url_at].strip(), **options}
        if id_at is not None and len(row) > id_at and row[id_at].strip():
            request["custom_id"] = row[id_at].strip()
        requests.append(cast(SyncScrapeRequest, request))
    return requests


def _collect(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    requests = _requests_of(args.file, _page_options(args))
    run = client.run_collection(args.name or args.file, requests)
    results: list[RunResult] = list(client.results(run))
    if args.output == "json":
        _print_json(
            {
                "run": run,
                "results": [{"job": r.job, "result": r.result, "error": str(r.error) if r.error else None} for r in results],
            },
            out,
        )
    else:
        out.write(
            f"# {run['success_requests']} of {run['total_requests']} pages scraped "
            f"({run['failed_requests']} failed, {run['timeout_requests']} timed out)\n\n"
        )
        for r in results:
            _page_as_markdown(r.job["url"], cast(ScrapeResultBody, r.result) if r.result is not None else None, out)
    return 0 if run["failed_requests"] + run["timeout_requests"] == 0 else 1


def _viability(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    results: list[ViabilityResult] = client.viability(args.urls, depth=args.depth)
    if args.output == "json":
        _print_json(results, out)
        return 0
    out.write("| url | recommended | difficulty | javascript | captcha | cloudflare |\n|---|---|---|---|---|---|\n")
    for result in results:
        out.write(
            f"| {result['url']} | {result['recommended_strategy']} | {result['difficulty']} | "
            f"{'yes' if result['javascript_required'] else 'no'} | {'yes' if result['captcha_detected'] else 'no'} | "
            f"{result['cloudflare_level']} |\n"
        )
    return 0


def _monitor(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    if args.crawl and len(args.urls) != 1:
        raise SystemExit("scrapeapi monitor --crawl: give one start URL")
    scope: dict[str, Any] = {"url": args.urls[0]}
    if args.max_pages is not None:
        scope["max_pages"] = args.max_pages
    if args.max_depth is not None:
        scope["max_depth"] = args.max_depth
    request: dict[str, Any] = {
        **({"crawl": scope} if args.crawl else {"urls": args.urls}),
        "schedule": {"interval_seconds": args.every},
        "ignore": {"selectors": args.ignore_selector or [], "patterns": args.ignore_pattern or []},
    }
    if args.webhook:
        request["webhook_url"] = args.webhook
    _print_json(client.create_monitor(cast(Any, request)), out)
    return 0


def _changes(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    _print_json(client.monitor_changes(args.monitor_id, limit=args.limit), out)
    return 0


def _convert(client: ScrapingClient, args: argparse.Namespace, out: TextIO) -> int:
    result = client.convert_document(
        args.file, format="html" if args.html else "markdown", pages=args.pages, max_pages=args.max_pages, ocr=True if args.ocr else None
    )
    if args.output == "json":
        _print_json(result, out)
    else:
        out.write(result.get("markdown") or result.get("html") or "")
    for note in result.get("notes", []):
        sys.stderr.write(f"scrapeapi: {note}\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrapeapi",
        description="The scraping API from a shell.",
        epilog=EXAMPLES["scrapeapi"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--url", dest="base_url", help="the service (default: SCRAPING_API_URL or http://localhost:8080)")
    parser.add_argument("--token", help="the API token (default: SCRAPING_API_TOKEN)")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, description=help, epilog=EXAMPLES[name], formatter_class=argparse.RawDescriptionHelpFormatter)

    def output_flags(p: argparse.ArgumentParser, default: str) -> None:
        p.add_argument("--output", choices=["json", "markdown"], default=default, help=f"what to print (default {default})")
        p.add_argument("--json", dest="output", action="store_const", const="json", help="the same as --output json")
        p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")

    def page_flags(p: argparse.ArgumentParser) -> None:
        p.add_argument("--format", choices=["html", "markdown"], help="the page as html (default) or markdown")
        p.add_argument("--markdown", action="store_true", help="the same as --format markdown")
        p.add_argument("--main-content", action="store_true", help="only the main article, as markdown (navigation, ads, comments dropped)")
        p.add_argument("--browser", choices=["heavy", "light"], help="render with a browser of this kind")
        p.add_argument("--extract", action="append", metavar="NAME=SELECTOR", help="a field: the first match (css:…, xpath:… or //…)")
        p.add_argument("--extract-all", action="append", metavar="NAME=SELECTOR", help="a field: every match, as a list")

    read = command("read", "one page as markdown, within a token budget if asked (GET /v1/read)")
    read.add_argument("url")
    read.add_argument("--main-content", action="store_true", help="only the main article (navigation, ads, comments dropped)")
    read.add_argument("--browser", action="store_true", help="render with a browser (5 credits)")
    read.add_argument("--max-tokens", type=int, metavar="N", help="at most N tokens, cut after a paragraph")
    read.add_argument("--cursor", metavar="CURSOR", help="with --max-tokens: the next window (the cursor stderr gave)")
    read.add_argument("--tokenizer", choices=["o200k_base", "cl100k_base"], help="what counts the tokens (default o200k_base)")
    read.add_argument("--all", action="store_true", help="with --max-tokens: every window, first to last")
    read.add_argument("--max-age", type=int, metavar="SECONDS", help="accept the page cache's copy up to this old (0 credits)")
    output_flags(read, "markdown")

    scrape = command("scrape", "one page now")
    scrape.add_argument("url")
    scrape.add_argument("--max-age", type=int, metavar="SECONDS", help="accept the page cache's copy up to this old (0 credits)")
    page_flags(scrape)
    output_flags(scrape, "json")

    collect = command("collect", "the URLs of a CSV as a collection run, waited for")
    collect.add_argument("file", metavar="FILE.csv")
    collect.add_argument("--name", help="the collection's name (default: the file's)")
    page_flags(collect)
    output_flags(collect, "json")

    viability = command("viability", "which strategy each URL needs")
    viability.add_argument("urls", nargs="+", metavar="URL")
    viability.add_argument("--depth", choices=["quick", "standard", "full"], default="quick")
    output_flags(viability, "json")

    monitor = command("monitor", "watch pages on a schedule (prints the monitor)")
    monitor.add_argument("urls", nargs="+", metavar="URL")
    monitor.add_argument("--every", type=int, required=True, metavar="SECONDS", help="seconds between ticks")
    monitor.add_argument("--ignore-selector", action="append", metavar="CSS", help="an element that is not a change")
    monitor.add_argument("--ignore-pattern", action="append", metavar="RE2", help="text that is not a change (a clock)")
    monitor.add_argument("--webhook", metavar="URL", help="where monitor.changed goes")
    monitor.add_argument("--crawl", action="store_true", help="watch the pages a crawl from URL finds each tick (a page no longer found is removed)")
    monitor.add_argument("--max-pages", type=int, metavar="N", help="with --crawl: the most pages a tick scrapes")
    monitor.add_argument("--max-depth", type=int, metavar="N", help="with --crawl: link hops from URL")

    convert = command("convert", "a document you have (PDF, DOCX, XLSX, PPTX, ODT, EPUB, RTF, CSV) as markdown")
    convert.add_argument("file", metavar="FILE")
    convert.add_argument("--html", action="store_true", help="HTML instead of markdown")
    convert.add_argument("--pages", metavar="RANGES", help='pages, slides or sheets to read, from 1: "3", "3-10", "12-"')
    convert.add_argument("--max-pages", type=int, metavar="N", help="the most pages read (a credit each)")
    convert.add_argument("--ocr", action="store_true", help="read a scanned PDF's pages by OCR (2 credits a page)")
    output_flags(convert, "markdown")

    llms = command("llms-txt", "an llms.txt for a site, made from a crawl of it (POST /v1/llms-txt)")
    llms.add_argument("url")
    llms.add_argument("--max-pages", type=int, metavar="N", help="the most pages crawled and listed (default 100, at most 1,000)")
    llms.add_argument("--max-depth", type=int, metavar="N", help="link hops from URL")
    llms.add_argument("--include-path", action="append", metavar="GLOB", help="only paths matching (repeatable)")
    llms.add_argument("--exclude-path", action="append", metavar="GLOB", help="no path matching (repeatable)")
    llms.add_argument("--browser", action="store_true", help="render each page with a browser (5 credits a page)")
    llms.add_argument("--crawl-id", metavar="ID", help="the file of this crawl instead of a new one (free)")
    llms.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS", help="how long to wait for the crawl (default 3600)")
    output_flags(llms, "markdown")

    changes = command("changes", "the pages of a monitor that changed, newest first")
    changes.add_argument("monitor_id")
    changes.add_argument("--limit", type=int, default=100)
    for p in (monitor, changes):
        p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, client: ScrapingClient | None = None) -> int:
    args = _parser().parse_args(argv)
    file = open(args.out, "w", encoding="utf-8") if getattr(args, "out", None) else None
    out = file or out or sys.stdout
    own = client is None
    client = client or ScrapingClient(token=args.token, base_url=args.base_url)
    try:
        handler = {"read": _read, "scrape": _scrape, "collect": _collect, "viability": _viability, "monitor": _monitor, "changes": _changes, "convert": _convert, "llms-txt": _llms_txt}[args.command]
        return handler(client, args, out)
    except ScrapingApiError as error:
        sys.stderr.write(f"scrapeapi: {error}\n")
        return 1
    finally:
        if file:
            file.close()
        if own:
            client.close()


if __name__ == "__main__":
    raise SystemExit(main())
