/* Machine facts behind PERF.md: clock (a chain of dependent register adds,
 * 1 per cycle; not adds of an immediate, which Intel cores since Golden
 * Cove fold at rename, so that a chain of them ran at 15.9 "GHz" on a
 * Xeon family 6 model 207), 256-bit FMA and store throughput, and the cost of vdivps,
 * vsqrtps, vrsqrtps. Build and run:
 *   gcc -O2 tools/microbench.c -o /tmp/microbench && /tmp/microbench
 * Throughputs are converted to cycles with the clock measured first. */
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define ADD10 "add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n add %1, %0\n"

int main(void) {
    long n = 30000000;
    unsigned long x = 1, one_reg = 1;
    double t0 = now();
    for (long i = 0; i < n; i++)
        __asm__ volatile(ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 : "+r"(x) : "r"(one_reg));
    double ghz = n * 100.0 / (now() - t0) / 1e9;
    printf("clock: %.2f GHz (100 dependent adds per iteration)\n", ghz);

    n = 200000000;
    t0 = now();
    __asm__ volatile(
        "vxorps %%ymm12,%%ymm12,%%ymm12\n vxorps %%ymm13,%%ymm13,%%ymm13\n"
        "1:\n"
        "vfmadd231ps %%ymm12,%%ymm13,%%ymm0\n vfmadd231ps %%ymm12,%%ymm13,%%ymm1\n"
        "vfmadd231ps %%ymm12,%%ymm13,%%ymm2\n vfmadd231ps %%ymm12,%%ymm13,%%ymm3\n"
        "vfmadd231ps %%ymm12,%%ymm13,%%ymm4\n vfmadd231ps %%ymm12,%%ymm13,%%ymm5\n"
        "vfmadd231ps %%ymm12,%%ymm13,%%ymm6\n vfmadd231ps %%ymm12,%%ymm13,%%ymm7\n"
        "vfmadd231ps %%ymm12,%%ymm13,%%ymm8\n vfmadd231ps %%ymm12,%%ymm13,%%ymm9\n"
        "vfmadd231ps %%ymm12,%%ymm13,%%ymm10\n vfmadd231ps %%ymm12,%%ymm13,%%ymm11\n"
        "dec %0\n jnz 1b\n"
        : "+r"(n) :: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13");
    printf("ymm FMA: %.2f per cycle\n", 200000000.0 * 12 / (now() - t0) / (ghz * 1e9));

    static float buf[8 * 64] __attribute__((aligned(64)));
    n = 100000000;
    t0 = now();
    __asm__ volatile(
        "vxorps %%ymm0,%%ymm0,%%ymm0\n 1:\n"
        "vmovaps %%ymm0,(%1)\n vmovaps %%ymm0,32(%1)\n vmovaps %%ymm0,64(%1)\n vmovaps %%ymm0,96(%1)\n"
        "vmovaps %%ymm0,128(%1)\n vmovaps %%ymm0,160(%1)\n vmovaps %%ymm0,192(%1)\n vmovaps %%ymm0,224(%1)\n"
        "dec %0\n jnz 1b\n"
        : "+r"(n) : "r"(buf) : "xmm0", "memory");
    printf("ymm store: %.2f per cycle\n", 100000000.0 * 8 / (now() - t0) / (ghz * 1e9));

    float one = 1.5f;
#define COST(name, ins)                                                                  \
    {                                                                                    \
        long m = 50000000;                                                               \
        double s0 = now();                                                               \
        __asm__ volatile("vbroadcastss %1, %%ymm12\n vmovaps %%ymm12,%%ymm13\n 1:\n" ins ins \
                         ins ins "dec %0\n jnz 1b\n"                                     \
                         : "+r"(m) : "m"(one) : "xmm0", "xmm12", "xmm13");               \
        printf("%s: %.2f cycles each (independent)\n", name,                             \
               (now() - s0) * ghz * 1e9 / (50000000.0 * 4));                             \
    }
    COST("vdivps ymm", "vdivps %%ymm12,%%ymm13,%%ymm0\n")
    COST("vsqrtps ymm", "vsqrtps %%ymm12,%%ymm0\n")
    COST("vrsqrtps ymm", "vrsqrtps %%ymm12,%%ymm0\n")
    return (int)(x & 1);
}
