#!/usr/bin/env python3
"""ci/sweep_gpu_time.py over every committed GPU sweep: the GPU time a sweep's
samples stand for is positive and below the sweep's wall time (a sweep cannot
have kept more GPU time than it lasted), every shape is accounted for, and the
rule of fewer launches a replay never counts more time than 20 launches do.
"""
import importlib.util
import pathlib
import subprocess
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "ci" / "sweep_gpu_time.py"
_spec = importlib.util.spec_from_file_location("sweep_gpu_time", TOOL)
sweep_gpu_time = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep_gpu_time)


class SweepGpuTime(unittest.TestCase):
    def test_every_committed_gpu_sweep_is_accounted_within_its_wall_time(self):
        sweeps = [p for p in sorted((ROOT / "reports").glob("*/*/sweep.yaml")) if p.parts[-3] != "tables"]
        self.assertTrue(sweeps, "no committed GPU sweep found under reports/")
        for sweep in sweeps:
            with self.subTest(sweep=str(sweep.relative_to(ROOT))):
                parsed = sweep_gpu_time.load(sweep)
                result = sweep_gpu_time.account(parsed)
                self.assertGreater(result["samples_s"], 0)
                self.assertLess(result["samples_s"], result["wall_s"])
                self.assertEqual([r["shape"] for r in result["shapes"]], [s["name"] for s in parsed["shapes"]])
                fewer = sweep_gpu_time.account(parsed, 500)
                self.assertLessEqual(fewer["samples_s"], sweep_gpu_time.account(parsed, 0)["samples_s"])

    def test_a_file_that_is_no_sweep_is_refused_in_one_line(self):
        run = subprocess.run([sys.executable, str(TOOL), str(TOOL)], capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("not a GPU sweep.yaml", run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
