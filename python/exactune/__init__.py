"""exactune: the tuned, proven kernels of exactune's families, for Python.

- `exactune.torch`: the torch ops (`torch.ops.exactune.*`), each behind an
  exactness gate, falling back to the eager chain for anything not served.
- `exactune.gate.ExactnessGate`: that gate, for any fused function and its
  reference, with no dependency on torch.
- `exactune.runtime`: the runtime library's table queries (which variant a GPU
  would get), through ctypes.

Importing `exactune` itself loads nothing native: `exactune.torch` compiles its
op library on first import (cached) against the installed torch.
"""

__version__ = "0.1.0"
