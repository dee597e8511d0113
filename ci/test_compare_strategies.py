#!/usr/bin/env python3
"""ci/compare_strategies.py on two small synthetic report folders: a choice
equal, one within the exhaustive sweep's noise, one worse, and one for a
policy of two regimes; and a folder it cannot read. Run by ctest."""
import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import compare_strategies  # noqa: E402


def variant(name, rotated, cold=None, spread=0.01):
    v = {"variant": name, "exact": True, "rotated_median_us": rotated, "rotated_min_us": rotated * (1 - spread / 2),
         "rotated_max_us": rotated * (1 + spread / 2), "rotated_samples": 7}
    if cold:
        v.update({"cold_median_us": cold, "cold_min_us": cold, "cold_max_us": cold, "cold_samples": 7})
    return v


def shape(name, variants, noise=0.0):
    return {"name": name, "copy_rotated_us": {"median": 2.0}, "copy_cold_us": {"median": 4.0},
            "run_to_run_noise": {"rotated": {"noise": noise}}, "variants": variants}


def write_folder(root, strategy, choices, policy="rotated"):
    root.mkdir(parents=True)
    shapes = [shape("tie", [variant("a", 10.0), variant("b", 10.1)]),
              shape("noisy", [variant("a", 10.0), variant("c", 10.4)], noise=0.05),
              shape("clear", [variant("a", 10.0), variant("d", 12.0)]),
              shape("two-regimes", [variant("a", 10.0, cold=20.0), variant("e", 10.0, cold=40.0)])]
    sweep = {"exactune_sweep": 4, "wall_s": 100.0, "strategy": {"name": strategy, "settings": "s"}, "shapes": shapes}
    heuristics = {"family": "toy", "policy": policy, "device": {"name": "GPU", "choices": [
        {"shape": shape_name, "variant": chosen} for shape_name, chosen in choices.items()]}}
    (root / "sweep.yaml").write_text(yaml.safe_dump(sweep))
    (root / "heuristics.yaml").write_text(yaml.safe_dump(heuristics))


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = compare_strategies.main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


class CompareStrategies(unittest.TestCase):
    def test_each_verdict_and_the_summary_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            write_folder(root / "exh", "exhaustive", {"tie": "a", "noisy": "a", "clear": "a", "two-regimes": "a"})
            write_folder(root / "fast", "successive_halving",
                         {"tie": "a", "noisy": "c", "clear": "d", "two-regimes": "e"})
            rc, out, err = run(root / "exh", root / "fast")
            self.assertEqual(rc, 0, err)
            self.assertIn("| tie | a | a | yes | equal |", out)
            # 4% slower against the shape's 5% run-to-run noise.
            self.assertIn("| noisy | a | c | no | within noise (+4.0%, noise 5.0%) |", out)
            self.assertIn("| clear | a | d | no | worse by 20.0% (noise 2.0%) |", out)
            # Policy rotated ranks by rotated alone: e ties a there, whatever its cold figure.
            self.assertIn("| two-regimes | a | e | no | within noise (+0.0%, noise 2.0%) |", out)
            self.assertIn("successive_halving, wall 100 s, 8 variants timed fully", out)
            self.assertEqual(out.strip().splitlines()[-1], "1 of 4 choices equal, 2 within noise, 1 worse")

    def test_policy_both_ranks_by_the_sum_over_each_copy(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            write_folder(root / "exh", "exhaustive", {"two-regimes": "a"}, policy="both")
            write_folder(root / "fast", "successive_halving", {"two-regimes": "e"}, policy="both")
            rc, out, err = run(root / "exh", root / "fast")
            self.assertEqual(rc, 0, err)
            # a: 10/2 + 20/4 = 10; e: 10/2 + 40/4 = 15.
            self.assertIn("| two-regimes | a | e | no | worse by 50.0% (noise 2.0%) |", out)

    def test_a_folder_without_reports_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            write_folder(root / "exh", "exhaustive", {"tie": "a"})
            (root / "empty").mkdir()
            rc, out, err = run(root / "exh", root / "empty")
            self.assertEqual(rc, 2)
            self.assertIn("no heuristics.yaml in it or below it", err)


if __name__ == "__main__":
    unittest.main()
