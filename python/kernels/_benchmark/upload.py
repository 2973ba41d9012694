"""`--upload`: POST the run document to `{HF_ENDPOINT}/api/kernels/{repo_id}/benchmarks`
(docs/hub-benchmarks.md). The endpoint and token come from huggingface_hub (`constants.ENDPOINT`,
which honours HF_ENDPOINT; `get_token()`: HF_TOKEN or the stored login), its session and headers
make the request; the Hub's X-Error-Code and status decide the hint, never the message text."""
from __future__ import annotations

import json
from typing import List, Optional

MAX_BODY = 1 << 20


class UploadError(Exception):
    def __init__(self, message: str, causes: Optional[List[str]] = None, hints: Optional[List[str]] = None,
                 status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.causes = causes or []
        self.hints = hints or []
        self.status = status
        self.code = code


def _hints(status: int, code: Optional[str], repo_id: str) -> List[str]:
    if status == 401:
        return ["set HF_TOKEN to a token of this Hub, or log in with `hf auth login`"]
    if code in ("RepoNotFound", "RevisionNotFound") or status == 404:
        return [f"check that `{repo_id}` and the revision exist on this Hub and that your token can read them"]
    if status == 403:
        return [f"your token cannot read `{repo_id}`"]
    if status == 413:
        return [f"a run document is limited to {MAX_BODY} bytes: benchmark fewer cases"]
    return []


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
        raise UploadError(what, ["no Hugging Face token found"],
                          ["set HF_TOKEN, or log in with `hf auth login`"])
    body = json.dumps(document).encode("utf-8")
    if len(body) > MAX_BODY:
        raise UploadError(what, [f"the run document has {len(body)} bytes, more than {MAX_BODY}"],
                          _hints(413, None, repo_id))
    headers = build_hf_headers(token=token)
    headers["Content-Type"] = "application/json"
    try:
        response = get_session().post(url, content=body, headers=headers)
    except Exception as error:  # noqa: BLE001 - any transport failure (httpx or requests)
        raise UploadError(what, [str(error)], ["check HF_ENDPOINT and that the Hub is reachable"]) from error
    status = response.status_code
    if status != 201:
        code = response.headers.get("X-Error-Code")
        message = response.headers.get("X-Error-Message") or response.text[:300] or response.reason_phrase
        cause = f"HTTP {status}" + (f" {code}" if code else "") + f": {message}"
        raise UploadError(what, [cause], _hints(status, code, repo_id), status=status, code=code)
    try:
        answer = response.json()
        return {"id": str(answer["id"]), "revision": str(answer["revision"])}
    except (ValueError, KeyError, TypeError) as error:
        raise UploadError(what, [f"the Hub's answer is not {{\"id\", \"revision\"}}: {response.text[:200]}"]) from error
