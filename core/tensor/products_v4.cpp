// The product kernels compiled for x86-64-v4 (core/CMakeLists.txt sets -march=x86-64-v4 on this file only);
// products.cpp calls them only on a processor that has that level. See productkernels.h.
#if defined(AE_PRODUCT_LEVELS)
#define Eigen AeEigenV4
#define AE_PRODUCTS_TABLE productKernelsV4
#define AE_PRODUCTS_LEVEL "x86-64-v4 (AVX-512)"
#include "core/tensor/productkernels.h"
#endif
