"""A test that skips, as a GPU test does without a GPU: check_require_gpu.py
runs it with and without EXACTUNE_REQUIRE_GPU=1."""

import pytest


def test_skips_like_a_gpu_test_without_a_gpu():
    pytest.skip("probe: no GPU here")
