/* Exits 0 when this process can use a CUDA device, 1 otherwise; the test runner uses it to skip GPU cases.
   No PETSc here, so that a broken PETSc installation cannot pass for a missing GPU. */
#include <stdio.h>
#include <cuda_runtime_api.h>

int main(void)
{
  int         count = 0;
  cudaError_t err   = cudaGetDeviceCount(&count);

  if (err != cudaSuccess || count < 1) {
    printf("no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return 1;
  }
  for (int d = 0; d < count; d++) {
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess) printf("device %d: %s, sm_%d%d, %.1f GiB\n", d, prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0);
  }
  return 0;
}
