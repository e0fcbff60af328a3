"""The quick loop's workers share the cores (tests/conftest.py): under pytest-xdist each
worker's BLAS runs as many threads as its share of the cores, not one per core."""

import os

import pytest
from threadpoolctl import threadpool_info

from companion.core.blas import threads_per_worker


def test_each_worker_blas_uses_its_share_of_the_cores():
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2:
        pytest.skip("not under pytest-xdist with several workers (make test-quick)")
    blas = [p for p in threadpool_info() if p["user_api"] == "blas"]
    assert blas, "threadpoolctl finds no BLAS library"
    assert {p["num_threads"] for p in blas} == {threads_per_worker(workers)}
