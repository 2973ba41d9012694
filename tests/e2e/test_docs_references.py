"""The repository carries its own documentation: every `docs/….md` that a source, test, script or
page cites exists, every relative link of README.md and docs/ leads to a file (and heading) that
exists, and nothing cites a specification outside the repository (the shared spec folder, a bare
spec file name such as `loader.md §9`) or an issue number instead of a docs/ page."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Where sources, tests, scripts and pages live (build outputs and environments are elsewhere).
TREES = ["src", "python", "tests", "scripts", "bench", "fuzz", "cmake", "templates", "examples", "docs", "data",
         "requirements", ".ci", "packaging"]
FILES = ["README.md", "ARCHITECTURE.md", "CMakeLists.txt", "pytest.ini", "conftest.py", "pyproject.toml"]
SKIP_DIRS = {"__pycache__", "build", ".git", "node_modules"}
DOCS_REFERENCE = re.compile(r"(?<![\w.-])docs/[\w./-]+?\.md")
SPEC_NAMES = "loader|cli|variants|build-output|build-toml|abi-check|hub-api"
BARE_SPEC_CITATION = re.compile(r"(?<![\w/.-])(?:" + SPEC_NAMES + r")\.md\b")
ISSUE = re.compile(r"\bissue [0-9]")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE_SPEC = "shared" + "/spec"  # spelt in two parts so that this file does not cite it


def text_files():
    for name in FILES:
        if (REPO / name).is_file():
            yield REPO / name
    for tree in TREES:
        for path in sorted((REPO / tree).rglob("*")):
            if path.is_file() and not SKIP_DIRS & set(path.relative_to(REPO).parts):
                data = path.read_bytes()
                if b"\0" not in data[:8192]:
                    yield path


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def this_file(path: Path) -> bool:
    return path.resolve() == Path(__file__).resolve()


def test_every_cited_docs_page_exists():
    missing = {(str(p.relative_to(REPO)), ref) for p in text_files() for ref in DOCS_REFERENCE.findall(read(p))
               if not this_file(p) and not (REPO / ref).is_file()}
    assert not missing, sorted(missing)


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def test_links_of_the_readme_and_docs_lead_somewhere():
    broken = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in MARKDOWN_LINK.findall(read(page)):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not checked here
            file_part, _, anchor = target.partition("#")
            destination = (page.parent / file_part).resolve() if file_part else page
            if not destination.exists():
                broken.append((page.name, target))
            elif anchor and destination.suffix == ".md":
                headings = re.findall(r"^#+\s+(.*)$", read(destination), re.M)
                if anchor not in {slug(h) for h in headings}:
                    broken.append((page.name, target))
    assert not broken


def test_nothing_cites_a_specification_outside_the_repository_or_an_issue():
    found = []
    for path in text_files():
        if this_file(path):
            continue
        for number, line in enumerate(read(path).splitlines(), 1):
            if path.suffix == ".md":
                line = re.sub(r"\[[^\]]*\]\([^)]*\)", "", line)  # links: checked by the test above
            if OUTSIDE_SPEC in line or BARE_SPEC_CITATION.search(line) or ISSUE.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def test_the_readme_is_a_front_door():
    readme = read(REPO / "README.md")
    assert len(readme.encode()) <= 4096
    for command in ("scripts/demo", "scripts/test"):
        assert command in readme
