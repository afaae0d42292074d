// A C model of the CPU pipeline's contraction loop nest (AVX-512, f32), to
// tell what the hardware allows from what the generated code does:
//
//   clang -O3 -march=native -o /tmp/contraction_model bench/contraction_model.c
//   /tmp/contraction_model M N K [repetitions]
//
// C[M, N] = A[M, K] * B[K, N] with B in panels [N / 32, K, 32] (a weight
// bound in panels), cache tiles of MC x NC (256 x 256) computed k block by
// k block (KC, 256), in each panel by panel, in each 8 x 32 register tiles
// down the rows; every register tile prefetches its share of the next
// panel's k block into L2, as transformer-cpu-prefetch-next-k-block makes
// it. Environment (each 0 or 1 unless said):
//   MC, NC, KC      cache tile and k block sizes;
//   TEMPORARY=1     accumulate each cache tile in a temporary of its size,
//                   reused by every tile, and copy it to C at the end
//                   (as transformer-cpu-fuse-epilogues does); 0: in C;
//   REUSE_B=1       every cache tile reads the first tile's panels (B in
//                   L2); REUSE_C=1: every tile writes C's first tile.
// Prints the best time of the repetitions and its GFLOP/s; compare with
// bench/peak.py's one-core peak, measured in the same minute.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MR = 8, NR = 32 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int env(const char *name, int fallback) {
  const char *value = getenv(name);
  return value ? atoi(value) : fallback;
}

// One register tile: C[0:8, 0:32] (row stride ldc) += A[0:8, 0:kc] (row
// stride lda) * panel[0:kc, 0:32], prefetching `lines` lines from `next`,
// one per 16 steps of k.
static void registerTile(int kc, const float *a, long lda, const float *panel,
                         float *c, long ldc, const char *next, int lines) {
  __m512 acc[MR][2];
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm512_loadu_ps(c + i * ldc);
    acc[i][1] = _mm512_loadu_ps(c + i * ldc + 16);
  }
  for (int k0 = 0; k0 < kc; k0 += 16) {
    if (k0 / 16 < lines)
      _mm_prefetch(next + (k0 / 16) * 64, _MM_HINT_T1);
    for (int k = k0; k < k0 + 16 && k < kc; ++k) {
      __m512 b0 = _mm512_load_ps(panel + k * NR);
      __m512 b1 = _mm512_load_ps(panel + k * NR + 16);
      for (int i = 0; i < MR; ++i) {
        __m512 ai = _mm512_set1_ps(a[i * lda + k]);
        acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
      }
    }
  }
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_ps(c + i * ldc, acc[i][0]);
    _mm512_storeu_ps(c + i * ldc + 16, acc[i][1]);
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s M N K [repetitions]\n", argv[0]);
    return 2;
  }
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  int repetitions = argc > 4 ? atoi(argv[4]) : 10;
  int mc = env("MC", 256), nc = env("NC", 256), kc = env("KC", 256);
  int temporary = env("TEMPORARY", 0), reuseB = env("REUSE_B", 0),
      reuseC = env("REUSE_C", 0);
  if (m % mc || n % nc || mc % MR || nc % NR) {
    fprintf(stderr,
            "M and N must be multiples of MC and NC, those of 8 and 32\n");
    return 2;
  }
  float *a = aligned_alloc(64, (size_t)m * k * 4);
  float *b = aligned_alloc(64, (size_t)k * n * 4);
  float *c = aligned_alloc(64, (size_t)m * n * 4);
  float *tile = aligned_alloc(64, (size_t)mc * nc * 4);
  for (size_t i = 0; i < (size_t)m * k; ++i)
    a[i] = (i % 7) * 0.1f;
  for (size_t i = 0; i < (size_t)k * n; ++i)
    b[i] = (i % 5) * 0.1f;
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    double start = now();
    for (int m0 = 0; m0 < m; m0 += mc)
      for (int n0 = 0; n0 < n; n0 += nc) {
        float *ct = temporary ? tile : c + (size_t)m0 * n + (reuseC ? 0 : n0);
        long ldc = temporary ? nc : n;
        for (int i = 0; i < mc; ++i)
          memset(ct + i * ldc, 0, nc * 4);
        int panel0 = reuseB ? 0 : n0;
        for (int k0 = 0; k0 < k; k0 += kc) {
          int size = k - k0 < kc ? k - k0 : kc;
          int lines = (size * NR * 4 / 64 + mc / MR - 1) / (mc / MR);
          for (int j = 0; j < nc; j += NR) {
            const float *panel = b + (size_t)(panel0 + j) * k + (size_t)k0 * NR;
            const float *next =
                j + NR < nc ? panel + (size_t)NR * k
                            : b + (size_t)panel0 * k +
                                  (size_t)(k0 + kc < k ? k0 + kc : 0) * NR;
            for (int i = 0; i < mc; i += MR)
              registerTile(size, a + (size_t)(m0 + i) * k + k0, k, panel,
                           ct + i * ldc + j, ldc,
                           (const char *)next + (size_t)(i / MR) * lines * 64,
                           lines);
          }
        }
        if (temporary)
          for (int i = 0; i < mc; ++i)
            memcpy(c + (size_t)(m0 + i) * n + n0, tile + (size_t)i * nc,
                   nc * 4);
      }
    double time = now() - start;
    if (time < best)
      best = time;
  }
  printf("M %d N %d K %d (MC %d NC %d KC %d, temporary %d, reuse B %d C %d): "
         "%.3f ms, %.1f GFLOP/s\n",
         m, n, k, mc, nc, kc, temporary, reuseB, reuseC, best * 1e3,
         2.0 * m * n * k / best * 1e-9);
  return 0;
}
