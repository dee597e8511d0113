"""Where the runtime finds NVRTC from Python (exactune._native): a toolkit's
first, else the nvidia-cuda-nvrtc wheel's, by EXACTUNE_NVRTC_LIBRARY; a value
already set is left alone. Needs neither torch nor a GPU."""

import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from exactune import _native


class NvrtcLocationTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)
        self.site = self.root / "site-packages"
        self.env = mock.patch.dict(os.environ, {}, clear=False)
        self.env.start()
        os.environ.pop("EXACTUNE_NVRTC_LIBRARY", None)
        os.environ.pop("CUDA_HOME", None)

    def tearDown(self):
        self.env.stop()
        self.folder.cleanup()

    def library(self, folder):
        path = folder / f"libnvrtc.so.{_native.NVRTC_MAJOR}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        return path

    def test_the_wheel_serves_where_no_toolkit_is(self):
        wheel = self.library(self.site / "nvidia" / "cu13" / "lib")
        with mock.patch.object(_native, "TOOLKIT_ROOTS", (str(self.root / "no-toolkit"),)):
            self.assertEqual(_native.point_runtime_at_nvrtc([str(self.site)]), wheel.resolve())
        self.assertEqual(os.environ["EXACTUNE_NVRTC_LIBRARY"], str(wheel.resolve()))

    def test_the_cuda_12_wheel_layout_is_found_too(self):
        wheel = self.library(self.site / "nvidia" / "cuda_nvrtc" / "lib")
        self.assertEqual(_native.wheel_nvrtc([str(self.site)]), wheel.resolve())

    def test_a_toolkit_comes_first(self):
        self.library(self.site / "nvidia" / "cu13" / "lib")
        toolkit = self.library(self.root / "cuda" / "lib64")
        os.environ["CUDA_HOME"] = str(self.root / "cuda")
        self.assertEqual(_native.toolkit_nvrtc(), toolkit)
        self.assertIsNone(_native.point_runtime_at_nvrtc([str(self.site)]))
        self.assertNotIn("EXACTUNE_NVRTC_LIBRARY", os.environ)

    def test_a_value_already_set_is_left_alone(self):
        self.library(self.site / "nvidia" / "cu13" / "lib")
        os.environ["EXACTUNE_NVRTC_LIBRARY"] = "/chosen/libnvrtc.so.13"
        with mock.patch.object(_native, "TOOLKIT_ROOTS", ()):
            self.assertIsNone(_native.point_runtime_at_nvrtc([str(self.site)]))
        self.assertEqual(os.environ["EXACTUNE_NVRTC_LIBRARY"], "/chosen/libnvrtc.so.13")

    def test_nothing_found_sets_nothing(self):
        with mock.patch.object(_native, "TOOLKIT_ROOTS", ()):
            self.assertIsNone(_native.point_runtime_at_nvrtc([str(self.site)]))
        self.assertNotIn("EXACTUNE_NVRTC_LIBRARY", os.environ)


if __name__ == "__main__":
    unittest.main()
