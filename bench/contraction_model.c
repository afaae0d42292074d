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
//   ORDER=ours|blis|packa  ours: the loop nest above;
//                   blis: for each k block, each MC block of rows: pack A's
//                   block into [MC/8][KC][8], then sweep all of N panel by
//                   panel, register tiles down the block, C loaded/stored
//                   per k block (packing timed); packa: ours, with A's
//                   MC x KC block packed per (cache tile, k block);
//   NOPACK=1        with ORDER=blis: A read in place instead of packed
//                   (the order's share of the gain without the packing's).
//   CPF=1           every register tile prefetches the next one's C tile
//                   into L1 (the default with ORDER=blis);
//   CHECK=1         fill with exact values, compare with a reference.
// M must be a multiple of 8 and N of 32 (partial cache tiles are fine).
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

// One register tile: C[0:8, 0:32] (row stride ldc) (+)= A[0:8, 0:kc] (element
// (i, k) at a[i * rs + k * cs]) * panel[0:kc, 0:32], prefetching `lines`
// lines from `next`, one per 16 steps of k, and (if cnext) the 16 lines of
// the next C tile, two per 16 steps. zero: start from 0 instead of C.
static inline __attribute__((always_inline)) void
tileGeneric(int kc, const float *a, long rs, long cs, const float *panel,
            float *c, long ldc, const char *next, int lines, int zero,
            const float *cnext) {
  __m512 acc[MR][2];
  for (int i = 0; i < MR; ++i) {
    if (zero) {
      acc[i][0] = _mm512_setzero_ps();
      acc[i][1] = _mm512_setzero_ps();
    } else {
      acc[i][0] = _mm512_loadu_ps(c + i * ldc);
      acc[i][1] = _mm512_loadu_ps(c + i * ldc + 16);
    }
  }
  for (int k0 = 0; k0 < kc; k0 += 16) {
    if (k0 / 16 < lines)
      _mm_prefetch(next + (k0 / 16) * 64, _MM_HINT_T1);
    if (cnext && k0 / 16 < MR) {
      _mm_prefetch((const char *)(cnext + (k0 / 16) * ldc), _MM_HINT_T0);
      _mm_prefetch((const char *)(cnext + (k0 / 16) * ldc + 16), _MM_HINT_T0);
    }
    for (int k = k0; k < k0 + 16 && k < kc; ++k) {
      __m512 b0 = _mm512_load_ps(panel + k * NR);
      __m512 b1 = _mm512_load_ps(panel + k * NR + 16);
      for (int i = 0; i < MR; ++i) {
        __m512 ai = _mm512_set1_ps(a[i * rs + k * cs]);
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

// The original tile: A in place, row stride lda.
static __attribute__((noinline)) void
registerTile(int kc, const float *a, long lda, const float *panel, float *c,
             long ldc, const char *next, int lines, const float *cnext) {
  tileGeneric(kc, a, lda, 1, panel, c, ldc, next, lines, 0, cnext);
}

// A packed as one micro-panel [kc][8].
static __attribute__((noinline)) void
packedTile(int kc, const float *ap, const float *panel, float *c, long ldc,
           const char *next, int lines, int zero, const float *cnext) {
  tileGeneric(kc, ap, 1, MR, panel, c, ldc, next, lines, zero, cnext);
}

// Packs A[0:mc, 0:kc] (row stride lda) into [mc/8][kc][8], 8x8 transposes.
static void packA(int mc, int kc, const float *a, long lda, float *p) {
  for (int i0 = 0; i0 < mc; i0 += MR) {
    const float *r = a + (size_t)i0 * lda;
    float *q = p + (size_t)i0 * kc;
    int k = 0;
    for (; k + 8 <= kc; k += 8) {
      __m256 r0 = _mm256_loadu_ps(r + 0 * lda + k),
             r1 = _mm256_loadu_ps(r + 1 * lda + k);
      __m256 r2 = _mm256_loadu_ps(r + 2 * lda + k),
             r3 = _mm256_loadu_ps(r + 3 * lda + k);
      __m256 r4 = _mm256_loadu_ps(r + 4 * lda + k),
             r5 = _mm256_loadu_ps(r + 5 * lda + k);
      __m256 r6 = _mm256_loadu_ps(r + 6 * lda + k),
             r7 = _mm256_loadu_ps(r + 7 * lda + k);
      __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
      __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
      __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
      __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
      __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44),
             s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44),
             s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44),
             s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
      __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44),
             s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      _mm256_store_ps(q + (k + 0) * MR, _mm256_permute2f128_ps(s0, s4, 0x20));
      _mm256_store_ps(q + (k + 1) * MR, _mm256_permute2f128_ps(s1, s5, 0x20));
      _mm256_store_ps(q + (k + 2) * MR, _mm256_permute2f128_ps(s2, s6, 0x20));
      _mm256_store_ps(q + (k + 3) * MR, _mm256_permute2f128_ps(s3, s7, 0x20));
      _mm256_store_ps(q + (k + 4) * MR, _mm256_permute2f128_ps(s0, s4, 0x31));
      _mm256_store_ps(q + (k + 5) * MR, _mm256_permute2f128_ps(s1, s5, 0x31));
      _mm256_store_ps(q + (k + 6) * MR, _mm256_permute2f128_ps(s2, s6, 0x31));
      _mm256_store_ps(q + (k + 7) * MR, _mm256_permute2f128_ps(s3, s7, 0x31));
    }
    for (; k < kc; ++k)
      for (int i = 0; i < MR; ++i)
        q[k * MR + i] = r[i * lda + k];
  }
}

