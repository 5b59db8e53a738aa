/* Internal: user reductions on CUDA compiled at run time. A registered reduction whose value
 * type carries its functor's source (contract/user_reduction.h) gets the engine's kernels (the
 * reduction kernel at output vector widths 1, 2, 4, the short-rows kernel, the lean rows
 * kernel and the two-layout tile kernel: the same templates the built-ins are compiled from,
 * cuda/reduce_kernel.cuh) compiled around that functor by NVRTC for the device's architecture,
 * cached in memory and on disk.
 * Each kernel (variant) is compiled when a call's plan first needs it, so a call pays for one
 * kernel's compile, not all of them.
 *
 * The compile and the disk cache are host C with no CUDA headers (NVRTC is loaded with dlopen;
 * its few types are declared here), built in every configuration and tested without a GPU
 * where NVRTC is installed; loading and launching (cuda/jit_launch.c) need a CUDA build. */
#ifndef TENSOR_CUDA_JIT_H
#define TENSOR_CUDA_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "contract/user_reduction.h"
#include "runtime/dtype.h"
#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An embedded header: its include name and text (generated from cmake/jit_headers.cmake). */
typedef struct tt_jit_file {
    const char *name;
    const char *text;
} tt_jit_file;
extern const tt_jit_file tt_jit_headers[];
extern const int tt_jit_num_headers;

/* The kernels of one set: OVS 1, 2, 4, the short-rows kernel, the lean rows kernel and the tile
 * kernel (variants 0 to 5). */
#define TT_JIT_KERNELS 6

/* The variant a reduction plan launches: 3 for short rows, 4 for lean rows, 5 for tiles, else
 * log2 of the output vector. */
#define TT_JIT_VARIANT(short_rows, lean_rows, rvec_tiles, output_vec_size)                        \
    ((short_rows) ? 3 : (lean_rows) ? 4 : (rvec_tiles) ? 5 : (output_vec_size) == 4 ? 2 : (output_vec_size) == 2 ? 1 : 0)

/* Whether the programs' general kernel has the element-read input of two rows that do not start
 * alike (TENSOR_REDUCE_ELEM_ROWS, traits elem_rows): not, a compile a second shorter; such rows
 * are read element by element. */
#define TT_JIT_ELEM_ROWS 0

/* One program: its text and the name expression of the one kernel it compiles. */
typedef struct tt_jit_program {
    char *text;                        /* malloc'ed */
    char *names[TT_JIT_KERNELS];       /* malloc'ed name expressions; only names[variant] set */
    int variant;
} tt_jit_program;

/* The program for `src`'s functor with `nin` inputs stored as dtype `in`, output dtype `out`,
 * value type `value`, accumulator of acc_size bytes (checked by a static_assert in the
 * program), compiling kernel `variant` (0 to TT_JIT_KERNELS - 1). Errors: a dtype the engine
 * has no storage type for, a bad variant, OOM. */
tensor_status tt_jit_program_make(const tensor_reduction_source *src, int nin, tensor_reduction_value value,
                                  tensor_dtype in, tensor_dtype out, size_t acc_size, int variant,
                                  tt_jit_program *prog, const char *func);
void tt_jit_program_clear(tt_jit_program *prog);

/* A compiled program: the cubin and each kernel's lowered (mangled) name. */
typedef struct tt_jit_binary {
    void *cubin;
    size_t size;
    char *lowered[TT_JIT_KERNELS];
} tt_jit_binary;
void tt_jit_binary_clear(tt_jit_binary *bin);

/* NVRTC, loaded on first use (TENSOR_NVRTC_LIBRARY names the library to load instead of the
 * usual sonames). TENSOR_ERR_NOT_IMPLEMENTED when it cannot be loaded. */
