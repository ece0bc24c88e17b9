# -*- Python -*-
# lit configuration of the meshad tests.
#
# Normally loaded from build/test/lit.site.cfg.py (configured by CMake), which
# sets the paths of the build. Running lit on the source directory
# (`lit -sv test`) works too: the paths then default to <repo>/build, or to the
# build directory given with `--param build_dir=DIR`.

import os
import shutil
import subprocess
import sys

import lit.formats
import lit.util

config.name = "meshad"
# bash when there is one (pipes, $(...), `set -o pipefail`), else lit's shell.
config.test_format = lit.formats.ShTest(lit.util.which("bash") is not None)
# .test: tests that are only RUN lines (the fuzzer smoke runs).
config.suffixes = [".c", ".cpp", ".cu", ".test"]
# Shared helpers and inputs of other tests, not tests themselves.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
SrcRoot = os.path.dirname(config.test_source_root)

# Defaults when no lit.site.cfg.py was loaded (lit run on the source tree).
if not hasattr(config, "meshad_obj_root"):
    config.meshad_src_root = SrcRoot
    config.meshad_obj_root = os.path.abspath(
        lit_config.params.get("build_dir", os.path.join(SrcRoot, "build")))
    config.meshad_plugin = os.path.join(config.meshad_obj_root, "lib",
                                        "libmeshad.so")
    config.meshad_gen = os.path.join(config.meshad_obj_root, "bin",
                                     "meshad-gen")
    config.llvm_tools_dir = "/usr/lib/llvm-22/bin"
    config.clangxx = os.path.join(config.llvm_tools_dir, "clang++")
    config.cuda_path = "/usr/local/cuda"

config.test_exec_root = os.path.join(config.meshad_obj_root, "test")
# `--param cuda_path=DIR` overrides the toolkit (e.g. a nonexistent one, to
# see what a machine without CUDA runs).
config.cuda_path = lit_config.params.get("cuda_path", config.cuda_path)

IncludeDir = os.path.join(config.meshad_src_root, "include")
InputsDir = os.path.join(config.test_source_root, "Inputs")
Nvcc = os.path.join(config.cuda_path, "bin", "nvcc")

# FileCheck, not, count (LLVM tools) and meshad-gen come from PATH.
config.environment["PATH"] = os.pathsep.join([
    config.llvm_tools_dir,
    os.path.join(config.meshad_obj_root, "bin"),
    config.environment.get("PATH", os.environ.get("PATH", "")),
])
# Passed through: HOME/TMPDIR for the compilers, the seed of random inputs.
for Var in ["HOME", "TMPDIR", "MESHAD_TEST_SEED"]:
    if Var in os.environ:
        config.environment[Var] = os.environ[Var]

# Every test runs the IR verifier after each pass: `-fplugin=%meshad_plugin`
# also passes -fplugin-arg-meshad-verify, and %meshad_gen is meshad-gen
# --verify (a malformed generated function is then an error). `--param
# verify=0` runs the suite without it.
VerifyIR = lit_config.params.get("verify", "1") != "0"
PluginFlag = "-fplugin=" + config.meshad_plugin
if VerifyIR:
    PluginFlag += " -fplugin-arg-meshad-verify"

# Longest first where one name is a prefix of another.
config.substitutions.extend([
    ("%clangxx", config.clangxx),
    ("-fplugin=%meshad_plugin", PluginFlag),
    ("%meshad_plugin", config.meshad_plugin),
    ("%meshad_gen",
     config.meshad_gen + (" --verify" if VerifyIR else "")),
    ("%test_inputs", InputsDir),
    ("%cpu_cuda_flags",
     "-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -I%s -pthread"
     % IncludeDir),
    # Thrust over the emulation, its CPP system (docs/cpu-emulation.md).
    ("%cpu_thrust_flags",
     "-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -I{0} "
     "-I{0}/meshad/cpu/thrust -I{1}/include/cccl "
     "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP "
     "-DCCCL_DISABLE_FP16_SUPPORT -DCCCL_DISABLE_BF16_SUPPORT -pthread"
     .format(IncludeDir, config.cuda_path)),
    ("%cuda_flags",
     "--cuda-path=%s -Wno-unknown-cuda-version --cuda-gpu-arch=sm_90"
     % config.cuda_path),
    ("%cuda_link",
     "-L{0}/lib64 -lcudart -Wl,-rpath,{0}/lib64".format(config.cuda_path)),
    ("%nvcc", Nvcc),
    ("%cuda_path", config.cuda_path),
    ("%meshad_fuzz", "%s %s" % (
        sys.executable,
        os.path.join(config.meshad_src_root, "tools", "fuzz", "meshad-fuzz.py"))),
    ("%I", IncludeDir),
    ("%meshad_build", config.meshad_obj_root),
    ("%meshad_src", config.meshad_src_root),
])

# `meshes`: scripts/fetch-meshes.sh extracted CGAL's data meshes (setup.sh
# does); `tetgen`: Debian's tetgen is installed (setup.sh installs it).
MeshDir = os.environ.get("MESHAD_MESH_DIR",
                         os.path.join(config.meshad_src_root, "data", "meshes"))
config.substitutions.append(("%mesh_dir", MeshDir))
if os.path.exists(os.path.join(MeshDir, "armadillo.off")):
    config.available_features.add("meshes")
if shutil.which("tetgen"):
    config.available_features.add("tetgen")

# `thrust`: the CUDA toolkit's Thrust headers are there (CCCL).
if os.path.exists(os.path.join(config.cuda_path, "include", "cccl", "thrust")):
    config.available_features.add("thrust")

# `cuda`: the CUDA toolkit is there (device code can be compiled and linked).
if os.path.exists(Nvcc):
    config.available_features.add("cuda")
else:
    lit_config.note("no CUDA toolkit at %s: CUDA tests are unsupported"
                    % config.cuda_path)


def hasGpu():
    """True when nvidia-smi lists a GPU: kernels can actually run."""
    Smi = shutil.which("nvidia-smi")
    if not Smi:
        return False
    try:
        Out = subprocess.run([Smi, "-L"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return Out.returncode == 0 and "GPU" in Out.stdout


# `gpu`: an NVIDIA GPU is present (tests that launch kernels).
if hasGpu():
    config.available_features.add("gpu")

