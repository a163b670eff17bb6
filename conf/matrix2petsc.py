#!/usr/bin/env python3
"""Convert a sparse matrix file to PETSc's binary format (what MatLoad reads), and describe it.

Usage: matrix2petsc.py FORMAT INPUT OUTPUT [--bs N] [--json]

FORMAT
  hb          Harwell-Boeing / Rutherford-Boeing, assembled real (RUA, RSA, RZA); a full right-hand
              side stored in the file (RHSTYP F..) is written after the matrix as a PETSc vector
  mtx         Matrix Market coordinate or array, real/integer/pattern-free, general/symmetric/skew
  mat:VAR     the sparse variable VAR of a MATLAB .mat file (v4/v5, via scipy.io.loadmat)
  petsc:K     the K-th matrix (0-based; 'last' for the last) of a PETSc binary file holding several
              (as -ksp_view_mat binary:FILE leaves after several solves)

The output holds MAT_FILE_CLASSID 1211216, M, N, nnz, the row lengths, the column indices (big-endian
int32) and the values (big-endian float64), then optionally VEC_FILE_CLASSID 1211214, n and the
values. Column indices are sorted and duplicates summed, explicit zeros are kept (they are part of
the pattern the application assembled). Nothing else is changed: no scaling, no shifting.

A one-line JSON description goes to standard output: rows, cols, nnz, symmetric (numerically, to
1e-12 relative), structurally_symmetric, zero_diagonals, rhs, the largest run of consecutive rows
with identical column patterns, and the sha256 of the output.
"""
import hashlib
import json
import os
import re
import sys

import numpy as np
import scipy.sparse as sp

MAT_FILE_CLASSID = 1211216
VEC_FILE_CLASSID = 1211214


# ------------------------------------------------------------------------------------- Harwell-Boeing
def _fortran_width(fmt):
    """'(16I5)' -> ('I', 16, 5); '(1P,5E15.8)' / '(3D21.15)' -> ('E', 5, 15)."""
    f = fmt.strip().upper().replace(' ', '')
    f = f.strip('()')
    f = re.sub(r'^\d*P,?', '', f)  # scale factor, irrelevant for reading
    m = re.match(r'^(\d*)([IEDFG])(\d+)', f)
    if not m:
        raise ValueError(f'unsupported Fortran format {fmt!r}')
    n = int(m.group(1)) if m.group(1) else 1
    kind = 'I' if m.group(2) == 'I' else 'E'
    return kind, n, int(m.group(3))


def _read_fixed(lines, fmt, count):
    kind, per, width = _fortran_width(fmt)
    out = []
    i = 0
    while len(out) < count:
        line = lines[i].rstrip('\n')
        i += 1
        for k in range(per):
            if len(out) == count:
                break
            s = line[k * width:(k + 1) * width].strip()
            if not s:
                continue
            if kind == 'I':
                out.append(int(s))
            else:
                s = s.upper().replace('D', 'E')
                # Fortran allows an exponent without the letter: 1.0-3
                s = re.sub(r'(?<=[0-9.])([+-]\d+)$', r'E\1', s) if 'E' not in s else s
                out.append(float(s))
    return out, lines[i:]


def read_hb(path):
    with open(path) as fh:
        lines = fh.readlines()
    l2, l3, l4 = lines[1], lines[2], lines[3]
    crd = [int(l2[k * 14:(k + 1) * 14] or 0) for k in range(4)]
    rhscrd = int(l2[56:70]) if l2[56:70].strip() else 0
    mxtype = l3[0:3].upper()
    nrow, ncol, nnz = int(l3[14:28]), int(l3[28:42]), int(l3[42:56])
    ptrfmt, indfmt, valfmt, rhsfmt = l4[0:16], l4[16:32], l4[32:52], l4[52:72]
    if mxtype[0] not in 'R' or mxtype[2] != 'A':
        raise ValueError(f'{path}: type {mxtype}: only assembled real matrices are supported')
    body = lines[4:]
    rhstyp, nrhs = '', 0
    if rhscrd > 0:
        rhstyp, nrhs = lines[4][0:3].upper(), int(lines[4][14:28])
        body = lines[5:]
    ptr, body = _read_fixed(body, ptrfmt, ncol + 1)
    ind, body = _read_fixed(body, indfmt, nnz)
    if crd[3] > 0:
        val, body = _read_fixed(body, valfmt, nnz)
    else:
        raise ValueError(f'{path}: pattern-only matrix (no values)')
    ptr = np.asarray(ptr, dtype=np.int64) - 1
    ind = np.asarray(ind, dtype=np.int64) - 1
    val = np.asarray(val, dtype=np.float64)
    A = sp.csc_matrix((val, ind, ptr), shape=(nrow, ncol))
    if mxtype[1] == 'S':
        A = _expand_triangle(A, 1.0)
    elif mxtype[1] == 'Z':
        A = _expand_triangle(A, -1.0)
    rhs = None
    if rhscrd > 0 and rhstyp[:1] == 'F' and nrhs >= 1:
        vals, body = _read_fixed(body, rhsfmt, nrow)
        rhs = np.asarray(vals, dtype=np.float64)
    return A, rhs


def _expand_triangle(A, sign):
    A = A.tocoo()
    off = A.row != A.col
    rows = np.concatenate([A.row, A.col[off]])
    cols = np.concatenate([A.col, A.row[off]])
    vals = np.concatenate([A.data, sign * A.data[off]])
    return sp.coo_matrix((vals, (rows, cols)), shape=A.shape)


