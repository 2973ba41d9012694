"""Publisher trust (docs/concepts.md). A positive verdict is remembered for an hour in the cache
(`.kernels-trust/<org>`), so warm loads do not pay an organisation-overview request each time;
negative verdicts and errors are never remembered."""
from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import List, Optional, Union

from kernels import _core
from kernels._env import cache_root_arg, is_offline

TRUST_TTL_SECONDS = 3600


def _marker(org: str) -> Path:
    root = cache_root_arg() or _core.cache_root()
    return Path(root) / ".kernels-trust" / org


def check_trust(repo_id: str, trust_remote_code: Union[bool, List[str]], user_agent: str = "", *,
                offline: Optional[bool] = None) -> None:
    """Refuse (`ValueError`) a repository whose publisher is not trusted, unless `trust_remote_code`
    is True or a list of repository ids that names it. Offline (`offline`, default: HF_HUB_OFFLINE),
    trust cannot be checked: the cached kernel was trusted when it was downloaded."""
    _core.check_repo_id(repo_id)  # the organisation names a marker file and a URL
    if trust_remote_code is True:
        return
    if isinstance(trust_remote_code, list) and repo_id in trust_remote_code:
        return
    if is_offline() if offline is None else offline:
        warnings.warn(
            f"Skipping publisher trust check for '{repo_id}' because Hugging Face Hub is in offline mode.",
            UserWarning,
            stacklevel=3,
        )
        return
    org = repo_id.split("/")[0]
    marker = _marker(org)
    try:
        if time.time() - marker.stat().st_mtime < TRUST_TTL_SECONDS:
            return
    except OSError:
        pass
    try:
        trusted = _core.trusted_publisher(org, user_agent)
    except Exception as e:  # noqa: BLE001 - any error means "could not verify"
        raise ValueError(
            f"Kernel repository '{repo_id}' could not verify publisher trust status. Set "
            "trust_remote_code=True or add the repository id to the trust_remote_code list to allow loading "
            "kernels from untrusted sources."
        ) from e
    if not trusted:
        raise ValueError(
            f"Kernel repository '{repo_id}' is not from a trusted publisher. Set trust_remote_code=True or "
            "add the repository id to the trust_remote_code list to allow loading kernels from untrusted sources. "
            f"On a kernel-hub you run, trust the organization with `kernel-hub org add {org} --trusted --root <HUB_DIR>`."
        )
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_name(f".{org}.{os.getpid()}")
        tmp.write_text("trusted")
        os.replace(tmp, marker)
    except OSError:
        pass
