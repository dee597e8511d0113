"""The torch-free binding's module (_exactune_dlpack, python/exactune/dlpack_ops/)
without torch or a GPU (run in CI), through a stand-in framework: a tensor type
of ours and a DLPack exchange API of ctypes functions. It refuses calls before
init() and bind(), an exchange API of another major version or capsule name,
and an unknown op; it hands the framework what it must (another type, a tensor
off CUDA, a rank it does not describe) without a signature; a CUDA bf16
problem of each op goes through that op's gate to the runtime (which, with no
GPU here, does not launch), and the call gets the eager chain's result, called
with the call's own arguments, with every output it allocated released.

EXACTUNE_DLPACK_MODULE names the built module: ctest's python_dlpack_binding,
registered where Python's development headers let CMake build it, sets it and
runs this file (the name keeps it out of python_package's discovery).

    EXACTUNE_DLPACK_MODULE=build/_exactune_dlpack.<abi>.so python3 python/tests/dlpack_binding_check.py"""

import ctypes
import importlib.machinery
import importlib.util
import os
import unittest

MODULE = os.environ.get("EXACTUNE_DLPACK_MODULE", "")


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32), ("dtype", DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class Managed(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(Managed))
Managed._fields_ = [("version", Version), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                    ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]
SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
ALLOCATOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.POINTER(Managed)),
                             ctypes.c_void_p, SET_ERROR)
FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(Managed)))
TO_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Managed), ctypes.POINTER(ctypes.c_void_p))
DLTENSOR_FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(DLTensor))
STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class Header(ctypes.Structure):
    _fields_ = [("version", Version), ("prev_api", ctypes.c_void_p)]


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("header", Header), ("allocator", ALLOCATOR), ("from_py", FROM_PY), ("to_py", TO_PY),
                ("dltensor_from_py", DLTENSOR_FROM_PY), ("stream", STREAM)]


class Tensor:
    """The stand-in framework's tensor: contiguous, bf16, on 'cuda' or 'cpu'."""

    def __init__(self, *shape, device="cuda"):
        self.shape = shape
        self.buffer = ctypes.create_string_buffer(64)  # an aligned address; never read without a GPU
        self.device = device
        strides, step = [], 1
        for size in reversed(shape):
            strides.insert(0, step)
            step *= size
        self.c_shape = (ctypes.c_int64 * len(shape))(*shape)
        self.c_strides = (ctypes.c_int64 * len(shape))(*strides)

    def describe(self, out):
        out.data = (ctypes.addressof(self.buffer) + 15) // 16 * 16
        out.device = Device(2 if self.device == "cuda" else 1, 0)
        out.ndim = len(self.shape)
        out.dtype = DataType(4, 16, 1)  # bfloat16
        out.shape = self.c_shape
        out.strides = self.c_strides
        out.byte_offset = 0


class Framework:
    """The exchange API's functions, counting what the module asks of them."""

    def __init__(self, major=1):
        self.allocated = self.released = 0
        self.eager_calls = []
        self.keep = []
        self.deleter = DELETER(self.release)
        self.api = ExchangeAPI(Header(Version(major, 3), None), ALLOCATOR(self.allocate), FROM_PY(self.from_py),
                               TO_PY(self.to_py), DLTENSOR_FROM_PY(self.dltensor_from_py), STREAM(self.stream))
        self.capsule = capsule(ctypes.addressof(self.api), b"dlpack_exchange_api")

    def allocate(self, prototype, out, error_context, set_error):
        managed = Managed()
        managed.deleter = self.deleter
        elements = 1
        for d in range(prototype.contents.ndim):
            elements *= prototype.contents.shape[d]
        buffer = ctypes.create_string_buffer(2 * elements)
        managed.dl_tensor.data = ctypes.addressof(buffer)
        self.keep.append((managed, buffer))
        out[0] = ctypes.pointer(managed)
        self.allocated += 1
        return 0

    def release(self, managed):
        self.released += 1

    def from_py(self, obj, out):
        return -1

    def to_py(self, managed, out):
        return -1

    def dltensor_from_py(self, obj, out):
        ctypes.cast(obj, ctypes.py_object).value.describe(out.contents)
        return 0

    def stream(self, device_type, device_id, out):
        out[0] = None
        return 0

    def eager(self, *args):
        self.eager_calls.append(args)
        return ("eager", args)


