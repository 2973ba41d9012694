"""ARCHITECTURE.md's library graph is the real one: scripts/architecture-graph --check compares the
diagram with src/*/CMakeLists.txt and checks that no source includes a header of a library its own
library does not link; the paths the document names exist and its table rows fit one line."""
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "architecture-graph"


def check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--check", "--root", str(root)],
                          capture_output=True, text=True)


def copy_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(REPO / "src", root / "src")
    shutil.copy(REPO / "ARCHITECTURE.md", root / "ARCHITECTURE.md")
    for other in REPO.iterdir():  # the rest of the tree, which the document's paths also name
        if other.name not in ("src", "ARCHITECTURE.md") and not other.name.startswith("."):
            (root / other.name).symlink_to(other)
    return root


def test_the_checkout_keeps_its_graph():
    result = check(REPO)
    assert result.returncode == 0, result.stderr


def test_the_loader_does_not_link_the_publisher_nor_the_builder():
    graph = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True).stdout
    assert "kb_loader --> kb_hub_client" in graph
    assert not any(line.strip().startswith("kb_loader -->") and ("publish" in line or "builder" in line)
                   for line in graph.splitlines())


def test_an_include_across_the_layers_fails(tmp_path):
    root = copy_tree(tmp_path)
    (root / "src" / "loader" / "sneaky.h").write_text('#include "hub/publish/uploader.h"\n')
    result = check(root)
    assert result.returncode == 1
    assert ("layering: src/loader/sneaky.h (kb_loader) includes hub/publish/uploader.h of kb_hub_publish, "
            "which kb_loader does not link") in result.stderr


def test_a_stale_diagram_fails(tmp_path):
    root = copy_tree(tmp_path)
    cmake = root / "src" / "loader" / "CMakeLists.txt"
    cmake.write_text(cmake.read_text().replace("PUBLIC kb_hub_client", "PUBLIC kb_hub_publish kb_hub_client"))
    result = check(root)
    assert result.returncode == 1
    assert "ARCHITECTURE.md's library graph differs" in result.stderr


def test_a_path_the_document_names_must_exist(tmp_path):
    root = copy_tree(tmp_path)
    doc = root / "ARCHITECTURE.md"
    doc.write_text(doc.read_text() + "\n| Where is the gone thing? | `src/loader/gone.*` |\n")
    result = check(root)
    assert result.returncode == 1
    assert "`src/loader/gone.*` does not exist" in result.stderr


def test_a_table_row_longer_than_one_line_fails(tmp_path):
    root = copy_tree(tmp_path)
    doc = root / "ARCHITECTURE.md"
    row = "| A long question? | `src/loader/` " + "and more detail " * 10 + "|"
    doc.write_text(doc.read_text() + "\n" + row + "\n")
    result = check(root)
    assert result.returncode == 1
    assert f"a table row of {len(row)} characters (at most 160" in result.stderr
