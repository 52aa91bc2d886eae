"""The audit console in a real browser: Debian's headless Chromium driven by Selenium, against
`memguard console` running as a real process on the demo's state.

The story of the issue: run the demo, open the console, go from a fact the planner wrote after
recalling the web page to that poisoned page (by mouse and by keyboard), preview revoking its
domain, and see another user's view refuse alice's fact. Screenshots go to `.ci/artifacts/`
(`MEMGUARD_ARTIFACTS` elsewhere). Without Chromium, chromedriver or Selenium the test is skipped
with the reason; CI sets `MEMGUARD_REQUIRE_BROWSER=1` so that it fails instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(
    os.environ.get("MEMGUARD_ARTIFACTS", Path(__file__).resolve().parent.parent / ".ci" / "artifacts")
)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1100")  # fmt: skip

pytestmark = pytest.mark.slow


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo's state, and `memguard console` on it; yields the one-time sign-in URL."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("MEMGUARD_REQUIRE_BROWSER") == "1":
            pytest.fail(f"MEMGUARD_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("browser")
    state = work / "state"
    demo = subprocess.run([sys.executable, "-m", "memguard", "demo", "--state-dir", str(state)],
                          cwd=work, capture_output=True, text=True, timeout=180, check=False)  # fmt: skip
    assert demo.returncode == 0, demo.stderr[-2000:]
    proc = subprocess.Popen(
        [sys.executable, "-m", "memguard", "console", "--state-dir", str(state)], cwd=work,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        url = None
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            match = re.search(r"(http://127\.0\.0\.1:\d+/signin\?code=[\w-]+)", line)
            url = match.group(1) if match else None
        assert url, proc.stderr.read() if proc.stderr else "no sign-in link"
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(console: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


def _titled(driver: Any, prefix: str) -> None:
    """Wait for the navigation a click started to land on a page titled ``prefix...``."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 15).until(lambda d: d.title.startswith(prefix), message=prefix)


def _no_script_errors(driver: Any, *, network: bool = True) -> None:
    """No JS error or CSP violation (and, with ``network``, no failed load) since the last call."""
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
              and (network or e["source"] != "network")]  # fmt: skip
    assert not severe, severe


