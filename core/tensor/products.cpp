// The choice of product kernels (products.h) at run time.
#include "core/tensor/products.h"

namespace core {

extern const ProductKernels productKernelsBaseline;
#if defined(AE_PRODUCT_LEVELS)
extern const ProductKernels productKernelsV2, productKernelsV3, productKernelsV4;
#endif

const ProductKernels& productKernels()
{
    static const ProductKernels& chosen = *runnableProductKernels().front();
    return chosen;
}

std::vector<const ProductKernels*> runnableProductKernels()
{
    std::vector<const ProductKernels*> out;
#if defined(AE_PRODUCT_LEVELS)
    if (__builtin_cpu_supports("x86-64-v4"))
        out.push_back(&productKernelsV4);
    if (__builtin_cpu_supports("x86-64-v3"))
        out.push_back(&productKernelsV3);
    if (__builtin_cpu_supports("x86-64-v2"))
        out.push_back(&productKernelsV2);
#endif
    out.push_back(&productKernelsBaseline);
    return out;
}

}  // namespace core
