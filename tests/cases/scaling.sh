# bench_scaling (MatMult strong scaling, one GPU per rank): its -check compares the product with MATMPIBAIJ on the
# host. The host cases run the types' host paths; the GPU cases need one GPU per rank to time anything, but check
# correctness with ranks sharing a GPU too.
tcase scaling_host_mpi2 -n 2 -- bench_scaling -grid 8 -bs 3 -reps 2 -warmup 1 -check --grep 'check against MATMPIBAIJ on the host: .*: ok'
tcase scaling_host_mpi3_bs1 -n 3 -- bench_scaling -grid 7 -bs 1 -reps 2 -warmup 1 -check --grep ': ok'
tcase scaling_gpu --gpu -- bench_scaling -grid 24 -bs 4 -reps 5 -check --grep 'baijksparse, 1 rank.*GB/s' --grep ': ok'
tcase scaling_gpu_mpi2 --gpu -n 2 -- bench_scaling -grid 24 -bs 5 -reps 5 -check --grep 'baijksparse, 2 rank.*GB/s' --grep ': ok'
tcase scaling_gpu_aijcusparse_mpi2 --gpu -n 2 -- bench_scaling -grid 20 -bs 3 -reps 3 -mat_type aijcusparse -check --grep ': ok'
