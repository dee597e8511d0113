"""ci/gate_power.sh without a GPU, against a stand-in exactune that records
what it is asked: each run of each level is a narrowed sweep; a run the gate
finds ambiguous is swept again, at most EXACTUNE_GATE_REMEASURE_ROUNDS times,
and handed to `exactune gate-power` as RUN+AGAIN...; a second call with the same
work folder makes no sweep again.

    python3 tests/ci/test_gate_power_script.py   (from anywhere)
"""

import os
import stat
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The stand-in: `sweep --out DIR` writes DIR/sweep.yaml; `gate ... --rerun-list F`
# writes a shape to F while the candidate's folder name is listed in
# $FAKE_AMBIGUOUS and fewer than $FAKE_AMBIGUOUS_ROUNDS re-measures were given;
# `gate-power` and `report` write what they are asked to. Every call is logged.
FAKE = textwrap.dedent('''\
    #!/usr/bin/env python3
    import os, sys
    from pathlib import Path
    args = sys.argv[1:]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(" ".join(args) + "\\n")
    def value(flag):
        return args[args.index(flag) + 1]
    if args[0] == "sweep":
        out = Path(value("--out"))
        out.mkdir(parents=True, exist_ok=True)
        (out / "sweep.yaml").write_text("planted: %s\\n" % ("--plant-slowdown" in args))
    elif args[0] == "gate":
        run = Path(value("--candidate")).parent.name
        given = args.count("--remeasured")
        ambiguous = run in os.environ.get("FAKE_AMBIGUOUS", "").split()
        rounds = int(os.environ.get("FAKE_AMBIGUOUS_ROUNDS", "99"))
        Path(value("--rerun-list")).write_text("shape-a\\n" if ambiguous and given < rounds else "")
        if run in os.environ.get("FAKE_GATE_BROKEN", "").split():
            print("t.yaml:3: not a sweep")
            sys.exit(2)
    elif args[0] == "gate-power":
        specs = [a for a in args if ":" in a and not a.startswith("-")]
        Path(value("--out")).write_text("\\n".join(specs) + "\\n")
        print("planted +0%%: %d runs" % len(specs))
    ''')


class GatePowerScriptTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        root = Path(self.folder.name)
        self.fake = root / "exactune"
        self.fake.write_text(FAKE)
        self.fake.chmod(self.fake.stat().st_mode | stat.S_IEXEC)
        self.reports = root / "reports"
        self.reports.mkdir()
        (self.reports / "sweep.yaml").write_text("baseline\n")
        (self.reports / "heuristics.yaml").write_text("heuristics\n")
        self.work = root / "work"
        self.log = root / "calls.log"

    def tearDown(self):
        self.folder.cleanup()

    def run_script(self, runs, **env):
        environment = dict(os.environ, FAKE_LOG=str(self.log), **env)
        done = subprocess.run(["bash", str(REPO / "ci" / "gate_power.sh"), str(self.fake), "toy", str(self.reports),
                               str(runs), str(self.work)], env=environment, capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        return done

    def calls(self, command):
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [line for line in lines if line.split(" ", 1)[0] == command]

    def specs(self):
        return (self.reports / "gate_power.json").read_text().split()

    def test_each_level_runs_and_an_ambiguous_run_is_measured_again(self):
        self.run_script(2, FAKE_AMBIGUOUS="0-1 0.05-2", FAKE_AMBIGUOUS_ROUNDS="1")
        sweeps = self.calls("sweep")
        # 4 levels x 2 rounds, and one re-measure each for the two ambiguous runs.
        self.assertEqual(len(sweeps), 10)
        self.assertEqual(sum("--plant-slowdown" in s for s in sweeps), 6 + 1)
        specs = self.specs()
        self.assertEqual(len(specs), 8)
        remeasured = [s for s in specs if "+" in s]
        self.assertEqual(len(remeasured), 2)
        self.assertIn(f"0:{self.work}/0-1/sweep.yaml+{self.work}/0-1-again-1/sweep.yaml", specs)
        self.assertTrue(any(s.startswith("0.05:") and s.endswith("0.05-2-again-1/sweep.yaml") for s in specs))
        # The re-measured run was gated again with its re-measure pooled.
        self.assertTrue(any("--remeasured" in g and "0-1-again-1" in g for g in self.calls("gate")))

    def test_remeasures_stop_after_the_rounds_allowed(self):
        self.run_script(1, FAKE_AMBIGUOUS="0-1", EXACTUNE_GATE_REMEASURE_ROUNDS="2")
        self.assertEqual(len(self.calls("sweep")), 4 + 2)
        self.assertIn(f"0:{self.work}/0-1/sweep.yaml+{self.work}/0-1-again-1/sweep.yaml"
                      f"+{self.work}/0-1-again-2/sweep.yaml", self.specs())

    def test_a_gate_that_cannot_judge_fails_its_run_and_the_others_go_on(self):
        done = self.run_script(1, FAKE_GATE_BROKEN="0.05-1")
        self.assertIn("exactune gate could not judge", done.stderr)
        self.assertIn("run 0.05-1 of toy failed", done.stderr)
        self.assertEqual(len(self.specs()), 3)
        self.assertFalse(any(s.startswith("0.05:") for s in self.specs()))

    def test_a_second_call_resumes_without_sweeping_again(self):
        self.run_script(2, FAKE_AMBIGUOUS="0-2", FAKE_AMBIGUOUS_ROUNDS="1")
        first = len(self.calls("sweep"))
        self.run_script(2, FAKE_AMBIGUOUS="0-2", FAKE_AMBIGUOUS_ROUNDS="1")
        self.assertEqual(len(self.calls("sweep")), first)
        self.assertEqual(len(self.specs()), 8)
        self.assertEqual(sum("+" in s for s in self.specs()), 1)


if __name__ == "__main__":
    unittest.main()