tensor_status tt_jit_nvrtc_available(const char *func);
/* "nvrtc 13.0", or "" when it cannot be loaded (loads it). */
const char *tt_jit_nvrtc_version(void);
/* The NVRTC version to key the disk cache with, loading NVRTC only when it must (a dlopen of
 * NVRTC costs about 5 ms, more than the rest of a first call from the disk cache): the loaded
 * library's version; else the version the cache directory's record (tt_jit_cache_recall_nvrtc)
 * gives; else NVRTC is loaded. 1 and buf filled, or 0 when NVRTC cannot be loaded. */
int tt_jit_nvrtc_version_for_key(char *buf, size_t size);

/* Compiles prog for sm_<arch> (e.g. 90). A compile error gives TENSOR_ERR_INVALID_ARGUMENT with
 * the start of NVRTC's log in the message. */
tensor_status tt_jit_compile(const tt_jit_program *prog, int arch, tt_jit_binary *bin, const char *func);

/* The cache key of prog for arch compiled by NVRTC `nvrtc_version` ("nvrtc 13.0"): every input
 * of the compile (engine headers, program text, options, architecture, NVRTC version) in one
 * string (malloc'ed), and its 64-bit hash. */
char *tt_jit_key(const tt_jit_program *prog, int arch, const char *nvrtc_version, uint64_t *hash);

/* ---- the disk cache: one file per key under the cache directory ---- */
/* The directory in use ("" when the cache is off): tensor_jit_set_cache_dir's, else
 * $TENSOR_JIT_CACHE_DIR ("off" or "" turn it off), else $XDG_CACHE_HOME/tinytensor/jit, else
 * $HOME/.cache/tinytensor/jit. Copies into buf (size bytes). */
void tt_jit_cache_dir(char *buf, size_t size);
/* 1 and *bin filled when a valid file for key is there; 0 when there is none, or it is
 * corrupt, truncated or another key's (then it is ignored; the next store rewrites it). */
int tt_jit_cache_load(const char *key, uint64_t hash, tt_jit_binary *bin);
/* Writes the file (atomically: a temporary file renamed); failures are ignored (the cache is
 * an optimisation). */
void tt_jit_cache_store(const char *key, uint64_t hash, const tt_jit_binary *bin);
/* The file a key's binary lives in (for tests). */
void tt_jit_cache_path(uint64_t hash, char *buf, size_t size);
/* Which NVRTC was loaded, for the next process: the cache directory's "nvrtc.id" records the
 * version, TENSOR_NVRTC_LIBRARY, and the library file's path and identity (device, inode, size,
 * modification time). Failures are ignored. */
void tt_jit_cache_note_nvrtc(const char *lib_path, const char *version);
/* 1 and version filled when the record is well formed, TENSOR_NVRTC_LIBRARY is as recorded and
 * the file at the recorded path has the recorded identity; else 0 (the record is ignored). A
 * process that loads NVRTC would most likely load that same file; if the loader would now pick
 * another (a changed library path), the cubins found are those of the recorded NVRTC, which
 * the driver loads all the same. */
int tt_jit_cache_recall_nvrtc(char *version, size_t size);

/* ---- CUDA builds (cuda/jit_launch.c) ---- */
struct tensor_iter;
/* Runs (explain == 0) or explains (appending to buf, snprintf contract, *len the text's length)
 * the user reduction `call` over iter on its CUDA device. */
tensor_status tt_cuda_jit_reduce(struct tensor_iter *iter, const tensor_user_reduce_call *call, int explain, char *buf,
                                 size_t size, int64_t *len, const char *func);
/* Fresh compiles in this process; forgetting the loaded sets (the next call reads the disk
 * cache, as a new process would). For tests. */
int tt_jit_compile_count(void);
void tt_jit_forget(void);

/* FNV-1a, 64 bits. */
uint64_t tt_jit_hash(const void *data, size_t n, uint64_t h);
#define TT_JIT_HASH_SEED 0xcbf29ce484222325ull

#ifdef __cplusplus
}
#endif
#endif
