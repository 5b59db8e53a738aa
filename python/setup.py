"""Builds the tinytensor Python package: the C library with CMake, then the cffi module against
it, and ships the library inside the package.

    pip install ./python                 (from the repository's root)

Environment:
  TINYTENSOR_BUILD_DIR   use this CMake build of the library instead of configuring one: it is
                         brought up to date (`cmake --build DIR --target tinytensor`) when it is
                         a CMake build folder, and must hold libtinytensor.so and
                         generated/tinytensor_version.h. A relative path is taken from the
                         repository's root (pip runs this script from another folder).
  TINYTENSOR_CUDA        AUTO, ON or OFF: the TENSOR_CUDA setting of the build made here.
                         Default: AUTO (CUDA when nvcc is found) on a machine where nvidia-smi
                         sees a GPU, OFF elsewhere.
  TINYTENSOR_SOURCE_DIR  the repository, when this folder is not inside it (pip older than 21.3
                         copies the package folder elsewhere before building).
  CMAKE_BUILD_PARALLEL_LEVEL  parallel jobs of the CMake build (default: every core).

Without TINYTENSOR_BUILD_DIR the library is built in <repository>/build/python-cpu (or
python-cuda), Release, without tests, examples or benchmarks; a second install reuses it.
Linux only (the library is copied as libtinytensor.so.N and found through rpath $ORIGIN).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _source_dir():
    repo = os.environ.get("TINYTENSOR_SOURCE_DIR") or os.path.dirname(HERE)
    if not os.path.isfile(os.path.join(repo, "include", "tinytensor.h")):
        sys.exit("tinytensor: the C sources are not at %s; set TINYTENSOR_SOURCE_DIR to the repository" % repo)
    return os.path.abspath(repo)


def _project_version(repo):
    """The C project's version (CMakeLists.txt's project(VERSION)), so that both agree."""
    with open(os.path.join(repo, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\s*tinytensor\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        sys.exit("tinytensor: no project(tinytensor VERSION ...) in CMakeLists.txt")
    return m.group(1)


def _gpu_present():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        res = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return res.returncode == 0 and "GPU" in res.stdout


def _cuda_setting():
    value = os.environ.get("TINYTENSOR_CUDA", "").strip().upper()
    if value in ("AUTO", "ON", "OFF"):
        return value
    if value:
        sys.exit("tinytensor: TINYTENSOR_CUDA must be AUTO, ON or OFF, not %r" % value)
    # nvcc without a GPU is common (build machines, CI) and a CUDA build takes minutes there
    # for kernels that could not run: build for the CPU unless a GPU is present.
    return "AUTO" if _gpu_present() else "OFF"


def _run(cmd):
    print("tinytensor:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def _cmake_build(build_dir):
    cmd = ["cmake", "--build", build_dir, "--target", "tinytensor"]
    if not os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL"):
        cmd += ["--parallel", str(os.cpu_count() or 1)]
    _run(cmd)


def build_library(repo):
    """Builds (or brings up to date) the shared library; returns the CMake build folder."""
    build_dir = os.environ.get("TINYTENSOR_BUILD_DIR")
    if build_dir:
        build_dir = os.path.join(repo, build_dir)
        if os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
            _cmake_build(build_dir)
    else:
        if shutil.which("cmake") is None:
            sys.exit("tinytensor: cmake is needed to build the C library (or set TINYTENSOR_BUILD_DIR)")
        cuda = _cuda_setting()
        build_dir = os.path.join(repo, "build", "python-" + ("cpu" if cuda == "OFF" else "cuda"))
        _run(["cmake", "-S", repo, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DTENSOR_CUDA=" + cuda,
              "-DTENSOR_BUILD_TESTS=OFF", "-DTENSOR_BUILD_EXAMPLES=OFF", "-DTENSOR_BUILD_BENCH=OFF"])
        _cmake_build(build_dir)
    for needed in ("libtinytensor.so", os.path.join("generated", "tinytensor_version.h")):
        if not os.path.exists(os.path.join(build_dir, needed)):
            sys.exit("tinytensor: %s has no %s (not a build of the library?)" % (build_dir, needed))
    return build_dir


def _shared_library(build_dir):
    """(the library file, the name the module loads it by). CMake makes libtinytensor.so a
    link to the SONAME (libtinytensor.so.0), itself a link to the versioned file."""
    link = os.path.join(build_dir, "libtinytensor.so")
    name = os.path.basename(os.readlink(link)) if os.path.islink(link) else "libtinytensor.so"
    return os.path.realpath(link), name


class BuildExt(build_ext):
    """Builds the library, generates the cffi module's C source from the headers, compiles it,
    and puts the library and the build's facts next to the module."""

    def run(self):
        from tinytensor_build.ffi import make_ffibuilder

        repo = _source_dir()
        build_dir = build_library(repo)
        ffibuilder, cdef_text = make_ffibuilder(repo, build_dir)
        os.makedirs(self.build_temp, exist_ok=True)
        # Writes the module's C source into build_temp and describes how to compile it.
        template = ffibuilder.distutils_extension(self.build_temp, verbose=False)
        ext = self.extensions[0]
        for attr in ("sources", "include_dirs", "library_dirs", "libraries", "extra_compile_args", "extra_link_args",
                     "define_macros"):
            setattr(ext, attr, getattr(template, attr))
        super().run()

        package_dir = os.path.dirname(self.get_ext_fullpath(ext.name))
        lib_file, lib_name = _shared_library(build_dir)
        shutil.copyfile(lib_file, os.path.join(package_dir, lib_name))
        with open(os.path.join(package_dir, "_build_info.py"), "w") as f:
            f.write('"""Facts of this build of the package (written by setup.py)."""\n')
            f.write("BUILD_DIR = %r\n" % build_dir)
            f.write("SOURCE_DIR = %r\n" % repo)
            f.write("# The declarations the module was compiled with (tinytensor_build/cdef.py).\n")
            f.write("CDEF = %r\n" % cdef_text)


REPO = _source_dir()
setup(
    version=_project_version(REPO),
    # The sources are set by BuildExt once the headers have been read.
    ext_modules=[Extension("tinytensor._ffi", sources=["tinytensor/_ffi.c"])],
    cmdclass={"build_ext": BuildExt},
)
