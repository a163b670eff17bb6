static const char help[] = "Tests MATBAIJKSPARSE (seq and mpi): creation routes, conversions, duplicate, view, and the products\n"
                           "MatMult, MatMultAdd, MatMultTranspose, MatMultTransposeAdd against the same matrix as MATAIJ.\n"
                           "  -bs <3>          block size\n"
                           "  -mbs <12>        block rows per rank (random pattern)\n"
                           "  -nbs <mbs>       block columns per rank (random pattern)\n"
                           "  -avg <4>         average blocks per block row (random pattern)\n"
                           "  -seed <0>        random seed\n"
                           "  -create <route>  convert_aij, inplace_aij, reuse_aij, convert_baij, inplace_baij, settype, settype_hash,\n"
                           "                   settype_assembled, createbaijksparse, dmda\n"
                           "  -target <root>   root (MatConvert to baijksparse) or explicit (seqbaijksparse/mpibaijksparse)\n"
                           "  -grid <6>        DMDA grid points per direction (-create dmda; the DMDA's dof is -bs)\n"
                           "  -empty_rows      random pattern with empty block rows\n"
                           "  -long_rows       random pattern with a few long block rows\n"
                           "  -explicit_zeros <0> share of the random entries stored as 0.0 (as PETSc's multigrid interpolations have)\n"
                           "  -reassemble      add blocks after the first assembly (new off-process columns) and check again\n"
                           "  -view_matrix     also view the matrix with the default ASCII and INFO_DETAIL formats\n"
                           "  -error <none>    trigger an error path: reuse_sizes, reuse_type, reuse_bs, bad_bs, bad_local_size,\n"
                           "                   mult_sizes, convert_unassembled, seq_type_on_mpi\n"
                           "  -err_continue    (-create convert_aij) the conversion must fail (bad -mat_baijksparse_* options): its error\n"
                           "                   is caught (tests/test_refusal.h) and printed, then the program frees what it made, exits 0\n"
                           "  -gpu             also check the products on CUDA vectors (MatCreateVecs of the matrix) against the host AIJ\n"
                           "                   reference, the device copy after MatScale, MatSetValues, MatZeroEntries, MatCopy, MatDuplicate,\n"
                           "                   MatBindToCPU, and that the BAIJKMult event ran (GPU runs only; the kernel comes from\n"
                           "                   -mat_baijksparse_kernel/_balance/_lambda/_ept/_warps/_teams/_lanes)\n";

#include <petscblockgpu.h>
#include <petscdmda.h>
#include "test_refusal.h"

static const char *const Routes[] = {"convert_aij", "inplace_aij", "reuse_aij", "convert_baij", "inplace_baij", "settype", "settype_hash", "settype_assembled", "createbaijksparse", "dmda"};
typedef enum {
  R_CONVERT_AIJ,
  R_INPLACE_AIJ,
  R_REUSE_AIJ,
  R_CONVERT_BAIJ,
  R_INPLACE_BAIJ,
  R_SETTYPE,
  R_SETTYPE_HASH,
  R_SETTYPE_ASSEMBLED,
  R_CREATE,
  R_DMDA,
  R_N
} Route;
static const char *const Errors[] = {"none", "reuse_sizes", "reuse_type", "reuse_bs", "bad_bs", "bad_local_size", "mult_sizes", "convert_unassembled", "seq_type_on_mpi"};
typedef enum {
  E_NONE,
  E_REUSE_SIZES,
  E_REUSE_TYPE,
  E_REUSE_BS,
  E_BAD_BS,
  E_BAD_LOCAL_SIZE,
  E_MULT_SIZES,
  E_CONVERT_UNASSEMBLED,
  E_SEQ_TYPE_ON_MPI,
  E_N
} ErrorMode;

/* The local block rows of the test matrix: block CSR with global block column indices and the values */
typedef struct {
  PetscInt     bs, mbs, nbs, rstart, cstart, Mbs, Nbs; /* block sizes and ranges */
  PetscInt    *ia, *ja, nalloc;                        /* ja: global block columns */
  PetscScalar *va;                                     /* bs*bs row-major values per block */
  PetscInt    *dnnz, *onnz;                            /* blocks in the diagonal / off-diagonal part per block row */
} Pattern;

