/* X25519 (RFC 7748) on the field arithmetic swift-crypto's BoringSSL runs on the band's
 * AArch64 core: fiat-crypto's 64-bit curve25519 (third_party/fiat/curve25519_64.h, included
 * from the checkout; BoringSSL has assembly for it on x86-64 with ADX, none on AArch64). The
 * ladder is BoringSSL's x25519_scalar_mult_generic step for step (5 multiplications, 4
 * squarings and a multiplication by 121666 per bit), the inversion ref10's chain (254
 * squarings, 11 multiplications). scripts/bench-sync-aarch64 counts its instructions on
 * x86-64 (valgrind) and AArch64 (qemu and a plugin), the same C for both.
 *
 * Linked with scripts/bench-steps-aarch64.d's runtime (no C library), which calls
 * amble_count(LIMIT) and prints its result as "steps N": here the first four bytes of the
 * last output, little-endian (for LIMIT 1, RFC 7748's first iteration, 0x7a8e2c42). */
#include <stdint.h>
#include "curve25519_64.h"

typedef uint64_t fe[5];

static void fe_mul(fe h, const fe f, const fe g) { fiat_25519_carry_mul(h, f, g); }
static void fe_sq(fe h, const fe f) { fiat_25519_carry_square(h, f); }
static void fe_sqn(fe h, const fe f, int n) { fe_sq(h, f); while (--n > 0) fe_sq(h, h); }
static void fe_copy(fe h, const fe f) { for (int i = 0; i < 5; i++) h[i] = f[i]; }

static void fe_cswap(fe f, fe g, uint64_t b) {
    uint64_t mask = 0 - b;
    for (int i = 0; i < 5; i++) { uint64_t x = (f[i] ^ g[i]) & mask; f[i] ^= x; g[i] ^= x; }
}

/* z^(p-2), as ref10 computes it. */
static void fe_invert(fe out, const fe z) {
    fe t0, t1, t2, t3;
    fe_sq(t0, z); fe_sqn(t1, t0, 2); fe_mul(t1, z, t1); fe_mul(t0, t0, t1);
    fe_sq(t2, t0); fe_mul(t1, t1, t2);
    fe_sqn(t2, t1, 5); fe_mul(t1, t2, t1);
    fe_sqn(t2, t1, 10); fe_mul(t2, t2, t1);
    fe_sqn(t3, t2, 20); fe_mul(t2, t3, t2);
    fe_sqn(t2, t2, 10); fe_mul(t1, t2, t1);
    fe_sqn(t2, t1, 50); fe_mul(t2, t2, t1);
    fe_sqn(t3, t2, 100); fe_mul(t2, t3, t2);
    fe_sqn(t2, t2, 50); fe_mul(t1, t2, t1);
    fe_sqn(t1, t1, 5); fe_mul(out, t1, t0);
}

static void x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t point[32]) {
    uint8_t e[32];
    for (int i = 0; i < 32; i++) e[i] = scalar[i];
    e[0] &= 248; e[31] &= 127; e[31] |= 64;
    uint8_t u[32];
    for (int i = 0; i < 32; i++) u[i] = point[i];
    u[31] &= 127;
    fe x1, x2 = {1}, z2 = {0}, x3, z3 = {1}, tmp0, tmp1, x2l, z2l, x3l, tmp0l, tmp1l;
    fiat_25519_from_bytes(x1, u);
    fe_copy(x3, x1);
    uint64_t swap = 0;
    for (int pos = 254; pos >= 0; --pos) {
        uint64_t b = 1 & (e[pos / 8] >> (pos & 7));
        swap ^= b;
        fe_cswap(x2, x3, swap); fe_cswap(z2, z3, swap);
        swap = b;
        fiat_25519_sub(tmp0l, x3, z3); fiat_25519_sub(tmp1l, x2, z2);
        fiat_25519_add(x2l, x2, z2); fiat_25519_add(z2l, x3, z3);
        fe_mul(z3, tmp0l, x2l); fe_mul(z2, z2l, tmp1l);
        fe_sq(tmp0, tmp1l); fe_sq(tmp1, x2l);
        fiat_25519_add(x3l, z3, z2); fiat_25519_sub(z2l, z3, z2);
        fe_mul(x2, tmp1, tmp0); fiat_25519_sub(tmp1l, tmp1, tmp0);
        fe_sq(z2, z2l); fiat_25519_carry_scmul_121666(z3, tmp1l);
        fe_sq(x3, x3l); fiat_25519_add(tmp0l, tmp0, z3);
        fe_mul(z3, x1, z2); fe_mul(z2, tmp1l, tmp0l);
    }
    fe_cswap(x2, x3, swap); fe_cswap(z2, z3, swap);
    fe_invert(z2, z2);
    fe_mul(x2, x2, z2);
    fiat_25519_to_bytes(out, x2);
}

/* RFC 7748 5.2's iteration: k = X25519(k, u), u = the old k, from k = u = 9. */
long amble_count(long limit) {
    uint8_t k[32] = {9}, u[32] = {9}, r[32];
    long n = limit < 0 ? 1 : limit;
    for (long i = 0; i < n; i++) {
        x25519(r, k, u);
        for (int j = 0; j < 32; j++) { u[j] = k[j]; k[j] = r[j]; }
    }
    return (long)k[0] | (long)k[1] << 8 | (long)k[2] << 16 | (long)k[3] << 24;
}
