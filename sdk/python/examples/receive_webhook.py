"""A webhook receiver: every delivery checked before it is trusted, duplicates dropped by delivery id."""

import os
from http.server import BaseHTTPRequestHandler, HTTPServer

from scrapeapi import WebhookVerificationError, verify_webhook

SECRET = os.environ["SCRAPING_WEBHOOK_SECRET"]  # GET /v1/webhooks/secret
seen: set[str] = set()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        try:
            event = verify_webhook(body, dict(self.headers.items()), SECRET)
        except WebhookVerificationError as refused:
            self.send_response(401)
            self.end_headers()
            print("refused:", refused.reason)
            return
        delivery = self.headers.get("x-service-delivery-id", "")
        if delivery not in seen:
            seen.add(delivery)
            print(event["event"], event.get("url") or event.get("run_id"))
        self.send_response(200)
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 9000), Receiver).serve_forever()