def load_module():
    loader = importlib.machinery.ExtensionFileLoader("_exactune_dlpack", MODULE)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("_exactune_dlpack", loader))
    loader.exec_module(module)
    return module


def capsule(address, name):
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new_capsule(address, name, None)


class DLPackBindingTest(unittest.TestCase):
    # One test, in order: the module's state (the framework it serves, its gates) lives as long as the process.
    def test_init_bind_then_each_route(self):
        self.assertTrue(os.path.isfile(MODULE), f"EXACTUNE_DLPACK_MODULE={MODULE!r} must name the built module")
        module = load_module()
        with self.assertRaisesRegex(RuntimeError, r"init\(\) was not called"):
            module.layer_norm_modulate(1, 2, 3, 1e-6)
        framework = Framework(major=2)
        with self.assertRaisesRegex(RuntimeError, "version 2.3, this binding reads 1.x"):
            module.init(framework.capsule, Tensor, lambda: False)
        with self.assertRaisesRegex(ValueError, "name"):
            module.init(capsule(ctypes.addressof(framework.api), b"another"), Tensor, lambda: False)

        framework = Framework()
        module.init(framework.capsule, Tensor, lambda: False)
        x, scale, shift = Tensor(2, 5, 64), Tensor(2, 64), Tensor(2, 64)
        with self.assertRaisesRegex(RuntimeError, "layer_norm_modulate was not bound"):
            module.layer_norm_modulate(x, scale, shift, 1e-6)
        with self.assertRaisesRegex(ValueError, "no op named 'rms_norm'"):
            module.bind("rms_norm", framework.eager, lambda *a: "")
        for op in ("layer_norm_modulate", "qk_head_layer_norm", "gated_residual_layer_norm_modulate"):
            module.bind(op, framework.eager, lambda fused, eager, variant: "")
            module.gate_reset(op)

        # Another type, a tensor off CUDA, a rank the ops do not describe: the framework's op, no signature kept.
        self.assertIs(module.layer_norm_modulate(x, [0] * 64, shift, 1e-6), NotImplemented)
        cpu = [Tensor(*t.shape, device="cpu") for t in (x, scale, shift)]
        self.assertIs(module.layer_norm_modulate(*cpu, 1e-6), NotImplemented)
        self.assertIs(module.layer_norm_modulate(Tensor(2, 3, 4, 5, 64), scale, shift, 1e-6), NotImplemented)
        self.assertEqual(framework.eager_calls, [])
        status = module.gate_status("layer_norm_modulate")
        self.assertEqual(status["unserved"] + status["failures"], 0)

        # A CUDA bf16 problem of each op: through its gate to the runtime, which launches nothing without a GPU.
        q, k, h, gate = Tensor(2, 5, 3, 64), Tensor(2, 5, 3, 64), Tensor(2, 5, 64), Tensor(2, 64)
        out, q_out, k_out = Tensor(2, 5, 64), Tensor(2, 5, 3, 64), Tensor(2, 5, 3, 64)
        calls = {"layer_norm_modulate": [(x, scale, shift, 1e-6), (x, scale, shift, 1e-6, out)],
                 "qk_head_layer_norm": [(q, k, 1e-5), (q, k, 1e-5, q_out, k_out)],
                 "gated_residual_layer_norm_modulate": [(x, h, gate, scale, shift, 1e-6)]}
        for op, arguments in calls.items():
            for args in arguments:
                self.assertEqual(getattr(module, op)(*args), ("eager", args), op)
            status = module.gate_status(op)
            self.assertTrue(status["enabled"], status)
            self.assertEqual(status["verified"], 0, status)
            self.assertEqual(status["unserved"] + status["failures"], len(arguments), status)
            self.assertEqual(module.last_variant(op), "")
        self.assertGreaterEqual(framework.allocated, 4)
        self.assertEqual(framework.allocated, framework.released)
        with self.assertRaisesRegex(TypeError, "give both q_out and k_out"):
            module.qk_head_layer_norm(q, k, 1e-5, q_out)
        module.gate_reset("qk_head_layer_norm")
        self.assertEqual(module.gate_status("qk_head_layer_norm")["unserved"], 0)


if __name__ == "__main__":
    unittest.main()
