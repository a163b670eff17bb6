/* Matrix Market reader for the benchmarks of bench/ (header only).

   MatCreateFromMatrixMarket(FILE, BS, &A) reads a Matrix Market file, plain (.mtx) or gzip-compressed (.mtx.gz,
   decompressed through popen("gzip -dc FILE")), and returns an assembled MATSEQAIJ on PETSC_COMM_SELF with block
   size BS (1 = none; the matrix must then have a multiple of BS rows and columns).

   Supported: "%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric|skew-symmetric".
   Symmetric storage is expanded to both triangles (a_ji = a_ij; skew-symmetric: a_ji = -a_ij), pattern entries
   get the value 1, explicitly stored zeros are kept as entries of the nonzero structure, and duplicate entries
   are summed. Complex, Hermitian and dense (array) files are refused. A malformed file (bad header, bad size
   line, an index out of range, a field that is not a number, fewer entries than the size line declares, text after
   the last entry, gzip failing) gives a PETSc error naming the file and the line. */
#pragma once

#include <petscmat.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  FILE       *fp;
  PetscBool   piped;
  const char *path;
  PetscInt64  line; /* number of the line last read (1-based) */
  char       *buf;
  size_t      cap;
} MMReader_;

/* the next line into r->buf (without the newline); *eof at the end of the input */
static PetscErrorCode MMReadLine_(MMReader_ *r, PetscBool *eof)
{
  size_t len = 0;

  PetscFunctionBegin;
  *eof = PETSC_TRUE;
  for (;;) {
    if (len + 2 >= r->cap) {
      size_t ncap = r->cap ? 2 * r->cap : 256;
      char  *nbuf;

      PetscCall(PetscMalloc1(ncap, &nbuf));
      if (len) PetscCall(PetscArraycpy(nbuf, r->buf, len));
      PetscCall(PetscFree(r->buf));
      r->buf = nbuf;
      r->cap = ncap;
    }
    if (!fgets(r->buf + len, (int)(r->cap - len), r->fp)) break;
    *eof = PETSC_FALSE;
    len += strlen(r->buf + len);
    if (len && r->buf[len - 1] == '\n') break;
  }
  if (!*eof || len) {
    *eof = PETSC_FALSE;
    r->line++;
    while (len && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r')) len--;
    r->buf[len] = 0;
  }
  PetscCheck(!ferror(r->fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Matrix Market file %s: read error after line %" PetscInt64_FMT "%s", r->path, r->line, r->piped ? " (gzip -dc)" : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool MMBlank_(const char *s)
{
  while (*s && isspace((unsigned char)*s)) s++;
  return (PetscBool)(*s == 0);
}

/* a decimal integer field of s at *pos; false when there is none or it is not a whole integer */
static PetscBool MMInt_(char **pos, PetscInt64 *v)
{
  char     *end;
  long long x;

  errno = 0;
  x     = strtoll(*pos, &end, 10);
  if (end == *pos || errno || (*end && !isspace((unsigned char)*end))) return PETSC_FALSE;
  *v   = (PetscInt64)x;
  *pos = end;
  return PETSC_TRUE;
}

static PetscBool MMReal_(char **pos, double *v)
{
  char *end;

  *v = strtod(*pos, &end);
  if (end == *pos || (*end && !isspace((unsigned char)*end))) return PETSC_FALSE;
  *pos = end;
  return PETSC_TRUE;
}

static PetscErrorCode MMClose_(MMReader_ *r, int *status)
{
  PetscFunctionBegin;
  *status = 0;
  if (r->fp) *status = r->piped ? pclose(r->fp) : fclose(r->fp);
  r->fp = NULL;
  PetscCall(PetscFree(r->buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* entries sorted by (row, column) into CSR arrays; duplicates summed */
typedef struct {
  PetscInt    i, j;
  PetscScalar v;
} MMEntry_;

static int MMCompare_(const void *a, const void *b)
{
  const MMEntry_ *x = (const MMEntry_ *)a, *y = (const MMEntry_ *)b;

  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  return 0;
}

/*
  MatCreateFromMatrixMarket - reads a Matrix Market file (.mtx, or .mtx.gz through gzip -dc) into a MATSEQAIJ

  Input Parameters:
+ path - the file
- bs   - block size to set on the matrix (1: none)

  Output Parameter:
. A - the assembled matrix on PETSC_COMM_SELF
*/
static PetscErrorCode MatCreateFromMatrixMarket(const char path[], PetscInt bs, Mat *A)
{
  MMReader_    r;
  PetscBool    eof, gz, pattern = PETSC_FALSE, symmetric = PETSC_FALSE, skew = PETSC_FALSE;
  char         banner[5][64] = {{0}};
  PetscInt64   M, N, nz, k, nent = 0, cap;
  MMEntry_    *e  = NULL;
  PetscInt    *ia = NULL, *ja = NULL;
  PetscScalar *va = NULL;
  int          status;
  size_t       plen;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.path = path;
  plen   = strlen(path);
  gz     = (PetscBool)(plen > 3 && !strcmp(path + plen - 3, ".gz"));
  {
    FILE *probe = fopen(path, "rb");

    PetscCheck(probe, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Matrix Market file %s: cannot open it (%s)", path, strerror(errno));
    fclose(probe);
  }
  if (gz) {
    char  *cmd, *q;
    size_t n = 16 + 4 * plen;

    /* gzip -dc 'path', with each ' of the path written as '\'' */
    PetscCall(PetscMalloc1(n, &cmd));
    PetscCall(PetscStrncpy(cmd, "gzip -dc '", n));
    q = cmd + strlen(cmd);
    for (const char *p = path; *p; p++) {
      if (*p == '\'') {
        memcpy(q, "'\\''", 4);
        q += 4;
      } else *q++ = *p;
    }
    *q++    = '\'';
    *q      = 0;
    r.fp    = popen(cmd, "r");
    r.piped = PETSC_TRUE;
    PetscCall(PetscFree(cmd));
    PetscCheck(r.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Matrix Market file %s: cannot run gzip -dc on it (%s)", path, strerror(errno));
  } else {
    r.fp = fopen(path, "r");
    PetscCheck(r.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Matrix Market file %s: cannot open it (%s)", path, strerror(errno));
  }

  /* the banner */
  PetscCall(MMReadLine_(&r, &eof));
  PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s: empty%s", path, gz ? " (or not gzip data)" : "");
  {
    int nf = sscanf(r.buf, "%63s %63s %63s %63s %63s", banner[0], banner[1], banner[2], banner[3], banner[4]);

    for (int f = 0; f < 5; f++)
      for (char *c = banner[f]; *c; c++) *c = (char)tolower((unsigned char)*c);
    PetscCheck(nf == 5 && !strcmp(banner[0], "%%matrixmarket") && !strcmp(banner[1], "matrix"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line 1: not a Matrix Market header (want \"%%%%MatrixMarket matrix coordinate real general\" or similar), got \"%.80s\"", path, r.buf);
  }
  PetscCheck(!strcmp(banner[2], "coordinate"), PETSC_COMM_SELF, PETSC_ERR_SUP, "Matrix Market file %s, line 1: format \"%s\" is not supported (only coordinate)", path, banner[2]);
  if (!strcmp(banner[3], "pattern")) pattern = PETSC_TRUE;
  else PetscCheck(!strcmp(banner[3], "real") || !strcmp(banner[3], "integer"), PETSC_COMM_SELF, PETSC_ERR_SUP, "Matrix Market file %s, line 1: field \"%s\" is not supported (real, integer or pattern)", path, banner[3]);
  if (!strcmp(banner[4], "symmetric")) symmetric = PETSC_TRUE;
  else if (!strcmp(banner[4], "skew-symmetric")) skew = PETSC_TRUE;
  else PetscCheck(!strcmp(banner[4], "general"), PETSC_COMM_SELF, PETSC_ERR_SUP, "Matrix Market file %s, line 1: symmetry \"%s\" is not supported (general, symmetric or skew-symmetric)", path, banner[4]);

  /* comments, then the size line */
  do {
    PetscCall(MMReadLine_(&r, &eof));
    PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s: ends at line %" PetscInt64_FMT " before the size line", path, r.line);
  } while (r.buf[0] == '%' || MMBlank_(r.buf));
  {
    char *p = r.buf;

    PetscCheck(MMInt_(&p, &M) && MMInt_(&p, &N) && MMInt_(&p, &nz) && MMBlank_(p), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": want the size line \"ROWS COLUMNS ENTRIES\", got \"%.80s\"", path, r.line, r.buf);
  }
  PetscCheck(M >= 0 && N >= 0 && nz >= 0 && M <= PETSC_MAX_INT && N <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": sizes %" PetscInt64_FMT " x %" PetscInt64_FMT " with %" PetscInt64_FMT " entries are out of range", path, r.line, M, N, nz);
  PetscCheck(!(symmetric || skew) || M == N, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": a %s matrix must be square, it is %" PetscInt64_FMT " x %" PetscInt64_FMT, path, r.line, banner[4], M, N);
  PetscCheck(bs >= 1 && M % bs == 0 && N % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Matrix Market file %s: %" PetscInt64_FMT " x %" PetscInt64_FMT " is not a multiple of the block size %" PetscInt_FMT, path, M, N, bs);

  cap = (symmetric || skew) ? 2 * nz : nz;
  PetscCall(PetscMalloc1(PetscMax(cap, 1), &e));
  for (k = 0; k < nz; k++) {
    PetscInt64 i, j;
    double     v = 1.0;
    char      *p;

    do {
      PetscCall(MMReadLine_(&r, &eof));
      PetscCheck(!eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s: truncated, it ends at line %" PetscInt64_FMT " after %" PetscInt64_FMT " of the %" PetscInt64_FMT " entries that its size line declares", path, r.line, k, nz);
    } while (MMBlank_(r.buf) || r.buf[0] == '%');
    p = r.buf;
    PetscCheck(MMInt_(&p, &i) && MMInt_(&p, &j), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": want \"ROW COLUMN%s\", got \"%.80s\"", path, r.line, pattern ? "" : " VALUE", r.buf);
    if (!pattern) PetscCheck(MMReal_(&p, &v), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": want \"ROW COLUMN VALUE\", got \"%.80s\"", path, r.line, r.buf);
    PetscCheck(MMBlank_(p), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": unexpected text after the entry: \"%.80s\"", path, r.line, r.buf);
    PetscCheck(i >= 1 && i <= M && j >= 1 && j <= N, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": entry (%" PetscInt64_FMT ", %" PetscInt64_FMT ") outside the %" PetscInt64_FMT " x %" PetscInt64_FMT " matrix (indices are 1-based)", path, r.line, i, j, M, N);
    PetscCheck(!skew || i != j, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": a diagonal entry in a skew-symmetric file", path, r.line);
    e[nent].i   = (PetscInt)(i - 1);
    e[nent].j   = (PetscInt)(j - 1);
    e[nent++].v = (PetscScalar)v;
    if ((symmetric || skew) && i != j) {
      e[nent].i   = (PetscInt)(j - 1);
      e[nent].j   = (PetscInt)(i - 1);
      e[nent++].v = (PetscScalar)(skew ? -v : v);
    }
  }
  /* nothing but blank lines or comments may follow */
  for (;;) {
    PetscCall(MMReadLine_(&r, &eof));
    if (eof) break;
    PetscCheck(MMBlank_(r.buf) || r.buf[0] == '%', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Matrix Market file %s, line %" PetscInt64_FMT ": more entries than the %" PetscInt64_FMT " that the size line declares", path, r.line, nz);
  }
  PetscCall(MMClose_(&r, &status));
  PetscCheck(status == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Matrix Market file %s: %s failed (status %d): the file is damaged or truncated", path, gz ? "gzip -dc" : "fclose", status);

  /* CSR, rows and columns sorted, duplicates summed */
  qsort(e, (size_t)nent, sizeof(MMEntry_), MMCompare_);
  PetscCall(PetscCalloc1(M + 1, &ia));
  PetscCall(PetscMalloc2(PetscMax(nent, 1), &ja, PetscMax(nent, 1), &va));
  {
    PetscInt64 m = 0;

    for (k = 0; k < nent; k++) {
      if (m > 0 && e[k].i == e[k - 1].i && e[k].j == ja[m - 1]) {
        va[m - 1] += e[k].v;
        continue;
      }
      ja[m]   = e[k].j;
      va[m++] = e[k].v;
      ia[e[k].i + 1]++;
    }
    for (PetscInt64 i = 0; i < M; i++) ia[i + 1] += ia[i];
  }
  PetscCall(PetscFree(e));
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, (PetscInt)M, (PetscInt)N, (PetscInt)M, (PetscInt)N));
  if (bs > 1) PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ia, ja, va));
  PetscCall(PetscFree(ia));
  PetscCall(PetscFree2(ja, va));
  PetscFunctionReturn(PETSC_SUCCESS);
}
