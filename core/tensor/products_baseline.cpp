// The product kernels for the baseline processor of the build: the fallback when the processor has none of
// the x86-64 levels of products_v2.cpp … products_v4.cpp, or when the build compiles none. Its Eigen is renamed
// like theirs, because productkernels.h configures Eigen differently from the rest of the build.
#define Eigen AeEigenBaseline
#define AE_PRODUCTS_TABLE productKernelsBaseline
#define AE_PRODUCTS_LEVEL "baseline"
#include "core/tensor/productkernels.h"
