static const char help[] = "BSR SpMV on the GPU: MATBAIJKSPARSE against cuSPARSE (generic SpMV with BSR in column and row block order,\n"
                           "legacy bsrmv) and CSR SpMV of the same matrix (what aijcusparse runs), all in one process, with a\n"
                           "triad measured in the same run as the bandwidth ceiling. Every nonzero of a real sparsity pattern becomes\n"
                           "a dense bs x bs block (the method of Abdelfattah et al., CCPE 2016).\n"
                           "  -patterns <2d5,3d27>  stencil patterns of PETSc's DMDA tutorials: 2d5 (star), 2d9 (box), 3d7 (star),\n"
                           "                        3d27 (box), natural ordering (sized to -scale), Matrix Market files (mm:FILE) and\n"
                           "                        PETSc binary files (petsc:FILE, e.g. tests/data/matrices/*.petsc): their patterns\n"
                           "  -bs <list>            block sizes (default 2..32,48,64)\n"
                           "  -scale <1>            values per matrix: scale x 1 GiB (smaller for quick runs)\n"
                           "  -runs <25>            timed runs per variant (median reported), after -warmup <3>\n"
                           "  -skew <1>             also the skewed-row matrix: balanced vs unbalanced vs auto (0: skip)\n"
                           "  -skew_bs <list>       block sizes of the skewed-row matrices (default 1,3,8,24)\n"
                           "  -o <file>             CSV output\n";

/* Timing: CUDA events around each call on PETSc's stream, median of -runs after -warmup calls.
   Bytes moved, each counted once: values, block column indices, block row pointers, x and y. */
#include <petscblockgpu.h>
#include <petscdevice_cuda.h>
#include <cusparse.h>
#include "bench_common.h"
#include <vector>
#include <string>
#include <algorithm>
#include <random>
#include <cstdio>
#include <cstring>
#include <cmath>

#define CHKCUSP(...) PetscCallCUSPARSE(__VA_ARGS__)

/* Matrix Market coordinate file: the pattern (symmetric files expanded), values ignored */
static PetscErrorCode MatrixMarketPattern(const char *file, Pattern &P)
{
  FILE                         *fp = fopen(file, "r");
  char                          line[1024];
  bool                          sym = false, header = true;
  long                          m = 0, n = 0, nnz = 0;
  std::vector<std::vector<int>> rows;

  PetscFunctionBegin;
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open Matrix Market file %s", file);
  while (fgets(line, sizeof(line), fp)) {
    if (line[0] == '%') {
      if (strstr(line, "symmetric") || strstr(line, "hermitian")) sym = true;
      continue;
    }
    if (header) {
      PetscCheck(sscanf(line, "%ld %ld %ld", &m, &n, &nnz) == 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: expected the size line of a coordinate file", file);
      rows.assign(m, std::vector<int>());
      header = false;
      continue;
    }
    long i, j;
    if (sscanf(line, "%ld %ld", &i, &j) != 2) continue;
    rows[i - 1].push_back((int)(j - 1));
    if (sym && i != j) rows[j - 1].push_back((int)(i - 1));
  }
  fclose(fp);
  P.mbs = (int)m;
  P.nbs = (int)n;
  P.rowptr.assign(1, 0);
  P.colidx.clear();
  for (auto &r : rows) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    P.colidx.insert(P.colidx.end(), r.begin(), r.end());
    P.rowptr.push_back((int)P.colidx.size());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc binary file (a matrix of tests/data/matrices, conf/fetch-matrices.sh): its point pattern */
static PetscErrorCode PetscBinaryPattern(const char *file, Pattern &P)
{
  PetscViewer     v;
  Mat             M;
  PetscInt        n;
  const PetscInt *ia, *ja;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &v));
  PetscCall(MatCreate(PETSC_COMM_SELF, &M));
  PetscCall(MatSetType(M, MATSEQAIJ));
  PetscCall(MatLoad(M, v));
  PetscCall(PetscViewerDestroy(&v));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "No row structure in %s", file);
  P.mbs = (int)n;
  PetscCall(MatGetSize(M, NULL, &n));
  P.nbs = (int)n;
  P.rowptr.assign(ia, ia + P.mbs + 1);
  P.colidx.assign(ja, ja + ia[P.mbs]);
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatDestroy(&M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Mostly short rows (3..7 blocks), and a few rows holding about half of all blocks */
static void SkewedPattern(int mbs, int nlong, long longblocks, Pattern &P)
{
  std::mt19937                       gen(7);
  std::uniform_int_distribution<int> len(3, 7), col(0, mbs - 1);

  P.mbs = P.nbs = mbs;
  P.rowptr.assign(1, 0);
  P.colidx.clear();
  for (int r = 0; r < mbs; r++) {
    const bool       islong = nlong && (r % (mbs / nlong) == 0);
    long             L      = islong ? std::min<long>(longblocks, mbs) : len(gen);
    std::vector<int> c;
    if (islong) {
      const long stride = std::max<long>(1, mbs / L);
      for (long q = 0; q < L && q * stride < mbs; q++) c.push_back((int)(q * stride));
    } else {
      for (long q = 0; q < L; q++) c.push_back(col(gen));
      c.push_back(r);
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
    }
    P.colidx.insert(P.colidx.end(), c.begin(), c.end());
    P.rowptr.push_back((int)P.colidx.size());
  }
}

/* ------------------------------------------------------------------ device helpers */
/* CSR of the expanded matrix: row r*bs+i holds, block by block, the row i of each block of block row r */
__global__ static void CsrRowptrKernel(int mbs, int bs, const int *rowptr, int *csrrow)
{
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < (size_t)mbs * bs) {
    const int r = (int)(t / bs), i = (int)(t % bs), len = rowptr[r + 1] - rowptr[r];
    csrrow[t] = rowptr[r] * bs * bs + i * len * bs;
    if (t == (size_t)mbs * bs - 1) csrrow[t + 1] = rowptr[mbs] * bs * bs;
  }
}

