"""The exactness gate serving frameworks put in front of a bit-exact fused kernel.

The first call of each input signature runs both the fused function and the
reference and compares them; a signature that matches is verified and later
calls run fused only. A mismatch disables the fused path for good: every later
call runs the reference, and the reason is kept and warned once. An exception
of the fused function (out of memory, a launch error) is no verdict on its
bits: that call runs the reference, and the failure is counted and kept. A
signature the fused function does not serve is remembered (a bounded number),
so that its later calls go straight to the reference. During CUDA-graph
capture a signature not yet verified runs the reference, since verification
must read results back.

This is the gate of exactune's torch ops in Python, for fused functions of your
own; the ops themselves run the same policy in C++
(include/exactune/exactness_gate.hpp) to keep Python off their hot path. It
needs no torch: the signature, comparison and capture test are given.
"""

import threading
import warnings

__all__ = ["ExactnessGate", "NOT_SERVED"]

# What a fused function returns for inputs it does not serve: the reference
# runs, and the gate gives no verdict.
NOT_SERVED = NotImplemented


def _equal_or_describe(fused, reference):
    return None if fused == reference else f"fused {fused!r} != reference {reference!r}"


class ExactnessGate:
    """Wraps `fused` and `reference`, callables with the same arguments.

    signature(*args, **kwargs) -> hashable: everything that can change which
        kernel runs (shapes, strides, dtypes, device, scalars, alignment).
    first_mismatch(fused_out, reference_out) -> None when they are the same
        bits, else a description of where they first differ.
    is_capturing() -> bool: whether a CUDA graph is being captured now.
    warn(text): told once, when the gate closes (default: warnings.warn).
    """

    def __init__(self, name, fused, reference, signature, first_mismatch=_equal_or_describe,
                 is_capturing=lambda: False, warn=None, remember_at_most=4096):
        self.name = name
        self._fused = fused
        self._reference = reference
        self._signature = signature
        self._first_mismatch = first_mismatch
        self._is_capturing = is_capturing
        self._warn = warn or (lambda text: warnings.warn(text, RuntimeWarning, stacklevel=3))
        self._lock = threading.Lock()
        self._verified = set()
        self._unserved = set()
        self._remember_at_most = remember_at_most
        self._disabled_because = None
        self.failure_count = 0
        self.last_failure = None

    @property
    def enabled(self):
        return self._disabled_because is None

    @property
    def disabled_because(self):
        return self._disabled_because

    @property
    def verified_count(self):
        return len(self._verified)

    @property
    def unserved_count(self):
        return len(self._unserved)

    def reset(self):
        """Opens the gate again with nothing verified or remembered: for tests, never for serving."""
        with self._lock:
            self._verified.clear()
            self._unserved.clear()
            self._disabled_because = None
            self.failure_count = 0
            self.last_failure = None

    def _close(self, why):
        with self._lock:
            if self._disabled_because is not None:
                return
            self._disabled_because = why
        self._warn(f"exactune: {self.name} runs the reference from now on (fused path disabled for good): {why}")

    def __call__(self, *args, **kwargs):
        if self._disabled_because is not None:
            return self._reference(*args, **kwargs)
        key = self._signature(*args, **kwargs)
        verified = key in self._verified
        if not verified and (key in self._unserved or self._is_capturing()):
            return self._reference(*args, **kwargs)
        try:
            out = self._fused(*args, **kwargs)
        except Exception as error:  # no verdict on the bits: the reference answers this call
            with self._lock:
                self.failure_count += 1
                self.last_failure = f"the fused path failed: {type(error).__name__}: {error}"
            return self._reference(*args, **kwargs)
        if out is NOT_SERVED:
            with self._lock:
                if len(self._unserved) < self._remember_at_most:
                    self._unserved.add(key)
            return self._reference(*args, **kwargs)
        if verified:
            return out
        reference = self._reference(*args, **kwargs)
        mismatch = self._first_mismatch(out, reference)
        if mismatch:
            self._close(mismatch)
            return reference
        with self._lock:
            self._verified.add(key)
        return out
