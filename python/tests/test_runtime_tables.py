"""exactune.runtime through ctypes, without a GPU (run in CI): the built-in
tables resolve the H200, an unknown name of its model, another GPU of its
architecture, and another architecture, each by the documented step; and
which candidates are verified on that GPU at that size."""

import unittest

from exactune import runtime


class RuntimeTablesTest(unittest.TestCase):
    def test_resolution_steps(self):
        device, candidates = runtime.candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 2240, 2048)
        self.assertIn("(same name)", device)
        self.assertEqual(candidates[0][1], "tuned bucket")
        self.assertEqual(candidates[-1][1], "global default")
        device, candidates = runtime.candidates("layer_norm_modulate", "Some Future GPU", 9, 0, 132, 2240, 2048)
        self.assertIn("same compute capability and SM count", device)
        self.assertEqual(candidates[0][1], "tuned bucket")
        device, candidates = runtime.candidates("qk_head_layer_norm", "NVIDIA H100 PCIe", 9, 0, 114, 128, 4096)
        self.assertIn("same architecture", device)
        self.assertEqual(candidates[0][1], "device default")
        device, candidates = runtime.candidates("layer_norm_modulate", "NVIDIA L4", 8, 9, 58, 3072, 10)
        self.assertIn("global default", device)
        self.assertEqual([c.step for c in candidates], ["global default"])

    def test_candidates_say_whether_they_are_verified(self):
        # A tuned bucket is verified by its sweep; the device default is verified on the H100 up to hidden 5120
        # (its record of verified defaults) and is not valid past it, so at 8192 only the global default serves.
        _, tuned = runtime.candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 2240, 2048)
        self.assertTrue(tuned[0].verified, tuned)
        _, wide = runtime.candidates("layer_norm_modulate", "NVIDIA H100 80GB HBM3", 9, 0, 132, 8192, 100)
        self.assertEqual([(c.step, c.verified) for c in wide], [("device default", False), ("global default", True)])

    def test_errors_name_the_reason(self):
        with self.assertRaisesRegex(RuntimeError, "EXACTUNE_NOT_SERVED: no table for family 'rms_norm'"):
            runtime.candidates("rms_norm", "NVIDIA H200", 9, 0, 132, 64, 1)
        with self.assertRaisesRegex(RuntimeError, "EXACTUNE_INVALID_ARGUMENT"):
            runtime.candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 2240, 0)


if __name__ == "__main__":
    unittest.main()
