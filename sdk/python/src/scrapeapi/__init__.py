"""Python client of the scraping API: typed models and operations generated from its OpenAPI document,
sync and async clients, typed errors, webhook verification, and the `scrapeapi` command."""

from . import models
from ._generated.operations import OPERATIONS, AsyncOperations, Operations
from .client import AsyncScrapingClient, Idempotent, RunResult, ScrapingClient, WaitTimeout, new_idempotency_key
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    Problem,
    RateLimitError,
    ScrapingApiError,
    ServiceUnavailableError,
    Usage,
    ValidationError,
)
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = [
    "OPERATIONS",
    "AsyncOperations",
    "AsyncScrapingClient",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Idempotent",
    "NotFoundError",
    "Operations",
    "PermissionDeniedError",
    "Problem",
    "RateLimitError",
    "RunResult",
    "ScrapingApiError",
    "ScrapingClient",
    "ServiceUnavailableError",
    "Usage",
    "ValidationError",
    "WaitTimeout",
    "WebhookVerificationError",
    "models",
    "new_idempotency_key",
    "verify_webhook",
]