# ------------------------------------------------------------------------------------- other formats
def read_mtx(path):
    import scipy.io
    A = scipy.io.mmread(path)
    if not sp.issparse(A):
        A = sp.coo_matrix(A)
    if np.iscomplexobj(A.data):
        raise ValueError(f'{path}: complex matrix; PETSc here is real')
    return A, None


def read_mat(path, var):
    import scipy.io
    d = scipy.io.loadmat(path)
    if var not in d:
        raise ValueError(f'{path}: no variable {var!r} (has {sorted(k for k in d if not k.startswith("__"))})')
    A = d[var]
    if not sp.issparse(A):
        raise ValueError(f'{path}: variable {var!r} is not sparse')
    if np.iscomplexobj(A.data):
        raise ValueError(f'{path}: variable {var!r} is complex; PETSc here is real')
    return A, None


def read_petsc(path, which):
    """K-th (or last) matrix of a PETSc binary file; int32 indices, float64 values."""
    raw = open(path, 'rb').read()
    pos, mats = 0, []
    while pos + 16 <= len(raw):
        cid, m, n, nz = np.frombuffer(raw, dtype='>i4', count=4, offset=pos)
        if cid != MAT_FILE_CLASSID:
            break
        pos += 16
        rl = np.frombuffer(raw, dtype='>i4', count=m, offset=pos).astype(np.int64)
        pos += 4 * m
        cols = np.frombuffer(raw, dtype='>i4', count=nz, offset=pos).astype(np.int64)
        pos += 4 * nz
        vals = np.frombuffer(raw, dtype='>f8', count=nz, offset=pos).astype(np.float64)
        pos += 8 * nz
        indptr = np.concatenate([[0], np.cumsum(rl)])
        mats.append(sp.csr_matrix((vals, cols, indptr), shape=(m, n)))
    if not mats:
        raise ValueError(f'{path}: no PETSc matrix (class id {MAT_FILE_CLASSID}) at its start')
    k = len(mats) - 1 if which == 'last' else int(which)
    return mats[k], None


# ------------------------------------------------------------------------------------- output
def write_petsc(A, rhs, out):
    A = A.tocsr()
    A.sum_duplicates()
    A.sort_indices()
    m, n = A.shape
    if max(m, n, A.nnz) >= 2**31:
        raise ValueError('too large for 32-bit PETSc indices')
    rl = np.diff(A.indptr).astype('>i4')
    tmp = out + '.tmp'
    with open(tmp, 'wb') as fh:
        fh.write(np.array([MAT_FILE_CLASSID, m, n, A.nnz], dtype='>i4').tobytes())
        fh.write(rl.tobytes())
        fh.write(A.indices.astype('>i4').tobytes())
        fh.write(A.data.astype('>f8').tobytes())
        if rhs is not None:
            fh.write(np.array([VEC_FILE_CLASSID, len(rhs)], dtype='>i4').tobytes())
            fh.write(np.asarray(rhs, dtype='>f8').tobytes())
    os.replace(tmp, out)
    return A


def describe(A, rhs, out, bs):
    m, n = A.shape
    info = {'rows': m, 'cols': n, 'nnz': int(A.nnz), 'rhs': rhs is not None, 'bs': bs}
    if m == n:
        At = A.T.tocsr()
        At.sort_indices()
        pat = (A != 0).astype(np.int8)
        info['structurally_symmetric'] = bool((abs(pat - pat.T)).nnz == 0) if A.nnz else True
        scale = abs(A).max() if A.nnz else 1.0
        info['symmetric'] = bool(abs(A - At).max() <= 1e-12 * scale) if A.nnz else True
        d = A.diagonal()
        info['zero_diagonals'] = int(np.count_nonzero(d == 0))
        # largest run of consecutive rows with identical column patterns (supervariables, uncapped)
        run = best = 1
        for i in range(1, m):
            a0, a1, b0, b1 = A.indptr[i - 1], A.indptr[i], A.indptr[i], A.indptr[i + 1]
            same = (a1 - a0) == (b1 - b0) and np.array_equal(A.indices[a0:a1], A.indices[b0:b1])
            run = run + 1 if same else 1
            best = max(best, run)
        info['max_supervariable'] = int(best) if m else 0
    h = hashlib.sha256()
    with open(out, 'rb') as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b''):
            h.update(chunk)
    info['sha256'] = h.hexdigest()
    return info


def main(argv):
    if len(argv) < 4 or argv[1] in ('-h', '--help'):
        sys.stderr.write(__doc__)
        return 2
    fmt, src, out = argv[1], argv[2], argv[3]
    bs = 1
    if '--bs' in argv:
        bs = int(argv[argv.index('--bs') + 1])
    kind, _, arg = fmt.partition(':')
    if kind == 'hb':
        A, rhs = read_hb(src)
    elif kind == 'mtx':
        A, rhs = read_mtx(src)
    elif kind == 'mat':
        A, rhs = read_mat(src, arg or 'A')
    elif kind == 'petsc':
        A, rhs = read_petsc(src, arg or 'last')
    else:
        raise SystemExit(f'unknown format {fmt!r}')
    A = sp.csr_matrix(A, dtype=np.float64)
    if A.shape[0] % bs:
        raise SystemExit(f'{src}: {A.shape[0]} rows are not a multiple of the block size {bs}')
    A = write_petsc(A, rhs, out)
    print(json.dumps(describe(A, rhs, out, bs)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
