/* Host side of the batched Gauss-Jordan component (src/sys/cuda), for the .cu files that launch it: the launches of
   pbg::gj::InvertKernel<P, Source, Store> (gaussjordan.cuh) by width class, as templates on the policies, and the
   counting and sorting of a batch's blocks by size (invert_batched.cu). PetscBlockGPUInvertBatched() (invert_batched.cu)
   instantiates them with the dense policies, PCVBJACOBI's setup (vbjacobi_cuda.cu) with its extraction from CSR/BSR
   and its storage of the inverses. nvcc only (the host warp emulator of the tests runs the kernels without these). */
#pragma once
#include <petscdevice_cuda.h>
#include <../src/sys/cuda/gaussjordan.cuh>
#include <../src/sys/cuda/subwarp_width.cuh>

/* d_count[k] += the blocks of size k (BlockSize(): sizes[], else starts[], else every block kmax; a size outside 0..kmax
   counts as 0), on the stream; d_count (NumSizeKeys entries) zeroed on the stream beforehand */
PETSC_INTERN PetscErrorCode PetscBlockGPUCountSizes_CUDA(PetscInt, int, const int *, const int *, int *, cudaStream_t);
/* perm[] = the block ids sorted by size, from PetscBlockGPUCountSizes_CUDA()'s complete d_count and a d_cursor[NumSizeKeys]
   zeroed on the stream beforehand: the width classes follow one another, each sorted by size */
PETSC_INTERN PetscErrorCode PetscBlockGPUSizePerm_CUDA(PetscInt, int, const int *, const int *, const int *, int *, int *, cudaStream_t);
/* count[c] = the blocks of width class c, from d_count read back: one synchronization of the stream */
PETSC_INTERN PetscErrorCode PetscBlockGPUReadClassCounts_CUDA(const int *, PetscInt[], cudaStream_t);

namespace pbg::gj
{
/* The counters of the sort by size on the device (count: KeyCountKernel; cursor: KeyPermKernel), zeroed together */
struct SizeSortCounters {
  int count[NumSizeKeys];
  int cursor[NumSizeKeys];
};

/* The launches of a batch grouped by width class: classes 0 and 1 together (a thread per block either way), then one
   per other non-empty class. Their number; when it is 1 the batch needs no permutation (every block is in that
   launch, in any order). */
inline int ClassLaunches(const PetscInt count[])
{
  int n = count[0] + count[1] > 0;
  for (int c = 2; c < NumWidthClasses; c++) n += count[c] > 0;
  return n;
}

/* Compact block count for a kernel description: 1234, 56k, 1.2M */
inline PetscErrorCode AppendCount(char *str, size_t len, PetscInt n)
{
  char buf[32];

  PetscFunctionBegin;
  if (n < 10000) PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT, n));
  else if (n < 10000000) PetscCall(PetscSNPrintf(buf, sizeof(buf), "%.0fk", n / 1e3));
  else PetscCall(PetscSNPrintf(buf, sizeof(buf), "%.1fM", n / 1e6));
  PetscCall(PetscStrlcat(str, buf, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inversion of the nwork blocks perm[0..nwork) (0..nwork when perm is NULL) at width P (InvertKernel's arguments) */
template <int P, class Source, class Store>
PetscErrorCode LaunchInvertP(const Source &src, const Store &store, int nwork, int kmax, const int *perm, const int *starts, const int *sizes, const PetscInt64 *offsets, PetscScalar *inv, int identity, PetscInt *info, Outcome *outcome, cudaStream_t stream)
{
  const unsigned grid = (unsigned)((nwork + InvertBlocksPerCta(P) - 1) / InvertBlocksPerCta(P));

  PetscFunctionBegin;
  if (!nwork) PetscFunctionReturn(PETSC_SUCCESS);
  InvertKernel<P, Source, Store><<<grid, PBG_CTA, InvertSharedBytes(P), stream>>>(src, store, nwork, kmax, perm, starts, sizes, offsets, inv, identity, info, outcome);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same at the run-time width P (1, 2, 4, 8, 16 or 32) */
template <class Source, class Store>
PetscErrorCode LaunchInvert(int P, const Source &src, const Store &store, int nwork, int kmax, const int *perm, const int *starts, const int *sizes, const PetscInt64 *offsets, PetscScalar *inv, int identity, PetscInt *info, Outcome *outcome, cudaStream_t stream)
{
  return ForSubwarpWidth(P, [&](auto W) { return LaunchInvertP<decltype(W)::value>(src, store, nwork, kmax, perm, starts, sizes, offsets, inv, identity, info, outcome, stream); });
}

/* Inversion of a batch by width class: perm (NULL when ClassLaunches(count) == 1) groups the block ids by class, count[]
   the blocks of each. desc (may be NULL) receives the list of launches: "k<=2 thread/block (n), P=4 (n), ..." */
template <class Source, class Store>
PetscErrorCode LaunchInvertByClass(const PetscInt count[], const int *perm, const Source &src, const Store &store, int kmax, const int *starts, const int *sizes, const PetscInt64 *offsets, PetscScalar *inv, int identity, PetscInt *info, Outcome *outcome, cudaStream_t stream, char *desc, size_t len)
{
  PetscInt begin = count[0] + count[1];

  PetscFunctionBegin;
  if (begin) {
    PetscCall(LaunchInvert(count[1] ? 2 : 1, src, store, (int)begin, kmax, perm, starts, sizes, offsets, inv, identity, info, outcome, stream));
    if (desc) {
      PetscCall(PetscStrlcat(desc, count[1] ? "k<=2 thread/block (" : "1x1 thread/block (", len));
      PetscCall(AppendCount(desc, len, begin));
      PetscCall(PetscStrlcat(desc, ")", len));
    }
  }
  for (int c = 2; c < NumWidthClasses; c++) {
    char buf[16];

    if (!count[c]) continue;
    PetscCall(LaunchInvert(1 << c, src, store, (int)count[c], kmax, perm ? perm + begin : NULL, starts, sizes, offsets, inv, identity, info, outcome, stream));
    if (desc) {
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%sP=%d (", begin ? ", " : "", 1 << c));
      PetscCall(PetscStrlcat(desc, buf, len));
      PetscCall(AppendCount(desc, len, count[c]));
      PetscCall(PetscStrlcat(desc, ")", len));
    }
    begin += count[c];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace pbg::gj
