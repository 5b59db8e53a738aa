"""The cffi builder of tinytensor._ffi: the library's declarations (cdef.py, generated from the
headers) plus a few helpers of our own for DLPack capsules.

API mode: cffi writes a C extension that includes tinytensor.h and calls each function
through a wrapper the compiler checks against the real prototype. The module links the shared
library, which setup.py copies next to it (rpath $ORIGIN)."""
import os

from . import cdef as _cdef

# A capsule's destructor must be a C function: Python may destroy the capsule late (at
# interpreter exit, from the garbage collector), and the DLPack rules are simple enough to
# state in C. The names are static so that they outlive every capsule that points at them.
PREAMBLE = r"""
#include "tinytensor.h"

static const char tt_py_name_legacy[] = "dltensor";
static const char tt_py_name_legacy_used[] = "used_dltensor";
static const char tt_py_name_versioned[] = "dltensor_versioned";
static const char tt_py_name_versioned_used[] = "used_dltensor_versioned";

/* The DLPack Python rule: a consumer that takes the tensor renames the capsule to
 * "used_dltensor[_versioned]" and becomes responsible for the deleter; a capsule still under
 * its original name when it dies was never consumed, so its deleter is called here, once.
 * PyCapsule_IsValid raises nothing, and GetPointer cannot fail after it. */
static void tt_py_capsule_destructor(PyObject *capsule) {
    if (PyCapsule_IsValid(capsule, tt_py_name_versioned)) {
        DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)PyCapsule_GetPointer(capsule, tt_py_name_versioned);
        if (m != NULL && m->deleter != NULL)
            m->deleter(m);
    } else if (PyCapsule_IsValid(capsule, tt_py_name_legacy)) {
        DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(capsule, tt_py_name_legacy);
        if (m != NULL && m->deleter != NULL)
            m->deleter(m);
    }
}

static uintptr_t tt_py_capsule_destructor_address(void) {
    return (uintptr_t)&tt_py_capsule_destructor;
}

/* 0: "dltensor", 1: "used_dltensor", 2: "dltensor_versioned", 3: "used_dltensor_versioned". */
static const char *tt_py_capsule_name(int which) {
    switch (which) {
    case 0: return tt_py_name_legacy;
    case 1: return tt_py_name_legacy_used;
    case 2: return tt_py_name_versioned;
    default: return tt_py_name_versioned_used;
    }
}
"""

# The helpers above; everything else in the cdef comes from the library's headers.
HELPERS_CDEF = """
uintptr_t tt_py_capsule_destructor_address(void);
const char *tt_py_capsule_name(int which);
"""


def make_ffibuilder(repo, build_dir):
    """The FFI builder for the headers of `repo` and the library built in `build_dir` (which
    holds libtinytensor.so and generated/tinytensor_version.h). Returns (builder, cdef text)."""
    import cffi

    generated = os.path.join(build_dir, "generated")
    text = _cdef.generate(repo, generated)
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(text + HELPERS_CDEF)
    ffibuilder.set_source(
        "tinytensor._ffi",
        PREAMBLE,
        include_dirs=[repo, os.path.join(repo, "include"), generated],
        library_dirs=[build_dir],
        libraries=["tinytensor"],
        # The wrappers only convert arguments; optimising them harder buys nothing and costs
        # most of the module's build time.
        extra_compile_args=["-O1"],
        extra_link_args=["-Wl,-rpath,$ORIGIN"],
    )
    return ffibuilder, text
