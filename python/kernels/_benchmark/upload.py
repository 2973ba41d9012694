"""`--upload`: POST the run document to `{HF_ENDPOINT}/api/kernels/{repo_id}/benchmarks`
(docs/hub-benchmarks.md). The endpoint and token come from huggingface_hub (`constants.ENDPOINT`,
which honours HF_ENDPOINT; `get_token()`: HF_TOKEN or the stored login), its session and headers
make the request; the Hub's X-Error-Code and status decide the hint, never the message text."""
from __future__ import annotations

import json
from kernels._benchmark.errors import BenchmarkError, from_hub_response, hub_hints

MAX_BODY = 1 << 20


def upload(document: dict) -> dict:
    """Post the document; returns the Hub's answer `{"id", "revision"}`."""
    from huggingface_hub import constants, get_token
    from huggingface_hub.utils import build_hf_headers, get_session

    repo_id = document["kernel"]["repo_id"]
    endpoint = constants.ENDPOINT.rstrip("/")
    url = f"{endpoint}/api/kernels/{repo_id}/benchmarks"
    what = f"Cannot upload the benchmark results of `{repo_id}` to {endpoint}"
    token = get_token()
    if not token:
        raise BenchmarkError(what, ["no Hugging Face token found"],
                          ["set HF_TOKEN, or log in with `hf auth login`"])
    body = json.dumps(document).encode("utf-8")
    if len(body) > MAX_BODY:
        raise BenchmarkError(what, [f"the run document has {len(body)} bytes, more than {MAX_BODY}"],
                          hub_hints(413, None, repo_id))
    headers = build_hf_headers(token=token)
    headers["Content-Type"] = "application/json"
    try:
        response = get_session().post(url, content=body, headers=headers)
    except Exception as error:  # noqa: BLE001 - any transport failure (httpx or requests)
        raise BenchmarkError(what, [str(error)], ["check HF_ENDPOINT and that the Hub is reachable"]) from error
    if response.status_code != 201:
        raise from_hub_response(what, response, repo_id)
    try:
        answer = response.json()
        return {"id": str(answer["id"]), "revision": str(answer["revision"])}
    except (ValueError, KeyError, TypeError) as error:
        raise BenchmarkError(what, [f"the Hub's answer is not {{\"id\", \"revision\"}}: {response.text[:200]}"]) from error
