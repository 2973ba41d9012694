"""Repository pages of a kernel uploaded through Xet (hf_xet, as huggingface_hub's default install
does): its files exist only as xorbs, and the page still renders the card and checks every
variant's digest against the stored content (docs/hub-pages.md)."""
import hashlib
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from xet_support import client_env, run_client, xet_requests  # noqa: E402


def test_card_and_variant_digest_of_xet_stored_files(hub, tmp_path, variant_tree):
    hub.add_org("acme")
    token = hub.add_user("alice", "acme")
    env = client_env(hub, token, tmp_path / "home")
    run_client(env, "create_repo", repo_id="acme/relu", repo_type="kernel")
    files = variant_tree(tmp_path / "relu", variants=("torch-cpu",))
    (tmp_path / "relu" / "README.md").write_bytes(b"# Relu through Xet\n")
    files["README.md"] = b"# Relu through Xet\n"
    run_client(env, "xet_commit", repo_id="acme/relu", repo_type="kernel", revision="main",
               files={path: str(tmp_path / "relu" / path) for path in files})
    assert xet_requests(hub, "POST", "/v1/shards")
    sha = hashlib.sha256(files["build/torch-cpu/metadata.json"]).hexdigest()
    assert not (hub.root / "objects" / sha[:2] / sha).exists()  # only in xorbs

    with urllib.request.urlopen(hub.url + "/acme/relu") as response:
        page = response.read().decode()
    assert "<h2>Relu through Xet</h2>" in page  # the card, under the page's own <h1> (the repository name)
    row = page.split('<tr data-variant="torch-cpu">')[1].split("</tr>")[0]
    assert '<td class="status-verified">verified</td>' in row
