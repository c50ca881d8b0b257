"""Which BLAS PyTorch runs its products on, for scripts/bench: one JSON object {"name", "fair", "detail"}.

Debian's torch is built against the generic libblas.so.3, so the library is whatever that alternative points
to. This multiplies once, then reads which BLAS library the process has mapped; for OpenBLAS it also asks the
library which kernels it chose for this processor. "fair" is false for the reference BLAS (or none found):
a comparison with torch on it would measure the reference BLAS, not torch.

An OpenBLAS older than the processor does not know its model and falls back to its oldest x86-64 kernels
(Prescott, SSE3), which would cripple torch as surely as the reference BLAS. Then "coretype" names the newest
kernels the processor can run (SkylakeX with AVX-512, Haswell with AVX2 and FMA), for OPENBLAS_CORETYPE; it is
null when OpenBLAS chose well or is not in use.
"""

import ctypes
import json
import os

import torch


# OpenBLAS's kernels for processors without AVX2: what DYNAMIC_ARCH falls back to for a model it does not know.
PRE_AVX2_CORES = {"prescott", "core2", "penryn", "dunnington", "nehalem", "sandybridge", "atom", "katmai",
                  "coppermine", "northwood", "banias", "opteron", "barcelona", "bobcat", "bulldozer"}


def processor_flags():
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def better_coretype(corename):
    """The OPENBLAS_CORETYPE to set when OpenBLAS chose pre-AVX2 kernels on a processor that has AVX2, else None."""
    if corename.lower() not in PRE_AVX2_CORES or os.environ.get("OPENBLAS_CORETYPE"):
        return None
    flags = processor_flags()
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


def main():
    torch.ones(64, 64, dtype=torch.float64) @ torch.ones(64, 64, dtype=torch.float64)
    with open("/proc/self/maps", encoding="utf-8") as f:
        libraries = sorted({line.split()[-1] for line in f if "blas" in line.split()[-1].lower()})
    openblas = [lib for lib in libraries if "libopenblas" in lib]
    coretype = None
    if openblas:
        lib = ctypes.CDLL(openblas[0])
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        config = lib.openblas_get_config().decode()
        version = config.split()[1] if config.startswith("OpenBLAS") else "?"
        corename = lib.openblas_get_corename().decode()
        name = f"OpenBLAS {version} ({corename} kernels)"
        coretype = better_coretype(corename)
        fair = True
    elif any("/blas/" in lib or lib.endswith("libblas.so.3") for lib in libraries):
        name, fair = "reference BLAS (Netlib)", False
    else:
        name, fair = "unknown", False
    print(json.dumps({"name": name, "fair": fair, "detail": ", ".join(libraries) or "no BLAS library mapped",
                      "torch": torch.__version__, "coretype": coretype}))


if __name__ == "__main__":
    main()
