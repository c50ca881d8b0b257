"""Which BLAS PyTorch runs its products on, for scripts/bench: one JSON object {"name", "fair", "detail"}.

Debian's torch is built against the generic libblas.so.3, so the library is whatever that alternative points
to. This multiplies once, then reads which BLAS library the process has mapped; for OpenBLAS it also asks the
library which kernels it chose for this processor. "fair" is false for the reference BLAS (or none found):
a comparison with torch on it would measure the reference BLAS, not torch.
"""

import ctypes
import json

import torch


def main():
    torch.ones(64, 64, dtype=torch.float64) @ torch.ones(64, 64, dtype=torch.float64)
    with open("/proc/self/maps", encoding="utf-8") as f:
        libraries = sorted({line.split()[-1] for line in f if "blas" in line.split()[-1].lower()})
    openblas = [lib for lib in libraries if "libopenblas" in lib]
    if openblas:
        lib = ctypes.CDLL(openblas[0])
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        config = lib.openblas_get_config().decode()
        version = config.split()[1] if config.startswith("OpenBLAS") else "?"
        name = f"OpenBLAS {version} ({lib.openblas_get_corename().decode()} kernels)"
        fair = True
    elif any("/blas/" in lib or lib.endswith("libblas.so.3") for lib in libraries):
        name, fair = "reference BLAS (Netlib)", False
    else:
        name, fair = "unknown", False
    print(json.dumps({"name": name, "fair": fair, "detail": ", ".join(libraries) or "no BLAS library mapped",
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
