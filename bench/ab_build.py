"""A second library for an A/B in one process, without a second full build.

    python3 bench/ab_build.py prepare REV OLD_DIR
        (where git is) OLD_DIR gets REV's copies of the files that differ between REV and the
        working tree, laid out as in the repository (a file REV lacks is left out; one the tree
        lacks is skipped).
    python3 bench/ab_build.py build BUILD_A BUILD_B OLD_DIR
        (after BUILD_A is built, with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON) BUILD_B becomes a copy
        of BUILD_A in which each object of the library whose source or included headers are in
        OLD_DIR is compiled again from OLD_DIR's copies (OLD_DIR first on the include path, the
        source replaced when it changed itself), then the shared library is linked again.

Then BUILD_B's library is the older revision's in every file that differs, the rest shared
with BUILD_A: bench/cuda/bench_vecdot.py times it beside BUILD_A's with VECDOT_B_BUILD=BUILD_B.
On the device, the CUDA library's vecdot units and its planner took 90 s this way against
293-347 s for a full build.

Headers reach OLD_DIR's copies through the include path, so only those included by a path from
the repository root ("cuda/reduce_config.h", the project's style); each recompiled object's
dependency file is checked afterwards, and a changed header still read from the tree is an
error. Only the shared library is made again: BUILD_B's static archive is removed, and its tests
and benchmarks are BUILD_A's. Needs CMake's Makefiles generator (link.txt)."""
import json
import os
import shlex
import shutil
import subprocess
import sys


def prepare(rev, old_dir):
    if os.path.isdir(old_dir) and os.listdir(old_dir):
        sys.exit(f"ab_build: {old_dir} is not empty (files of another revision would stay in it)")
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
    names = subprocess.run(["git", "diff", "--name-only", rev], cwd=top, capture_output=True, text=True,
                           check=True).stdout.split()
    kept = 0
    for name in names:
        r = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=top, capture_output=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(top, name)):
            continue  # new in the tree, or gone from it
        dst = os.path.join(old_dir, name)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(r.stdout)
        kept += 1
        print("old:", name)
    print(f"ab_build: {kept} file(s) of {rev} in {old_dir}")


def depfile_paths(path):
    """The paths a make-style dependency file lists (after the target's colon)."""
    text = open(path).read().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        if ":" in line:
            out += line.split(":", 1)[1].split()
    return out


def source_root(build_a):
    """The repository the build was configured from (CMakeCache.txt)."""
    for line in open(os.path.join(build_a, "CMakeCache.txt")):
        if line.startswith("CMAKE_HOME_DIRECTORY:"):
            return line.split("=", 1)[1].strip()
    sys.exit(f"ab_build: no CMAKE_HOME_DIRECTORY in {build_a}/CMakeCache.txt")


def scanned_includes(path, dirs, seen):
    """The files `path` includes by quoted includes, found in its own folder or in `dirs`,
    transitively (when the compiler left no dependency file)."""
    for line in open(path, errors="replace"):
        t = line.strip()
        if not t.startswith("#") or "include" not in t or '"' not in t:
            continue
        name = t.split('"')[1]
        for d in [os.path.dirname(path)] + dirs:
            f = os.path.realpath(os.path.join(d, name))
            if os.path.isfile(f):
                if f not in seen:
                    seen.add(f)
                    scanned_includes(f, dirs, seen)
                break
    return seen


