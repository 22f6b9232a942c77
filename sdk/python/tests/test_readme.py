"""README's five-line Python example is examples/quickstart.py, and it runs: against the embedded
platform, with https://example.com standing for the local fixture site (as `npm run readme:examples`
does for the bash examples)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart.py"


def _readme_python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", (ROOT / "README.md").read_text(), flags=re.S | re.M)


def test_readme_shows_the_quickstart_in_five_lines() -> None:
    quickstart = QUICKSTART.read_text()
    assert quickstart in _readme_python_blocks()
    assert len(quickstart.strip().splitlines()) == 5


def test_the_quickstart_runs(platform: str, site: str, token: str) -> None:
    script = QUICKSTART.read_text().replace("https://example.com", site)
    env = {**os.environ, "SCRAPING_API_URL": platform, "SCRAPING_API_TOKEN": token}
    ran = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert "# Fixture page" in ran.stdout
    assert f"{site}/ 200" in ran.stdout and f"{site}/other 200" in ran.stdout