static float value(size_t i, int exact, int which) {
  if (exact)
    return (float)((int)((i * (which ? 7919u : 104729u)) % 13u) - 6) * 0.25f;
  return (i % (which ? 5 : 7)) * 0.1f;
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
      reuseC = env("REUSE_C", 0), check = env("CHECK", 0),
      noPack = env("NOPACK", 0);
  int cpf; // CPF=1: every register tile prefetches the next one's C into L1

  const char *order = getenv("ORDER") ? getenv("ORDER") : "ours";
  int blis = !strcmp(order, "blis"), packa = !strcmp(order, "packa");
  if (!blis && !packa && strcmp(order, "ours")) {
    fprintf(stderr, "ORDER must be ours, blis or packa\n");
    return 2;
  }
  cpf = env("CPF", blis);
  if (m % MR || n % NR || mc % MR || nc % NR) {
    fprintf(stderr, "M and MC must be multiples of 8, N and NC of 32\n");
    return 2;
  }
  float *a = aligned_alloc(64, (size_t)m * k * 4);
  float *b = aligned_alloc(64, (size_t)k * n * 4);
  float *c = aligned_alloc(64, (size_t)m * n * 4);
  float *tile = aligned_alloc(64, (size_t)mc * nc * 4);
  float *apack = aligned_alloc(64, (size_t)mc * kc * 4);
  for (size_t i = 0; i < (size_t)m * k; ++i)
    a[i] = value(i, check, 0);
  for (size_t i = 0; i < (size_t)k * n; ++i)
    b[i] = value(i, check, 1);
  memset(c, 0, (size_t)m * n * 4);
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    double start = now();
    if (blis) {
      for (int k0 = 0; k0 < k; k0 += kc) {
        int size = k - k0 < kc ? k - k0 : kc;
        for (int m0 = 0; m0 < m; m0 += mc) {
          int mb = m - m0 < mc ? m - m0 : mc;
          int lines = (size * NR * 4 / 64 + mb / MR - 1) / (mb / MR);
          if (!noPack)
            packA(mb, size, a + (size_t)m0 * k + k0, k, apack);
          for (int j = 0; j < n; j += NR) {
            const float *panel = b + (size_t)j * k + (size_t)k0 * NR;
            const float *next =
                j + NR < n ? panel + (size_t)NR * k
                           : b + (size_t)(k0 + kc < k ? k0 + kc : 0) * NR;
            for (int i = 0; i < mb; i += MR) {
              float *ct = c + (size_t)(m0 + i) * n + j;
              const float *cnext =
                  i + MR < mb ? ct + (size_t)MR * n
                              : c + (size_t)m0 * n + (j + NR < n ? j + NR : 0);
              const char *pf =
                  (const char *)next + (size_t)(i / MR) * lines * 64;
              if (noPack)
                tileGeneric(size, a + (size_t)(m0 + i) * k + k0, k, 1, panel,
                            ct, n, pf, lines, k0 == 0, cnext);
              else
                packedTile(size, apack + (size_t)i * size, panel, ct, n, pf,
                           lines, k0 == 0, cnext);
            }
          }
        }
      }
    } else {
      for (int m0 = 0; m0 < m; m0 += mc) {
        int mb = m - m0 < mc ? m - m0 : mc;
        for (int n0 = 0; n0 < n; n0 += nc) {
          int nb = n - n0 < nc ? n - n0 : nc;
          float *ct = temporary ? tile : c + (size_t)m0 * n + (reuseC ? 0 : n0);
          long ldc = temporary ? nc : n;
          for (int i = 0; i < mb; ++i)
            memset(ct + i * ldc, 0, nb * 4);
          int panel0 = reuseB ? 0 : n0;
          for (int k0 = 0; k0 < k; k0 += kc) {
            int size = k - k0 < kc ? k - k0 : kc;
            int lines = (size * NR * 4 / 64 + mb / MR - 1) / (mb / MR);
            if (packa)
              packA(mb, size, a + (size_t)m0 * k + k0, k, apack);
            for (int j = 0; j < nb; j += NR) {
              const float *panel =
                  b + (size_t)(panel0 + j) * k + (size_t)k0 * NR;
              const float *next =
                  j + NR < nb ? panel + (size_t)NR * k
                              : b + (size_t)panel0 * k +
                                    (size_t)(k0 + kc < k ? k0 + kc : 0) * NR;
              for (int i = 0; i < mb; i += MR) {
                const char *pf =
                    (const char *)next + (size_t)(i / MR) * lines * 64;
                const float *cn = !cpf ? 0
                                  : i + MR < mb
                                      ? ct + (i + MR) * ldc + j
                                      : ct + (j + NR < nb ? j + NR : 0);
                if (packa)
                  packedTile(size, apack + (size_t)i * size, panel,
                             ct + i * ldc + j, ldc, pf, lines, 0, cn);
                else
                  registerTile(size, a + (size_t)(m0 + i) * k + k0, k, panel,
                               ct + i * ldc + j, ldc, pf, lines, cn);
              }
            }
          }
          if (temporary)
            for (int i = 0; i < mb; ++i)
              memcpy(c + (size_t)(m0 + i) * n + n0, tile + (size_t)i * nc,
                     nb * 4);
        }
      }
    }
    double time = now() - start;
    if (time < best)
      best = time;
  }
  if (check) {
    long bad = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int p = 0; p < k; ++p)
          s += (double)a[(size_t)i * k + p] *
               b[(size_t)(j / NR) * k * NR + (size_t)p * NR + j % NR];
        if ((float)s != c[(size_t)i * n + j] && bad++ < 5)
          fprintf(stderr, "C[%d, %d] = %g, expected %g\n", i, j,
                  c[(size_t)i * n + j], s);
      }
    printf("check %s %dx%dx%d (MC %d NC %d KC %d temporary %d): %s (%ld bad)\n",
           order, m, n, k, mc, nc, kc, temporary, bad ? "FAIL" : "ok", bad);
  }
  printf(
      "%s M %d N %d K %d (MC %d NC %d KC %d, temporary %d, reuse B %d C %d): "
      "%.3f ms, %.1f GFLOP/s\n",
      order, m, n, k, mc, nc, kc, temporary, reuseB, reuseC, best * 1e3,
      2.0 * m * n * k / best * 1e-9);
  return 0;
}