def test_from_a_recalled_fact_to_its_poisoned_source_and_a_revocation_preview(
    browser: Any, console: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    d = browser
    d.get(console)
    _titled(d, "Choose a principal")
    d.find_element(By.CSS_SELECTOR, "#pick button[type=submit]").click()  # alice, the first owner
    _titled(d, "Facts")
    assert d.find_element(By.ID, "principal").text == "alice"
    assert len(d.find_elements(By.CSS_SELECTOR, "a.fact-link")) == 4  # alice's four; bob's none
    # the facts the revocation holds: the page and the planner's summary written from it
    Select(d.find_element(By.ID, "f-state")).select_by_value("quarantined")
    d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(d, 15).until(lambda x: "state=quarantined" in x.current_url)
    rows = d.find_elements(By.CSS_SELECTOR, "table.facts tbody tr")
    assert len(rows) == 2 and all("QUARANTINED" in r.text for r in rows)
    summary_row = next(r for r in rows if "agent_inference" in r.text)
    summary_row.find_element(By.CSS_SELECTOR, "a.fact-link").click()
    _titled(d, "Fact ")
    summary_id = d.find_element(By.ID, "fact-id").text

    # the lineage graph: the summary, the three facts its turn had read, one edge from each
    nodes = d.find_elements(By.CSS_SELECTOR, "#lineage-graph .node")
    edges = d.find_elements(By.CSS_SELECTOR, "#lineage-graph path.edge")
    assert len(nodes) == 4 and len(edges) == 3
    by_id = {n.get_attribute("data-fact-id"): n for n in nodes}
    assert by_id[summary_id].get_attribute("data-role") == "focus"
    web = next(n for n in nodes if "web" in n.get_attribute("aria-label"))
    web_id = web.get_attribute("data-fact-id")
    assert web.get_attribute("data-trust") == "untrusted"
    assert web.get_attribute("data-quarantined") == "true"
    links = {(e.get_attribute("data-from"), e.get_attribute("data-to"), e.get_attribute("data-kind"))
             for e in edges}  # fmt: skip
    assert (web_id, summary_id, "derived") in links
    assert {t for _, t, _ in links} == {summary_id}
    assert sum(k == "context" for _, _, k in links) == 2
    # pan and zoom change the view
    viewport = d.find_element(By.CSS_SELECTOR, ".graph-viewport")

    def view() -> list[float]:
        box = d.execute_script(
            "return document.getElementById('lineage-graph').getAttribute('viewBox')")
        return [float(v) for v in box.split()]

    before = view()
    d.find_element(By.CSS_SELECTOR, "button[data-graph=in]").click()
    zoomed = view()
    assert zoomed[2] < before[2]  # narrower: zoomed in
    viewport.send_keys(Keys.ARROW_RIGHT)
    assert view()[0] > zoomed[0]  # panned right
    viewport.send_keys("0")
    assert view() == before
    d.execute_script("document.getElementById('h-graph').scrollIntoView()")
    shot = _shot(d, "console-fact.png")
    assert shot.stat().st_size > 10_000

    # by keyboard: Tab from the graph's viewport reaches the page's node; Enter opens it
    viewport.click()
    for _ in range(6):
        d.switch_to.active_element.send_keys(Keys.TAB)
        if d.switch_to.active_element.get_attribute("data-fact-id") == web_id:
            break
    assert d.switch_to.active_element.get_attribute("data-fact-id") == web_id
    d.switch_to.active_element.send_keys(Keys.ENTER)
    _titled(d, f"Fact {web_id[:8]}")
    assert d.find_element(By.ID, "fact-id").text == web_id
    prov = d.find_element(By.CSS_SELECTOR, "dl.prov").text
    assert "web https://lisbon-travel-tips.example/may" in prov
    assert "spiffe://memguard.local/agent/browser" in d.find_element(By.ID, "writer-chain").text

    # the revocation preview of the page's domain: the page and the summary, nothing changed
    d.find_element(By.CSS_SELECTOR, "a.preview-link[data-kind=domain]").click()
    _titled(d, "Revocation preview")
    ids = {a.get_attribute("data-fact-id") for a in d.find_elements(By.CSS_SELECTOR, "a.fact-link")}
    assert ids == {web_id, summary_id}
    assert "already quarantined" in d.find_element(By.CSS_SELECTOR, "table.facts").text
    assert d.find_element(By.ID, "reason").get_attribute("required") == "true"
    _shot(d, "console-preview.png")
    _no_script_errors(d)

    # another user's view: bob is refused alice's page
    d.get(console.split("/signin")[0] + "/signin/pick")
    d.find_element(By.CSS_SELECTOR, "input[name=subject][value=bob]").click()
    d.find_element(By.CSS_SELECTOR, "#pick button[type=submit]").click()
    _titled(d, "Facts")
    assert d.find_element(By.ID, "principal").text == "bob"
    assert web_id not in d.page_source
    d.get(console.split("/signin")[0] + f"/facts/{web_id}")
    _titled(d, "Not found")
    refusal = d.find_element(By.ID, "refusal")
    assert "outside your scope" in refusal.text
    _shot(d, "console-refusal.png")
    _no_script_errors(d, network=False)  # the refusal page itself is a 404


def test_skip_link_and_keyboard_shortcuts(browser: Any, console: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = browser
    base = console.split("/signin")[0]
    d.get(f"{base}/health")
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    skip = d.switch_to.active_element
    assert skip.text == "Skip to main content"
    skip.send_keys(Keys.ENTER)
    assert d.switch_to.active_element.get_attribute("id") == "main"
    d.switch_to.active_element.send_keys("g")
    d.switch_to.active_element.send_keys("f")
    _titled(d, "Facts")
    d.find_element(By.TAG_NAME, "body").send_keys("/")
    assert d.switch_to.active_element.get_attribute("id") == "f-source"
    assert shutil.which(CHROMIUM) or Path(CHROMIUM).exists()


def test_scanner_verdicts_in_the_list_and_on_the_fact_page(browser: Any, console: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    d = browser
    d.get(console.split("/signin")[0] + "/signin/pick")
    d.find_element(By.CSS_SELECTOR, "input[name=subject][value=alice]").click()
    d.find_element(By.CSS_SELECTOR, "#pick button[type=submit]").click()
    _titled(d, "Facts")
    # the demo ran the built-in scanner on every write: alice's facts all carry a verdict
    Select(d.find_element(By.ID, "f-scan")).select_by_value("unscanned")
    d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    WebDriverWait(d, 15).until(lambda x: "scan=unscanned" in x.current_url)
    assert d.find_elements(By.CSS_SELECTOR, "a.fact-link") == []
    Select(d.find_element(By.ID, "f-scan")).select_by_value("clean")
    d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    WebDriverWait(d, 15).until(lambda x: "scan=clean" in x.current_url)
    rows = d.find_elements(By.CSS_SELECTOR, "table.facts tbody tr")
    assert rows and all(r.find_element(By.CSS_SELECTOR, "td.scan").text == "clean" for r in rows)
    rows[0].find_element(By.CSS_SELECTOR, "a.fact-link").click()
    _titled(d, "Fact ")
    assert d.find_element(By.ID, "scan-label").text == "clean"
    assert d.find_element(By.ID, "scan-scanner").text == "memguard.rules+memguard.model"  # the embedded default's scanners
    assert d.find_element(By.ID, "scan-effect").text == "no cap"
    verdict = d.find_element(By.ID, "scanner-verdict")
    d.execute_script("arguments[0].scrollIntoView()", verdict)
    _shot(d, "console-scan-verdict.png")
    # the "flagged" filter lists no clean fact. (The demo's quiet planted "fact", the /may page, was
    # flagged suspicious by trained scanners 2-5; version 6 scores it 0.67, under its 0.914
    # threshold, and the demo's injected page is not in her list: so the demo leaves alice no
    # flagged fact. How a flagged verdict and its cap render: tests/test_console_scan.py.)
    d.back()
    Select(d.find_element(By.ID, "f-scan")).select_by_value("flagged")
    d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    WebDriverWait(d, 15).until(lambda x: "scan=flagged" in x.current_url)
    labels = [c.text for c in d.find_elements(By.CSS_SELECTOR, "table.facts tbody td.scan")]
    assert "clean" not in labels, labels
    _no_script_errors(d)
