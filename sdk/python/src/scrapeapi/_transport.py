"""One HTTP exchange with the API, sync or async: path filled in, auth, JSON, typed errors, and
the waits a 429 or 503 asks for (Retry-After), a bounded number of times."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import quote

import httpx

from .errors import Usage, error_from_response

#: Retried after the wait the server names: the request was not processed (429) or a part of the service was down (503).
RETRIED_STATUSES = frozenset({429, 503})


@dataclass
class Exchange:
    """A successful answer: its parsed body, its headers and the usage they carried."""

    data: Any
    headers: Mapping[str, str]
    usage: Usage


@dataclass
class TransportOptions:
    base_url: str
    token: str | None
    #: Seconds per attempt (a sync scrape with a browser may take 90 s).
    timeout: float = 120.0
    #: Times a 429 or 503 is waited out and asked again before its error is raised.
    max_retries: int = 3
    #: The longest wait honoured; a longer Retry-After raises at once (a monthly quota, say).
    max_retry_wait: float = 60.0
    user_agent: str = "scrapeapi-python"
    headers: dict[str, str] = field(default_factory=dict)


def _url_of(template: str, path: Mapping[str, str] | None) -> str:
    url = template
    for name, value in (path or {}).items():
        url = url.replace("{" + name + "}", quote(str(value), safe=""))
    return url


def _query_of(query: Mapping[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in (query or {}).items():
        if value is None:
            continue
        out[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


def _headers_of(options: TransportOptions, headers: Mapping[str, str | None] | None) -> dict[str, str]:
    out = {"user-agent": options.user_agent, "accept": "application/json", **options.headers}
    if options.token:
        out["authorization"] = f"Bearer {options.token}"
    for name, value in (headers or {}).items():
        if value is not None:
            out[name] = value
    return out


def _prepared(
    options: TransportOptions,
    template: str,
    path: Mapping[str, str] | None,
    query: Mapping[str, Any] | None,
    headers: Mapping[str, str | None] | None,
    body: Any,
    content: bytes | None = None,
    content_type: str | None = None,
) -> dict[str, Any]:
    """The URL, query, headers and content (JSON, or a file's bytes) of one request, the same for every attempt and both clients."""
    sent = _headers_of(options, headers)
    if content is not None:
        sent["content-type"] = content_type or "application/octet-stream"
    elif body is not None:
        content = json.dumps(body).encode()
        sent["content-type"] = "application/json"
    return {"url": _url_of(template, path), "params": _query_of(query), "headers": sent, "content": content}


def _wait_of(response: httpx.Response, attempt: int, options: TransportOptions) -> float | None:
    """Seconds to wait before asking again, or None when the answer is final."""
    if response.status_code not in RETRIED_STATUSES or attempt >= options.max_retries:
        return None
    raw = response.headers.get("retry-after")
    try:
        seconds = float(raw) if raw is not None else 2.0**attempt
    except ValueError:
        seconds = 2.0**attempt
    if seconds > options.max_retry_wait:
        return None
    # Jitter, so clients refused together do not come back together.
    return max(0.0, seconds) + random.uniform(0, 0.25)


def _result_of(response: httpx.Response, text: bool) -> Exchange:
    if not response.is_success:
        raise error_from_response(response.status_code, response.headers, response.text)
    usage = Usage.from_headers(response.headers)
    if text:
        return Exchange(response.text, response.headers, usage)
    data = json.loads(response.content) if response.content else None
    return Exchange(data, response.headers, usage)


class SyncTransport:
    def __init__(self, options: TransportOptions, client: httpx.Client | None = None) -> None:
        self.options = options
        self._client = client or httpx.Client(base_url=options.base_url, timeout=options.timeout)
        #: The usage headers of the last successful answer.
        self.last_usage = Usage()

    def exchange(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, str | None] | None = None,
        body: Any = None,
        content: bytes | None = None,
        content_type: str | None = None,
        text: bool = False,
    ) -> Exchange:
        prepared = _prepared(self.options, template, path, query, headers, body, content, content_type)
        for attempt in range(self.options.max_retries + 1):
            response = self._client.request(method, **prepared)
            wait = _wait_of(response, attempt, self.options)
            if wait is None:
                break
            response.close()
            time.sleep(wait)
        result = _result_of(response, text)
        self.last_usage = result.usage
        return result

    def request(self, method: str, template: str, **kwargs: Any) -> Any:
        return self.exchange(method, template, **kwargs).data

    def close(self) -> None:
        self._client.close()


class AsyncTransport:
    def __init__(self, options: TransportOptions, client: httpx.AsyncClient | None = None) -> None:
        self.options = options
        self._client = client or httpx.AsyncClient(base_url=options.base_url, timeout=options.timeout)
        self.last_usage = Usage()

    async def exchange(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, str | None] | None = None,
        body: Any = None,
        content: bytes | None = None,
        content_type: str | None = None,
        text: bool = False,
    ) -> Exchange:
        prepared = _prepared(self.options, template, path, query, headers, body, content, content_type)
        for attempt in range(self.options.max_retries + 1):
            response = await self._client.request(method, **prepared)
            wait = _wait_of(response, attempt, self.options)
            if wait is None:
                break
            await response.aclose()
            await asyncio.sleep(wait)
        result = _result_of(response, text)
        self.last_usage = result.usage
        return result

    async def request(self, method: str, template: str, **kwargs: Any) -> Any:
        return (await self.exchange(method, template, **kwargs)).data

    async def aclose(self) -> None:
        await self._client.aclose()
