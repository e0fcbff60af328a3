"""A result cache on disk for experiment sweeps.

One file per unit of work (one experiment, one parameter point, one seed), keyed by a hash of
all parameters, the seed and the package version (``reproduce`` appends a fingerprint of the
numerics' source, :func:`companion.reproduce.code_fingerprint`), so that new code never reuses
old results. Files are ``.npz`` archives holding the result arrays, the metadata (parameters, seed,
version) and a SHA-256 checksum of the arrays. Writes are atomic (temporary file, fsync,
rename), so an interrupted sweep leaves either a complete entry or none; an entry that is
truncated, corrupted or does not match its key is detected, reported as a miss and
recomputed, never reused.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_jsonable)


def _jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot use {type(x).__name__} in a cache key")


def cache_key(experiment: str, params: dict, seed: int, version: str) -> str:
    """SHA-256 of the experiment id, every parameter, the seed and the package version."""
    payload = _canonical({"experiment": experiment, "params": params, "seed": int(seed),
                          "version": version})
    return hashlib.sha256(payload.encode()).hexdigest()


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(arr.dtype).encode())
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


class ResultCache:
    """Directory of cached unit results: ``root/<experiment>/<key>.npz``."""

    def __init__(self, root, version: str):
        self.root = Path(root)
        self.version = version

    def path(self, experiment: str, params: dict, seed: int) -> Path:
        return self.root / experiment / f"{cache_key(experiment, params, seed, self.version)}.npz"

    def load(self, experiment: str, params: dict, seed: int) -> dict | None:
        """The cached result, or ``None`` if missing, unreadable, corrupted or stale."""
        path = self.path(experiment, params, seed)
        if not path.exists():
            return None
        try:
            # the file opened here, so that it is closed even when NumPy fails to read it
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
                meta = json.loads(str(data["__meta__"]))
                arrays = {k: data[k] for k in data.files if k != "__meta__"}
        except Exception:  # noqa: BLE001 - any unreadable entry is a miss, never a crash
            return None
        expected = {"experiment": experiment, "params": json.loads(_canonical(params)),
                    "seed": int(seed), "version": self.version}
        if any(meta.get(k) != v for k, v in expected.items()):
            return None
        if meta.get("checksum") != _checksum(arrays):
            return None
        return arrays

    def store(self, experiment: str, params: dict, seed: int, result: dict) -> Path:
        """Write ``result`` (a dict of arrays or numbers) atomically."""
        arrays = {k: np.asarray(v) for k, v in result.items()}
        if "__meta__" in arrays:
            raise ValueError("a result may not use the name __meta__")
        for name, arr in arrays.items():
            if arr.dtype == object:
                raise TypeError(f"result {name!r} is an object array: store numbers or strings "
                                "(it could not be read back without pickle)")
        meta = {"experiment": experiment, "params": json.loads(_canonical(params)),
                "seed": int(seed), "version": self.version, "checksum": _checksum(arrays)}
        path = self.path(experiment, params, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        np.savez(buf, __meta__=np.array(json.dumps(meta)), **arrays)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(buf.getvalue())
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return path
