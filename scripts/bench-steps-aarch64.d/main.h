/* The benchmark program's arguments and output, the same in every build: included once by
 * runtime.c (the Embedded builds: Linux system calls, no C library; scripts/bench-sync-aarch64
 * links it too) and by ordinary.c (the ordinary build: the C library and the Swift runtime).
 * Each gives amble_put (write a string) and amble_put_runtime_counts (what the Embedded heap
 * and mathematics saw, or nothing) before including it.
 *
 *   counter [LIMIT]                 amble_count over the first LIMIT samples (all without it):
 *                                   the step counter (Harness.swift), or what else is linked
 *   counter pipeline PARTS [LIMIT]  the band's pipeline over the first LIMIT events, PARTS 1
 *                                   steps, 2 heart rate, 3 both: a line "estimate SECOND BPM
 *                                   CONFIDENCE" per second closed (the doubles' bits in hex, or
 *                                   "none"), then "steps N ..." (Pipeline.swift) */
#include <stdint.h>

extern long amble_count(long limit);
extern long amble_pipeline(long parts, long limit);

extern const double amble_samples[];
extern const long amble_sample_values;
const double *amble_values(void) { return amble_samples; }
long amble_value_count(void) { return amble_sample_values; }

static void amble_put_number(unsigned long v) {
    char b[24]; int i = 23; b[i] = 0;
    do { b[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    amble_put(b + i);
}
static void putBits(double x) {
    union { double d; uint64_t u; } v = { x };
    char b[17]; b[16] = 0;
    for (int i = 15; i >= 0; i--) { b[i] = "0123456789abcdef"[v.u & 15]; v.u >>= 4; }
    amble_put(b);
}
static long number(const char *p) {
    long v = 0;
    for (; *p >= '0' && *p <= '9'; p++) v = v * 10 + (*p - '0');
    return v;
}

void amble_estimated(long second, long given, double bpm, double confidence) {
    amble_put("estimate "); amble_put_number((unsigned long)second);
    if (given) { amble_put(" "); putBits(bpm); amble_put(" "); putBits(confidence); } else { amble_put(" none"); }
    amble_put("\n");
}

static int amble_main(long argc, char **argv) {
    long steps;
    const char *p = argc > 1 ? argv[1] : "", *word = "pipeline";
    while (*p && *p == *word) { p++; word++; }
    if (argc > 2 && !*p && !*word) {
        steps = amble_pipeline(number(argv[2]), argc > 3 ? number(argv[3]) : -1);
    } else {
        steps = amble_count(argc > 1 ? number(argv[1]) : -1);
    }
    amble_put("steps "); amble_put_number((unsigned long)steps);
    amble_put_runtime_counts();
    amble_put("\n");
    return 0;
}
