"""Input checks shared by the package: every bad input fails early with a message naming the
parameter, instead of a traceback from deep inside numpy or a silent wrong answer."""

from __future__ import annotations

import numbers
import os

import numpy as np


def positive_int(value, name: str) -> int:
    """Return ``value`` as an int if it is a positive integer (an integral float such as 2e3
    is accepted), else raise ``ValueError``."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer() and value > 0:
            return int(value)
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def seed_value(value, name: str = "seed") -> int:
    """Return ``value`` as an int if it is a non-negative integer (a seed of
    ``numpy.random.default_rng``), else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def seed_list(seeds) -> list[int]:
    """A seed count (``3`` -> 0, 1, 2) or an explicit list of non-negative integers."""
    out = [int(s) for s in (range(seeds) if isinstance(seeds, (int, np.integer)) else seeds)]
    if not out or any(s < 0 for s in out):
        raise ValueError(f"seeds must be a positive count or a non-empty list of non-negative "
                         f"integers, got {seeds!r}")
    return out


def alpha_exponent(value, name: str) -> float:
    """Step-size exponents live in [0, 1/2) (book: dv-paper-two-steps)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in [0, 1/2), got {value!r}")
    value = float(value)
    if not np.isfinite(value) or not (0.0 <= value < 0.5):
        raise ValueError(f"{name} must lie in [0, 1/2), got {value!r}")
    return value


def positive_real(value, name: str, allow_zero: bool = False) -> float:
    """A finite positive (or non-negative) real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        bound = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return float(value)


def finite_array(x, name: str, ndim: int) -> np.ndarray:
    """Return ``x`` as a floating array of the given rank with only finite values."""
    arr = np.asarray(x)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional array, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    # A sum is NaN or infinite if an entry is (or, rarely, if finite entries overflow it):
    # one pass without a temporary array (half the time of the entry-wise test, which would
    # allocate a boolean array of N x d), the entry-wise test only to confirm.
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(arr)
    if not np.isfinite(total) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def choice(value, name: str, options) -> str:
    """``value`` must be one of ``options`` (strings)."""
    if value not in options:
        raise ValueError(f"{name} must be one of {sorted(options)}, got {value!r}")
    return value


def dtype(value) -> np.dtype:
    """float64 (default) or float32: the only precisions the update supports."""
    try:
        dt = np.dtype(value)
    except TypeError as exc:
        raise ValueError(f"dtype must be float64 or float32, got {value!r}") from exc
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32, got {value!r}")
    return dt


def available_memory_bytes() -> int:
    """Memory this process may still use: MemAvailable from /proc/meminfo where it exists,
    else the physical memory size."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic platforms
        return 1 << 62


def check_fits_in_memory(n_bytes: int, what: str, fraction: float = 0.8) -> None:
    """Raise ``ValueError`` before allocating if ``n_bytes`` exceed ``fraction`` of the
    available memory."""
    available = available_memory_bytes()
    if n_bytes > fraction * available:
        raise ValueError(
            f"{what} needs about {n_bytes / 2**30:.1f} GiB but only "
            f"{available / 2**30:.1f} GiB of memory is available; reduce N, n or d"
        )
