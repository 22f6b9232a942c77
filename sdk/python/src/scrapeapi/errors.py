"""Every answer of the API that is not a success, with the contract's fields (operator contract §5)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Usage:
    """Spec section 8's usage headers, as the last answer carried them (None where it did not)."""

    rate_limit_limit: int | None = None
    rate_limit_remaining: int | None = None
    #: Unix seconds when the rate-limit window resets.
    rate_limit_reset: int | None = None
    #: Monthly credits; 0 means unlimited.
    quota_limit: int | None = None
    quota_used: int | None = None
    quota_remaining: int | None = None
    credits_charged: int | None = None

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> Usage:
        def number(name: str) -> int | None:
            value = headers.get(name)
            try:
                return int(value) if value is not None else None
            except ValueError:
                return None

        return cls(
            rate_limit_limit=number("x-ratelimit-limit"),
            rate_limit_remaining=number("x-ratelimit-remaining"),
            rate_limit_reset=number("x-ratelimit-reset"),
            quota_limit=number("x-quota-limit"),
            quota_used=number("x-quota-used"),
            quota_remaining=number("x-quota-remaining"),
            credits_charged=number("x-credits-charged"),
        )


@dataclass(frozen=True)
class Problem:
    """One validation problem of a 422 (or a collection route's 400): where, what, which rule."""

    loc: list[str | int]
    msg: str
    type: str


class ScrapingApiError(Exception):
    """
    A refusal or failure from the API. `error_code` is stable and machine-readable
    (`rate_limit_exceeded`, `collection_not_found`, `validation_error` for the list form, …);
    `detail` is the body's detail as sent (a message, the 422 problem list, or the job-result 404
    object); `retry_after` the seconds the server asked to wait (429, 503); `usage` the usage headers.
    """

    def __init__(
        self,
        status: int,
        error_code: str,
        detail: Any,
        body: Any,
        retry_after: float | None,
        usage: Usage,
        request_id: str | None = None,
    ) -> None:
        super().__init__(f"{status} {error_code}: {_describe(detail, body)}")
        self.status = status
        self.error_code = error_code
        self.detail = detail
        self.body = body
        self.retry_after = retry_after
        self.usage = usage
        self.request_id = request_id

    @property
    def problems(self) -> list[Problem]:
        """The validation problems of a 422 (or a collection route's 400), else an empty list."""
        if not isinstance(self.detail, list):
            return []
        return [
            Problem(loc=list(p["loc"]), msg=str(p["msg"]), type=str(p["type"]))
            for p in self.detail
            if isinstance(p, dict) and isinstance(p.get("loc"), list) and "msg" in p and "type" in p
        ]


class BadRequestError(ScrapingApiError):
    """400: malformed input (JSON, cursor, query)."""


class AuthenticationError(ScrapingApiError):
    """401: no token, or a token that is not valid."""


class PermissionDeniedError(ScrapingApiError):
    """403: the token may not do this (admin routes, plan features, robots override)."""


class NotFoundError(ScrapingApiError):
    """404: no such resource for this client."""


class ConflictError(ScrapingApiError):
    """409: the resource's state refuses the move (invalid_state, delivery_in_progress, idempotency reuse)."""


class ValidationError(ScrapingApiError):
    """422: the request broke a rule; `problems` lists where."""


class RateLimitError(ScrapingApiError):
    """429: rate limit or monthly quota; `retry_after` says when to ask again."""


class ServiceUnavailableError(ScrapingApiError):
    """503: a part of the service is down or draining; `retry_after` says when to ask again."""


_BY_STATUS: dict[int, type[ScrapingApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_from_response(status: int, headers: Mapping[str, str], text: str) -> ScrapingApiError:
    """The typed error for a non-2xx answer (its body parsed when it is JSON)."""
    try:
        body: Any = json.loads(text) if text else None
    except ValueError:
        body = text
    detail = body.get("detail") if isinstance(body, dict) else body
    retry_after = _seconds(headers.get("retry-after"))
    kind = _BY_STATUS.get(status, ScrapingApiError)
    return kind(status, _error_code_of(body), detail, body, retry_after, Usage.from_headers(headers), headers.get("x-request-id"))


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def _error_code_of(body: Any) -> str:
    """The error_code wherever the body carries it (top level, or inside the job-result 404's detail)."""
    if not isinstance(body, dict):
        return "unknown_error"
    if isinstance(body.get("error_code"), str):
        return str(body["error_code"])
    detail = body.get("detail")
    if isinstance(detail, dict) and isinstance(detail.get("error_code"), str):
        return str(detail["error_code"])
    if isinstance(detail, list):
        return "validation_error"
    return "unknown_error"


def _describe(detail: Any, body: Any) -> str:
    if isinstance(detail, str):
        return detail
    if isinstance(detail, list):
        return "; ".join(
            f"{'.'.join(str(part) for part in p.get('loc', []))}: {p.get('msg')}" for p in detail if isinstance(p, dict)
        )
    if isinstance(detail, dict) and isinstance(detail.get("message"), str):
        return str(detail["message"])
    return json.dumps(body)[:300] if body is not None else ""
