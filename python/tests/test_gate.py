"""exactune.gate.ExactnessGate with fakes: no torch, no GPU (run in CI).

A signature is verified once and then runs fused only; a fused function that
mismatches on purpose is disabled for good with one warning; one that raises
runs the reference for that call and is counted; an unverified signature under
capture runs the reference; NOT_SERVED gives no verdict and is remembered.
"""

import unittest

from exactune.gate import NOT_SERVED, ExactnessGate


class Fakes:
    def __init__(self, wrong_from=1000, raises=False, serves=True):
        self.wrong_from, self.raises, self.serves = wrong_from, raises, serves
        self.fused_calls = self.reference_calls = 0
        self.warnings = []
        self.capturing = False

    def fused(self, x):
        self.fused_calls += 1
        if self.raises:
            raise RuntimeError("launch failed")
        if not self.serves:
            return NOT_SERVED
        return x + 1 if x >= self.wrong_from else 2 * x

    def reference(self, x):
        self.reference_calls += 1
        return 2 * x

    def gate(self):
        return ExactnessGate("fake", self.fused, self.reference, signature=lambda x: x,
                             is_capturing=lambda: self.capturing, warn=self.warnings.append)


class ExactnessGateTest(unittest.TestCase):
    def test_verified_once_then_fused_only(self):
        f = Fakes()
        gate = f.gate()
        self.assertEqual([gate(3) for _ in range(4)], [6] * 4)
        self.assertEqual((f.fused_calls, f.reference_calls, gate.verified_count), (4, 1, 1))
        self.assertTrue(gate.enabled)

    def test_mismatch_disables_for_good(self):
        f = Fakes(wrong_from=10)
        gate = f.gate()
        self.assertEqual(gate(3), 6)
        self.assertEqual(gate(10), 20)  # the reference's answer, never the wrong one
        self.assertFalse(gate.enabled)
        self.assertEqual(gate.disabled_because, "fused 11 != reference 20")
        self.assertEqual(len(f.warnings), 1)
        self.assertIn("(fused path disabled for good): fused 11 != reference 20", f.warnings[0])
        fused_before = f.fused_calls
        self.assertEqual((gate(3), gate(4)), (6, 8))
        self.assertEqual(f.fused_calls, fused_before)
        self.assertEqual(len(f.warnings), 1)
        gate.reset()
        self.assertTrue(gate.enabled)

    def test_failure_runs_the_reference_for_that_call_and_is_counted(self):
        f = Fakes(raises=True)
        gate = f.gate()
        self.assertEqual(gate(3), 6)
        self.assertTrue(gate.enabled)
        self.assertEqual(gate.failure_count, 1)
        self.assertIn("RuntimeError: launch failed", gate.last_failure)
        self.assertEqual(f.warnings, [])
        f.raises = False
        self.assertEqual(gate(3), 6)  # tried again, and verified
        self.assertEqual(gate.verified_count, 1)

    def test_capture_runs_reference_until_verified(self):
        f = Fakes()
        gate = f.gate()
        f.capturing = True
        self.assertEqual(gate(3), 6)
        self.assertEqual((f.fused_calls, gate.verified_count), (0, 0))
        f.capturing = False
        gate(3)
        f.capturing = True
        self.assertEqual(gate(3), 6)
        self.assertEqual((f.fused_calls, f.reference_calls), (2, 2))

    def test_not_served_gives_no_verdict_and_is_remembered(self):
        f = Fakes(serves=False)
        gate = ExactnessGate("fake", f.fused, f.reference, signature=lambda x: x, remember_at_most=1)
        self.assertEqual((gate(3), gate(3)), (6, 6))
        self.assertTrue(gate.enabled)
        self.assertEqual(gate.verified_count, 0)
        self.assertEqual((f.fused_calls, gate.unserved_count), (1, 1))  # the second call went to the reference
        self.assertEqual((gate(4), gate(4)), (8, 8))  # past the bound: asked each time
        self.assertEqual((f.fused_calls, gate.unserved_count), (3, 1))


if __name__ == "__main__":
    unittest.main()
