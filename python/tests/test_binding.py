"""The binding against the C headers and the type stubs:
  * the declarations the installed module was compiled with are the ones the headers of this
    checkout give (an install from older headers fails here);
  * the generator itself, on a small header written here;
  * every lib.NAME the package calls exists in the compiled module;
  * the stubs name exactly the module's public names and Tensor's public methods."""
import ast
import os
import re
import shutil
import sys

import pytest

import tinytensor as tt
from tinytensor import _build_info
from tinytensor._ffi import lib

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)
PACKAGE_DIR = os.path.dirname(os.path.abspath(tt.__file__))
SOURCE_PACKAGE_DIR = os.path.join(PYTHON_DIR, "tinytensor")


def generator():
    if shutil.which(os.environ.get("CC", "cc").split()[0]) is None:
        pytest.skip("no C compiler to preprocess the headers")
    sys.path.insert(0, PYTHON_DIR)
    try:
        from tinytensor_build import cdef
    finally:
        sys.path.remove(PYTHON_DIR)
    return cdef


def test_installed_declarations_match_the_headers():
    cdef = generator()
    generated = os.path.join(_build_info.BUILD_DIR, "generated")
    if not os.path.isdir(generated):
        pytest.skip("the build folder the package was made from is gone")
    fresh = cdef.generate(REPO, generated)
    assert fresh == _build_info.CDEF, "the package was built from other headers: reinstall it (pip install ./python)"


def test_generator_on_a_small_header(tmp_path):
    cdef = generator()
    (tmp_path / "include").mkdir()
    (tmp_path / "gen").mkdir()
    (tmp_path / "include" / "tinytensor.h").write_text(
        "#include <stdint.h>\n#include <stdbool.h>\n#include <stdio.h>\n"
        "#define TENSOR_API __attribute__((visibility(\"default\")))\n"
        "#define TENSOR_LIMIT 16\n#define TENSOR_SHIFTED ((intptr_t)1 << 4)\n"
        "#define TENSOR_NAME \"text\"\n#define TENSOR_CALL(x) (x)\n"
        "typedef struct tensor tensor_t;\n"
        "typedef enum tensor_kind { TENSOR_A = -1, TENSOR_B = 3 } tensor_kind;\n"
        "typedef struct { int64_t n; bool on; } tensor_pair;\n"
        "static inline tensor_pair tensor_pair_of(int64_t n) { tensor_pair p = {n, true}; return p; }\n"
        "TENSOR_API tensor_t *tensor_make(const int64_t *sizes, int n, FILE *log);\n"
        "_Static_assert(sizeof(tensor_pair) == 16, \"layout\");\n")
    text = cdef.generate(str(tmp_path), str(tmp_path / "gen"))
    assert "typedef struct tensor tensor_t;" in text
    assert "TENSOR_A = -1" in text and "TENSOR_B = 3" in text
    assert re.search(r"int64_t n;\s*_Bool on;", text)
    assert "tensor_pair tensor_pair_of(int64_t n);" in text  # the prototype, not the body
    assert "tensor_t *tensor_make(const int64_t *sizes, int n, FILE *log);" in text
    assert "#define TENSOR_LIMIT ..." in text and "#define TENSOR_SHIFTED ..." in text
    assert "TENSOR_NAME" not in text and "TENSOR_CALL" not in text and "TENSOR_API" not in text
    assert "typedef long int64_t" not in text and "Static_assert" not in text


def test_every_c_name_the_package_uses_exists():
    names = set()
    for filename in os.listdir(PACKAGE_DIR):
        if filename.endswith(".py"):
            with open(os.path.join(PACKAGE_DIR, filename)) as f:
                names |= set(re.findall(r"\blib\.([A-Za-z_]\w*)", f.read()))
    missing = sorted(n for n in names if not hasattr(lib, n))
    assert not missing


def _stub():
    path = os.path.join(PACKAGE_DIR, "__init__.pyi")
    with open(path) as f:
        return ast.parse(f.read(), path)


def _defined(body):
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
    return names


def test_stubs_cover_the_public_names():
    stub = _stub()
    declared = {n for n in _defined(stub.body) if not n.startswith("_")}
    public = set(tt.__all__)
    assert sorted(public - declared) == [], "public names without stubs"
    assert sorted(declared - public - {"annotations", "overload", "Any", "Iterator", "NamedTuple", "Sequence",
                                       "SupportsIndex", "Union", "Optional", "Tuple", "Literal"}) == []


def test_stubs_cover_the_tensor_methods():
    stub = _stub()
    cls = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    declared = _defined(cls.body)
    runtime = {n for n in dir(tt.Tensor) if not n.startswith("_") or (n.startswith("__") and n.endswith("__"))}
    # Dunders that every object has are not worth a stub line.
    runtime -= set(dir(object)) - {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__", "__str__",
                                   "__init__", "__hash__"}
    runtime -= {"__slots__", "__weakref__", "__module__", "__dict__", "__array_priority__"}
    assert sorted(runtime - declared) == []
    assert sorted(n for n in declared - runtime if n != "__array_priority__") == []


def test_the_source_tree_has_stubs_and_marker():
    assert os.path.isfile(os.path.join(SOURCE_PACKAGE_DIR, "__init__.pyi"))
    assert os.path.isfile(os.path.join(SOURCE_PACKAGE_DIR, "py.typed"))
