// The product kernels compiled for x86-64-v2 (core/CMakeLists.txt sets -march=x86-64-v2 on this file only);
// products.cpp calls them only on a processor that has that level. See productkernels.h.
#if defined(AE_PRODUCT_LEVELS)
#define Eigen AeEigenV2
#define AE_PRODUCTS_TABLE productKernelsV2
#define AE_PRODUCTS_LEVEL "x86-64-v2 (SSE4.2)"
#include "core/tensor/productkernels.h"
#endif
