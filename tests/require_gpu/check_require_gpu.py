"""EXACTUNE_REQUIRE_GPU=1 turns GPU-side skips into failures (run by ctest on
the CPU machines): a pytest skip (the repository's conftest.py) and, where
there is no GPU, the GPU suite's "skipped" exit 77 (tests/gpu_main.cpp).

    python3 check_require_gpu.py <repository root> <a GPU suite binary>
"""

import os
import subprocess
import sys
from pathlib import Path


def run(command, require, cwd):
    env = {k: v for k, v in os.environ.items() if k != "EXACTUNE_REQUIRE_GPU"}
    if require:
        env["EXACTUNE_REQUIRE_GPU"] = "1"
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    return result.returncode, result.stdout + result.stderr


def main():
    root, gpu_suite = Path(sys.argv[1]), sys.argv[2]
    probe = ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/require_gpu/skip_probe.py"]
    code, out = run(probe, False, root)
    assert code == 0 and "1 skipped" in out, f"without EXACTUNE_REQUIRE_GPU the probe must skip:\n{out}"
    code, out = run(probe, True, root)
    assert code == 1 and "EXACTUNE_REQUIRE_GPU=1 makes a skip a failure" in out, f"the skip must fail:\n{out}"

    code, out = run([gpu_suite], False, root)
    if code == 77:  # no GPU here: the suite skipped, and must fail when a GPU is required
        code, out = run([gpu_suite], True, root)
        assert code == 1 and "FAILED: EXACTUNE_REQUIRE_GPU=1" in out, f"the GPU suite must fail:\n{out}"
        print("no GPU: the GPU suite fails under EXACTUNE_REQUIRE_GPU=1")
    else:
        print(f"SKIPPED the GPU suite's half: this machine has a GPU (the suite exited {code})")
    print("EXACTUNE_REQUIRE_GPU=1 turns skips into failures")


if __name__ == "__main__":
    main()
