/* exactune runtime: the tuned, proven kernels of every family, launched on the
 * caller's stream. Each family adds its entry point (families/<name>/runtime/);
 * what they share is here: the status every entry returns, the reason of the
 * last failure, and a query of the tables (which variant a GPU would get).
 *
 * An entry never returns wrong bits: for a problem it cannot serve exactly
 * (a size, layout or alignment the framework would run through another kernel,
 * or that no proven variant takes) it launches nothing and returns
 * EXACTUNE_NOT_SERVED, and the caller runs the framework's own chain.
 *
 * An entry launches in the primary context of the device it is given and makes
 * that context current on the calling thread, as cudaSetDevice would: callers
 * of the CUDA runtime API (torch among them) already have it current. */
#ifndef EXACTUNE_RUNTIME_H
#define EXACTUNE_RUNTIME_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exactune_status {
  EXACTUNE_OK = 0,               /* launched */
  EXACTUNE_NOT_SERVED = 1,       /* nothing launched: run the framework's chain (reason in the last error) */
  EXACTUNE_INVALID_ARGUMENT = 2, /* the arguments describe no problem: a null pointer, a negative size, ... */
  EXACTUNE_ERROR = 3             /* the GPU, the tables or the compiler failed; nothing launched */
} exactune_status;

/* "EXACTUNE_NOT_SERVED", ... */
const char* exactune_status_name(int status);

/* Why the last call on this thread did not return EXACTUNE_OK. */
const char* exactune_runtime_last_error(void);

/* Which variants the tables offer `family` on a GPU of this name, compute
 * capability and SM count, at `size` (the family's size parameter) and `rows`:
 * a first line "device<TAB><how the device was resolved>", then one line
 * "<variant><TAB><step><TAB><verified|unverified>" per candidate, best first:
 * the runtime launches the first that is verified on that GPU at that size
 * (a tuned pair, or a record of verified defaults) and can take the caller's
 * data, and runs none that is unverified. Needs no GPU. A size the family
 * does not serve is EXACTUNE_NOT_SERVED, with the reason. */
int exactune_runtime_candidates(const char* family, const char* device_name, int cc_major, int cc_minor, int sm_count,
                                int64_t size, int64_t rows, char* text, size_t capacity);

/* The kernel export the runtime loads kernels from instead of compiling them
 * (`exactune export`; $EXACTUNE_EXPORT_DIR, else exactune_export/ beside the
 * runtime library): one line "<folder><TAB><kernels><TAB><compiler><TAB><the
 * command that made it>". EXACTUNE_NOT_SERVED when there is none (every
 * kernel is then compiled by NVRTC), with where it was looked for; EXACTUNE_ERROR
 * when the one named is unreadable. Needs no GPU. */
int exactune_runtime_export(char* text, size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
