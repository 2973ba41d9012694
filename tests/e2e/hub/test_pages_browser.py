"""kernel-hub's web pages in a real browser (docs/hub-pages.md): Debian's chromium, headless,
driven by Selenium through /usr/bin/chromedriver. The index and its search, a repository page
(its name as the one top heading, card, versions with their variants, variant table with digest
status, benchmark chart and tables, tables that scroll on a narrow screen), hostile content
rendered as text, and a private repository invisible to an anonymous visitor."""
import json
import shutil
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from attacker import Server, file_op  # noqa: E402
from benchmark_documents import result, run_document  # noqa: E402

CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = shutil.which("chromium")

pytestmark = pytest.mark.skipif(CHROMIUM is None or not CHROMEDRIVER.exists(),
                                reason="Debian's chromium and chromium-driver are not installed (scripts/install-deps)")

H100 = "NVIDIA H100 80GB HBM3"
HOSTILE = "<img src=x onerror=\"window.__pwned=1\">"
GOOD = "torch211-cxx11-cpu-x86_64-linux"
TAMPERED = "torch214-cxx11-cpu-x86_64-linux"
CARD = (b"---\nlicense: apache-2.0\ntags: [kernel]\n---\n# Relu kernels\n\nFast **ReLU**.\n\n"
        b"<script>window.__pwned = 1</script>\n\n[click](javascript:window.__pwned=1)\n")


def post_run(actor, repo_id, document):
    answer = actor.post(f"/api/kernels/{repo_id}/benchmarks", data=json.dumps(document),
                        headers={"Content-Type": "application/json"})
    assert answer.status_code == 201, answer.text
    return answer.json()


class Site:
    """acme/relu (public: card, two variants, one of them with a file that does not match its
    digest, branches main and v1, three benchmark runs on two kinds of hardware), acme/gelu
    (public, empty) and acme/secret (private, with a benchmark run)."""

    def __init__(self, server: Server, variant_tree, tmp_path: Path):
        self.server = server
        server.add_org("acme")
        alice = server.actor(server.add_user("alice", "acme"))
        files = variant_tree(tmp_path / "relu", variants=(GOOD, TAMPERED))
        files[f"build/{TAMPERED}/_ops.py"] = b"ops = 'changed after hashing'\n"
        files["README.md"] = CARD
        for repo, private in (("acme/relu", False), ("acme/gelu", False), ("acme/secret", True)):
            assert alice.create_repo(repo, repo_type="kernel", private=private).status_code == 200
        answer = alice.commit("acme/relu", [file_op(p, d) for p, d in sorted(files.items())], repo_type="kernel")
        assert answer.status_code == 200, answer.text
        assert alice.create_branch("acme/relu", "v1", repo_type="kernel").status_code == 200
        assert alice.commit("acme/secret", [file_op("README.md", b"# Secret\n")], repo_type="kernel").status_code == 200

        self.runs = [
            post_run(alice, "acme/relu", run_document("acme/relu")),
            post_run(alice, "acme/relu", run_document("acme/relu", revision="v1", results=[
                result("ReluBenchmark", "small", 0.019), result("ReluBenchmark", "large", 0.398),
                result("ReluBenchmark", HOSTILE, 1.5)])),
            post_run(alice, "acme/relu", run_document("acme/relu", gpu=None, results=[
                result("ReluBenchmark", "small", 0.35)])),
        ]
        post_run(alice, "acme/secret", run_document("acme/secret", gpu="Secret GPU 9000"))
        listed = alice.get("/api/kernels/acme/relu/benchmarks").json()["runs"]
        self.labels = {run["id"]: run["revision"][:7] + " · " + run["uploaded_at"][:16].replace("T", " ") + " UTC"
                       for run in listed}


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,2000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture
def site(kernel_hub, tmp_path, variant_tree):
    server = Server(kernel_hub, tmp_path / "root")
    yield Site(server, variant_tree, tmp_path)
    server.stop()


def rows(driver, selector, attribute):
    from selenium.webdriver.common.by import By
    return [row.get_attribute(attribute) for row in driver.find_elements(By.CSS_SELECTOR, selector)]


