"""The Python client against the embedded platform over real HTTP: the flows the TypeScript SDK's
tests cover (scrape, collections and runs, idempotent creates, projects and batches, viability,
map, crawl and its page webhooks) and the error cases, sync and async."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path

import pytest

from scrapeapi import (
    AsyncScrapingClient,
    AuthenticationError,
    NotFoundError,
    RateLimitError,
    ScrapingClient,
    ValidationError,
    verify_webhook,
)
from scrapeapi.cli import main

from .conftest import Receiver, new_client_token


def test_scrapes_a_page_and_reports_the_usage_headers(platform: str, site: str, token: str) -> None:
    with ScrapingClient(token, platform) as client:
        page = client.scrape(f"{site}/page", format="markdown")
        assert page["statusCode"] == 200
        assert "Fixture page" in (page["markdown"] or "")
        assert client.last_usage.credits_charged == 1
        assert client.last_usage.rate_limit_limit == 10_000


def test_a_page_read_again_within_max_age_comes_from_the_page_cache_for_nothing(platform: str, site: str, token: str) -> None:
    with ScrapingClient(token, platform) as client:
        first = client.scrape(f"{site}/other", max_age=3600)
        assert first.get("cached") is False and client.last_usage.credits_charged == 1
        deadline = time.monotonic() + 10
        while True:  # the entry is kept just after the first answer
            again = client.scrape(f"{site}/other", max_age=3600)
            if again.get("cached") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert again.get("cached") is True
        assert again.get("cache", {}).get("status") == "hit"
        assert client.last_usage.credits_charged == 0


def test_a_monitor_from_the_cli_and_its_changes(platform: str, site: str, token: str) -> None:
    out = io.StringIO()
    assert main(["--url", platform, "monitor", f"{site}/page", "--every", "3600", "--ignore-pattern", "\\d{2}:\\d{2}"], out=out, client=ScrapingClient(token, platform)) == 0
    monitor = json.loads(out.getvalue())
    assert monitor["state"] == "active"
    with ScrapingClient(token, platform) as client:
        deadline = time.monotonic() + 20
        while not client.monitor_changes(monitor["id"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [c["change_status"] for c in client.monitor_changes(monitor["id"])] == ["new"]
        assert client.monitor_ticks(monitor["id"])[0]["pages"] == 1
    listed = io.StringIO()
    assert main(["--url", platform, "changes", monitor["id"]], out=listed, client=ScrapingClient(token, platform)) == 0
    assert json.loads(listed.getvalue())[0]["url"] == f"{site}/page"


def test_a_crawl_scope_monitor_from_the_cli(platform: str, site: str, token: str) -> None:
    out = io.StringIO()
    assert main(["--url", platform, "monitor", f"{site}/page", "--crawl", "--max-pages", "5", "--max-depth", "0", "--every", "3600"], out=out, client=ScrapingClient(token, platform)) == 0
    monitor = json.loads(out.getvalue())
    assert monitor["crawl"]["url"] == f"{site}/page" and monitor["crawl"]["max_pages"] == 5 and monitor["urls"] == []
    with ScrapingClient(token, platform) as client:
        deadline = time.monotonic() + 20
        while not client.monitor_changes(monitor["id"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [(c["url"], c["change_status"]) for c in client.monitor_changes(monitor["id"])] == [(f"{site}/page", "new")]


def test_converts_a_document_from_the_client_and_the_cli(platform: str, site: str, token: str, tmp_path: Path) -> None:
    csv_file = tmp_path / "prices.csv"
    csv_file.write_text("item,price\nApple,1.20\n")
    with ScrapingClient(token, platform) as client:
        converted = client.convert_document(csv_file)
        assert converted["document"]["format"] == "csv"
        assert converted["markdown"] == "<!-- page 1 -->\n\n| item | price |\n| --- | --- |\n| Apple | 1.20 |\n"
        assert client.last_usage.credits_charged == 1
        html = client.convert_document(b"a;b\n1;2\n", filename="t.csv", format="html")
        assert "<th>a</th><th>b</th>" in (html["html"] or "")
        # A flag goes as "false", which the API reads as false (not as a present, so true, value).
        assert client.convert_document(csv_file, ocr=False)["credits_charged"] == 1
        with pytest.raises(ValidationError):
            client.convert_document(csv_file, pages="5-3")
    out = io.StringIO()
    assert main(["--url", platform, "convert", str(csv_file)], out=out, client=ScrapingClient(token, platform)) == 0
    assert "| Apple | 1.20 |" in out.getvalue()


def test_creates_runs_waits_and_iterates_a_collection(platform: str, site: str, token: str) -> None:
    with ScrapingClient(token, platform) as client:
        run = client.run_collection("python", [{"url": f"{site}/page"}, {"url": f"{site}/other"}, {"url": f"{site}/status/404"}])
        assert run["status"] == "completed"
        assert (run["total_requests"], run["success_requests"], run["failed_requests"]) == (3, 2, 1)
        jobs = list(client.jobs(run["collection_id"], run["run_id"], limit=1))
        assert sorted(job["url"] for job in jobs) == sorted([f"{site}/page", f"{site}/other", f"{site}/status/404"])
        results = list(client.results(run))
        assert len(results) == 3
        by_url = {r.job["url"]: r for r in results}
        assert by_url[f"{site}/page"].result is not None and by_url[f"{site}/page"].result["statusCode"] == 200


def test_an_idempotent_create_sent_twice_is_one_collection(platform: str, site: str, token: str) -> None:
    with ScrapingClient(token, platform) as client:
        first = client.create_collection("once", [{"url": f"{site}/page"}])
        again = client.create_collection("once", [{"url": f"{site}/page"}], idempotency_key=first.idempotency_key)
        assert (first.replayed, again.replayed) == (False, True)
        assert again.value["id"] == first.value["id"]
        with pytest.raises(ValidationError) as refused:
            client.create_collection("other body", [{"url": f"{site}/other"}], idempotency_key=first.idempotency_key)
        assert refused.value.error_code == "idempotency_key_reused"


def test_projects_batches_and_the_jobs_listing(platform: str, site: str, token: str) -> None:
    with ScrapingClient(token, platform) as client:
        project = client.create_project({"name": "python", "defaults": {"format": "markdown"}})
        batch = client.api.batches_create(
            {"project_id": project["project_id"], "requests": [{"url": f"{site}/page"}, {"url": f"{site}/other"}]},
            idempotency_key="python-batch-1",
        )
        client.api.batches_run(batch["batch_id"])
        for _ in range(300):
            if client.api.batches_get(batch["batch_id"])["state"] == "completed":
                break
            time.sleep(0.1)
        jobs = list(client.all_jobs(batch_id=batch["batch_id"], limit=1))
        assert sorted(job["url"] for job in jobs) == [f"{site}/other", f"{site}/page"]
        assert all(job["status"] == "completed" for job in jobs)
        assert client.job_data(jobs[0]["job_id"])["markdown"]
        assert [p["project_id"] for p in client.projects()] == [project["project_id"]]
        assert client.credit_summary()["used"] >= 2


def test_viability_map_and_crawl_with_its_page_webhooks(platform: str, site: str, token: str, receiver: Receiver) -> None:
    with ScrapingClient(token, platform) as client:
        [verdict] = client.viability([f"{site}/page"])
        assert verdict["url"] == f"{site}/page"
        assert verdict["recommended_strategy"] in ("extract_html", "browser", "api", "blocked")
        site_map = client.map_site({"url": f"{site}/page", "sitemap": "skip", "max_depth": 0})
        assert site_map["pages_fetched"] == 1 and f"{site}/other" in site_map["urls"]
        secret = client.api.webhooks_secret()["secret"]
        started = client.start_crawl(
            {"url": f"{site}/page", "sitemap": "skip", "max_depth": 0, "callback_url": f"{receiver.url}/crawl", "page_webhooks": True}
        )
        done = client.wait_for_crawl(started["crawl_id"], poll_interval=0.1, timeout=60)
        assert (done["state"], done["completed"]) == ("completed", 1)
        assert [job["url"] for job in client.all_jobs(batch_id=started["crawl_id"])] == [f"{site}/page"]
        # That crawl's llms.txt (the start page only: its title, no link), and one made by a crawl of its own.
        assert client.wait_for_llms_txt(started["crawl_id"], poll_interval=0.1, timeout=60)["llms_txt"].startswith("# Fixture page\n")
        made = client.make_llms_txt({"url": f"{site}/page", "sitemap": "skip", "max_depth": 1, "max_pages": 2}, poll_interval=0.1, timeout=60)
        assert (made["status"], made["pages_listed"]) == ("completed", 1)
        assert made["sections"][0]["entries"][0]["url"] == f"{site}/other"
        for _ in range(200):
            deliveries = list(client.crawl_deliveries(started["crawl_id"], page_size=1))
            if len(deliveries) == 2 and all(d["status"] == "sent" for d in deliveries):
                break
            time.sleep(0.1)
        assert sorted(d["event"] for d in deliveries) == ["crawl.completed", "crawl.page"]
        page = next(d for d in deliveries if d["event"] == "crawl.page")
        headers, body = next((h, b) for h, b in receiver.received if h.get("x-service-delivery-id") == page["delivery_id"])
        event = verify_webhook(body, headers, secret)
        assert (event["event"], event["crawl_id"], event["url"]) == ("crawl.page", started["crawl_id"], f"{site}/page")


def test_errors_are_typed_with_the_contract_fields(platform: str, site: str, token: str) -> None:
    with ScrapingClient(token, platform) as client:
        with pytest.raises(ValidationError) as invalid:
            client.scrape(f"{site}/page", format="pdf")
        assert invalid.value.error_code == "validation_error"
        assert [p.loc for p in invalid.value.problems] == [["body", "format"]]
        with pytest.raises(NotFoundError) as missing:
            client.get_run("00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000")
        assert missing.value.error_code == "run_not_found"
        assert missing.value.usage.rate_limit_limit == 10_000
    with ScrapingClient("not-a-token", platform) as stranger, pytest.raises(AuthenticationError) as unknown:
        stranger.scrape(f"{site}/page")
    assert unknown.value.status == 401
    slow = new_client_token(platform, rate_limit_per_minute=1)
    with ScrapingClient(slow, platform, max_retries=0) as client:
        client.scrape(f"{site}/page")
        with pytest.raises(RateLimitError) as limited:
            client.scrape(f"{site}/page")
        assert limited.value.error_code == "rate_limit_exceeded"
        assert limited.value.retry_after is not None and limited.value.retry_after > 0
        assert limited.value.usage.rate_limit_remaining == 0


def test_the_async_client(platform: str, site: str, token: str) -> None:
    async def flow() -> None:
        async with AsyncScrapingClient(token, platform) as client:
            page, run = await asyncio.gather(
                client.scrape({"url": f"{site}/page", "format": "markdown"}),
                client.run_collection("async", [{"url": f"{site}/page"}, {"url": f"{site}/other"}]),
            )
            assert "Fixture page" in (page["markdown"] or "")
            assert run["success_requests"] == 2
            results = [r async for r in client.results(run)]
            assert len(results) == 2 and all(r.result is not None for r in results)
            with pytest.raises(NotFoundError):
                await client.api.jobs_data("00000000-0000-4000-8000-000000000000")
            made = await client.make_llms_txt({"url": f"{site}/page", "sitemap": "skip", "max_depth": 0}, poll_interval=0.1, timeout=60)
            assert made["llms_txt"] is not None and made["llms_txt"].startswith("# ")

    asyncio.run(flow())


def test_the_command_line(
    platform: str, site: str, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SCRAPING_API_TOKEN", token)
    monkeypatch.setenv("SCRAPING_API_URL", platform)
    assert main(["scrape", f"{site}/page", "--markdown", "--extract", "title=css:h1", "--output", "json"]) == 0
    scraped = json.loads(capsys.readouterr().out)
    assert scraped["statusCode"] == 200 and scraped["extracted_data"] == {"title": "Fixture page"}
    assert main(["scrape", f"{site}/page", "--markdown", "--output", "markdown"]) == 0
    assert "# Fixture page" in capsys.readouterr().out
    csv_file = tmp_path / "urls.csv"
    csv_file.write_text(f"url,custom_id\n{site}/page,a\n{site}/other,b\n")
    assert main(["collect", str(csv_file), "--markdown", "--output", "json"]) == 0
    collected = json.loads(capsys.readouterr().out)
    assert sorted(r["job"]["custom_id"] for r in collected["results"]) == ["a", "b"]
    assert main(["viability", f"{site}/page", "--output", "markdown"]) == 0
    assert f"| {site}/page |" in capsys.readouterr().out
    llms_file = tmp_path / "llms.txt"
    assert main(["llms-txt", f"{site}/page", "--max-depth", "1", "--max-pages", "2", "--out", str(llms_file)]) == 0
    assert llms_file.read_text().startswith("# ") and f"]({site}/other)" in llms_file.read_text()
    assert "1 pages listed of 2 scraped" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["scrape", f"{site}/page", "--extract", "no-selector"])
    assert "name=selector" in str(usage.value)
    monkeypatch.setenv("SCRAPING_API_TOKEN", "not-a-token")
    assert main(["scrape", f"{site}/page"]) == 1
    assert capsys.readouterr().err.startswith("scrapeapi: 401 ")


def test_reads_a_page_by_its_url_whole_and_in_token_windows(platform: str, site: str, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"{site}/page?format=csv&id=3"  # the target's own parameters, one named like an option: the SDK encodes the URL
    with ScrapingClient(token, platform) as client:
        whole = client.read(url)
        assert whole["statusCode"] == 200 and "# Fixture page" in (whole["markdown"] or "")
        assert client.last_usage.credits_charged == 1
        windows = list(client.read_windows(url, max_tokens=16))
        assert len(windows) > 2
        assert "".join(w["markdown"] or "" for w in windows) == whole["markdown"]
        for window in windows:
            assert window["content_window"]["tokens"] <= 16
            assert window["content_window"]["tokenizer"] == "o200k_base"
        assert windows[-1]["content_window"]["cursor"] is None
    base = ["--url", platform, "--token", token]
    assert main([*base, "read", url, "--max-tokens", "16"]) == 0
    shown = capsys.readouterr()
    assert whole["markdown"] and whole["markdown"].startswith(shown.out) and shown.out != whole["markdown"]
    assert "--cursor" in shown.err
    assert main([*base, "read", url, "--max-tokens", "16", "--all"]) == 0
    assert capsys.readouterr().out == whole["markdown"]


def test_the_command_line_flags_users_reach_for(platform: str, site: str, token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --token and --url beside the environment; --main-content, --format, --json, --out, --extract-all.
    base = ["--url", platform, "--token", token]
    out = tmp_path / "page.md"
    assert main([*base, "scrape", f"{site}/page", "--main-content", "--output", "markdown", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text(encoding="utf-8").startswith(f"## {site}/page\n\nstatus 200\n\n# Fixture page")
    assert main([*base, "scrape", f"{site}/page", "--format", "markdown", "--extract", "title=css:h1", "--extract-all", "paragraphs=css:p", "--json"]) == 0
    scraped = json.loads(capsys.readouterr().out)
    assert scraped["markdown"] and scraped["extracted_data"]["title"] == "Fixture page"
    assert len(scraped["extracted_data"]["paragraphs"]) == 2
    # A target's error page is no content: said so, not printed, and the exit status says it failed.
    assert main([*base, "scrape", f"{site}/status/404", "--output", "markdown"]) == 1
    printed = capsys.readouterr().out
    assert "failed: status 404" in printed and "status page" not in printed
    every_failed = tmp_path / "gone.csv"
    every_failed.write_text(f"{site}/status/404\n{site}/status/410\n")
    assert main([*base, "collect", str(every_failed), "--output", "markdown"]) == 1
    printed = capsys.readouterr().out
    assert printed.count("failed: status 4") == 2 and "status page" not in printed


def test_every_command_shows_examples_in_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in [[], ["read"], ["scrape"], ["collect"], ["viability"], ["monitor"], ["changes"], ["convert"]]:
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        shown = capsys.readouterr().out
        assert "examples:" in shown and "scrapeapi " in shown.split("examples:")[1], command
