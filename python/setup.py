"""The wheel carries libexactune_runtime.so (python/tools/build_wheel.py puts
it in exactune/lib/), so it is a wheel of this platform, not a pure one: the
distribution says it has native parts. Everything else is in pyproject.toml."""

from setuptools import setup
from setuptools.dist import Distribution


class NativeDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(distclass=NativeDistribution)
