# The device kernels in the host warp emulator (tests/emu/cuda_emu.h): no GPU needed, so these run in CI on every
# commit and check the kernels' logic and lane protocol against host references (the --gpu cases check them on
# the device).
tcase emu_vbjacobi_kernels -- test_emu_vbjacobi -seed 1 --grep '^OK' --nogrep FAIL
tcase emu_baijksparse_kernels -- test_emu_baijksparse -seed 1 --grep 'bs 50, ept 1, 2 warps, compressed rows, y .= A x in place .1 empty rows kept: yes; lambda 1073741824' --grep 'atomic A\^T x, bs  1 \(compiled\)' --grep 'transpose gather, bs 17: 0 of' --grep '^OK' --nogrep FAIL
tcase emu_agglomeration_kernels -- test_emu_blocking -seed 1 --grep '^OK' --nogrep FAIL
# the setup launched by width class (size sort on the device, thread-per-block path for sizes 1..2), another seed
tcase emu_vbjacobi_classes -- test_emu_vbjacobi -cases class -seed 2 --grep '^OK' --grep 'class .*perm device.*launches P<=2,4,8,16,32' --nogrep FAIL
tcase emu_idrs_kernels -- test_emu_idrs -seed 1 --grep '^omega update, with rt, no norm .*: ok' --grep '^dots 11 products \(width 16\), one y.*: ok' --grep '^OK' --nogrep FAIL
# the emulator's own checks: kernels that keep the lane protocol pass, and the broken ones (full mask after lanes
# left, divergent __syncwarp/__syncthreads lines, a deadlock) are reported, the deadlock without hanging
tcase emu_protocol -- test_emu_protocol --grep '^bad: deadlock.*: ok' --grep 'cuda_emu: deadlock in thread block' --grep '^OK' --nogrep FAIL
# the blocked products' kernels (baijksparse_galerkin_kernels.cuh): patterns and values of A B and P^T Q, an AIJ
# prolongator in blocks, and the MPI products' parts side by side and fixed-order block gather, against host references
for seed in 1 5; do
  tcase emu_galerkin_kernels_seed$seed -- test_emu_galerkin -seed $seed --grep '^P\^T Q, blocks 3x6 and 3x2, .*: pattern ok .* values ok' --grep '^parts side by side, bs 6, .*\(7 below\): ok' --grep '^block gather, 36 values a block, .* 0-3 sources each: ok' --grep '^OK' --nogrep FAIL
done
