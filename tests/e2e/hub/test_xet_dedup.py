"""Global chunk de-duplication through kernel-hub's Xet storage: a second revision of a 64 MiB
file that changes 1 % of it stores less than 10 % new bytes, measured on the server's storage
directory (everything under the Hub root), with the official client doing the uploads. The second
upload starts from an empty client cache, so what it skips it learns from the server's global
dedup answers."""
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from xet_support import CLIENTS, client_env, plain_get, run_client, xet_requests  # noqa: E402

MIB = 1024 * 1024


def stored_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("size", [
    60 * MIB,
    # hf_xet 1.8.0 packs 64 MiB of chunk data into one xorb and POSTs it with its chunk headers
    # (67116856 bytes for this file): over 64 MiB serialized, within kMaxXorbSize.
    64 * MIB,
])
def test_second_revision_changing_one_percent_stores_under_ten_percent(hub, tmp_path, size):
    token = hub.add_user("alice")
    env = client_env(hub, token, tmp_path / "home", CLIENTS["hf-1.33"])
    run_client(env, "create_repo", repo_id="alice/big", repo_type="model")
    rng = random.Random(1234)
    data = bytearray(rng.randbytes(size))
    folder = tmp_path / "v1"
    folder.mkdir()
    (folder / "model.bin").write_bytes(data)
    run_client(env, "upload_folder", repo_id="alice/big", repo_type="model", folder=str(folder))
    first = stored_bytes(hub.root)
    assert first >= size  # random data does not compress: the first revision is stored whole

    # 1 % of the bytes rewritten, in 16 places spread over the file (the first chunk kept: it is the
    # one chunk of every file that clients always ask the global dedup API about).
    changed = size // 100
    for i in range(16):
        start = (i * size) // 16 + 512 * 1024
        data[start:start + changed // 16] = rng.randbytes(changed // 16)
    folder2 = tmp_path / "v2"
    folder2.mkdir()
    (folder2 / "model.bin").write_bytes(data)
    # A fresh client cache: what it can skip, it learns from the server (global dedup).
    env2 = client_env(hub, token, tmp_path / "home2", CLIENTS["hf-1.33"])
    run_client(env2, "upload_folder", repo_id="alice/big", repo_type="model", folder=str(folder2))
    assert xet_requests(hub, "GET", "/v1/chunks/")  # global dedup queries
    new = stored_bytes(hub.root) - first
    print(f"first revision: {first} bytes stored; second (1 % changed): {new} new bytes = {100 * new / size:.2f} %")
    assert new < size // 10, f"{new} new bytes for a 1 % change of {size}"
    status, _, body = plain_get(f"{hub.url}/alice/big/resolve/main/model.bin", token)
    assert status == 200 and body == bytes(data)
