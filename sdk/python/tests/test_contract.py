"""Without a server: every operation of the OpenAPI document is reachable from both low-level
clients with exactly its method and path; 429/503 are waited out as Retry-After says; webhook
signatures are checked as a receiver must."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import inspect
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from scrapeapi import (
    OPERATIONS,
    AsyncOperations,
    Operations,
    RateLimitError,
    ScrapingClient,
    ServiceUnavailableError,
    WebhookVerificationError,
    verify_webhook,
)
from scrapeapi._transport import AsyncTransport, SyncTransport, TransportOptions

DOCUMENT = json.loads((Path(__file__).resolve().parents[2] / "openapi.json").read_text())


def _method_name(operation_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", operation_id)).lower()


def _document_operations() -> list[tuple[str, str, str, dict[str, Any]]]:
    return [
        (_method_name(op["operationId"]), method.upper(), template, op)
        for template, item in DOCUMENT["paths"].items()
        for method, op in item.items()
    ]


def _arguments(op: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    args = [f"id-{p['name']}" for p in op.get("parameters", []) if p["in"] == "path"]
    content = op.get("requestBody", {}).get("content", {})
    if any(c.get("schema", {}).get("format") == "binary" for c in content.values()) and "application/json" not in content:
        args.append(b"probe")
    elif op.get("requestBody", {}).get("required", True) and op.get("requestBody"):
        args.append({"probe": True})
    return args, {}


def _recorder(calls: list[httpx.Request]) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if request.url.path == "/metrics":
            return httpx.Response(200, text="# metrics")
        return httpx.Response(200, json={})

    return httpx.MockTransport(answer)


def _expected_path(template: str, op: dict[str, Any]) -> str:
    path = template
    for p in op.get("parameters", []):
        if p["in"] == "path":
            path = path.replace("{" + p["name"] + "}", f"id-{p['name']}")
    return path


def test_every_operation_of_the_document_is_a_method_sending_its_method_and_path() -> None:
    operations = _document_operations()
    assert len(operations) == len(OPERATIONS) > 60
    calls: list[httpx.Request] = []
    client = Operations(SyncTransport(TransportOptions("http://api.test", "t"), httpx.Client(base_url="http://api.test", transport=_recorder(calls))))
    for name, method, template, op in operations:
        assert OPERATIONS[name][:2] == (method, template)
        args, kwargs = _arguments(op)
        getattr(client, name)(*args, **kwargs)
        sent = calls[-1]
        assert (name, sent.method, sent.url.path) == (name, method, _expected_path(template, op))
        assert sent.headers["authorization"] == "Bearer t"


def test_the_async_client_has_the_same_operations() -> None:
    calls: list[httpx.Request] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, text="# metrics") if request.url.path == "/metrics" else httpx.Response(200, json={})

    async def every() -> None:
        http = httpx.AsyncClient(base_url="http://api.test", transport=httpx.MockTransport(answer))
        client = AsyncOperations(AsyncTransport(TransportOptions("http://api.test", None), http))
        for name, method, template, op in _document_operations():
            assert inspect.iscoroutinefunction(getattr(client, name))
            args, kwargs = _arguments(op)
            await getattr(client, name)(*args, **kwargs)
            assert (calls[-1].method, calls[-1].url.path) == (method, _expected_path(template, op))
        await http.aclose()

    asyncio.run(every())


def test_query_and_header_parameters_are_sent_by_their_document_names() -> None:
    calls: list[httpx.Request] = []
    client = Operations(SyncTransport(TransportOptions("http://api.test", "t"), httpx.Client(base_url="http://api.test", transport=_recorder(calls))))
    client.runs_jobs("c", "r", cursor="abc", limit=5, include_results=True)
    assert dict(calls[-1].url.params) == {"cursor": "abc", "limit": "5", "include_results": "true"}
    client.collections_create({"name": "n", "requests": []}, idempotency_key="key-1")
    assert calls[-1].headers["idempotency-key"] == "key-1"
    assert json.loads(calls[-1].content) == {"name": "n", "requests": []}
    client.collections_get("a/b")
    assert calls[-1].url.raw_path == b"/v1/async/collections/a%2Fb"


def _scripted(statuses: list[tuple[int, dict[str, str]]], calls: list[float]) -> httpx.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        status, headers = statuses.pop(0) if len(statuses) > 1 else statuses[0]
        body = {"detail": "slow down", "error_code": "rate_limit_exceeded"} if status == 429 else {"statusCode": 200}
        return httpx.Response(status, json=body, headers=headers)

    return httpx.Client(base_url="http://api.test", transport=httpx.MockTransport(answer))


def test_429_and_503_are_waited_out_as_retry_after_says() -> None:
    calls: list[float] = []
    http = _scripted([(429, {"retry-after": "1"}), (503, {"retry-after": "0"}), (200, {"x-credits-charged": "1"})], calls)
    with ScrapingClient("t", "http://api.test", http_client=http) as client:
        assert client.scrape("https://example.com")["statusCode"] == 200
        assert client.last_usage.credits_charged == 1
    assert len(calls) == 3
    assert calls[1] - calls[0] >= 1.0


def test_a_wait_past_max_retry_wait_or_the_last_retry_raises_with_retry_after() -> None:
    calls: list[float] = []
    http = _scripted([(429, {"retry-after": "3600", "x-ratelimit-remaining": "0"})], calls)
    with ScrapingClient("t", "http://api.test", http_client=http, max_retry_wait=60) as client, pytest.raises(RateLimitError) as raised:
        client.scrape("https://example.com")
    assert len(calls) == 1
    assert (raised.value.retry_after, raised.value.usage.rate_limit_remaining) == (3600.0, 0)
    calls.clear()
    http = _scripted([(503, {"retry-after": "0"})], calls)
    with ScrapingClient("t", "http://api.test", http_client=http, max_retries=2) as client, pytest.raises(ServiceUnavailableError):
        client.scrape("https://example.com")
    assert len(calls) == 3


def _signed(secret: str, body: bytes, at: int) -> dict[str, str]:
    signature = hmac.new(secret.encode(), f"{at}.".encode() + body, hashlib.sha256).hexdigest()
    return {"X-Service-Timestamp": str(at), "X-Service-Signature": f"sha256={signature}"}


def test_verify_webhook_accepts_the_signed_body_and_refuses_anything_else() -> None:
    secret, body, now = "whsec_test", b'{"event":"crawl.page","job_id":"j"}', 1_800_000_000
    assert verify_webhook(body, _signed(secret, body, now), secret, now=now) == {"event": "crawl.page", "job_id": "j"}
    cases = {
        "signature_mismatch": (body + b" ", _signed(secret, body, now)),
        "stale_timestamp": (body, _signed(secret, body, now - 301)),
        "missing_headers": (body, {"X-Service-Timestamp": str(now)}),
        "malformed_signature": (body, {"X-Service-Timestamp": str(now), "X-Service-Signature": "md5=abc"}),
    }
    for reason, (sent, headers) in cases.items():
        with pytest.raises(WebhookVerificationError) as refused:
            verify_webhook(sent, headers, secret, now=now)
        assert refused.value.reason == reason
    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, _signed("whsec_other", body, now), secret, now=now)


def test_models_import_from_their_module() -> None:
    # `from scrapeapi.models import …` as well as `scrapeapi.models.…`: the same classes.
    import scrapeapi
    from scrapeapi.models import ScrapeResultBody, SyncScrapeRequest, SyncScrapeRequestOptions

    assert scrapeapi.models.ScrapeResultBody is ScrapeResultBody
    assert "format" in SyncScrapeRequestOptions.__annotations__
    assert "url" not in SyncScrapeRequestOptions.__annotations__
    assert {"url", "format"} <= set(SyncScrapeRequest.__annotations__) | set(SyncScrapeRequest.__required_keys__)
