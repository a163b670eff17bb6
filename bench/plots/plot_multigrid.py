#!/usr/bin/env python3
"""Plots a multigrid comparison CSV (columns: device, problem or case, config, pcsetup_s, kspsolve_s): per problem, PCSetUp and
KSPSolve of each configuration side by side, PETSc's types and ours (bench/results/gamg/, bench/results/mg/).

usage: python3 bench/plots/plot_multigrid.py results.csv [out.png]"""
from plot_common import command_line, read_rows, save


def main():
    plt, path, out = command_line('plot_multigrid.py', __doc__)
    rows = read_rows(path)
    for r in rows:  # run_gamg.sh and run_mg.sh name the problem 'case', and give the rank count
        r.setdefault('problem', r.get('case', '?') + (' on %s ranks' % r['np'] if r.get('np', '1') != '1' else ''))
    rows = [r for r in rows if r.get('pcsetup_s') and r.get('kspsolve_s')]  # a failed run has no times
    problems = list(dict.fromkeys(r['problem'] for r in rows))
    fig, axes = plt.subplots(1, len(problems), figsize=(6.5 * len(problems), 4.2), squeeze=False)
    for ax, prob in zip(axes[0], problems):
        rs = [r for r in rows if r['problem'] == prob]
        x = range(len(rs))
        w = 0.38
        ax.bar([i - w / 2 for i in x], [float(r['pcsetup_s']) for r in rs], w, label='PCSetUp', color='tab:gray')
        ax.bar([i + w / 2 for i in x], [float(r['kspsolve_s']) for r in rs], w, label='KSPSolve',
               color=['tab:orange' if 'baijksparse' in r['config'] + r.get('mat_type', '') else 'tab:blue' for r in rs])
        ax.set_yscale('log')  # PETSc's setups with host products take tens of seconds, the solves a tenth
        ax.set_xticks(list(x))
        ax.set_xticklabels([r['config'] for r in rs], rotation=30, ha='right', fontsize=7)
        ax.set_ylabel('seconds')
        ax.set_title(prob, fontsize=9)
        ax.legend(fontsize=8)
    save(fig, out, f"Multigrid: PETSc's types (blue KSPSolve) and baijksparse (orange) ({rows[0]['device']})")


if __name__ == '__main__':
    main()