__global__ static void CsrFillKernel(int bs, size_t nvals, const int *brow, const int *rowptr, const int *colidx, const double *val, const int *csrrow, int *csrcol, double *csrval, double *rowmajor)
{
  const size_t bs2 = (size_t)bs * bs;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < nvals; t += (size_t)gridDim.x * blockDim.x) {
    const size_t k = t / bs2;
    const int    e = (int)(t % bs2), i = e % bs, j = e / bs, r = brow[k];
    const size_t pos = (size_t)csrrow[(size_t)r * bs + i] + (k - rowptr[r]) * bs + j;
    csrcol[pos]      = colidx[k] * bs + j;
    csrval[pos]      = val[t];
    if (rowmajor) rowmajor[k * bs2 + (size_t)i * bs + j] = val[t];
  }
}

/* ------------------------------------------------------------------ one matrix */
typedef struct {
  double us_ours, us_bsrmv, us_spmv_col, us_spmv_row, us_csr, bytes, maxrel;
  char   kernel[160];
} Result;

/* The kernel line of MatView(ASCII_INFO) */
static PetscErrorCode KernelLine(Mat A, char *buf, size_t len)
{
  PetscViewer v;
  FILE       *fp = tmpfile();
  char        text[4096];
  size_t      n;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &v));
  PetscCall(PetscViewerPushFormat(v, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  fflush(fp);
  rewind(fp);
  n       = fread(text, 1, sizeof(text) - 1, fp);
  text[n] = 0;
  fclose(fp);
  {
    const char *p = strstr(text, "MatMult: ");
    const char *q = p ? strchr(p, '\n') : NULL;
    snprintf(buf, len, "%.*s", p ? (int)(q ? q - p - 9 : (long)strlen(p) - 9) : 1, p ? p + 9 : "?");
    for (char *c = buf; *c; c++)
      if (*c == ',') *c = ';';
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Builds the BSR matrix (pattern P, dense bs x bs blocks of random values) as MATSEQBAIJKSPARSE and times it against the
   cuSPARSE variants (when others) */
static PetscErrorCode RunMatrix(const Pattern &P, int bs, Timer &T, cusparseHandle_t sp, int warmup, int runs, bool others, Result *R)
{
  const int       mbs = P.mbs, nbs = P.nbs, nz = P.rowptr[mbs];
  const size_t    bs2 = (size_t)bs * bs, nvals = (size_t)nz * bs2;
  PetscInt       *ia, *ja;
  PetscScalar    *va;
  Mat             A;
  Vec             x, y;
  const double   *dx;
  double         *dy, *dy2;
  std::mt19937_64 gen(bs);

  PetscFunctionBegin;
  memset(R, 0, sizeof(*R));
  R->us_bsrmv = R->us_spmv_col = R->us_spmv_row = R->us_csr = NAN;
  /* host BAIJ arrays, handed to PETSc (copied into the matrix; freed after it) */
  PetscCall(PetscMalloc3(mbs + 1, &ia, nz, &ja, nvals, &va));
  for (int r = 0; r <= mbs; r++) ia[r] = P.rowptr[r];
  for (int k = 0; k < nz; k++) ja[k] = P.colidx[k];
  {
    uint64_t s = gen();
    for (size_t i = 0; i < nvals; i++) { /* cheap xorshift values in [-1, 1) */
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      va[i] = (double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
  }
  PetscCall(MatCreateSeqBAIJFromCSR(bs, (PetscInt)mbs, (PetscInt)nbs, ia, ja, va, &A));
  PetscCall(MatConvert(A, MATBAIJKSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecCUDAGetArrayRead(x, &dx));
  PetscCall(VecCUDARestoreArrayRead(x, &dx));
  PetscCall(MatMult(A, x, y)); /* the copy to the device, outside the timing */
  R->bytes = (double)nvals * 8 + (double)nz * 4 + (double)(mbs + 1) * 4 + (double)nbs * bs * 8 + (double)mbs * bs * 8;
  PetscCall(TimeMedian(
    T, warmup, runs, [&]() { return MatMult(A, x, y); }, &R->us_ours));
  PetscCall(KernelLine(A, R->kernel, sizeof(R->kernel)));

  if (others) {
    int                 *drow, *dcol, *dbrow, *csrrow, *csrcol;
    double              *dval, *drowmajor, *csrval;
    const double         one = 1.0, zero = 0.0;
    std::vector<int>     brow(nz);
    size_t               bufsize = 0;
    void                *buf     = NULL;
    cusparseMatDescr_t   descr;
    cusparseDnVecDescr_t vx, vy;
    const double        *hy;
    std::vector<double>  href(mbs * (size_t)bs), hcmp(mbs * (size_t)bs);

    for (int r = 0; r < mbs; r++)
      for (int k = P.rowptr[r]; k < P.rowptr[r + 1]; k++) brow[k] = r;
    PetscCall(VecCUDAGetArrayRead(x, &dx));
    PetscCallCUDA(cudaMalloc((void **)&drow, (mbs + 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&dcol, std::max(nz, 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&dbrow, std::max(nz, 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&dval, std::max<size_t>(nvals, 1) * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&dy, (size_t)mbs * bs * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&dy2, (size_t)mbs * bs * sizeof(double)));
    PetscCallCUDA(cudaMemcpy(drow, P.rowptr.data(), (mbs + 1) * sizeof(int), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dcol, P.colidx.data(), nz * sizeof(int), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dbrow, brow.data(), nz * sizeof(int), cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dval, va, nvals * sizeof(double), cudaMemcpyHostToDevice));

    /* legacy bsrmv, column-major blocks (BAIJ's layout) */
    PetscCallCUSPARSE(cusparseCreateMatDescr(&descr));
    PetscCall(TimeMedian(
      T, warmup, runs,
      [&]() -> PetscErrorCode {
        PetscFunctionBegin;
        PetscCallCUSPARSE(cusparseDbsrmv(sp, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, mbs, nbs, nz, &one, descr, dval, drow, dcol, bs, dx, &zero, dy2));
        PetscFunctionReturn(PETSC_SUCCESS);
      },
      &R->us_bsrmv));
    /* the check: ours against bsrmv */
    PetscCall(VecGetArrayRead(y, &hy));
    memcpy(hcmp.data(), hy, hcmp.size() * sizeof(double));
    PetscCall(VecRestoreArrayRead(y, &hy));
    PetscCallCUDA(cudaMemcpy(href.data(), dy2, href.size() * sizeof(double), cudaMemcpyDeviceToHost));
    {
      double num = 0, den = 0;
      for (size_t i = 0; i < href.size(); i++) {
        num = std::max(num, std::fabs(hcmp[i] - href[i]));
        den = std::max(den, std::fabs(href[i]));
      }
      R->maxrel = den > 0 ? num / den : num;
    }

    PetscCallCUSPARSE(cusparseCreateDnVec(&vx, (int64_t)nbs * bs, (void *)dx, CUDA_R_64F));
    PetscCallCUSPARSE(cusparseCreateDnVec(&vy, (int64_t)mbs * bs, dy, CUDA_R_64F));
    /* the CSR expansion, and the row-major copy of the blocks */
    PetscCallCUDA(cudaMalloc((void **)&csrrow, ((size_t)mbs * bs + 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&csrcol, std::max<size_t>(nvals, 1) * sizeof(int)));
    PetscCallCUDA(cudaMalloc((void **)&csrval, std::max<size_t>(nvals, 1) * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&drowmajor, std::max<size_t>(nvals, 1) * sizeof(double)));
    CsrRowptrKernel<<<(unsigned)(((size_t)mbs * bs + 255) / 256), 256, 0, T.stream>>>(mbs, bs, drow, csrrow);
    CsrFillKernel<<<4096, 256, 0, T.stream>>>(bs, nvals, dbrow, drow, dcol, dval, csrrow, csrcol, csrval, drowmajor);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaStreamSynchronize(T.stream));

    for (int order = 0; order < 2; order++) { /* generic SpMV with BSR: column, then row block order */
      cusparseSpMatDescr_t M;
      cusparseStatus_t     st;
      double              *v = order == 0 ? dval : drowmajor;

      st = cusparseCreateBsr(&M, mbs, nbs, nz, bs, bs, drow, dcol, v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, order == 0 ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW);
      if (st == CUSPARSE_STATUS_SUCCESS) st = cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bufsize);
      if (st == CUSPARSE_STATUS_SUCCESS) {
        PetscCallCUDA(cudaFree(buf));
        PetscCallCUDA(cudaMalloc(&buf, std::max<size_t>(bufsize, 1)));
        st = cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
      }
      if (st == CUSPARSE_STATUS_SUCCESS)
        PetscCall(TimeMedian(
          T, warmup, runs,
          [&]() -> PetscErrorCode {
            PetscFunctionBegin;
            PetscCallCUSPARSE(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
            PetscFunctionReturn(PETSC_SUCCESS);
          },
          order == 0 ? &R->us_spmv_col : &R->us_spmv_row));
      else PetscCall(PetscInfo(NULL, "cuSPARSE SpMV with BSR, %s block order: status %d (not supported)\n", order == 0 ? "column" : "row", (int)st));
      (void)cusparseDestroySpMat(M);
    }
    { /* CSR SpMV of the expanded matrix: what aijcusparse runs */
      cusparseSpMatDescr_t M;

      PetscCallCUSPARSE(cusparseCreateCsr(&M, (int64_t)mbs * bs, (int64_t)nbs * bs, (int64_t)nvals, csrrow, csrcol, csrval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
      PetscCallCUSPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bufsize));
      PetscCallCUDA(cudaFree(buf));
      PetscCallCUDA(cudaMalloc(&buf, std::max<size_t>(bufsize, 1)));
      PetscCall(TimeMedian(
        T, warmup, runs,
        [&]() -> PetscErrorCode {
          PetscFunctionBegin;
          PetscCallCUSPARSE(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
          PetscFunctionReturn(PETSC_SUCCESS);
        },
        &R->us_csr));
      PetscCallCUSPARSE(cusparseDestroySpMat(M));
    }
    PetscCallCUSPARSE(cusparseDestroyDnVec(vx));
    PetscCallCUSPARSE(cusparseDestroyDnVec(vy));
    PetscCallCUSPARSE(cusparseDestroyMatDescr(descr));
    PetscCallCUDA(cudaFree(buf));
    PetscCallCUDA(cudaFree(drow));
    PetscCallCUDA(cudaFree(dcol));
    PetscCallCUDA(cudaFree(dbrow));
    PetscCallCUDA(cudaFree(dval));
    PetscCallCUDA(cudaFree(drowmajor));
    PetscCallCUDA(cudaFree(csrrow));
    PetscCallCUDA(cudaFree(csrcol));
    PetscCallCUDA(cudaFree(csrval));
    PetscCallCUDA(cudaFree(dy));
    PetscCallCUDA(cudaFree(dy2));
    PetscCall(VecCUDARestoreArrayRead(x, &dx));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree3(ia, ja, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double GBs(double bytes, double us)
{
  return bytes / (us * 1e3);
}

int main(int argc, char **argv)
{
  char                patterns[PETSC_MAX_PATH_LEN] = "2d5,3d27", out[PETSC_MAX_PATH_LEN] = "";
  PetscInt            bslist[64], nbs = 64, skewbs[16], nskew = 16, runs = 25, warmup = 3;
  PetscReal           scale = 1.0;
  PetscBool           flg, skew = PETSC_TRUE;
  Timer               T;
  cusparseHandle_t    sp;
  cudaDeviceProp      prop;
  double              triad_GBs, median_ratio = 0;
  FILE               *csv = NULL;
  std::vector<double> ratios;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscBlockGPUInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-patterns", patterns, sizeof(patterns), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-bs", bslist, &nbs, &flg));
  if (!flg) {
    nbs = 0;
    for (int b = 2; b <= 32; b++) bslist[nbs++] = b;
    bslist[nbs++] = 48;
    bslist[nbs++] = 64;
  }
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-skew_bs", skewbs, &nskew, &flg));
  if (!flg) {
    const PetscInt d[] = {1, 3, 8, 24};
    nskew              = 4;
    for (int i = 0; i < 4; i++) skewbs[i] = d[i];
  }
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-scale", &scale, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-runs", &runs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skew", &skew, NULL));
  PetscCheck(scale > 0 && runs >= 1 && warmup >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Need -scale > 0, -runs >= 1, -warmup >= 0");

  PetscCall(TimerCreate(T, &prop));
  PetscCallCUSPARSE(cusparseCreate(&sp));
  PetscCallCUSPARSE(cusparseSetStream(sp, T.stream));

  PetscCall(MeasureTriad(PETSC_TRUE, (size_t)(scale * (1 << 27)) + 1024, (int)warmup, (int)runs, &triad_GBs)); /* 3 x 1 GiB (scaled) */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "bench_bsrmv: device %s (sm_%d%d, %.0f GiB), FP64, values per matrix %.2f GiB, median of %d runs\n", prop.name, prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0, scale, (int)runs));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "triad (a = b + s c) measured in this run: %.0f GB/s\n\n", triad_GBs));
  if (out[0]) {
    csv = fopen(out, "w");
    PetscCheck(csv, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s", out);
    fprintf(csv, "device,pattern,bs,block_rows,nonzero_blocks,value_bytes,kernel,us_ours,GBs_ours,pct_triad,us_bsrmv,us_spmv_bsr_col,us_spmv_bsr_row,us_csr,GBs_best_cusparse_bsr,ratio_vs_best_cusparse_bsr,ratio_vs_csr,triad_GBs,max_rel_diff\n");
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s %3s %9s %10s | %8s %7s %5s | %8s %8s %8s %8s | %6s %6s | %s\n", "pattern", "bs", "brows", "blocks", "ours us", "GB/s", "%tri", "bsrmv", "spmv-col", "spmv-row", "csr", "xBSR", "xCSR", "kernel"));

  { /* the stencil and Matrix Market sweeps */
    char *tok = strtok(patterns, ",");
    while (tok) {
      std::string pname(tok);
      for (PetscInt b = 0; b < nbs; b++) {
        const int bs = (int)bslist[b];
        Pattern   P;
        Result    R;
        double    best, target = scale * 1073741824.0;

        if (pname.rfind("mm:", 0) == 0) PetscCall(MatrixMarketPattern(pname.c_str() + 3, P));
        else if (pname.rfind("petsc:", 0) == 0) PetscCall(PetscBinaryPattern(pname.c_str() + 6, P));
        else {
          const int  dim = pname[0] == '3' ? 3 : 2, npt = atoi(pname.c_str() + 2);
          const bool box = (dim == 2 && npt == 9) || (dim == 3 && npt == 27);
          PetscCheck((dim == 2 && (npt == 5 || npt == 9)) || (dim == 3 && (npt == 7 || npt == 27)), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown pattern %s: 2d5, 2d9, 3d7, 3d27, mm:FILE or petsc:FILE", pname.c_str());
          /* grid side so that the values take about scale GiB */
          const double pts = target / (npt * (double)bs * bs * 8.0);
          const int    nx  = std::max(4, (int)std::lround(std::pow(pts, 1.0 / dim)));
          StencilPattern(dim, box, nx, P);
        }
        PetscCall(RunMatrix(P, bs, T, sp, (int)warmup, (int)runs, true, &R));
        best = std::min(R.us_bsrmv, std::min(std::isnan(R.us_spmv_col) ? INFINITY : R.us_spmv_col, std::isnan(R.us_spmv_row) ? INFINITY : R.us_spmv_row));
        ratios.push_back(best / R.us_ours);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-8s %3d %9d %10d | %8.1f %7.0f %4.0f%% | %8.1f %8.1f %8.1f %8.1f | %6.2f %6.2f | %s%s\n", pname.c_str(), bs, P.mbs, P.rowptr[P.mbs], R.us_ours, GBs(R.bytes, R.us_ours), 100 * GBs(R.bytes, R.us_ours) / triad_GBs, R.us_bsrmv, R.us_spmv_col, R.us_spmv_row, R.us_csr, best / R.us_ours, R.us_csr / R.us_ours, R.kernel, R.maxrel > 1e-10 ? "  MISMATCH" : ""));
        if (csv)
          fprintf(csv, "%s,%s,%d,%d,%d,%.0f,%s,%.2f,%.1f,%.1f,%.2f,%.2f,%.2f,%.2f,%.1f,%.3f,%.3f,%.1f,%.3g\n", prop.name, pname.c_str(), bs, P.mbs, P.rowptr[P.mbs], (double)P.rowptr[P.mbs] * bs * bs * 8, R.kernel, R.us_ours, GBs(R.bytes, R.us_ours), 100 * GBs(R.bytes, R.us_ours) / triad_GBs, R.us_bsrmv, R.us_spmv_col, R.us_spmv_row, R.us_csr, GBs(R.bytes, best), best / R.us_ours, R.us_csr / R.us_ours, triad_GBs, R.maxrel);
      }
      tok = strtok(NULL, ",");
    }
  }
  if (!ratios.empty()) {
    std::vector<double> r = ratios;
    std::sort(r.begin(), r.end());
    median_ratio = r[r.size() / 2];
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nours / best cuSPARSE BSR variant: median %.2fx, min %.2fx, max %.2fx over %d matrices\n", median_ratio, r.front(), r.back(), (int)r.size()));
  }

  if (skew) { /* balanced vs unbalanced vs auto on a skewed-row matrix */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\nskewed rows: 3..7 blocks per row, 16 rows holding about half of the blocks\n"));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%3s %9s %10s %7s | %10s %10s %10s | %8s %8s | %s\n", "bs", "brows", "blocks", "longest", "off us", "on us", "auto us", "on/off", "auto/best", "auto kernel"));
    if (csv) fprintf(csv, "\ndevice,skewed,bs,block_rows,nonzero_blocks,longest_row,us_unbalanced,us_balanced,us_auto,speedup_balanced,auto_vs_best\n");
    for (PetscInt b = 0; b < nskew; b++) {
      const int    bs  = (int)skewbs[b];
      const double tgt = 0.25 * scale * 1073741824.0 / (8.0 * bs * bs); /* blocks */
      const int    mbs = std::max(1024, (int)(tgt / 10));
      Pattern      P;
      Result       R[3];
      const char  *modes[3] = {"off", "on", "auto"};

      SkewedPattern(mbs, 16, (long)(tgt / 2 / 16), P);
      for (int m = 0; m < 3; m++) {
        PetscCall(PetscOptionsSetValue(NULL, "-mat_baijksparse_balance", modes[m]));
        PetscCall(RunMatrix(P, bs, T, sp, (int)warmup, (int)runs, false, &R[m]));
      }
      PetscCall(PetscOptionsClearValue(NULL, "-mat_baijksparse_balance"));
      {
        int    longest = 0;
        double best    = std::min(R[0].us_ours, R[1].us_ours);
        for (int r = 0; r < P.mbs; r++) longest = std::max(longest, P.rowptr[r + 1] - P.rowptr[r]);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%3d %9d %10d %7d | %10.1f %10.1f %10.1f | %7.2fx %7.2fx | %s\n", bs, P.mbs, P.rowptr[P.mbs], longest, R[0].us_ours, R[1].us_ours, R[2].us_ours, R[0].us_ours / R[1].us_ours, best / R[2].us_ours, R[2].kernel));
        if (csv) fprintf(csv, "%s,skewed,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.3f,%.3f\n", prop.name, bs, P.mbs, P.rowptr[P.mbs], longest, R[0].us_ours, R[1].us_ours, R[2].us_ours, R[0].us_ours / R[1].us_ours, best / R[2].us_ours);
      }
    }
  }
  if (csv) fclose(csv);
  PetscCallCUSPARSE(cusparseDestroy(sp));
  PetscCall(BenchTimerDestroy(&T));
  PetscCall(PetscFinalize());
  return 0;
}