static PetscErrorCode PatternCounts(Pattern *P)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < P->mbs; r++) {
    P->dnnz[r] = P->onnz[r] = 0;
    for (PetscInt k = P->ia[r]; k < P->ia[r + 1]; k++) {
      if (P->ja[k] >= P->cstart && P->ja[k] < P->cstart + P->nbs) P->dnnz[r]++;
      else P->onnz[r]++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PatternSetLayout(MPI_Comm comm, Pattern *P, PetscInt bs, PetscInt mbs, PetscInt nbs)
{
  PetscFunctionBegin;
  P->bs  = bs;
  P->mbs = mbs;
  P->nbs = nbs;
  PetscCallMPI(MPI_Scan(&mbs, &P->rstart, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Scan(&nbs, &P->cstart, 1, MPIU_INT, MPI_SUM, comm));
  P->rstart -= mbs;
  P->cstart -= nbs;
  PetscCallMPI(MPIU_Allreduce(&mbs, &P->Mbs, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(&nbs, &P->Nbs, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscMalloc3(mbs + 1, &P->ia, mbs, &P->dnnz, mbs, &P->onnz));
  P->ia[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PatternReserve(Pattern *P, PetscInt nblocks)
{
  PetscFunctionBegin;
  if (nblocks > P->nalloc) {
    PetscInt     n = PetscMax(nblocks, 2 * P->nalloc);
    PetscInt    *ja;
    PetscScalar *va;

    PetscCall(PetscMalloc2(n, &ja, n * P->bs * P->bs, &va));
    if (P->nalloc) {
      PetscCall(PetscArraycpy(ja, P->ja, P->nalloc));
      PetscCall(PetscArraycpy(va, P->va, P->nalloc * P->bs * P->bs));
    }
    PetscCall(PetscFree2(P->ja, P->va));
    P->ja     = ja;
    P->va     = va;
    P->nalloc = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PatternDestroy(Pattern *P)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(P->ia, P->dnnz, P->onnz));
  PetscCall(PetscFree2(P->ja, P->va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal zero_fraction = 0; /* -explicit_zeros: the share of the entries stored as 0.0 */

static PetscErrorCode RandomBlock(PetscRandom rnd, PetscInt bs, PetscScalar *v)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < bs * bs; i++) {
    PetscReal r, z = 1;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    if (zero_fraction > 0) PetscCall(PetscRandomGetValueReal(rnd, &z));
    v[i] = z < zero_fraction ? 0.0 : 2 * r - 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random nonsymmetric block pattern: each block row gets distinct random block columns, sorted */
static PetscErrorCode PatternRandom(MPI_Comm comm, PetscRandom rnd, PetscInt bs, PetscInt mbs, PetscInt nbs, PetscInt avg, PetscBool empty, PetscBool longrows, Pattern *P)
{
  PetscInt *perm;

  PetscFunctionBegin;
  PetscCall(PatternSetLayout(comm, P, bs, mbs, nbs));
  PetscCall(PetscMalloc1(P->Nbs, &perm));
  for (PetscInt c = 0; c < P->Nbs; c++) perm[c] = c;
  for (PetscInt r = 0; r < mbs; r++) {
    PetscReal u, w;
    PetscInt  cnt;

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    PetscCall(PetscRandomGetValueReal(rnd, &w));
    if (empty && (r == 0 || u < 0.15)) cnt = 0;
    else if (longrows && (r == mbs / 2 || u > 0.95)) cnt = PetscMax(8 * avg, (3 * P->Nbs) / 4);
    else cnt = 1 + (PetscInt)(w * (2 * avg - 1));
    cnt = PetscMin(cnt, P->Nbs);
    PetscCall(PatternReserve(P, P->ia[r] + cnt));
    for (PetscInt k = 0; k < cnt; k++) { /* partial Fisher-Yates: a uniform random subset */
      PetscReal x;
      PetscInt  j, t;

      PetscCall(PetscRandomGetValueReal(rnd, &x));
      j       = k + PetscMin((PetscInt)(x * (P->Nbs - k)), P->Nbs - k - 1);
      t       = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
    }
    PetscCall(PetscArraycpy(P->ja + P->ia[r], perm, cnt));
    PetscCall(PetscSortInt(cnt, P->ja + P->ia[r]));
    for (PetscInt k = P->ia[r]; k < P->ia[r] + cnt; k++) PetscCall(RandomBlock(rnd, bs, P->va + k * bs * bs));
    P->ia[r + 1] = P->ia[r] + cnt;
  }
  PetscCall(PetscFree(perm));
  PetscCall(PatternCounts(P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 5-point star pattern of a 2D DMDA whose dof is the block size, in PETSc's global block numbering */
static PetscErrorCode PatternDMDA(DM da, PetscRandom rnd, Pattern *P)
{
  PetscInt               M, N, dof, xs, ys, xm, ym, gxs, gys, gxm, gym, r = 0;
  ISLocalToGlobalMapping ltog;
  const PetscInt         di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetGhostCorners(da, &gxs, &gys, NULL, &gxm, &gym, NULL));
  PetscCall(DMGetLocalToGlobalMapping(da, &ltog));
  PetscCall(PatternSetLayout(PetscObjectComm((PetscObject)da), P, dof, xm * ym, xm * ym));
  PetscCall(PatternReserve(P, 5 * xm * ym));
  for (PetscInt j = ys; j < ys + ym; j++) {
    for (PetscInt i = xs; i < xs + xm; i++, r++) {
      PetscInt cnt = 0;

      for (PetscInt s = 0; s < 5; s++) {
        PetscInt ii = i + di[s], jj = j + dj[s], slot, g;

        if (ii < 0 || ii >= M || jj < 0 || jj >= N) continue;
        slot = (ii - gxs) + gxm * (jj - gys);
        PetscCall(ISLocalToGlobalMappingApplyBlock(ltog, 1, &slot, &g));
        P->ja[P->ia[r] + cnt] = g;
        PetscCall(RandomBlock(rnd, dof, P->va + (P->ia[r] + cnt) * dof * dof));
        cnt++;
      }
      P->ia[r + 1] = P->ia[r] + cnt;
    }
  }
  PetscCall(PatternCounts(P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Inserts the pattern's blocks, MatSetValuesBlocked() (blocked matrices) or point-wise MatSetValues() */
static PetscErrorCode PatternInsert(Mat A, const Pattern *P, PetscBool blocked, PetscInt from)
{
  PetscInt  bs = P->bs, *rows, *cols;
  PetscBool skip;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(bs, &rows, bs, &cols));
  for (PetscInt r = 0; r < P->mbs; r++) {
    PetscInt brow = P->rstart + r;

    for (PetscInt k = P->ia[r]; k < P->ia[r + 1]; k++) {
      skip = (PetscBool)(from >= 0 && k != from);
      if (skip) continue;
      if (blocked) PetscCall(MatSetValuesBlocked(A, 1, &brow, 1, &P->ja[k], P->va + k * bs * bs, INSERT_VALUES));
      else {
        for (PetscInt i = 0; i < bs; i++) {
          rows[i] = bs * brow + i;
          cols[i] = bs * P->ja[k] + i;
        }
        PetscCall(MatSetValues(A, bs, rows, bs, cols, P->va + k * bs * bs, INSERT_VALUES));
      }
    }
  }
  PetscCall(PetscFree2(rows, cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Assemble(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A matrix of the given type (aij or baij), preallocated exactly, holding the pattern; AIJ gets the block size too */
static PetscErrorCode PatternCreateMat(MPI_Comm comm, const Pattern *P, MatType type, Mat *A)
{
  PetscBool isaij;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, P->bs * P->mbs, P->bs * P->nbs, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*A, P->bs, P->bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatXAIJSetPreallocation(*A, P->bs, P->dnnz, P->onnz, NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscStrbeginswith(type, MATAIJ, &isaij));
  PetscCall(PatternInsert(*A, P, isaij ? PETSC_FALSE : PETSC_TRUE, -1));
  PetscCall(Assemble(*A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal and off-diagonal parts. PETSc's MatMPIBAIJGetSeqBAIJ() accepts only the exact type name mpibaij,
   so the subclass is looked through the way the library itself does (the data is MPIBAIJ's). */
static PetscErrorCode GetParts(Mat A, Mat *Ad, Mat *Ao)
{
  PetscBool isk;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIBAIJKSPARSE, &isk));
  if (isk) PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJ));
  PetscCall(MatMPIBAIJGetSeqBAIJ(A, Ad, Ao, NULL));
  if (isk) PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIBAIJKSPARSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checks the type (seq/mpi flavour of base) and, for MPI, the types of both parts and MatGetDiagonalBlock() */
static PetscErrorCode CheckType(Mat A, PetscBool ksparse, PetscInt bs, const char *what)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt size;
  MatType     type;
  PetscInt    rbs, cbs;
  PetscBool   flg;
  const char *want, *partwant;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (ksparse) {
    want     = size > 1 ? MATMPIBAIJKSPARSE : MATSEQBAIJKSPARSE;
    partwant = MATSEQBAIJKSPARSE;
  } else {
    want     = size > 1 ? MATMPIBAIJ : MATSEQBAIJ;
    partwant = MATSEQBAIJ;
  }
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscStrcmp(type, want, &flg));
  PetscCheck(flg, comm, PETSC_ERR_PLIB, "%s: type %s, expected %s", what, type, want);
  PetscCall(MatGetBlockSizes(A, &rbs, &cbs));
  PetscCheck(rbs == bs && cbs == bs, comm, PETSC_ERR_PLIB, "%s: block sizes %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT, what, rbs, cbs, bs);
  if (size > 1) {
    Mat Ad, Ao, Ad2;

    PetscCall(GetParts(A, &Ad, &Ao));
    PetscCall(MatGetDiagonalBlock(A, &Ad2));
    PetscCheck(Ad == Ad2, comm, PETSC_ERR_PLIB, "%s: MatGetDiagonalBlock() is not the diagonal part", what);
    PetscCall(MatGetType(Ad, &type));
    PetscCall(PetscStrcmp(type, partwant, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: diagonal part has type %s, expected %s", what, type, partwant);
    PetscCall(MatGetType(Ao, &type));
    PetscCall(PetscStrcmp(type, partwant, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: off-diagonal part has type %s, expected %s", what, type, partwant);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Poison(Vec v)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = (i % 2) ? (PetscScalar)NAN : (PetscScalar)1e300;
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The output of MatMult() poisoned, except for plain BAIJ: PETSc's MatMult_SeqBAIJ_N (bs >= 8, and any bs after
   MatDuplicate()) leaves the entries of empty block rows unset when it does not use compressed rows (its BLAS gemv
   returns at once for 0 columns), so that there y is zeroed first. MATBAIJKSPARSE zeroes y itself before BAIJ's
   host kernel. */
static PetscErrorCode PoisonForMult(Mat A, Vec y)
{
  PetscBool plain;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &plain, MATSEQBAIJ, MATMPIBAIJ, ""));
  if (plain) PetscCall(VecZeroEntries(y));
  else PetscCall(Poison(y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(Vec y, Vec yref, const char *what, const char *op)
{
  const PetscScalar *a, *b;
  PetscInt           n, nr;
  PetscReal          sums[2] = {0, 0}, nerr, nref;

  PetscFunctionBegin;
  /* through host arrays, so that device and host vectors compare alike */
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetLocalSize(yref, &nr));
  PetscCheck(n == nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s: local sizes %" PetscInt_FMT " and %" PetscInt_FMT, what, op, n, nr);
  PetscCall(VecGetArrayRead(y, &a));
  PetscCall(VecGetArrayRead(yref, &b));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal d = PetscAbsScalar(a[i] - b[i]);

    sums[0] += (PetscIsInfOrNanScalar(a[i]) ? PETSC_INFINITY : d * d);
    sums[1] += PetscRealPart(b[i] * PetscConj(b[i]));
  }
  PetscCall(VecRestoreArrayRead(y, &a));
  PetscCall(VecRestoreArrayRead(yref, &b));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sums, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)y)));
  nerr = PetscSqrtReal(sums[0]);
  nref = PetscSqrtReal(sums[1]);
  PetscCheck(!PetscIsInfOrNanReal(nerr) && nerr <= 1e-12 * PetscMax(nref, PETSC_SMALL), PetscObjectComm((PetscObject)y), PETSC_ERR_PLIB, "%s: %s differs from AIJ: |y - yref| = %g, |yref| = %g", what, op, (double)nerr, (double)nref);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst = src through host arrays (any vector types, same local size) */
static PetscErrorCode CopyValues(Vec src, Vec dst)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &a));
  PetscCall(VecGetArrayWrite(dst, &b));
  PetscCall(PetscArraycpy(b, a, n));
  PetscCall(VecRestoreArrayRead(src, &a));
  PetscCall(VecRestoreArrayWrite(dst, &b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The four products of A against the AIJ reference, on random vectors, outputs poisoned first */
static PetscErrorCode CheckProducts(Mat A, Mat Aref, PetscRandom rnd, const char *what)
{
  Vec x, y, yref, z, w, xt, yt, ytref;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(Aref, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &xt));
  PetscCall(VecDuplicate(x, &yt));
  PetscCall(VecDuplicate(x, &ytref));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(VecSetRandom(z, rnd));

  PetscCall(MatMult(Aref, x, yref));
  PetscCall(PoisonForMult(A, y));
  PetscCall(MatMult(A, x, y));
  PetscCall(Compare(y, yref, what, "MatMult"));

  PetscCall(MatMultAdd(Aref, x, z, yref));
  PetscCall(Poison(y));
  PetscCall(MatMultAdd(A, x, z, y));
  PetscCall(Compare(y, yref, what, "MatMultAdd"));
  PetscCall(VecCopy(z, w)); /* w = w + A x, in place */
  PetscCall(MatMultAdd(A, x, w, w));
  PetscCall(Compare(w, yref, what, "MatMultAdd (in place)"));

  PetscCall(MatMultTranspose(Aref, xt, ytref));
  PetscCall(Poison(yt));
  PetscCall(MatMultTranspose(A, xt, yt));
  PetscCall(Compare(yt, ytref, what, "MatMultTranspose"));

  PetscCall(VecSetRandom(x, rnd)); /* x: the vector added, in the column layout */
  PetscCall(MatMultTransposeAdd(Aref, xt, x, ytref));
  PetscCall(Poison(yt));
  PetscCall(MatMultTransposeAdd(A, xt, x, yt));
  PetscCall(Compare(yt, ytref, what, "MatMultTransposeAdd"));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt));
  PetscCall(VecDestroy(&ytref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The four products of A on the vectors of MatCreateVecs(A) (CUDA vectors on a GPU run) against the host AIJ
   reference, outputs poisoned (NaN / 1e300) on the host side first so that the device copy holds the poison */
static PetscErrorCode CheckProductsDevice(Mat A, Mat Aref, PetscRandom rnd, const char *what)
{
  Vec     x, y, z, xt, yt, zt, hx, hy, hyref, hz, hxt, hyt, hytref, hzt;
  VecType vt;
  char   *iscuda;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecGetType(y, &vt));
  PetscCall(PetscStrstr(vt, "cuda", &iscuda));
  PetscCheck(iscuda, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB, "%s: MatCreateVecs() of a baijksparse matrix gave %s vectors, not CUDA ones", what, vt);
  PetscCall(VecDuplicate(y, &z));
  PetscCall(VecDuplicate(y, &xt));
  PetscCall(VecDuplicate(x, &yt));
  PetscCall(VecDuplicate(x, &zt));
  PetscCall(MatCreateVecs(Aref, &hx, &hy));
  PetscCall(VecDuplicate(hy, &hyref));
  PetscCall(VecDuplicate(hy, &hz));
  PetscCall(VecDuplicate(hy, &hxt));
  PetscCall(VecDuplicate(hx, &hyt));
  PetscCall(VecDuplicate(hx, &hytref));
  PetscCall(VecDuplicate(hx, &hzt));
  PetscCall(VecSetRandom(hx, rnd));
  PetscCall(VecSetRandom(hz, rnd));
  PetscCall(VecSetRandom(hxt, rnd));
  PetscCall(VecSetRandom(hzt, rnd));
  PetscCall(CopyValues(hx, x));
  PetscCall(CopyValues(hz, z));
  PetscCall(CopyValues(hxt, xt));
  PetscCall(CopyValues(hzt, zt));

  PetscCall(MatMult(Aref, hx, hyref));
  PetscCall(Poison(y));
  PetscCall(MatMult(A, x, y));
  PetscCall(Compare(y, hyref, what, "MatMult (device vectors)"));

  PetscCall(MatMultAdd(Aref, hx, hz, hyref));
  PetscCall(Poison(y));
  PetscCall(MatMultAdd(A, x, z, y));
  PetscCall(Compare(y, hyref, what, "MatMultAdd (device vectors)"));
  PetscCall(VecCopy(z, y)); /* y = y + A x, in place */
  PetscCall(MatMultAdd(A, x, y, y));
  PetscCall(Compare(y, hyref, what, "MatMultAdd in place (device vectors)"));

  PetscCall(MatMultTranspose(Aref, hxt, hytref));
  PetscCall(Poison(yt));
  PetscCall(MatMultTranspose(A, xt, yt));
  PetscCall(Compare(yt, hytref, what, "MatMultTranspose (device vectors)"));

  PetscCall(MatMultTransposeAdd(Aref, hxt, hzt, hytref));
  PetscCall(Poison(yt));
  PetscCall(MatMultTransposeAdd(A, xt, zt, yt));
  PetscCall(Compare(yt, hytref, what, "MatMultTransposeAdd (device vectors)"));
  PetscCall(VecCopy(zt, yt));
  PetscCall(MatMultTransposeAdd(A, xt, yt, yt));
  PetscCall(Compare(yt, hytref, what, "MatMultTransposeAdd in place (device vectors)"));

  /* twice in a row: the device copy is reused */
  PetscCall(MatMult(Aref, hx, hyref));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(A, x, y));
  PetscCall(Compare(y, hyref, what, "MatMult again (device vectors)"));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt));
  PetscCall(VecDestroy(&zt));
  PetscCall(VecDestroy(&hx));
  PetscCall(VecDestroy(&hy));
  PetscCall(VecDestroy(&hyref));
  PetscCall(VecDestroy(&hz));
  PetscCall(VecDestroy(&hxt));
  PetscCall(VecDestroy(&hyt));
  PetscCall(VecDestroy(&hytref));
  PetscCall(VecDestroy(&hzt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times the BAIJKMult event (the device products) has run on this rank */
static PetscErrorCode DeviceProductCount(PetscInt *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId("BAIJKMult", &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device path after host changes of the matrix: each must reach the device copy */
static PetscErrorCode CheckDevice(Mat A, Mat Aref, const Pattern *P, PetscRandom rnd)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  PetscInt c0, c1;
  Mat      D;
  Vec      d, dref;

  PetscFunctionBegin;
  PetscCall(DeviceProductCount(&c0));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device"));
  PetscCall(DeviceProductCount(&c1));
  PetscCheck(P->mbs == 0 || c1 > c0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The products on CUDA vectors did not run on the GPU (no BAIJKMult event)");

  PetscCall(MatScale(A, -0.5));
  PetscCall(MatScale(Aref, -0.5));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device, after MatScale"));

  if (P->ia[P->mbs] > 0) { /* MatSetValues after assembly: a new value for the first block of the first non-empty row */
    PetscInt     r = 0, bs = P->bs, brow, bcol;
    PetscScalar *v;

    while (P->ia[r + 1] == P->ia[r]) r++;
    brow = P->rstart + r;
    bcol = P->ja[P->ia[r]];
    PetscCall(PetscMalloc1(bs * bs, &v));
    PetscCall(RandomBlock(rnd, bs, v));
    PetscCall(MatSetValuesBlocked(A, 1, &brow, 1, &bcol, v, INSERT_VALUES));
    for (PetscInt i = 0; i < bs; i++)
      for (PetscInt j = 0; j < bs; j++) PetscCall(MatSetValue(Aref, bs * brow + i, bs * bcol + j, v[i * bs + j], INSERT_VALUES));
    PetscCall(PetscFree(v));
  }
  PetscCall(Assemble(A));
  PetscCall(Assemble(Aref));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device, after MatSetValues"));

  PetscCall(MatCreateVecs(A, NULL, &d));
  PetscCall(MatCreateVecs(Aref, NULL, &dref));
  if (P->Mbs == P->Nbs) {
    PetscCall(MatGetDiagonal(A, d));
    PetscCall(MatGetDiagonal(Aref, dref));
    PetscCall(Compare(d, dref, "device", "MatGetDiagonal"));
  }
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&dref));

  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(CheckProductsDevice(D, Aref, rnd, "device, MatDuplicate"));
  PetscCall(MatScale(D, 3.0));
  { /* a product with the scaled values, so that the device copy holds them before MatCopy() */
    Vec x, y;

    PetscCall(MatCreateVecs(D, &x, &y));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(D, x, y));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(MatCopy(A, D, SAME_NONZERO_PATTERN));
  PetscCall(CheckProductsDevice(D, Aref, rnd, "device, MatCopy"));
  PetscCall(MatDestroy(&D));

  PetscCall(MatBindToCPU(A, PETSC_TRUE));
  PetscCall(DeviceProductCount(&c0));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device vectors, matrix bound to the CPU"));
  PetscCall(DeviceProductCount(&c1));
  PetscCheck(c1 == c0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A matrix bound to the CPU ran products on the GPU");
  PetscCall(MatBindToCPU(A, PETSC_FALSE));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device, unbound again"));

  PetscCall(MatZeroEntries(A));
  PetscCall(MatZeroEntries(Aref));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device, after MatZeroEntries"));
  PetscCall(PatternInsert(A, P, PETSC_TRUE, -1));
  PetscCall(PatternInsert(Aref, P, PETSC_FALSE, -1));
  PetscCall(Assemble(A));
  PetscCall(Assemble(Aref));
  PetscCall(CheckProductsDevice(A, Aref, rnd, "device, values inserted again"));
  PetscCall(PetscPrintf(comm, "device products verified\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatView() with ASCII_INFO into a file, whose text must hold the statistics computed here from the pattern */
static PetscErrorCode CheckView(Mat A, const Pattern *P)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)A);
  PetscMPIInt rank;
  PetscInt    sums[3] = {P->mbs, P->ia[P->mbs], 0}, ext[2] = {PETSC_INT_MIN, 0};
  char        line1[256], line2[256], line3[64], buf[8192];
  FILE       *fp;
  PetscViewer viewer;
  PetscBool   found[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  MatType     type;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscInt r = 0; r < P->mbs; r++) {
    PetscInt len = P->ia[r + 1] - P->ia[r];

    if (!len) sums[2]++;
    ext[0] = PetscMax(ext[0], -len);
    ext[1] = PetscMax(ext[1], len);
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sums, 3, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, ext, 2, MPIU_INT, MPI_MAX, comm));
  PetscCall(PetscSNPrintf(line1, sizeof(line1), "baijksparse: bs %" PetscInt_FMT ", block rows %" PetscInt_FMT ", nonzero blocks %" PetscInt_FMT, P->bs, sums[0], sums[1]));
  PetscCall(PetscSNPrintf(line2, sizeof(line2), "min %" PetscInt_FMT ", mean %.2f, max %" PetscInt_FMT "; empty block rows %" PetscInt_FMT, sums[0] ? -ext[0] : 0, sums[0] ? (double)sums[1] / (double)sums[0] : 0.0, ext[1], sums[2]));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscSNPrintf(line3, sizeof(line3), "type: %s", type));

  fp = tmpfile();
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "tmpfile() failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(comm, fp, &viewer));
  PetscCall(PetscViewerPushFormat(viewer, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, viewer));
  PetscCall(PetscViewerPopFormat(viewer));
  PetscCall(PetscViewerDestroy(&viewer));
  if (rank == 0) {
    size_t n;

    fflush(fp);
    rewind(fp);
    n        = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n]   = 0;
    found[0] = strstr(buf, line1) ? PETSC_TRUE : PETSC_FALSE;
    found[1] = strstr(buf, line2) ? PETSC_TRUE : PETSC_FALSE;
    found[2] = (strstr(buf, "MatMult: host BAIJ kernels") || strstr(buf, "MatMult: GPU kernel")) ? PETSC_TRUE : PETSC_FALSE;
    found[3] = strstr(buf, line3) ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", buf));
  }
  fclose(fp);
  PetscCallMPI(MPI_Bcast(found, 4, MPI_C_BOOL, 0, comm));
  PetscCheck(found[0] && found[1] && found[2] && found[3], comm, PETSC_ERR_PLIB, "MatView(ASCII_INFO) lacks \"%s\" (%d), \"%s\" (%d), the kernel line (%d) or \"%s\" (%d)", line1, (int)found[0], line2, (int)found[1], (int)found[2], line3, (int)found[3]);
  PetscCall(PetscPrintf(comm, "view statistics verified: %s; %s\n", line1, line2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adds, to the first block row of each rank, one block in a block column that no local row uses yet (outside the
   local column range when there are several ranks), so that MPIBAIJ has to disassemble and recreate its
   off-diagonal part. Returns the index of the new block in the pattern (or -1). */
static PetscErrorCode PatternAddNewColumn(MPI_Comm comm, PetscRandom rnd, Pattern *P, PetscInt *added)
{
  PetscMPIInt size;
  PetscBool  *used;
  PetscInt    c = -1, bs = P->bs, nb = P->ia[P->mbs], cnt0;

  PetscFunctionBegin;
  *added = -1;
  if (!P->mbs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscCalloc1(P->Nbs, &used));
  for (PetscInt k = 0; k < nb; k++) used[P->ja[k]] = PETSC_TRUE;
  for (PetscInt j = 0; j < P->Nbs; j++) {
    PetscInt cand = (P->cstart + P->nbs + j) % P->Nbs;

    if (used[cand]) continue;
    if (size > 1 && cand >= P->cstart && cand < P->cstart + P->nbs) continue;
    c = cand;
    break;
  }
  PetscCall(PetscFree(used));
  if (c < 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* insert as the last block of row 0: shift the rest of the pattern by one block */
  PetscCall(PatternReserve(P, nb + 1));
  cnt0 = P->ia[1];
  PetscCall(PetscArraymove(P->ja + cnt0 + 1, P->ja + cnt0, nb - cnt0));
  PetscCall(PetscArraymove(P->va + (cnt0 + 1) * bs * bs, P->va + cnt0 * bs * bs, (nb - cnt0) * bs * bs));
  P->ja[cnt0] = c;
  PetscCall(RandomBlock(rnd, bs, P->va + cnt0 * bs * bs));
  for (PetscInt r = 1; r <= P->mbs; r++) P->ia[r]++;
  PetscCall(PatternCounts(P));
  *added = cnt0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ErrorPaths(ErrorMode mode, MPI_Comm comm, const Pattern *P, Mat Aaij, Mat A)
{
  Mat         W = NULL;
  PetscMPIInt size;
  PetscInt    bs = P->bs;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  switch (mode) {
  case E_NONE:
    break;
  case E_REUSE_SIZES: /* reuse a baijksparse matrix of other sizes */
    PetscCall(MatCreateBAIJKSPARSE(comm, bs, bs * (P->mbs + 1), bs * (P->nbs + 1), PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 1, NULL, &W));
    PetscCall(Assemble(W));
    PetscCall(MatConvert(Aaij, MATBAIJKSPARSE, MAT_REUSE_MATRIX, &W));
    break;
  case E_REUSE_TYPE: /* reuse a matrix that is not baijksparse */
    PetscCall(MatDuplicate(Aaij, MAT_COPY_VALUES, &W));
    PetscCall(MatConvert(Aaij, MATBAIJKSPARSE, MAT_REUSE_MATRIX, &W));
    break;
  case E_REUSE_BS: /* reuse a baijksparse matrix of the same sizes but block size 1 */
    PetscCheck(bs > 1, comm, PETSC_ERR_USER, "-error reuse_bs needs -bs > 1");
    PetscCall(MatCreateBAIJKSPARSE(comm, 1, bs * P->mbs, bs * P->nbs, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 1, NULL, &W));
    PetscCall(Assemble(W));
    PetscCall(MatConvert(Aaij, MATBAIJKSPARSE, MAT_REUSE_MATRIX, &W));
    break;
  case E_BAD_BS:
    PetscCall(MatCreateBAIJKSPARSE(comm, 0, bs * P->mbs, bs * P->nbs, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 1, NULL, &W));
    break;
  case E_BAD_LOCAL_SIZE: /* local rows not a multiple of the block size */
    PetscCheck(bs > 1, comm, PETSC_ERR_USER, "-error bad_local_size needs -bs > 1");
    PetscCall(MatCreateBAIJKSPARSE(comm, bs, bs * P->mbs + 1, bs * P->mbs + 1, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 1, NULL, &W));
    break;
  case E_MULT_SIZES: { /* MatMult with an x of the wrong size */
    Vec x, y;

    PetscCall(VecCreateFromOptions(comm, NULL, 1, bs * P->nbs + 1, PETSC_DETERMINE, &x));
    PetscCall(MatCreateVecs(A, NULL, &y));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
  } break;
  case E_CONVERT_UNASSEMBLED: {
    Mat X;

    PetscCall(MatCreateBAIJKSPARSE(comm, bs, bs * P->mbs, bs * P->nbs, PETSC_DETERMINE, PETSC_DETERMINE, 1, NULL, 1, NULL, &W));
    PetscCall(MatConvert(W, MATBAIJ, MAT_INITIAL_MATRIX, &X));
    PetscCall(MatDestroy(&X));
  } break;
  case E_SEQ_TYPE_ON_MPI:
    PetscCheck(size > 1, comm, PETSC_ERR_USER, "-error seq_type_on_mpi needs several ranks");
    PetscCall(MatConvert(Aaij, MATSEQBAIJKSPARSE, MAT_INITIAL_MATRIX, &W));
    break;
  case E_N:
    break;
  }
  PetscCall(MatDestroy(&W));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt size, rank;
  PetscInt    bs = 3, mbs = 12, nbs = -1, avg = 4, seed = 0, grid = 6, route = R_CONVERT_AIJ, error = E_NONE, target = 0, added;
  PetscBool   empty = PETSC_FALSE, longrows = PETSC_FALSE, reassemble = PETSC_FALSE, view = PETSC_FALSE, gpu = PETSC_FALSE, err_continue = PETSC_FALSE, flg;
  const char *Targets[] = {"root", "explicit"};
  MatType     ktype, ttype, ttype2;
  PetscRandom rnd;
  Pattern     P = {0};
  Mat         A = NULL, Aref = NULL, B, D;
  DM          da = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscOptionsBegin(comm, NULL, "test_baijksparse options", NULL);
  PetscCall(PetscOptionsInt("-bs", "block size", NULL, bs, &bs, NULL));
  PetscCall(PetscOptionsInt("-mbs", "block rows per rank", NULL, mbs, &mbs, NULL));
  PetscCall(PetscOptionsInt("-nbs", "block columns per rank", NULL, nbs, &nbs, NULL));
  PetscCall(PetscOptionsInt("-avg", "average blocks per block row", NULL, avg, &avg, NULL));
  PetscCall(PetscOptionsInt("-seed", "random seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-grid", "DMDA points per direction", NULL, grid, &grid, NULL));
  PetscCall(PetscOptionsEList("-create", "creation route", NULL, Routes, R_N, Routes[route], &route, NULL));
  PetscCall(PetscOptionsEList("-target", "MatConvert target name", NULL, Targets, 2, Targets[target], &target, NULL));
  PetscCall(PetscOptionsEList("-error", "error path", NULL, Errors, E_N, Errors[error], &error, NULL));
  PetscCall(PetscOptionsBool("-empty_rows", "empty block rows", NULL, empty, &empty, NULL));
  PetscCall(PetscOptionsBool("-long_rows", "a few long block rows", NULL, longrows, &longrows, NULL));
  PetscCall(PetscOptionsReal("-explicit_zeros", "share of the random entries stored as 0.0", NULL, zero_fraction, &zero_fraction, NULL));
  PetscCall(PetscOptionsBool("-reassemble", "add blocks after assembly", NULL, reassemble, &reassemble, NULL));
  PetscCall(PetscOptionsBool("-view_matrix", "view with the default formats", NULL, view, &view, NULL));
  PetscCall(PetscOptionsBool("-gpu", "check the products on CUDA vectors and the device copy", NULL, gpu, &gpu, NULL));
  PetscCall(PetscOptionsBool("-err_continue", "the conversion must fail: catch its error and end cleanly", NULL, err_continue, &err_continue, NULL));
  PetscOptionsEnd();
  if (gpu) PetscCall(PetscLogDefaultBegin()); /* the BAIJKMult event counts the device products */
  if (nbs < 0) nbs = mbs;
  PetscCheck(bs >= 1 && mbs >= 0 && nbs >= 0 && avg >= 1 && grid >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "Need -bs >= 1, -mbs >= 0, -nbs >= 0, -avg >= 1, -grid >= 1");
  PetscCheck(route != R_DMDA || nbs == mbs, comm, PETSC_ERR_ARG_INCOMP, "-create dmda makes square matrices: drop -nbs");
  PetscCheck(!err_continue || route == R_CONVERT_AIJ, comm, PETSC_ERR_ARG_INCOMP, "-err_continue needs -create convert_aij");
  ktype = size > 1 ? MATMPIBAIJKSPARSE : MATSEQBAIJKSPARSE;
  ttype = target ? ktype : MATBAIJKSPARSE;

  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRAND48));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(1000 * seed + 7919 * rank + 1)));
  PetscCall(PetscRandomSeed(rnd));

  /* the pattern, and the AIJ reference matrix with the same layout */
  if (route == R_DMDA) {
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, grid, grid, PETSC_DECIDE, PETSC_DECIDE, bs, 1, NULL, NULL, &da));
    PetscCall(DMSetMatType(da, MATBAIJKSPARSE)); /* -dm_mat_type overrides it */
    PetscCall(DMSetFromOptions(da));
    PetscCall(DMSetUp(da));
    PetscCall(PatternDMDA(da, rnd, &P));
  } else PetscCall(PatternRandom(comm, rnd, bs, mbs, nbs, avg, empty, longrows, &P));
  PetscCall(PatternCreateMat(comm, &P, MATAIJ, &Aref));
  PetscCall(PetscPrintf(comm, "bs %" PetscInt_FMT ", %" PetscInt_FMT " x %" PetscInt_FMT " block rows x columns, route %s, %d rank(s)\n", bs, P.Mbs, P.Nbs, Routes[route], size));

  /* the baijksparse matrix, by the chosen route */
  switch (route) {
  case R_CONVERT_AIJ:
    if (err_continue) {
      PetscErrorCode ierr;

      PBG_TEST_REFUSE(ierr, MatConvert(Aref, ttype, MAT_INITIAL_MATRIX, &A));
      PetscCall(PBGTestRefused(comm, ierr, "MatConvert()"));
      goto done;
    }
    PetscCall(MatConvert(Aref, ttype, MAT_INITIAL_MATRIX, &A));
    break;
  case R_INPLACE_AIJ:
    PetscCall(MatDuplicate(Aref, MAT_COPY_VALUES, &A));
    PetscCall(MatConvert(A, ttype, MAT_INPLACE_MATRIX, &A));
    break;
  case R_REUSE_AIJ:
    PetscCall(MatConvert(Aref, ttype, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatScale(Aref, -2.0));
    PetscCall(MatConvert(Aref, ttype, MAT_REUSE_MATRIX, &A));
    break;
  case R_CONVERT_BAIJ:
    PetscCall(PatternCreateMat(comm, &P, MATBAIJ, &B));
    PetscCall(MatConvert(B, ttype, MAT_INITIAL_MATRIX, &A));
    PetscCall(CheckType(B, PETSC_FALSE, bs, "input of MatConvert (unchanged)"));
    PetscCall(MatDestroy(&B));
    break;
  case R_INPLACE_BAIJ:
    PetscCall(PatternCreateMat(comm, &P, MATBAIJ, &A));
    PetscCall(MatConvert(A, ttype, MAT_INPLACE_MATRIX, &A));
    break;
  case R_SETTYPE:
  case R_SETTYPE_HASH:
    PetscCall(MatCreate(comm, &A));
    PetscCall(MatSetSizes(A, bs * P.mbs, bs * P.nbs, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(A, MATBAIJKSPARSE));
    PetscCall(MatSetFromOptions(A));
    if (route == R_SETTYPE) PetscCall(MatXAIJSetPreallocation(A, bs, P.dnnz, P.onnz, NULL, NULL));
    else {
      PetscCall(MatSetBlockSizes(A, bs, bs));
      PetscCall(MatSetUp(A)); /* no preallocation: hash-based assembly */
    }
    PetscCall(PatternInsert(A, &P, PETSC_TRUE, -1));
    PetscCall(Assemble(A));
    break;
  case R_SETTYPE_ASSEMBLED: /* MatSetType() on an assembled BAIJ matrix subclasses it in place */
    PetscCall(PatternCreateMat(comm, &P, MATBAIJ, &A));
    PetscCall(MatSetType(A, MATBAIJKSPARSE));
    break;
  case R_CREATE:
    PetscCall(MatCreateBAIJKSPARSE(comm, bs, bs * P.mbs, bs * P.nbs, PETSC_DETERMINE, PETSC_DETERMINE, 0, P.dnnz, 0, P.onnz, &A));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    PetscCall(PatternInsert(A, &P, PETSC_TRUE, -1));
    PetscCall(Assemble(A));
    break;
  case R_DMDA:
    PetscCall(DMCreateMatrix(da, &A)); /* holds the stencil pattern, zeros */
    PetscCall(PatternInsert(A, &P, PETSC_TRUE, -1));
    PetscCall(Assemble(A));
    break;
  }
  PetscCall(CheckType(A, PETSC_TRUE, bs, Routes[route]));
  PetscCall(CheckProducts(A, Aref, rnd, Routes[route]));
  if (gpu) PetscCall(CheckDevice(A, Aref, &P, rnd));
  /* a parallel DMDA matrix is viewed by the DM (MatView_MPI_DA), not by its type */
  if (!(route == R_DMDA && size > 1)) PetscCall(CheckView(A, &P));
  if (view) {
    PetscCall(MatView(A, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO_DETAIL));
    PetscCall(MatView(A, PETSC_VIEWER_STDOUT_WORLD));
    PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
  }

  PetscCall(ErrorPaths((ErrorMode)error, comm, &P, Aref, A));

  /* the host factorizations of BAIJ are found for the subclass (block Jacobi with ILU on the local part works) */
  {
    Mat     Ad;
    MatType type;

    if (size > 1) PetscCall(MatGetDiagonalBlock(A, &Ad));
    else Ad = A;
    PetscCall(MatGetType(Ad, &type));
    PetscCall(MatGetFactorAvailable(Ad, MATSOLVERPETSC, MAT_FACTOR_ILU, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No PETSc ILU for the %s local part", type);
  }

  /* MatDuplicate keeps the type and the values */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(CheckType(D, PETSC_TRUE, bs, "MatDuplicate"));
  PetscCall(CheckProducts(D, Aref, rnd, "MatDuplicate"));
  /* MatConvert to baijksparse again: a copy of the same type */
  PetscCall(MatDestroy(&D));
  PetscCall(MatConvert(A, MATBAIJKSPARSE, MAT_INITIAL_MATRIX, &D));
  PetscCall(CheckType(D, PETSC_TRUE, bs, "MatConvert to baijksparse of baijksparse"));
  /* back to BAIJ in place and forth again */
  PetscCall(MatConvert(D, MATBAIJ, MAT_INPLACE_MATRIX, &D));
  PetscCall(CheckType(D, PETSC_FALSE, bs, "MatConvert to baij in place"));
  PetscCall(CheckProducts(D, Aref, rnd, "MatConvert to baij in place"));
  PetscCall(MatConvert(D, ttype, MAT_INPLACE_MATRIX, &D));
  PetscCall(CheckType(D, PETSC_TRUE, bs, "MatConvert in place back to baijksparse"));
  PetscCall(CheckProducts(D, Aref, rnd, "MatConvert in place back to baijksparse"));
  PetscCall(MatDestroy(&D));
  /* to BAIJ as a new matrix, and into an existing one */
  PetscCall(MatConvert(A, MATBAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(CheckType(B, PETSC_FALSE, bs, "MatConvert to baij"));
  PetscCall(CheckType(A, PETSC_TRUE, bs, "input of MatConvert to baij (unchanged)"));
  PetscCall(CheckProducts(B, Aref, rnd, "MatConvert to baij"));
  PetscCall(MatZeroEntries(B));
  PetscCall(MatConvert(A, size > 1 ? MATMPIBAIJ : MATSEQBAIJ, MAT_REUSE_MATRIX, &B));
  PetscCall(CheckProducts(B, Aref, rnd, "MatConvert to baij, MAT_REUSE_MATRIX"));
  PetscCall(MatDestroy(&B));
  /* to AIJ (BAIJ's converter, found under the subclass name) */
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatGetType(B, &ttype2));
  PetscCall(PetscStrcmp(ttype2, size > 1 ? MATMPIAIJ : MATSEQAIJ, &flg));
  PetscCheck(flg, comm, PETSC_ERR_PLIB, "MatConvert to aij gave %s", ttype2);
  PetscCall(CheckProducts(B, Aref, rnd, "MatConvert to aij"));
  PetscCall(MatDestroy(&B));

  if (reassemble) { /* new blocks after assembly: MPIBAIJ recreates the off-diagonal part */
    PetscCall(PatternAddNewColumn(comm, rnd, &P, &added));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(Aref, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (added >= 0) {
      PetscCall(PatternInsert(A, &P, PETSC_TRUE, added));
      PetscCall(PatternInsert(Aref, &P, PETSC_FALSE, added));
    }
    PetscCall(Assemble(A));
    PetscCall(Assemble(Aref));
    PetscCall(CheckType(A, PETSC_TRUE, bs, "after reassembly"));
    PetscCall(CheckProducts(A, Aref, rnd, "after reassembly"));
    if (gpu) PetscCall(CheckProductsDevice(A, Aref, rnd, "device, after reassembly"));
    PetscCall(CheckView(A, &P));
  }

done:
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscCall(DMDestroy(&da));
  PetscCall(PatternDestroy(&P));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(comm, "OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
