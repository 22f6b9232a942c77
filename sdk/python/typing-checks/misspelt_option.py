"""Must fail mypy (scripts/python-sdk.js checks that it does): scrape options are typed, so a misspelt
option or a wrong value type is caught before the request is sent."""

from scrapeapi import ScrapingClient

client = ScrapingClient(token="sk_example")
client.scrape("https://example.com/", fromat="markdown")  # misspelt: format
client.scrape("https://example.com/", browser="yes")  # not a bool
