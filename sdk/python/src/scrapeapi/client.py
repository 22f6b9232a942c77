"""The hand-written layer over the generated operations: cursor iterators, waits, idempotent creates."""

from __future__ import annotations

import asyncio
import mimetypes
import os
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Generic, Iterator, Literal, TypeVar, cast

import httpx

from ._generated.models import (
    ClientJobItem,
    CollectionWriteReply,
    CrawlRequest,
    CrawlView,
    LlmsTxtRequest,
    LlmsTxtView,
    CrawlWebhookDelivery,
    CreateMonitorRequest,
    CreditSummary,
    DocumentConversionResult,
    JobListingItem,
    JobResultBody,
    MapSiteRequest,
    MapSiteResult,
    MonitorTickView,
    MonitorView,
    PageChangeView,
    ProjectBody,
    ProjectView,
    RunView,
    ScrapeResultBody,
    SyncScrapeRequest,
    WindowedScrapeRequest,
    WindowedScrapeRequestOptions,
    ViabilityResult,
    ViabilityRunView,
)
from ._generated.operations import AsyncOperations, Operations
from ._transport import AsyncTransport, SyncTransport, TransportOptions

if TYPE_CHECKING:
    # Only read by type checkers (annotations are not evaluated at run time): no dependency on
    # typing_extensions, which every type checker has. typing.Unpack is Python 3.11's.
    from typing_extensions import Unpack
from .errors import ScrapingApiError, Usage

T = TypeVar("T")

DEFAULT_BASE_URL = "http://localhost:8080"


class WaitTimeout(TimeoutError):
    """A wait_for_* ran out of time; the resource is still going (its last state is in the message)."""


@dataclass(frozen=True)
class Idempotent(Generic[T]):
    """A create sent under an Idempotency-Key: the body, the key (to send again), and whether the server replayed it."""

    value: T
    idempotency_key: str
    replayed: bool


@dataclass(frozen=True)
class RunResult:
    """A completed job and its stored result; `result` is None, with the reason in `error`, when the body is gone."""

    job: JobListingItem
    result: JobResultBody | None
    error: ScrapingApiError | None


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key: keep it to retry the same create after a lost answer."""
    return str(uuid.uuid4())


def _options(base_url: str | None, token: str | None, timeout: float, max_retries: int, max_retry_wait: float) -> TransportOptions:
    return TransportOptions(
        base_url=(base_url or os.environ.get("SCRAPING_API_URL") or DEFAULT_BASE_URL).rstrip("/"),
        token=token if token is not None else os.environ.get("SCRAPING_API_TOKEN"),
        timeout=timeout,
        max_retries=max_retries,
        max_retry_wait=max_retry_wait,
    )


def _document(file: str | os.PathLike[str] | bytes, filename: str | None, content_type: str | None) -> tuple[bytes, str | None, str]:
    """A file's bytes, its name and its media type (told by the name when not given; octet-stream lets the service tell by the bytes)."""
    if isinstance(file, bytes):
        data, name = file, filename
    else:
        with open(file, "rb") as handle:
            data = handle.read()
        name = filename or os.path.basename(os.fspath(file))
    guessed = mimetypes.guess_type(name)[0] if name else None
    return data, name, content_type or guessed or "application/octet-stream"


def _scrape_request(url_or_request: str | WindowedScrapeRequest, options: WindowedScrapeRequestOptions) -> WindowedScrapeRequest:
    if isinstance(url_or_request, str):
        return cast(WindowedScrapeRequest, {"url": url_or_request, **options})
    return cast(WindowedScrapeRequest, {**url_or_request, **options})


def _collection_body(name: str, requests: list[SyncScrapeRequest], callback_url: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "requests": requests}
    if callback_url is not None:
        body["callback_url"] = callback_url
    return body


def _run_progress(run: RunView) -> str:
    done = run["success_requests"] + run["failed_requests"] + run["timeout_requests"]
    return f"{run['status']} ({done}/{run['total_requests']} done)"


