"""A crawl with the async client: start it, wait for it, then read its pages."""

import asyncio

from scrapeapi import AsyncScrapingClient


async def main() -> None:
    async with AsyncScrapingClient() as client:
        crawl = await client.start_crawl({"url": "https://example.com/", "max_pages": 20, "scrape": {"format": "markdown"}})
        done = await client.wait_for_crawl(crawl["crawl_id"])
        print(done["state"], done["completed"], "pages,", done["credits_charged"], "credits")
        async for page in client.all_jobs(batch_id=crawl["crawl_id"]):
            data = await client.api.jobs_data(page["job_id"])
            print(page["url"], len(data["markdown"] or ""), "characters")


if __name__ == "__main__":
    asyncio.run(main())
