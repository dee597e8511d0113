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
        os.environ.pop("LD_LIBRARY_PATH", None)
        # This machine's own loader cache is not the test's.
        self.cache = mock.patch.object(_native, "LD_SO_CACHE", self.root / "ld.so.cache")
        self.cache.start()

    def tearDown(self):
        self.cache.stop()
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

    def test_an_nvrtc_on_the_loader_path_is_left_to_the_runtime(self):
        self.library(self.site / "nvidia" / "cu13" / "lib")
        on_path = self.library(self.root / "elsewhere")
        os.environ["LD_LIBRARY_PATH"] = f"{self.root / 'empty'}:{on_path.parent}"
        with mock.patch.object(_native, "TOOLKIT_ROOTS", ()):
            self.assertEqual(_native.loader_nvrtc(), on_path)
            self.assertIsNone(_native.point_runtime_at_nvrtc([str(self.site)]))
        self.assertNotIn("EXACTUNE_NVRTC_LIBRARY", os.environ)

    def test_an_nvrtc_in_the_loader_cache_is_left_to_the_runtime(self):
        self.library(self.site / "nvidia" / "cu13" / "lib")
        (self.root / "ld.so.cache").write_bytes(b"\0ld.so-1.7.0\0libnvrtc.so.%d\0/opt/cuda/lib64/libnvrtc.so.%d\0"
                                                % (_native.NVRTC_MAJOR, _native.NVRTC_MAJOR))
        with mock.patch.object(_native, "TOOLKIT_ROOTS", ()):
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
