// The product kernels compiled for x86-64-v3 (core/CMakeLists.txt sets -march=x86-64-v3 on this file only);
// products.cpp calls them only on a processor that has that level. See productkernels.h.
#if defined(AE_PRODUCT_LEVELS)
#define Eigen AeEigenV3
#define AE_PRODUCTS_TABLE productKernelsV3
#define AE_PRODUCTS_LEVEL "x86-64-v3 (AVX2, FMA)"
#include "core/tensor/productkernels.h"
#endif
