"""The official-client matrix against kernel-hub (docs/hub-xet.md, "Official clients"):
huggingface_hub 1.0, 1.33 and 2.4 with hf_xet 1.0, 1.6 and 1.8, each pair in its own venv
(client_matrix.py install; scripts/install-deps creates them), uploading and downloading files of
0 B, 1 B, 500 B and 5 MB through Xet and through plain LFS, each pair and mode under a time limit
so that a hang fails. The 300 MB case: scripts/hub-client-matrix. The matrix is printed (run with
-s) and recorded as a test property."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import client_matrix  # noqa: E402

LIMIT = 120  # seconds for one pair's round trip in one mode; these files take 2-5 s
RESULTS = []


@pytest.fixture(scope="module")
def matrix_hub(kernel_hub, tmp_path_factory):
    import attacker
    server = attacker.Server(kernel_hub, tmp_path_factory.mktemp("matrix") / "root")
    server.add_org("matrix")
    token = server.add_user("runner", "matrix")
    folder = tmp_path_factory.mktemp("matrix-files")
    files = client_matrix.make_files(folder, client_matrix.SMALL_SIZES)
    yield server, token, folder, files
    server.stop()


@pytest.mark.parametrize("mode", ["xet", "lfs"])
@pytest.mark.parametrize("pair", client_matrix.PAIRS, ids=[client_matrix.pair_id(*p) for p in client_matrix.PAIRS])
def test_pair_round_trip(matrix_hub, tmp_path, pair, mode):
    hub, xet = pair
    if not client_matrix.ready(hub, xet):
        pytest.fail(f"venv {client_matrix.pair_id(hub, xet)} missing: python {client_matrix.__file__} install")
    server, token, folder, files = matrix_hub
    declared = client_matrix.declared(hub, xet)
    result = client_matrix.run_pair(server.url, token, hub, xet, mode, folder, files, tmp_path, LIMIT)
    if mode == "xet" and not declared:
        # huggingface_hub itself refuses an hf_xet older than it declares (an ImportError or "install
        # hf_xet"); what is checked here is that nothing hangs and LFS still works for the pair.
        result["note"] = f"hf_xet {xet} is outside huggingface_hub {hub}'s declared range: the client refuses"
        RESULTS.append(result)
        assert result["seconds"] < LIMIT, result["failures"]
        return
    RESULTS.append(result)
    assert not result["failures"], "\n".join(result["failures"])
    assert result["seconds"] < LIMIT


def test_matrix_table(record_property):
    """Runs after the pairs: the matrix as a table (pytest -s shows it)."""
    if not RESULTS:
        pytest.skip("no pair ran")
    table = client_matrix.table(RESULTS)
    print("\n" + table)
    record_property("client_matrix", table)
