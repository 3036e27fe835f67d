// Declarations only (include/libfuzzer.h); libFuzzer itself comes with -sanitize=fuzzer.
