"""pytest, for every test folder of the repository (pytest.ini marks the root).

EXACTUNE_REQUIRE_GPU=1 (ci/gpu.sh sets it) turns every skip into a failure:
on the GPU machine a skipped cross-check (no GPU seen, no library path given)
must not read as a pass.
"""

import os

import pytest


def _required():
    return os.environ.get("EXACTUNE_REQUIRE_GPU") == "1"


def _fail_skip(report):
    if _required() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, but EXACTUNE_REQUIRE_GPU=1 makes a skip a failure: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skip(outcome.get_result())