#: One page of a cursor listing: its items and the cursor of the next page (None on the last).
_Page = tuple[list[T], str | None]


def _page(items: list[T], has_more: bool, cursor_next: str | None) -> _Page[T]:
    return items, cursor_next if has_more and cursor_next else None


def _paged(fetch: Callable[[str | None], _Page[T]]) -> Iterator[T]:
    """Every item of a cursor listing, following the cursor page after page."""
    cursor: str | None = None
    while True:
        items, cursor = fetch(cursor)
        yield from items
        if cursor is None:
            return


async def _apaged(fetch: Callable[[str | None], Awaitable[_Page[T]]]) -> AsyncIterator[T]:
    cursor: str | None = None
    while True:
        items, cursor = await fetch(cursor)
        for item in items:
            yield item
        if cursor is None:
            return


class _Deadline:
    """Polls back off from `poll_interval` up to 5 s, within `timeout` seconds."""

    def __init__(self, poll_interval: float, timeout: float) -> None:
        self.poll = poll_interval
        self.until = time.monotonic() + timeout

    def next_wait(self, what: Callable[[], str]) -> float:
        left = self.until - time.monotonic()
        if left <= 0:
            raise WaitTimeout(what())
        wait = min(self.poll, left)
        self.poll = min(self.poll * 1.5, 5.0)
        return wait


_Polled = TypeVar("_Polled")


def _poll_until_completed(fetch: Callable[[], _Polled], waiting: Callable[[Any], str], poll_interval: float, timeout: float) -> _Polled:
    """Fetches until the view's status is "completed", backing off within `timeout` (WaitTimeout says what it still waited for)."""
    deadline = _Deadline(poll_interval, timeout)
    while True:
        view = fetch()
        if cast(Any, view)["status"] == "completed":
            return view
        time.sleep(deadline.next_wait(lambda: waiting(view)))


async def _apoll_until_completed(
    fetch: Callable[[], Awaitable[_Polled]], waiting: Callable[[Any], str], poll_interval: float, timeout: float
) -> _Polled:
    """_poll_until_completed for the asynchronous client."""
    deadline = _Deadline(poll_interval, timeout)
    while True:
        view = await fetch()
        if cast(Any, view)["status"] == "completed":
            return view
        await asyncio.sleep(deadline.next_wait(lambda: waiting(view)))


