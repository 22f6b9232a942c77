from scrapeapi import ScrapingClient
client = ScrapingClient()  # token: SCRAPING_API_TOKEN; service: SCRAPING_API_URL (default http://localhost:8080)
print(client.scrape("https://example.com/", format="markdown")["markdown"])
run = client.run_collection("docs", [{"url": "https://example.com/"}, {"url": "https://example.com/other"}])
for page in client.results(run): print(page.job["url"], page.result["statusCode"] if page.result else page.error)
