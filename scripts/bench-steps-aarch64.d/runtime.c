/* What the Embedded Swift step counter and heart-rate estimator need, on Linux system calls
 * alone (no C library, so x86-64 and AArch64 run the very same code around it).
 *
 * The heap is a bump allocator: frees are counted, never reused. The counter allocates at
 * its start and a few times per analysis frame, the estimator at its start (the program
 * prints how often), so the allocator is a small part of the count either way.
 *
 * The mathematics the signal code calls (the estimator's tracker about 200 exp a second, the
 * rest a few per frame, and to design filters) is done here by range reduction and series,
 * accurate to about 1e-13 (pow for positive bases only), and memory is copied and set 8 bytes
 * at a time: a C library's versions cost about as much (exp a few dozen instructions) or less.
 * Anything else left unresolved at link time is address 0: a call to it crashes the run
 * instead of counting wrongly. */
#include <stddef.h>
#include <stdint.h>

static long sys3(long n, long a, long b, long c) {
#if defined(__x86_64__)
    long r;
    __asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
#else
    register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b, x2 __asm__("x2") = c;
    __asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
#endif
}
#if defined(__x86_64__)
enum { SYS_WRITE = 1, SYS_EXIT = 60 };
#else
enum { SYS_WRITE = 64, SYS_EXIT = 93 };
#endif

uintptr_t __stack_chk_guard = 0x595e9fbd94fda766;
void __stack_chk_fail(void) { sys3(SYS_EXIT, 99, 0, 0); for (;;) {} }

/* Eight bytes at a time where both ends are aligned, as a C library's would (wider still). */
typedef uint64_t __attribute__((may_alias)) word;
void *memset(void *d, int c, size_t n) {
    unsigned char *p = d;
    if (((uintptr_t)p & 7) == 0) {
        word w = (unsigned char)c * 0x0101010101010101ull;
        for (; n >= 8; n -= 8, p += 8) *(word *)p = w;
    }
    while (n--) *p++ = (unsigned char)c;
    return d;
}
void *memcpy(void *d, const void *s, size_t n) {
    unsigned char *p = d; const unsigned char *q = s;
    if ((((uintptr_t)p | (uintptr_t)q) & 7) == 0) for (; n >= 8; n -= 8, p += 8, q += 8) *(word *)p = *(const word *)q;
    while (n--) *p++ = *q++;
    return d;
}
void *memmove(void *d, const void *s, size_t n) {
    unsigned char *p = d; const unsigned char *q = s;
    if (p < q) return memcpy(d, s, n);
    while (n--) p[n] = q[n];
    return d;
}

static unsigned char heap[256u << 20] __attribute__((aligned(4096)));
static size_t used;
static unsigned long allocations, releases, mathCalls;
int posix_memalign(void **out, size_t align, size_t size) {
    if (align < 16) align = 16;
    used = (used + align - 1) & ~(align - 1);
    if (used + size > sizeof heap) return 12;
    *out = heap + used;
    used += size;
    allocations++;
    return 0;
}
void *malloc(size_t n) { void *p; return posix_memalign(&p, 16, n) ? 0 : p; }
void free(void *p) { if (p) releases++; }

static const double PI = 3.14159265358979323846, LN2 = 0.69314718055994530942;
/* Built with -fno-math-errno, so this is the processor's square root, not a call to itself. */
double sqrt(double x) { return __builtin_sqrt(x); }
double fabs(double x) { return x < 0 ? -x : x; }
double trunc(double x) { return fabs(x) < 4503599627370496.0 ? (double)(long long)x : x; }
double floor(double x) { double t = trunc(x); return t > x ? t - 1 : t; }
double ceil(double x) { double t = trunc(x); return t < x ? t + 1 : t; }
double round(double x) { double t = trunc(x), d = x - t; return d >= 0.5 ? t + 1 : d <= -0.5 ? t - 1 : t; }
static double reduced(double x) { return x - floor(x / (2 * PI) + 0.5) * 2 * PI; }
double sin(double x) {
    mathCalls++;
    double r = reduced(x), r2 = r * r, t = r, s = r;
    for (int k = 1; k < 13; k++) { t *= -r2 / ((2 * k) * (2 * k + 1)); s += t; }
    return s;
}
double cos(double x) {
    mathCalls++;
    double r = reduced(x), r2 = r * r, t = 1, s = 1;
    for (int k = 1; k < 13; k++) { t *= -r2 / ((2 * k - 1) * (2 * k)); s += t; }
    return s;
}
double log(double x) {
    mathCalls++;
    if (!(x > 0)) return x == 0 ? -1.0 / 0.0 : 0.0 / 0.0;
    if (x == 1.0 / 0.0) return x;
    int e = 0;
    while (x > 1.5) { x *= 0.5; e++; }
    while (x < 0.75) { x *= 2; e--; }
    double y = (x - 1) / (x + 1), y2 = y * y, t = y, s = 0;
    for (int k = 0; k < 30; k++) { s += t / (2 * k + 1); t *= y2; }
    return 2 * s + e * LN2;
}
/* As a C library does it: x = k ln 2 + r (ln 2 in two parts), e^r by its Taylor polynomial to
 * r^13 (|r| <= 0.35: 4e-18), times 2^k made from its bits. */
static double twoTo(long long k) { union { uint64_t u; double d; } v = { (uint64_t)(k + 1023) << 52 }; return v.d; }
double exp(double x) {
    mathCalls++;
    if (x > 709) return 1.0 / 0.0;
    if (x < -745) return 0;
    static const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
    double k = round(x / LN2), r = (x - k * LN2_HI) - k * LN2_LO, s = 1.0 / 6227020800;
    static const double c[13] = { 1, 1, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320,
                                  1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600 };
    for (int i = 12; i >= 0; i--) s = s * r + c[i];
    long long e = (long long)k;
    return e < -1022 ? s * twoTo(e + 600) * twoTo(-600) : s * twoTo(e);
}
double pow(double x, double y) { mathCalls++; return y == 0 ? 1 : x == 0 ? 0 : exp(y * log(x)); }

static void amble_put(const char *s) { size_t n = 0; while (s[n]) n++; sys3(SYS_WRITE, 1, (long)s, (long)n); }
static void amble_put_runtime_counts(void);
#include "main.h"
static void amble_put_runtime_counts(void) {
    amble_put(" allocations "); amble_put_number(allocations);
    amble_put(" frees "); amble_put_number(releases);
    amble_put(" math "); amble_put_number(mathCalls);
}

void cstart(long *sp) {
    sys3(SYS_EXIT, amble_main(sp[0], (char **)(sp + 1)), 0, 0);
}
