# The randomized differential test (sourced by tests/run.sh): baijksparse products against MATAIJ and vbjacobi against
# PETSc's vpbjacobi on random block sizes 1..64, random patterns with empty and long block rows, random options, 1..4
# ranks; seeded, so a failure is rerun with its -seed and -first. 1020 cases per run here (PBG_RANDOM_SCALE=N runs N
# times as many); 4 ranks on a 2-core machine are slow (MPICH polls), so fewer cases there.
pbg_rs=${PBG_RANDOM_SCALE:-1}
tcase random_diff_np1 -- test_random_diff -cases $((600 * pbg_rs)) -seed 11 --grep ' 0 mismatches' --grep '^OK'
tcase random_diff_np2 -n 2 -- test_random_diff -cases $((300 * pbg_rs)) -seed 12 --grep ' 0 mismatches' --grep '^OK'
tcase random_diff_np3 -n 3 -- test_random_diff -cases $((80 * pbg_rs)) -seed 13 --grep ' 0 mismatches' --grep '^OK'
tcase random_diff_np4 -n 4 -- test_random_diff -cases $((40 * pbg_rs)) -seed 14 --grep ' 0 mismatches' --grep '^OK'
unset pbg_rs
