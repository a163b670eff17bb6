# issue 39: what PCGAMG asks of a baijksparse operator, against AIJ with the same values (tests/test_gamg_ops.c): the
# graph in every combination of symmetrize, scale, filter and strength index; A P, A^T P, P^T A P with an AIJ
# prolongator of bs x cbs blocks and, for cbs = bs, a baijksparse one; P^T A P baijksparse with block size cbs; its reuse
# after A's values change; a refused reuse after A's pattern changed. bs 1..6, 1-3 ranks, and on the device
for args in "-bs 1 -cbs 1" "-bs 1 -cbs 3" "-bs 2 -cbs 2" "-bs 3 -cbs 6" "-bs 3 -cbs 3" "-bs 5 -cbs 2" "-bs 6 -cbs 6 -nb 5"; do
  name=$(tr -d ' -' <<< "$args")
  tcase gamg_ops_$name -- test_gamg_ops $args --grep '^P\^T A P is baijksparse with block size [0-9]+: ok' --grep 'refused .*pattern of an operand .* changed since the product was set up' --grep '^OK' --nogrep 'FAILED'
done
for np in 2 3; do
  tcase gamg_ops_bs3_np$np -n $np -- test_gamg_ops -bs 3 -cbs 3 --grep '^P\^T A P \(P mpibaijksparse\) +mpibaijksparse .* ok' --grep '^OK' --nogrep 'FAILED'
  tcase gamg_ops_bs2cbs3_np$np -n $np -- test_gamg_ops -bs 2 -cbs 3 -seed 5 --grep '^OK' --nogrep 'FAILED'
done
tcase gamg_ops_malloc_dump -- test_gamg_ops -bs 3 -cbs 3 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
for args in "-bs 3 -cbs 3" "-bs 1 -cbs 1" "-bs 4 -cbs 2"; do
  name=$(tr -d ' -' <<< "$args")
  tcase gamg_ops_gpu_$name --gpu -- test_gamg_ops -vec_type cuda $args --grep '^P\^T A P is baijksparse with block size [0-9]+: ok' --grep '^OK' --nogrep 'FAILED'
done
tcase gamg_ops_gpu_bs3_np2 --gpu -n 2 -- test_gamg_ops -vec_type cuda -use_gpu_aware_mpi 0 -bs 3 -cbs 3 --grep '^OK' --nogrep 'FAILED'
# two ranks with aijcusparse prolongators through AIJ (-mat_baijksparse_products aij): the operator's aijcusparse copy from its parts converted on the device, never
# MatConvert_Basic() (a row at a time into an unpreallocated matrix; the test's own reference conversions of the
# aijcusparse results to AIJ take it, hence the nogrep on ours only)
tcase gamg_ops_gpu_bs3cbs6_np2_aijcusparse --gpu -n 2 -- test_gamg_ops -vec_type cuda -use_gpu_aware_mpi 0 -ptype aijcusparse -mat_baijksparse_products aij -bs 3 -cbs 6 -info :mat \
  --grep 'mpibaijksparse converted to mpiaijcusparse from its parts, each converted on the device' --grep 'mpiaijcusparse converted to mpibaijksparse through a MATMPIBAIJ preallocated by the block pattern' --nogrep '<mat:mpibaijksparse> MatConvert\(\): Using MatConvert_Basic' --grep '^OK' --nogrep 'FAILED'
# the blocked products on the device (baijksparse_galerkin.c, the default route for sequential A P and P^T A P): an
# aijcusparse prolongator (PCGAMG's) of every shape, a larger one for the grid loops, and the AIJ route kept selectable
for args in "-bs 1 -cbs 1" "-bs 1 -cbs 3" "-bs 2 -cbs 3" "-bs 3 -cbs 6" "-bs 5 -cbs 2" "-bs 6 -cbs 6 -nb 5" "-bs 3 -cbs 6 -nb 3000 -seed 3"; do
  name=$(tr -d ' -' <<< "$args")
  tcase gamg_ops_gpu_blocked_$name --gpu -- test_gamg_ops -vec_type cuda -ptype aijcusparse -info :mat $args --grep '^P\^T A P is baijksparse with block size [0-9]+: ok' --grep 'PtAP of seqbaijksparse .* by blocks on the device' --grep 'AB of seqbaijksparse .* by blocks on the device' --grep '^OK' --nogrep 'FAILED'
