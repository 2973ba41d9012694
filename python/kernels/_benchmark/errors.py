"""The error `kernels benchmark` reports at its boundary: a message, the causes under it and
hints, with the peer's HTTP status and X-Error-Code as fields (the hint is chosen from those,
never from message text). The CLI prints `error:`, `Caused by:` and `hint:` lines."""
from __future__ import annotations

from typing import List, Optional


class BenchmarkError(Exception):
    def __init__(self, message: str, causes: Optional[List[str]] = None, hints: Optional[List[str]] = None,
                 status: Optional[int] = None, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.causes = causes or []
        self.hints = hints or []
        self.status = status
        self.code = code


def hub_hints(status: Optional[int], code: Optional[str], repo_id: str) -> List[str]:
    """Likely fixes for a Hub's refusal, from its status and error code."""
    if status == 401:
        return ["set HF_TOKEN to a token of this Hub, or log in with `hf auth login`"]
    if code in ("RepoNotFound", "RevisionNotFound", "EntryNotFound") or status == 404:
        return [f"check that `{repo_id}` and the revision exist on this Hub and that your token can read them"]
    if status == 403:
        return [f"your token cannot read `{repo_id}`"]
    if status == 413:
        return ["a run document is limited to 1 MiB: benchmark fewer cases"]
    return []


def from_hub_response(message: str, response, repo_id: str) -> BenchmarkError:
    """The error for a Hub's non-success answer (an httpx response)."""
    status = response.status_code
    code = response.headers.get("X-Error-Code")
    detail = response.headers.get("X-Error-Message") or response.text[:300] or response.reason_phrase
    cause = f"HTTP {status}" + (f" {code}" if code else "") + f": {detail}"
    return BenchmarkError(message, [cause], hub_hints(status, code, repo_id), status=status, code=code)
