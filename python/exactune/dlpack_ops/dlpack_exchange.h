/* The part of the DLPack C ABI (version 1.x, dmlc/dlpack's include/dlpack/dlpack.h)
 * that exactune's torch-free binding uses: the tensor description and the
 * exchange API a framework publishes on its tensor type as the capsule
 * `__dlpack_c_exchange_api__` ("dlpack_exchange_api"; PyTorch 2.10 and later).
 * Declared here from the standard's layout because Debian's libdlpack-dev
 * (0.6) predates both. Field order and types are the ABI: never reorder. */
#ifndef EXACTUNE_DLPACK_EXCHANGE_H
#define EXACTUNE_DLPACK_EXCHANGE_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { EXACTUNE_DLPACK_MAJOR = 1 };
enum { EXACTUNE_DL_CUDA = 2 };   /* DLDeviceType kDLCUDA */
enum { EXACTUNE_DL_BFLOAT = 4 }; /* DLDataTypeCode kDLBfloat */

typedef struct {
  uint32_t major;
  uint32_t minor;
} ExactuneDLPackVersion;

typedef struct {
  int32_t device_type;
  int32_t device_id;
} ExactuneDLDevice;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} ExactuneDLDataType;

typedef struct {
  void* data;
  ExactuneDLDevice device;
  int32_t ndim;
  ExactuneDLDataType dtype;
  int64_t* shape;
  int64_t* strides; /* in elements; NULL: compact row-major */
  uint64_t byte_offset;
} ExactuneDLTensor;

typedef struct ExactuneDLManagedTensorVersioned {
  ExactuneDLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct ExactuneDLManagedTensorVersioned* self);
  uint64_t flags;
  ExactuneDLTensor dl_tensor;
} ExactuneDLManagedTensorVersioned;

typedef struct ExactuneDLPackExchangeAPIHeader {
  ExactuneDLPackVersion version;
  struct ExactuneDLPackExchangeAPIHeader* prev_api;
} ExactuneDLPackExchangeAPIHeader;

typedef struct {
  ExactuneDLPackExchangeAPIHeader header;
  int (*managed_tensor_allocator)(ExactuneDLTensor* prototype, ExactuneDLManagedTensorVersioned** out, void* error_ctx,
                                  void (*set_error)(void* error_ctx, const char* kind, const char* message));
  int (*managed_tensor_from_py_object_no_sync)(void* py_object, ExactuneDLManagedTensorVersioned** out);
  int (*managed_tensor_to_py_object_no_sync)(ExactuneDLManagedTensorVersioned* tensor, void** out_py_object);
  int (*dltensor_from_py_object_no_sync)(void* py_object, ExactuneDLTensor* out); /* may be NULL */
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void** out_current_stream);
} ExactuneDLPackExchangeAPI;

#ifdef __cplusplus
}
#endif
#endif