done
tcase gamg_ops_gpu_aijroute_bs3cbs6 --gpu -- test_gamg_ops -vec_type cuda -ptype aijcusparse -mat_baijksparse_products aij -info :mat -bs 3 -cbs 6 --grep 'PtAP of seqbaijksparse and seqaijcusparse through seqaijcusparse' --nogrep 'by blocks on the device' --grep '^OK' --nogrep 'FAILED'
# the blocked products of MPI operands on the device (baijksparse_galerkin_mpi.c, the default route on several ranks):
# aijcusparse and (cbs = bs) baijksparse prolongators, coarse rows sent to their owners, reuse after A's and
# P's values change, the refused reuse after A's pattern changed; 2 and 3 ranks, a larger case for the grid loops
for np in 2 3; do
  for args in "-bs 3 -cbs 6" "-bs 1 -cbs 3" "-bs 2 -cbs 2" "-bs 5 -cbs 2" "-bs 4 -cbs 4 -nb 400 -seed 3"; do
    name=$(tr -d ' -' <<< "$args")
    tcase gamg_ops_gpu_mpiblocked_${name}_np$np --gpu -n $np -- test_gamg_ops -vec_type cuda -use_gpu_aware_mpi 0 -ptype aijcusparse -info :mat $args --grep "PtAP of mpibaijksparse .* by blocks on the device, $np ranks" --grep 'AB of mpibaijksparse .* by blocks on the device' --nogrep '(PtAP|AB) of mpibaijksparse .* through ' --grep 'refused .*pattern of an operand .* changed since the product was set up' --grep '^OK' --nogrep 'FAILED'
  done
done
# a host AIJ prolongator (bound to the CPU by its type, as PETSc makes every host matrix) takes the AIJ route, as on one rank
tcase gamg_ops_gpu_mpiblocked_hostP_bs3cbs6_np2 --gpu -n 2 -- test_gamg_ops -vec_type cuda -use_gpu_aware_mpi 0 -ptype aij -info :mat -bs 3 -cbs 6 --grep 'PtAP of mpibaijksparse and mpiaij through mpiaijcusparse' --grep '^OK' --nogrep 'FAILED'
# what the MPI blocked products allocate is freed (the product's maps, star forest, P's rows, device buffers)
tcase gamg_ops_gpu_mpiblocked_malloc_dump_np2 --gpu -n 2 -- test_gamg_ops -vec_type cuda -use_gpu_aware_mpi 0 -ptype aijcusparse -bs 3 -cbs 3 -malloc_debug -malloc_dump --grep '^OK' --nogrep '^\[ *[0-9]+\] [0-9]+ bytes '
# the level's transfers after P^T A P on several ranks: an mpiaijcusparse P's products take the NCCL exchange of the
# operator (baijksparse_ghost_aij.c) where NCCL serves (a GPU per rank), else PETSc's own; both against AIJ's products
# (MatMult, MatMultAdd, MatMultTranspose, MatMultTransposeAdd, outputs poisoned)
pbg_prolongator_exchange() { # NP WANT ARGS...
  local np=$1 want=$2 ngpu out rc
  shift 2
  ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
  out=$(pbg_run "$np" test_gamg_ops -vec_type cuda -use_gpu_aware_mpi 0 -ptype aijcusparse -info :mat "$@")
  rc=$?
  grep -E "transfer|P's products exchange|ghost values by|^OK|FAILED" <<< "$out" | sort | uniq -c
  echo "GPUs visible: $ngpu, ranks: $np, expected: $want"
  [ $rc = 0 ] && grep -q '^OK' <<< "$out" && ! grep -q FAILED <<< "$out" && [ "$(grep -c '^transfer .* ok$' <<< "$out")" -ge 4 ] || return 1
  if [ "$want" = nccl ] && [ "$ngpu" -ge "$np" ]; then
    grep -qE "prolongator exchange its [0-9]+ ghost values by NCCL" <<< "$out" && grep -q "P's products exchange by NCCL" <<< "$out"
  else grep -q "P's products exchange by its own scatter" <<< "$out" && ! grep -q "P's products exchange by NCCL" <<< "$out"; fi
}
for np in 2 3; do
  tcheck gamg_ops_gpu_prolongator_exchange_bs3cbs6_np$np --gpu -- pbg_prolongator_exchange $np nccl -bs 3 -cbs 6 -nb 40
done
tcheck gamg_ops_gpu_prolongator_exchange_bs2cbs3_small_np2 --gpu -- pbg_prolongator_exchange 2 nccl -bs 2 -cbs 3 -nb 3
tcheck gamg_ops_gpu_prolongator_exchange_sf_np2 --gpu -- pbg_prolongator_exchange 2 sf -bs 3 -cbs 6 -mat_baijksparse_ghost_exchange sf