def wait_for_url(driver, predicate, timeout=10):
    """Waits until the page the browser navigated to (after a click or a form submission) is the
    current one: selenium returns from click()/send_keys() before the new page has loaded."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, timeout).until(lambda d: predicate(urlparse(d.current_url)))
    return urlparse(driver.current_url)


def assert_no_policy_violation(driver):
    """The page's stylesheet is admitted by its Content-Security-Policy: the browser reports no
    violation, and the style applies."""
    from selenium.webdriver.common.by import By
    messages = [entry["message"] for entry in driver.get_log("browser")]
    assert not [m for m in messages if "Content Security Policy" in m], messages
    assert driver.find_element(By.TAG_NAME, "header").value_of_css_property("display") == "flex"


def test_index_search_and_repository_page(site, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(site.server.url + "/")
    assert browser.title == "Repositories · kernel-hub"
    assert rows(browser, "tr[data-repo]", "data-repo") == ["acme/gelu", "acme/relu"]
    assert_no_policy_violation(browser)

    box = browser.find_element(By.CSS_SELECTOR, "input[type=search]")
    box.send_keys("REL" + Keys.ENTER)
    assert parse_qs(wait_for_url(browser, lambda url: url.query != "").query) == {"search": ["REL"]}
    assert rows(browser, "tr[data-repo]", "data-repo") == ["acme/relu"]
    assert browser.find_element(By.CSS_SELECTOR, "tr[data-repo] td:nth-child(2)").text == "v1"

    browser.find_element(By.LINK_TEXT, "acme/relu").click()
    assert wait_for_url(browser, lambda url: url.path != "/").path == "/acme/relu"
    assert browser.find_element(By.TAG_NAME, "h1").text == "acme/relu"
    assert_no_policy_violation(browser)

    # The card: Markdown rendered, front matter left out, raw HTML and javascript: links inert.
    card = browser.find_element(By.CSS_SELECTOR, "#card .card")
    # The repository's name is the page's one top heading; the card's `#` heading comes under it.
    assert [h.text for h in browser.find_elements(By.TAG_NAME, "h1")] == ["acme/relu"]
    assert card.find_element(By.TAG_NAME, "h2").text == "Relu kernels"
    assert card.find_element(By.TAG_NAME, "strong").text == "ReLU"
    assert "license" not in card.text
    assert card.find_elements(By.TAG_NAME, "script") == []
    assert not (card.find_element(By.LINK_TEXT, "click").get_attribute("href") or "").startswith("javascript")

    # The variant table: one row per build/<variant>/, the tampered one failing its digest.
    assert rows(browser, "#variants tr[data-variant]", "data-variant") == [GOOD, TAMPERED]
    good = browser.find_element(By.CSS_SELECTOR, f"tr[data-variant='{GOOD}']")
    cells = [cell.text for cell in good.find_elements(By.TAG_NAME, "td")]
    assert cells[1:6] == ["cpu", "Torch 2.11", "CPU", "x86_64-linux", ""]
    assert cells[6] == "4" and cells[8] == "verified"
    tampered = browser.find_element(By.CSS_SELECTOR, f"tr[data-variant='{TAMPERED}'] td:last-child")
    assert tampered.text == "mismatch"
    assert "_ops.py" in tampered.get_attribute("title")

    # Benchmarks: one section per hardware, newest hardware first; the H100 chart has one series
    # per run with a bar per case, drawn (non-empty boxes) by the browser.
    hardware = rows(browser, "section.hardware", "data-hardware")
    assert hardware == ["AMD EPYC 9654", H100]
    chart = browser.find_element(By.CSS_SELECTOR, f"section.hardware[data-hardware='{H100}'] svg.chart")
    series = chart.find_elements(By.CSS_SELECTOR, "g.series")
    assert [s.get_attribute("data-series") for s in series] == [site.labels[site.runs[0]["id"]],
                                                                 site.labels[site.runs[1]["id"]]]
    first_bars = {bar.get_attribute("data-case"): bar.get_attribute("data-value")
                  for bar in series[0].find_elements(By.CSS_SELECTOR, "rect.bar")}
    assert first_bars == {"ReluBenchmark.small": "0.021", "ReluBenchmark.large": "0.412"}
    second_bars = [bar.get_attribute("data-case") for bar in series[1].find_elements(By.CSS_SELECTOR, "rect.bar")]
    assert second_bars == ["ReluBenchmark.small", "ReluBenchmark.large", "ReluBenchmark." + HOSTILE]
    assert all(bar.size["width"] > 0 and bar.size["height"] > 0
               for bar in series[0].find_elements(By.CSS_SELECTOR, "rect.bar"))
    # The hostile case name is text in the table, never markup.
    table = browser.find_element(By.CSS_SELECTOR, f"section.hardware[data-hardware='{H100}'] table")
    assert HOSTILE in table.text
    assert browser.find_elements(By.CSS_SELECTOR, "img[src=x]") == []
    assert browser.execute_script("return window.__pwned === undefined")

    cpu_chart = browser.find_element(By.CSS_SELECTOR, "section.hardware[data-hardware='AMD EPYC 9654'] svg.chart")
    assert [s.get_attribute("data-series") for s in cpu_chart.find_elements(By.CSS_SELECTOR, "g.series")] == [
        site.labels[site.runs[2]["id"]]]

    # Versions: each listed with its variants; v1 links to that branch's view.
    version = browser.find_element(By.CSS_SELECTOR, "#versions tr[data-version='v1']")
    assert version.find_elements(By.TAG_NAME, "td")[1].text.split("\n") == [GOOD, TAMPERED]

    # On a narrow screen the wide tables scroll inside their box; the page itself does not widen.
    browser.set_window_size(480, 2000)
    try:
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        variants = browser.find_element(By.CSS_SELECTOR, "#variants table")
        assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", variants)
    finally:
        browser.set_window_size(1280, 2000)

    browser.find_element(By.CSS_SELECTOR, "#revisions").find_element(By.LINK_TEXT, "v1").click()
    assert parse_qs(wait_for_url(browser, lambda url: "revision" in url.query).query) == {"revision": ["v1"]}
    assert "Showing v1" in browser.find_element(By.ID, "revisions").text


def test_private_repository_is_invisible_to_an_anonymous_visitor(site, browser):
    from selenium.webdriver.common.by import By

    browser.get(site.server.url + "/")
    assert "acme/secret" not in rows(browser, "tr[data-repo]", "data-repo")
    assert "secret" not in browser.find_element(By.TAG_NAME, "main").text
    browser.get(site.server.url + "/?search=secret")
    assert rows(browser, "tr[data-repo]", "data-repo") == []

    # Its page is the same not-found page as a repository that does not exist.
    browser.get(site.server.url + "/acme/secret")
    private_page = browser.find_element(By.TAG_NAME, "main").text
    assert browser.find_element(By.TAG_NAME, "h1").text == "Not found"
    assert "Secret GPU 9000" not in browser.page_source
    browser.get(site.server.url + "/acme/nothing-here")
    assert browser.find_element(By.TAG_NAME, "main").text == private_page
