"""The API's request and response bodies as TypedDicts (`from scrapeapi.models import ScrapeResultBody`):
plain dicts at run time, checked by mypy. Generated from the OpenAPI document into `_generated`."""

from ._generated.models import *  # noqa: F401,F403
