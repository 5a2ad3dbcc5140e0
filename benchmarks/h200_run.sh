#!/usr/bin/env bash
# One run on an H200 machine (a 10-minute limit a command): what the machine is, then the steps named as
# arguments, in order: tests (GPU tests), sweep (launch sweep), main (the main job), corpus (the corpus suite),
# holdout (the held-out suite; CORPUS_ARGS for either, e.g. CORPUS_ARGS='--names mid/*'), corpus-at (the corpus of
# another package: AT_TREE, a `git archive <commit>` tar carried under .whl/, run from its own tree with this harness.py,
# into $OUT/r/at; Triton's kernel cache is shared with an earlier step, so its compile times do not compare),
# main-dynamic, corpus-dynamic and holdout-dynamic (the same with N dynamic); SWEEP_ARGS=--dynamic-rows for a sweep with N dynamic;
# profile-kernels (benchmarks.profile_kernels with PROFILE_ARGS); WORKERS=n pytest workers for the tests (8);
# compile-lab (benchmarks.lab_compile with COMPILE_LAB_ARGS: where the compile time goes),
# steps-lab (benchmarks.lab_steps with LAB_STEPS_ARGS: launch overrides on one real step), host-lab
# (benchmarks.lab_host with HOST_LAB_ARGS: host against GPU time of one real step),
# models (the real training steps, STEPS_ARGS, e.g. --steps 'float8-mlp-*'), random (random sites, RANDOM_ARGS,
# e.g. --seed 7 --sites 48 --variants fused forced) and ncu-steps (benchmarks.lab_ncu_steps under Nsight Compute,
# the steps NCU_STEPS, off then on: memory- or instruction-bound kernels), whose files go to $OUT/r and are packed
# into $OUT/results.tgz after each step (a step cut off by its STEP_TIMEOUT, default 540 s, still leaves the earlier
# steps' files).
# Everything lands under $OUT (8 files at most come back); the command must finish inside the 10-minute limit.
set -u -o pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # absolute: corpus-at runs from another folder
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then  # torchao for the Float8Linear step, carried as a wheel
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(), torch.cuda.get_device_properties(0).multi_processor_count, 'SMs')"
  git log -1 --oneline 2>/dev/null || true
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
for step in "$@"; do
  start=$(date +%s)
  case $step in
    tests) TORCHINDUCTOR_COMPILE_THREADS=2 timeout ${STEP_TIMEOUT:-540} python3 -m pytest ${TESTS:-test/inductor/test_gpu.py test/inductor/test_gpu_hardening.py} \
             -m gpu -v -n ${WORKERS:-8} -p no:cacheprovider -rfE --durations=10 -W ignore::DeprecationWarning > "$OUT/gpu_tests.log" 2>&1
           tail -n 60 "$OUT/gpu_tests.log" ;;
    sweep-*) python3 -m benchmarks.sweep --shapes "${step#sweep-}" ${SWEEP_ARGS:-} --out "$OUT" 2>&1 | grep -v "it/s\]" \
               | tee "$OUT/$step.log" ;;
    main) python3 -m benchmarks.run --suite main --out "$OUT" 2>&1 | grep -v "case/s\]" | tee "$OUT/main.log" ;;
    models) timeout ${STEP_TIMEOUT:-540} python3 -m benchmarks.run ${STEPS_ARGS:-} --out "$OUT/r" 2>&1 \
              | grep -v "step/s\]" | tee -a "$OUT/run.log" ;;
    random) timeout ${STEP_TIMEOUT:-540} python3 -m benchmarks.random_sites ${RANDOM_ARGS:-} --out "$OUT/r" 2>&1 \
              | grep -v "site/s\]" | tee -a "$OUT/run.log" ;;
    ncu-steps) mkdir -p "$OUT/r"
               for v in off on; do
                 timeout ${STEP_TIMEOUT:-540} ncu --profile-from-start off --section SpeedOfLight \
                   --section ComputeWorkloadAnalysis --csv --page details --log-file "$OUT/r/ncu-$v.csv" \
                   python3 -m benchmarks.lab_ncu_steps --steps ${NCU_STEPS:-'float8-mlp-*/16384x4096x4096'} \
                   --variant $v 2>&1 | tail -n 5 | tee -a "$OUT/run.log"
               done
               python3 -m benchmarks.lab_ncu_steps --summarize "$OUT/r/ncu-off.csv" "$OUT/r/ncu-on.csv" \
                 --out "$OUT/r" 2>&1 | tee -a "$OUT/run.log" ;;
    main-dynamic|corpus-dynamic|holdout-dynamic) python3 -m benchmarks.run --suite "${step%-dynamic}" --dynamic-rows --out "$OUT" 2>&1 \
               | grep -v "case/s\]" | tee "$OUT/$step.log" ;;
    host-lab) timeout ${STEP_TIMEOUT:-540} python3 -m benchmarks.lab_host --out "$OUT/r" ${HOST_LAB_ARGS:-} 2>&1 \
                | tee -a "$OUT/run.log" ;;
    steps-lab) timeout ${STEP_TIMEOUT:-540} python3 -m benchmarks.lab_steps --out "$OUT/r" ${LAB_STEPS_ARGS:-} 2>&1 \
                 | tee -a "$OUT/run.log" ;;
    compile-lab) timeout ${STEP_TIMEOUT:-540} python3 -m benchmarks.lab_compile --out "$OUT/r" ${COMPILE_LAB_ARGS:-} 2>&1 \
                   | tee -a "$OUT/run.log" ;;
    lab-gluon) python3 -m benchmarks.lab_gluon --out "$OUT" ${LAB_ARGS:-} 2>&1 | tee "$OUT/$step.log" ;;
    lab-*) python3 -m benchmarks.lab_loop --plan "${step#lab-}" --out "$OUT" 2>&1 | tee "$OUT/$step.log" ;;
    profile-kernels) python3 -m benchmarks.profile_kernels --out "$OUT" $PROFILE_ARGS 2>&1 | tee "$OUT/profile-kernels.log" ;;
    profile-float8) python3 -m benchmarks.profile_float8 --out "$OUT" 2>&1 | tail -n 120 | tee "$OUT/profile.log" ;;
    corpus|holdout) python3 -m benchmarks.run --suite "$step" ${CORPUS_ARGS:-} --out "$OUT" 2>&1 | grep -v "case/s\]" \
                      | tee "$OUT/$step.log" ;;
    corpus-at) rm -rf /tmp/at && mkdir -p /tmp/at "$OUT/r/at" && tar xf "${AT_TREE:?corpus-at needs AT_TREE, a tar of the other tree}" -C /tmp/at \
                 && cp benchmarks/harness.py /tmp/at/benchmarks/ \
                 && (cd /tmp/at && PYTHONPATH=/tmp/at:/tmp/site python3 -m benchmarks.run --suite corpus \
                       ${CORPUS_ARGS:-} --out "$OUT/r/at" 2>&1 | grep -v "case/s\]" | tee "$OUT/r/at/corpus.log") ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "step $step took $(( $(date +%s) - start )) s" | tee -a "$OUT/run.log"
  [ -d "$OUT/r" ] && tar czf "$OUT/results.tgz" -C "$OUT/r" .
done
