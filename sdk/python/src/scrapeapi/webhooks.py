"""Checking a webhook as a receiver: the signature over the raw body, and the timestamp's age."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any, Literal, Mapping

Reason = Literal["missing_headers", "malformed_signature", "stale_timestamp", "signature_mismatch", "malformed_body"]

_SIGNATURE = re.compile(r"^sha256=([0-9a-fA-F]{64})$")


class WebhookVerificationError(Exception):
    """The delivery is not one the service signed now: `reason` says why."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance_seconds: float = 300,
    now: float | None = None,
) -> Any:
    """
    Returns the webhook's JSON body once X-Service-Signature is the HMAC-SHA256 of
    "{X-Service-Timestamp}.{raw body}" keyed with your secret (GET /v1/webhooks/secret) and the
    timestamp is within `tolerance_seconds` of now (a replay window); raises
    WebhookVerificationError otherwise. Pass the body exactly as received, before any parsing.
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    timestamp = lowered.get("x-service-timestamp")
    signature = lowered.get("x-service-signature")
    if not timestamp or not signature:
        raise WebhookVerificationError("missing_headers", "X-Service-Timestamp and X-Service-Signature are both required.")
    match = _SIGNATURE.match(signature.strip())
    if not match:
        raise WebhookVerificationError("malformed_signature", "X-Service-Signature must be sha256=<64 hex digits>.")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("stale_timestamp", "X-Service-Timestamp is not Unix seconds.") from None
    current = time.time() if now is None else now
    if abs(current - sent_at) > tolerance_seconds:
        raise WebhookVerificationError(
            "stale_timestamp", f"The timestamp is outside the {tolerance_seconds:g} s window (a replay, or a clock far off)."
        )
    raw = body.encode() if isinstance(body, str) else bytes(body)
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, match.group(1).lower()):
        raise WebhookVerificationError("signature_mismatch", "The signature does not match the body under this secret.")
    try:
        return json.loads(raw)
    except ValueError:
        raise WebhookVerificationError("malformed_body", "The signed body is not JSON.") from None