def build(build_a, build_b, old_dir):
    build_a, build_b, old_dir = (os.path.abspath(p) for p in (build_a, build_b, old_dir))
    cc_path = os.path.join(build_a, "compile_commands.json")
    if not os.path.exists(cc_path):
        sys.exit(f"ab_build: no {cc_path}: configure {build_a} with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    cc = json.load(open(cc_path))
    root = os.path.realpath(source_root(build_a))
    rel = [os.path.relpath(os.path.join(d, f), old_dir) for d, _, fs in os.walk(old_dir) for f in fs]
    changed = {os.path.join(root, r) for r in rel if os.path.exists(os.path.join(root, r))}
    if not changed:
        sys.exit(f"ab_build: no file of {old_dir} is in {root}")
    include_dirs = [root, os.path.join(root, "include"), os.path.join(build_a, "generated")]

    link = os.path.join(build_a, "CMakeFiles", "tinytensor.dir", "link.txt")
    if not os.path.exists(link):
        sys.exit(f"ab_build: no {link}: BUILD_A must come from CMake's Makefiles generator")

    def in_b(text):
        """text with BUILD_A's paths made BUILD_B's (whole path components only)."""
        return build_b if text == build_a else text.replace(build_a + "/", build_b + "/")

    shutil.rmtree(build_b, ignore_errors=True)
    shutil.copytree(build_a, build_b, symlinks=True)
    for stale in ("libtinytensor.a",):  # only the shared library is made again: no stale archive
        if os.path.exists(os.path.join(build_b, stale)):
            os.remove(os.path.join(build_b, stale))
    jobs = []
    for e in cc:
        args = shlex.split(e["command"])
        out = e.get("output") or (args[args.index("-o") + 1] if "-o" in args[:-1] else "")
        if "tinytensor_obj.dir" not in out:
            continue
        obj = os.path.join(e["directory"], out)
        if os.path.exists(obj + ".d"):
            deps = {os.path.realpath(os.path.join(e["directory"], d)) for d in depfile_paths(obj + ".d")}
        else:
            deps = scanned_includes(e["file"], include_dirs, set())
        src = os.path.realpath(e["file"])
        if src not in changed and not deps & changed:
            continue
        args = [in_b(a) for a in args]
        if src in changed:
            args = [os.path.join(old_dir, os.path.relpath(src, root)) if a == e["file"] else a for a in args]
        # OLD_DIR's counterpart of every include folder in the tree goes first (the root, include/);
        # nvcc may keep its -I flags in a response file, so the root and include/ always.
        first = [f"-I{old_dir}", f"-I{os.path.join(old_dir, 'include')}"]
        for a in args:
            if a.startswith("-I" + root + "/"):
                first.append("-I" + os.path.join(old_dir, a[len(root) + 3:]))
        cwd = in_b(e["directory"])
        obj_b = os.path.join(cwd, out)
        cmd = [args[0]] + first + ["-MD", "-MF", obj_b + ".ab.d"] + args[1:]  # gcc, clang and nvcc take -MD -MF
        jobs.append((cmd, cwd, obj_b, e["file"]))
    if not jobs:
        sys.exit("ab_build: no object of the library depends on a file of OLD_DIR")
    running, failed = [], []
    for cmd, cwd, obj_b, name in jobs:
        while len(running) >= (os.cpu_count() or 2):
            p, n = running.pop(0)
            if p.wait() != 0:
                failed.append(n)
        print("again:", os.path.relpath(name, root) if name.startswith(root) else name, flush=True)
        running.append((subprocess.Popen(cmd, cwd=cwd), name))
    failed += [n for p, n in running if p.wait() != 0]
    if failed:
        sys.exit("ab_build: compiles failed: " + ", ".join(failed))
    for _, cwd, obj_b, name in jobs:  # every changed file it read came from OLD_DIR
        if os.path.exists(obj_b + ".ab.d"):
            stale = [d for d in depfile_paths(obj_b + ".ab.d") if os.path.realpath(os.path.join(cwd, d)) in changed]
            if stale:
                sys.exit(f"ab_build: {name} still read {stale[0]} from the tree (a header included by a path "
                         "relative to its own folder?)")
    steps = [os.path.join(build_b, "CMakeFiles", "tinytensor.dir", f) for f in ("dlink.txt", "link.txt")]
    for step in steps:
        if os.path.exists(step):
            for line in in_b(open(step).read()).splitlines():
                if line.strip():
                    subprocess.run(line, shell=True, cwd=build_b, check=True)
    print(f"ab_build: {len(jobs)} object(s) again, {build_b}'s shared library linked (its archive, tests and "
          "benchmarks are not made again)", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