class ScrapingClient:
    """
    The API from Python, synchronously. `api` holds every operation of the document (generated);
    the methods here add what a caller writes by hand otherwise. Token and URL default to
    SCRAPING_API_TOKEN and SCRAPING_API_URL; 429 and 503 are waited out as Retry-After says
    (at most `max_retries` times, never longer than `max_retry_wait` seconds each).
    """

    def __init__(
        self,
        token: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        options = _options(base_url, token, timeout, max_retries, max_retry_wait)
        self.transport = SyncTransport(options, http_client)
        self.api = Operations(self.transport)

    def __enter__(self) -> ScrapingClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()

    @property
    def last_usage(self) -> Usage:
        """The usage headers (rate limit, monthly quota, credits charged) of the last successful answer."""
        return self.transport.last_usage

    # Scraping

    def scrape(self, url_or_request: str | WindowedScrapeRequest, **options: Unpack[WindowedScrapeRequestOptions]) -> ScrapeResultBody:
        """One page now (POST /v1/sync/scrape): `scrape(url, format="markdown", browser=True, …)` or `scrape({...})`; `max_age=3600` lets the page cache answer; `max_tokens=2000` cuts the content to a token budget (`content_window`)."""
        return self.api.sync_scrape_scrape(_scrape_request(url_or_request, options))

    def read(
        self,
        url: str,
        *,
        only_main_content: bool | None = None,
        browser: bool | None = None,
        max_age: int | None = None,
        max_tokens: int | None = None,
        cursor: str | None = None,
        tokenizer: Literal["o200k_base", "cl100k_base"] | None = None,
    ) -> ScrapeResultBody:
        """One page as markdown by its URL (GET /v1/read/{url}): the scrape answer, `markdown` and, with max_tokens, `content_window`."""
        return self.api.url_read_read(
            url, only_main_content=only_main_content, browser=browser, max_age=max_age, max_tokens=max_tokens, cursor=cursor, tokenizer=tokenizer
        )

    def read_windows(self, url: str, *, max_tokens: int, max_age: int = 3600, **options: Any) -> Iterator[ScrapeResultBody]:
        """Every window of a page within max_tokens, first to last, following the cursors (the page cache serves the windows after the first)."""
        cursor: str | None = None
        while True:
            part = self.read(url, max_tokens=max_tokens, max_age=max_age, cursor=cursor, **options)
            yield part
            window = part.get("content_window")
            cursor = window["cursor"] if window else None
            if not cursor:
                return

    # Collections and runs (spec 2.11–2.14)

    def create_collection(
        self,
        name: str,
        requests: list[SyncScrapeRequest],
        *,
        callback_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Idempotent[CollectionWriteReply]:
        """Creates a collection under an Idempotency-Key (a new one unless given): a create retried after a lost answer is not a second collection."""
        key = idempotency_key or new_idempotency_key()
        body = _collection_body(name, requests, callback_url)
        sent = self.transport.exchange("POST", "/v1/async/collections", headers={"Idempotency-Key": key}, body=body)
        return Idempotent(cast(CollectionWriteReply, sent.data), key, sent.headers.get("idempotency-replayed") == "true")

    def start_run(self, collection_id: str) -> RunView:
        return self.api.runs_start(collection_id)

    def get_run(self, collection_id: str, run_id: str) -> RunView:
        return self.api.runs_get(collection_id, run_id)

    def wait_for_run(self, collection_id: str, run_id: str, *, poll_interval: float = 0.5, timeout: float = 600.0) -> RunView:
        """Polls the run (backing off) until it is completed."""
        return _poll_until_completed(
            lambda: self.get_run(collection_id, run_id), lambda run: f"run {run_id} still {_run_progress(run)}", poll_interval, timeout
        )

    def run_collection(self, name: str, requests: list[SyncScrapeRequest], *, timeout: float = 600.0) -> RunView:
        """Creates a collection, runs it and waits for the run: the whole asynchronous round in one call."""
        created = self.create_collection(name, requests).value
        if not created["id"]:
            raise ValueError(f"the collection was not created: {created['message']}")
        run = self.start_run(created["id"])
        return self.wait_for_run(created["id"], run["run_id"], timeout=timeout)

    def jobs(self, collection_id: str, run_id: str, **query: Any) -> Iterator[JobListingItem]:
        """Every job of a run across cursor pages (spec 4.5), filtered and ordered as `query` says."""
        def fetch(cursor: str | None) -> _Page[JobListingItem]:
            page = self.api.runs_jobs(collection_id, run_id, cursor=cursor, **query)
            return _page(page["items"], page["has_more"], page["cursor_next"])

        return _paged(fetch)

    def results(self, run: RunView) -> Iterator[RunResult]:
        """Every completed job of a run with its result: inline where the listing carries it, else fetched."""
        for job in self.jobs(run["collection_id"], run["run_id"], status_filter="completed", include_results=True, limit=100):
            inline = job.get("result")
            if inline:
                yield RunResult(job, cast(JobResultBody, inline), None)
                continue
            try:
                yield RunResult(job, self.api.runs_result(run["collection_id"], run["run_id"], job["job_id"]), None)
            except ScrapingApiError as error:
                yield RunResult(job, None, error)

    # Projects and batches (spec 4.8)

    def create_project(self, body: ProjectBody) -> ProjectView:
        return self.api.projects_create(body)

    def projects(self, *, status: Literal["active", "paused", "closed"] | None = None) -> Iterator[ProjectView]:
        def fetch(cursor: str | None) -> _Page[ProjectView]:
            page = self.api.projects_list(status=status, cursor=cursor)
            return _page(page["items"], page["has_more"], page["cursor_next"])

        return _paged(fetch)

    def all_jobs(self, **query: Any) -> Iterator[ClientJobItem]:
        """Every job of the client (GET /v1/jobs) across cursor pages, filtered by project_id, batch_id, status, outcome or since."""
        def fetch(cursor: str | None) -> _Page[ClientJobItem]:
            page = self.api.jobs_list(cursor=cursor, **query)
            return _page(page["items"], page["has_more"], page["cursor_next"])

        return _paged(fetch)

    def job_data(self, job_id: str) -> JobResultBody:
        return self.api.jobs_data(job_id)

    def credit_summary(self) -> CreditSummary:
        return self.api.credit_summary_summary()

    # Viability (spec 3.4)

    def wait_for_viability_test(self, run_id: str, *, poll_interval: float = 0.5, timeout: float = 600.0) -> list[ViabilityResult]:
        """Polls the viability test until every URL is analysed; the results, one per URL in request order."""
        run: ViabilityRunView = _poll_until_completed(
            lambda: self.api.viability_tests_get(run_id), lambda run: f"viability test {run_id} still {run['status']}", poll_interval, timeout
        )
        return run.get("results") or []

    def viability(self, urls: list[str], *, depth: Literal["quick", "standard", "full"] = "quick", timeout: float = 600.0) -> list[ViabilityResult]:
        """Starts a viability test of `urls` and waits for its results."""
        started = self.api.viability_tests_create({"urls": urls, "depth": depth})
        return self.wait_for_viability_test(started["run_id"], timeout=timeout)

    # Sites (map and crawl)

    def map_site(self, request: MapSiteRequest) -> MapSiteResult:
        return self.api.site_map_map(request)

    def start_crawl(self, request: CrawlRequest) -> CrawlView:
        return self.api.crawls_create(request)

    def make_llms_txt(self, request: LlmsTxtRequest, *, poll_interval: float = 0.5, timeout: float = 3600.0) -> LlmsTxtView:
        """An llms.txt for a site (POST /v1/llms-txt, then waits for its crawl): `llms_txt` is the file. The pages are charged as a crawl's; the file is free."""
        started = self.api.llms_txt_create(request)
        return self.wait_for_llms_txt(started["crawl_id"], poll_interval=poll_interval, timeout=timeout)

    def wait_for_llms_txt(self, crawl_id: str, *, poll_interval: float = 0.5, timeout: float = 3600.0) -> LlmsTxtView:
        """The llms.txt of any of the client's crawls, once the crawl has ended (GET /v1/llms-txt/{crawl_id})."""
        return _poll_until_completed(
            lambda: self.api.llms_txt_get(crawl_id), lambda view: f"crawl {crawl_id} still {view['crawl_state']}", poll_interval, timeout
        )

    # Monitors (the full set of operations: self.api.monitors_*)

    def create_monitor(self, request: CreateMonitorRequest) -> MonitorView:
        """Watches pages on a schedule (POST /v1/monitors); the first tick runs at once."""
        return self.api.monitors_create(request)

    def monitor_ticks(self, monitor_id: str) -> list[MonitorTickView]:
        """The last 100 ticks, newest first; a tick's pages are `all_jobs(batch_id=tick["tick_id"])`, each with its `change`."""
        return self.api.monitors_ticks(monitor_id)["ticks"]

    def monitor_changes(self, monitor_id: str, *, limit: int = 100) -> list[PageChangeView]:
        """Pages new, changed or removed, newest first."""
        return self.api.monitors_changes(monitor_id, limit=limit)["changes"]

    def convert_document(
        self,
        file: str | os.PathLike[str] | bytes,
        *,
        filename: str | None = None,
        content_type: str | None = None,
        format: Literal["markdown", "html"] | None = None,
        pages: str | None = None,
        max_pages: int | None = None,
        ocr: bool | None = None,
    ) -> DocumentConversionResult:
        """A document you already have (a path or its bytes) as markdown or HTML (POST /v1/documents/convert): a credit per page read, 2 a scanned page read by OCR (`ocr=True`)."""
        data, name, media_type = _document(file, filename, content_type)
        return self.api.documents_convert(data, content_type=media_type, format=format, pages=pages, max_pages=max_pages, ocr=ocr, filename=name)

    def wait_for_crawl(self, crawl_id: str, *, poll_interval: float = 0.5, timeout: float = 3600.0) -> CrawlView:
        """Polls the crawl until it has ended; its pages are then `all_jobs(batch_id=crawl_id)`."""
        return _poll_until_completed(
            lambda: self.api.crawls_get(crawl_id), lambda crawl: f"crawl {crawl_id} still {crawl['state']}", poll_interval, timeout
        )

    def crawl_deliveries(self, crawl_id: str, *, page_size: int = 100) -> Iterator[CrawlWebhookDelivery]:
        def fetch(cursor: str | None) -> _Page[CrawlWebhookDelivery]:
            page = self.api.crawl_webhooks_list(crawl_id, cursor=cursor, limit=page_size)
            return _page(page["items"], page["has_more"], page["cursor_next"])

        return _paged(fetch)


class AsyncScrapingClient:
    """The same client for asyncio: every method a coroutine, every listing an async iterator."""

    def __init__(
        self,
        token: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        options = _options(base_url, token, timeout, max_retries, max_retry_wait)
        self.transport = AsyncTransport(options, http_client)
        self.api = AsyncOperations(self.transport)

    async def __aenter__(self) -> AsyncScrapingClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    @property
    def last_usage(self) -> Usage:
        return self.transport.last_usage

    async def scrape(self, url_or_request: str | WindowedScrapeRequest, **options: Unpack[WindowedScrapeRequestOptions]) -> ScrapeResultBody:
        return await self.api.sync_scrape_scrape(_scrape_request(url_or_request, options))

    async def read(
        self,
        url: str,
        *,
        only_main_content: bool | None = None,
        browser: bool | None = None,
        max_age: int | None = None,
        max_tokens: int | None = None,
        cursor: str | None = None,
        tokenizer: Literal["o200k_base", "cl100k_base"] | None = None,
    ) -> ScrapeResultBody:
        return await self.api.url_read_read(
            url, only_main_content=only_main_content, browser=browser, max_age=max_age, max_tokens=max_tokens, cursor=cursor, tokenizer=tokenizer
        )

    async def create_collection(
        self,
        name: str,
        requests: list[SyncScrapeRequest],
        *,
        callback_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> Idempotent[CollectionWriteReply]:
        key = idempotency_key or new_idempotency_key()
        body = _collection_body(name, requests, callback_url)
        sent = await self.transport.exchange("POST", "/v1/async/collections", headers={"Idempotency-Key": key}, body=body)
        return Idempotent(cast(CollectionWriteReply, sent.data), key, sent.headers.get("idempotency-replayed") == "true")

    async def start_run(self, collection_id: str) -> RunView:
        return await self.api.runs_start(collection_id)

    async def get_run(self, collection_id: str, run_id: str) -> RunView:
        return await self.api.runs_get(collection_id, run_id)

    async def wait_for_run(self, collection_id: str, run_id: str, *, poll_interval: float = 0.5, timeout: float = 600.0) -> RunView:
        return await _apoll_until_completed(
            lambda: self.get_run(collection_id, run_id), lambda run: f"run {run_id} still {_run_progress(run)}", poll_interval, timeout
        )

    async def run_collection(self, name: str, requests: list[SyncScrapeRequest], *, timeout: float = 600.0) -> RunView:
        created = (await self.create_collection(name, requests)).value
        if not created["id"]:
            raise ValueError(f"the collection was not created: {created['message']}")
        run = await self.start_run(created["id"])
        return await self.wait_for_run(created["id"], run["run_id"], timeout=timeout)

    def jobs(self, collection_id: str, run_id: str, **query: Any) -> AsyncIterator[JobListingItem]:
        async def fetch(cursor: str | None) -> _Page[JobListingItem]:
            page = await self.api.runs_jobs(collection_id, run_id, cursor=cursor, **query)
            return _page(page["items"], page["has_more"], page["cursor_next"])

        return _apaged(fetch)

    async def results(self, run: RunView) -> AsyncIterator[RunResult]:
        async for job in self.jobs(run["collection_id"], run["run_id"], status_filter="completed", include_results=True, limit=100):
            inline = job.get("result")
            if inline:
                yield RunResult(job, cast(JobResultBody, inline), None)
                continue
            try:
                yield RunResult(job, await self.api.runs_result(run["collection_id"], run["run_id"], job["job_id"]), None)
            except ScrapingApiError as error:
                yield RunResult(job, None, error)

    def all_jobs(self, **query: Any) -> AsyncIterator[ClientJobItem]:
        async def fetch(cursor: str | None) -> _Page[ClientJobItem]:
            page = await self.api.jobs_list(cursor=cursor, **query)
            return _page(page["items"], page["has_more"], page["cursor_next"])

        return _apaged(fetch)

    async def viability(
        self, urls: list[str], *, depth: Literal["quick", "standard", "full"] = "quick", poll_interval: float = 0.5, timeout: float = 600.0
    ) -> list[ViabilityResult]:
        started = await self.api.viability_tests_create({"urls": urls, "depth": depth})
        run: ViabilityRunView = await _apoll_until_completed(
            lambda: self.api.viability_tests_get(started["run_id"]),
            lambda run: f"viability test {started['run_id']} still {run['status']}",
            poll_interval,
            timeout,
        )
        return run.get("results") or []

    async def map_site(self, request: MapSiteRequest) -> MapSiteResult:
        return await self.api.site_map_map(request)

    async def start_crawl(self, request: CrawlRequest) -> CrawlView:
        return await self.api.crawls_create(request)

    async def make_llms_txt(self, request: LlmsTxtRequest, *, poll_interval: float = 0.5, timeout: float = 3600.0) -> LlmsTxtView:
        started = await self.api.llms_txt_create(request)
        return await self.wait_for_llms_txt(started["crawl_id"], poll_interval=poll_interval, timeout=timeout)

    async def wait_for_llms_txt(self, crawl_id: str, *, poll_interval: float = 0.5, timeout: float = 3600.0) -> LlmsTxtView:
        return await _apoll_until_completed(
            lambda: self.api.llms_txt_get(crawl_id), lambda view: f"crawl {crawl_id} still {view['crawl_state']}", poll_interval, timeout
        )

    async def create_monitor(self, request: CreateMonitorRequest) -> MonitorView:
        return await self.api.monitors_create(request)

    async def monitor_ticks(self, monitor_id: str) -> list[MonitorTickView]:
        return (await self.api.monitors_ticks(monitor_id))["ticks"]

    async def monitor_changes(self, monitor_id: str, *, limit: int = 100) -> list[PageChangeView]:
        return (await self.api.monitors_changes(monitor_id, limit=limit))["changes"]

    async def convert_document(
        self,
        file: str | os.PathLike[str] | bytes,
        *,
        filename: str | None = None,
        content_type: str | None = None,
        format: Literal["markdown", "html"] | None = None,
        pages: str | None = None,
        max_pages: int | None = None,
        ocr: bool | None = None,
    ) -> DocumentConversionResult:
        data, name, media_type = _document(file, filename, content_type)
        return await self.api.documents_convert(data, content_type=media_type, format=format, pages=pages, max_pages=max_pages, ocr=ocr, filename=name)

    async def wait_for_crawl(self, crawl_id: str, *, poll_interval: float = 0.5, timeout: float = 3600.0) -> CrawlView:
        return await _apoll_until_completed(
            lambda: self.api.crawls_get(crawl_id), lambda crawl: f"crawl {crawl_id} still {crawl['state']}", poll_interval, timeout
        )
