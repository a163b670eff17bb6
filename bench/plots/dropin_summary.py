#!/usr/bin/env python3
"""The summary of bench/scripts/run_dropin.sh (issue 38, the drop-in sweep): fills the ratio columns of dropin.csv
(baijksparse / aij(cusparse) of the main stage and of KSPSolve, against the aij run of the same case, rank count and
PC; vbjacobi against the aij run with the case's PETSc PC) and writes the Markdown summary: per case and rank count
both times, the ratios, whether baijksparse <= 1.2x aij on the main stage, and the failures with their messages.
With several runs of a configuration (run_dropin.sh --repeat), the run of median main-stage time stands for it (column
median = yes; a failed run stands for it when any run failed) and the summary gives the spread of the main stage.

usage: python3 bench/plots/dropin_summary.py dropin.csv dropin_summary.md"""
import csv
import sys

BOUND = 1.2


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def ratio(a, b):
    a, b = num(a), num(b)
    return a / b if a is not None and b else None


def fmt(x, spec='.3f'):
    return '-' if x is None else format(x, spec)


def spread_text(spread, r):
    s = spread.get((r['case'], r['np'], r['mat_type'], r['pc']))
    return '-' if s is None else f'{s[0]:.3g}-{s[1]:.3g} ({s[2]} runs)'


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, out = sys.argv[1:]
    with open(path) as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames
        rows = list(reader)
    if not rows:
        sys.exit(f'{path}: no runs')
    groups = {}  # (case, np, mat_type, pc) -> its runs
    for r in rows:
        r.setdefault('repeat', '1')
        groups.setdefault((r['case'], r['np'], r['mat_type'], r['pc']), []).append(r)
    spread = {}
    for key, runs in groups.items():
        for r in runs:
            r['median'] = ''
        bad = [r for r in runs if r['status'] != 'ok' or num(r['main_s']) is None]
        ok = sorted((r for r in runs if r not in bad), key=lambda r: num(r['main_s']))
        (bad[0] if bad else ok[(len(ok) - 1) // 2])['median'] = 'yes'
        if len(ok) > 1:
            spread[key] = (num(ok[0]['main_s']), num(ok[-1]['main_s']), len(ok))
    chosen = [r for r in rows if r['median'] == 'yes']
    base_pc = {}  # (case, np) -> the PC of the aij runs
    aij = {}
    for r in chosen:
        if r['mat_type'] != 'baijksparse':
            aij[(r['case'], r['np'], r['pc'])] = r
            base_pc[(r['case'], r['np'])] = r['pc']
    for r in rows:
        r['main_ratio'] = r['kspsolve_ratio'] = ''
        if r['mat_type'] != 'baijksparse' or r['median'] != 'yes':
            continue
        a = aij.get((r['case'], r['np'], r['pc'])) or aij.get((r['case'], r['np'], base_pc.get((r['case'], r['np']))))
        if a and a['status'] == 'ok' and r['status'] == 'ok':
            r['main_ratio'] = fmt(ratio(r['main_s'], a['main_s']))
            r['kspsolve_ratio'] = fmt(ratio(r['kspsolve_s'], a['kspsolve_s']))
            r['main_ratio'] = '' if r['main_ratio'] == '-' else r['main_ratio']
            r['kspsolve_ratio'] = '' if r['kspsolve_ratio'] == '-' else r['kspsolve_ratio']
    fields = fields if 'median' in fields else fields[:fields.index('main_ratio')] + ['median'] + fields[fields.index('main_ratio'):]
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=fields, quoting=csv.QUOTE_MINIMAL)
        w.writeheader()
        w.writerows(rows)

    device = rows[0]['device']
    aijname = next((r['mat_type'] for r in rows if r['mat_type'] != 'baijksparse'), 'aijcusparse')
    L = [f'# Drop-in sweep: {aijname} against baijksparse ({device})', '',
         f'Device: **{device}**. Unmodified PETSc tutorials, each with `{aijname}` and with `baijksparse` (same KSP, same PC; '
         'vbjacobi beside it where a block Jacobi fits). Times are the max over ranks from -log_view, in seconds; '
         f'ratio = baijksparse / {aijname}; "<= {BOUND}x" is the promise on the main stage.' +
         (f' Each configuration ran {max(len(g) for g in groups.values())} times, the types alternating; the run of '
          'median main-stage time stands for it, and the last column gives the spread of the main stage (min-max).'
          if spread else ''), '',
         f'| case | family | size | np | PC | {aijname} main | baijksparse main | main ratio | KSPSolve {aijname} | '
         f'KSPSolve baijksparse | KSPSolve ratio | its {aijname} / baij | assembly (MatAssemblyEnd) {aijname} / baij | '
         f'<= {BOUND}x |' + (f' main-stage spread {aijname} / baij |' if spread else ''),
         '|' + '---|' * (15 if spread else 14)]
    cases = list(dict.fromkeys((r['case'], r['np']) for r in rows))
    nok = nfail = nslow = 0
    failures = []
    for c, np in cases:
        rc = [r for r in chosen if r['case'] == c and r['np'] == np]
        for r in rc:
            if r['status'] != 'ok':
                failures.append(r)
        for b in (r for r in rc if r['mat_type'] == 'baijksparse'):
            a = aij.get((c, np, b['pc'])) or aij.get((c, np, base_pc.get((c, np))))
            if a is None:
                continue
            mr = num(b['main_ratio'])
            if a['status'] != 'ok' or b['status'] != 'ok':
                verdict = 'baijksparse fails' if a['status'] == 'ok' else (f'{aijname} fails' if b['status'] == 'ok' else 'both fail')
                if a['status'] == 'ok':
                    nfail += 1
            elif mr is None:
                verdict = 'no time'
            elif mr <= BOUND:
                verdict = 'yes'
                nok += 1
            else:
                verdict = '**no**'
                nslow += 1
            L.append(f"| {c} | {b['family']} | {b['size']} | {np} | {b['pc']} | {a['main_s']} | {b['main_s']} | "
                     f"{fmt(mr)} | {a['kspsolve_s']} | {b['kspsolve_s']} | {fmt(num(b['kspsolve_ratio']))} | "
                     f"{a['linear_its']} / {b['linear_its']} | {a['matassemblyend_s']} / {b['matassemblyend_s']} | {verdict} |" +
                     (f" {spread_text(spread, a)} / {spread_text(spread, b)} |" if spread else ''))
    L += ['', f'baijksparse runs within {BOUND}x of {aijname} on the main stage: {nok}; slower: {nslow}; '
          f'failing where {aijname} runs: {nfail}.', '']
    ratios = sorted(num(r['main_ratio']) for r in chosen if num(r['main_ratio']) is not None)
    if ratios:
        L += [f'Main-stage ratio over {len(ratios)} pairs: median {ratios[len(ratios) // 2]:.3f}, '
              f'min {ratios[0]:.3f}, max {ratios[-1]:.3f}.', '']
    L += ['## Failures', '']
    if failures:
        L += ['| case | np | type | PC | status | message |', '|---|---|---|---|---|---|']
        for r in failures:
            L.append(f"| {r['case']} | {r['np']} | {r['mat_type']} | {r['pc']} | {r['status']} | {r['error']} |")
    else:
        L.append('none')
    L += ['', '## Command lines', '']
    seen = set()
    for r in chosen:
        if (r['case'], r['np']) in seen:
            continue
        seen.add((r['case'], r['np']))
        L.append(f"- {r['case']}, {r['np']} rank(s): `{r['command']}`")
    with open(out, 'w') as f:
        f.write('\n'.join(L) + '\n')
    print('\n'.join(L[:len(L)]) if len(L) < 80 else '\n'.join(L[:60]))
    print(f'wrote {out}')


if __name__ == '__main__':
    main()
