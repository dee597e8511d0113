"""python/tools/first_call_bench.py's parts that need no GPU (run in CI): the
environment of each setting (the export one can only load from the export: no
NVRTC, an empty cache), how a measuring process's output is read (its JSON
line, and the runtime's log saying the kernel came from the export), and the
summary, which flags a run not served or a setting that did or did not load
from the export against its name.
"""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import first_call_bench as bench  # noqa: E402


def run(family, setting, first, served=True, from_export=None):
    return dict(family=family, setting=setting, first_ms=first, second_ms=0.01, served=served, variant="v",
                from_export=setting == "export" if from_export is None else from_export)


class Settings(unittest.TestCase):
    def test_the_export_setting_has_no_nvrtc_and_the_others_no_export(self):
        base = {"EXACTUNE_LOG": "0", "EXACTUNE_EXPORT_DIR": "elsewhere", "PATH": "/bin"}
        env = bench.setting_environment("export", Path("/e"), Path("/c"), base)
        self.assertEqual(env["EXACTUNE_EXPORT_DIR"], "/e")
        self.assertEqual(env["EXACTUNE_NVRTC_LIBRARY"], bench.NO_NVRTC)
        self.assertEqual(env["EXACTUNE_CACHE_DIR"], "/c")
        self.assertNotIn("EXACTUNE_LOG", env)  # the log tells where the kernel came from
        for setting in ("nvrtc-cached", "nvrtc-cold"):
            env = bench.setting_environment(setting, Path("/e"), Path("/c"), base)
            self.assertEqual(env["EXACTUNE_EXPORT_DIR"], "off")
            self.assertNotIn("EXACTUNE_NVRTC_LIBRARY", env)
        with self.assertRaises(ValueError):
            bench.setting_environment("export-ish", Path("/e"), Path("/c"), base)

    def test_a_child_reports_its_last_line_and_the_runtime_log_says_where_from(self):
        out = 'torch says hello\n{"family": "f", "first_ms": 2.5}\n'
        log = "exactune: f: kernels loaded from the export in /e, not compiled\n"
        self.assertEqual(bench.read_child(out, log), {"family": "f", "first_ms": 2.5, "from_export": True})
        self.assertFalse(bench.read_child(out, "exactune: f on GPU 0 ...\n")["from_export"])


class Summary(unittest.TestCase):
    def test_medians_per_family_and_setting(self):
        runs = [run("f", "export", t) for t in (3.0, 1.0, 2.0)] + [run("f", "nvrtc-cold", t) for t in (900, 700)]
        summary = bench.summarize(runs)
        self.assertEqual(summary["f"]["export"]["first_ms"], 2.0)
        self.assertEqual(summary["f"]["nvrtc-cold"]["first_ms"], 800)
        self.assertEqual(summary["f"]["export"]["runs"], 3)
        self.assertNotIn("nvrtc-cached", summary["f"])
        self.assertEqual(bench.problems(summary), [])

    def test_a_run_not_served_or_from_the_wrong_place_is_a_problem(self):
        runs = [run("f", "export", 1.0, from_export=False), run("f", "nvrtc-cached", 5.0, from_export=True),
                run("g", "nvrtc-cold", 9.0, served=False)]
        self.assertEqual(bench.problems(bench.summarize(runs)),
                         ["f export: not loaded from the export", "f nvrtc-cached: loaded from the export",
                          "g nvrtc-cold: the op was not served (ran eager)"])


if __name__ == "__main__":
    unittest.main()
