#ifndef AMBLE_LIBFUZZER_H
#define AMBLE_LIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt), linked by -sanitize=fuzzer. amble-fuzz calls it from its
/// own entry because SwiftPM names an executable's entry point itself.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
