// Smoke test of the benchmark harness (bench/): tiny shapes, numpy baseline
// only, one thread. It checks that every workload compiles, runs and matches
// numpy, and that the table has its columns; it never asserts a timing.
// REQUIRES: numpy, transformer-run
// RUN: %python %src_root/bench/bench.py --quick --baselines numpy --threads 1 \
// RUN:   --build %obj_root --json %t.json 2>%t.log | FileCheck %s
// RUN: %python -c "import json; d = json.load(open('%t.json')); \
// RUN:   print(len(d['workloads']), all('median_ms' in w['ours'] for w in d['workloads']))" \
// RUN:   | FileCheck %s --check-prefix=JSON
// --rounds N: each time is the median of N rounds, each round's time kept;
// median/min is the largest of the rounds'.
// RUN: %python %src_root/bench/bench.py --quick --baselines numpy --threads 1 \
// RUN:   --ours-threads 1 --only add --rounds 2 --build %obj_root --json %t.rounds.json 2>%t.rounds.log
// RUN: %python -c "import json; d = json.load(open('%t.rounds.json')); w = d['workloads'][0]; \
// RUN:   print(w['name'], len(w['ours']['rounds_ms']), len(w['baselines']['numpy-1t']['rounds_ms']), w['ours']['spread'] >= 1)" \
// RUN:   | FileCheck %s --check-prefix=ROUNDS
// RUN: not %python %src_root/bench/bench.py --rounds 0 --build %obj_root 2>&1 | FileCheck %s --check-prefix=BAD-ROUNDS
// Code built for AVX2 (on any x86 host) is measured against the ymm peak.
// RUN: %python %src_root/bench/bench.py --quick --baselines numpy --threads 1 \
// RUN:   --ours-threads 1 --only add --flags=--target-features=-avx512f \
// RUN:   --build %obj_root 2>%t.avx2.log | FileCheck %s --check-prefix=AVX2

// CHECK: | workload | ours-1t ms | GFLOP/s | % peak | GB/s | ours-2t ms | ours-2t GFLOP/s | ours-1t median/min | ours-2t median/min | numpy-1t ms | ours/numpy-1t | compile ms | max err |
// CHECK: | matmul 64^3 | {{[0-9.]+}} | {{[0-9.]+}} | {{[0-9]+}}% | {{[0-9.]+}} | {{[0-9.]+}} | {{[0-9.]+}} | {{[0-9.]+}} | {{[0-9.]+}} |
// CHECK: | linear 8x32 -> 48 |
// CHECK: | layer_norm 8x32 |
// CHECK: | softmax 8x32 |
// CHECK: | gelu 8x32 |
// CHECK: | add 8x32 |
// CHECK: | attention (1,2,16,8) causal |
// CHECK: | GPT-2 block seq 8 |
// CHECK: | GPT-2 stack 2 blocks seq 8 | {{[0-9.]+}} |{{.*}}| {{[0-9.]+}} | {{[0-9.e+-]+}} |
// CHECK-NOT: error
// CHECK: numpy-1t: version
// JSON: 9 True
// ROUNDS: add 8x32 2 2 True
// BAD-ROUNDS: Error: --rounds must be at least 1, got 0
// AVX2: ours-Nt: transformer-run --target-features=-avx512f --threads=N; % peak of the ymm peak
