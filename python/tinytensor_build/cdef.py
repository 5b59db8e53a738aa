"""The cffi declarations of the binding, generated from the C headers.

The binding never carries hand-written prototypes: the C preprocessor expands include/tinytensor.h
(with stand-ins for the C library's headers, fake_libc/, so that only our own declarations
remain), pycparser reads the result, and every typedef, struct, enum and function of the
library is written back out as cffi cdef text. A function whose C signature changes therefore
changes the binding at the next build, and a call from Python with the old arguments fails with
a TypeError instead of passing garbage. Integer macros (TENSOR_MAX_DIMS, the DLPack flags and
stream values, the version) are declared as `#define NAME ...`, so the compiler supplies their
values.

Used by setup.py at build time and by the test that checks an installed package against the
headers it is tested with (tests/test_binding.py). Needs a C compiler (`cc`, or $CC) and
pycparser (a dependency of cffi).
"""
import os
import re
import shlex
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_LIBC = os.path.join(HERE, "fake_libc")

# Names the stand-in headers declare; cffi knows them itself, so they stay out of the cdef.
_LIBC_TYPEDEFS = {
    "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "intptr_t", "uintptr_t", "FILE",
}
# Casts and helper macros an integer constant's definition may contain.
# Defined on the preprocessor's command line above, not by the headers.
_COMMAND_LINE = {"TENSOR_STATIC_DEFINE", "TENSOR_DLPACK_ABI_CHECKED"}
_CAST_WORDS = {"intptr_t", "uintptr_t", "size_t", "int64_t", "uint64_t", "int32_t", "uint32_t",
               "unsigned", "long", "int", "INT64_C", "UINT64_C"}
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)|([A-Za-z_]\w*)|(<<|>>|[()+\-*/|&~]))")


def _compiler():
    return shlex.split(os.environ.get("CC") or "cc")


def _preprocess(repo, generated_dir, extra_args):
    args = _compiler() + ["-nostdinc", "-I", FAKE_LIBC, "-I", repo, "-I", os.path.join(repo, "include"),
                          "-I", generated_dir, "-DTENSOR_STATIC_DEFINE", "-DTENSOR_DLPACK_ABI_CHECKED",
                          # Attributes (visibility, format) mean nothing to cffi and trip pycparser.
                          "-D__attribute__(x)="]
    args += extra_args + ["-x", "c", "-"]
    res = subprocess.run(args, input='#include "tinytensor.h"\n', capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("preprocessing the tinytensor headers failed:\n" + " ".join(args) + "\n" + res.stderr)
    return res.stdout


def _is_integer_expression(value, known):
    """True when `value` (a macro's replacement text) is an integer constant expression made of
    numbers, operators, casts to integer types and other such macros."""
    pos, seen_number = 0, False
    while pos < len(value):
        m = _TOKEN.match(value, pos)
        if not m:
            return value[pos:].strip() == "" and seen_number
        number, word, _ = m.groups()
        if number:
            seen_number = True
        elif word and word not in _CAST_WORDS:
            if word not in known:
                return False
            seen_number = True
        pos = m.end()
    return seen_number


def _integer_macros(macro_text):
    defs = {}
    for line in macro_text.splitlines():
        m = re.match(r"#define ((?:TENSOR|DLPACK)_\w+) (.+)$", line)
        if m and m.group(1) not in _COMMAND_LINE:
            defs[m.group(1)] = m.group(2).strip()
    # Macros may refer to each other (TENSOR_VERSION_NUMBER): grow the set until it is stable.
    known = set()
    changed = True
    while changed:
        changed = False
        for name, value in defs.items():
            if name not in known and _is_integer_expression(value, known):
                known.add(name)
                changed = True
    return sorted(known)


def _declarations(text):
    from pycparser import c_ast, c_generator, c_parser

    ast = c_parser.CParser().parse(text, "tinytensor.h")
    gen = c_generator.CGenerator()
    out = []
    for node in ast.ext:
        if isinstance(node, c_ast.FuncDef):
            # A static inline helper (tensor_cpu, tensor_scalar_int): its prototype alone; the
            # API-mode module compiles a wrapper that calls the header's definition.
            decl = node.decl
            decl.storage = []
            decl.funcspec = []
            out.append(gen.visit(decl) + ";")
        elif isinstance(node, c_ast.Typedef):
            if node.name not in _LIBC_TYPEDEFS:
                out.append(gen.visit(node) + ";")
        elif isinstance(node, c_ast.Decl):
            if isinstance(node.type, c_ast.FuncDecl):
                node.storage = [s for s in node.storage if s != "extern"]
                out.append(gen.visit(node) + ";")
            elif node.name is None and isinstance(node.type, (c_ast.Struct, c_ast.Enum, c_ast.Union)):
                out.append(gen.visit(node) + ";")
            else:
                raise RuntimeError("unexpected declaration in the public headers: " + gen.visit(node))
        # _Static_assert and anything else without a name is not part of the ABI.
    return out


def generate(repo, generated_dir, extra_args=()):
    """The cdef text for the headers of the source tree `repo`, with the build's generated
    headers (tinytensor_version.h) in `generated_dir`."""
    text = _preprocess(repo, generated_dir, ["-E", "-P"] + list(extra_args))
    macros = _preprocess(repo, generated_dir, ["-E", "-dM"] + list(extra_args))
    lines = ["/* Generated from include/tinytensor.h by tinytensor_build/cdef.py; do not edit. */"]
    lines += _declarations(text)
    lines += ["#define %s ..." % name for name in _integer_macros(macros)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3:
        sys.exit("usage: cdef.py REPO GENERATED_DIR  (writes the cdef text to stdout)")
    sys.stdout.write(generate(sys.argv[1], sys.argv[2]))
