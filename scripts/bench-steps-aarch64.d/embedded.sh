# Shared by scripts/bench-steps-aarch64 and scripts/bench-pipeline-aarch64 (sourced, not run):
# the tools, the builds of the signal code around the harness in this folder, and the
# instruction counts. The caller sets ROOT (the checkout) and TMP (a scratch folder holding
# samples.bin, the input linked into every program).

HERE="$ROOT/scripts/bench-steps-aarch64.d"
need=()
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
command -v valgrind >/dev/null || need+=(valgrind)
((${#need[@]} == 0)) || "$ROOT/scripts/setup" "${need[@]}"
TOOLS="$(dirname "$(readlink -f "$(command -v swiftc)")")"
CLANG="$TOOLS/clang"
[ -x "$CLANG" ] || CLANG=clang
[ -d "$ROOT/.build/checkouts/swift-numerics/Sources/RealModule" ] || { echo "swift-numerics is not checked out in .build: run swift build first" >&2; exit 1; }
NUMERICS="$ROOT/.build/checkouts/swift-numerics/Sources"

# build ARCH SOURCE-DIR OUT-DIR HARNESS.swift...: OUT-DIR/counter, a static program with no C
# library in Embedded Swift (ARCH aarch64 or x86_64), or the ordinary build for this machine
# (ARCH ordinary: the C library and the Swift runtime, as the band runs). SOURCE-DIR holds the
# signal code (module AmbleSignal); the harness files form module Harness.
# The C parts are built without contracting a multiply and an add (AArch64 would fuse them, x86-64
# cannot), so that every build's mathematics rounds alike.
build() {
    local arch=$1 src=$2 out=$3 target ctarget embedded=(-enable-experimental-feature Embedded)
    shift 3
    case $arch in
        aarch64) target=aarch64-none-none-elf; ctarget=aarch64-linux-gnu ;;
        x86_64) target=x86_64-unknown-none-elf; ctarget=x86_64-linux-gnu ;;
        ordinary) target=x86_64-unknown-linux-gnu; ctarget=x86_64-linux-gnu; embedded=() ;;
    esac
    mkdir -p "$out"
    local swiftc=(swiftc -target "$target" "${embedded[@]}" -wmo -parse-as-library -O -I "$out" -I "$NUMERICS/_NumericsShims/include")
    # Float80 is x86's alone, and not in Embedded Swift.
    local numerics=("$NUMERICS"/RealModule/*.swift)
    ((${#embedded[@]})) && numerics=($(ls "$NUMERICS"/RealModule/*.swift | grep -v Float80))
    "${swiftc[@]}" -c -module-name RealModule -emit-module -emit-module-path "$out/RealModule.swiftmodule" "${numerics[@]}" -o "$out/RealModule.o"
    "${swiftc[@]}" -c -module-name AmbleSignal -emit-module -emit-module-path "$out/AmbleSignal.swiftmodule" "$src"/*.swift -o "$out/AmbleSignal.o"
    "${swiftc[@]}" -enable-experimental-feature Extern -c -module-name Harness "$@" -o "$out/Harness.o"
    local cflags=(--target=$ctarget -O2 -ffp-contract=off)
    if [ "$arch" = ordinary ]; then
        "$CLANG" "${cflags[@]}" -c "$HERE/ordinary.c" -o "$out/ordinary.o"
        (cd "$TMP" && "$CLANG" --target=$ctarget -DAMBLE_ORDINARY -c "$HERE/start.S" -o "$out/start.o")
        swiftc -target "$target" "$out/start.o" "$out/ordinary.o" "$out/Harness.o" "$out/AmbleSignal.o" "$out/RealModule.o" -lm -o "$out/counter"
        return
    fi
    "$CLANG" "${cflags[@]}" -ffreestanding -fno-builtin -fno-math-errno -fno-stack-protector -c "$HERE/runtime.c" -o "$out/runtime.o"
    (cd "$TMP" && "$CLANG" --target=$ctarget -c "$HERE/start.S" -o "$out/start.o")
    "$CLANG" --target=$ctarget -fuse-ld=lld -nostdlib -static -Wl,-e,_start -Wl,--unresolved-symbols=ignore-all \
        "$out/start.o" "$out/runtime.o" "$out/Harness.o" "$out/AmbleSignal.o" "$out/RealModule.o" -o "$out/counter"
}

# The instruction-counting plugin for qemu (count-instructions.c).
build_plugin() {
    "$CLANG" -O2 -shared -fPIC "$HERE/count-instructions.c" -o "$TMP/count-instructions.so"
}

# A run that crashed (a function left unresolved is address 0) or printed no count must not
# be counted: the counter's line must be there, and the program must have exited 0.
counted() {
    local status=$1 output=$2 what=$3
    if [ "$status" -ne 0 ] || ! grep -q '^steps [0-9]' "$output"; then
        echo "$(basename "$0"): the $what run failed (exit $status): $(head -c 300 "$output")" >&2
        exit 1
    fi
}
# count_x86 PROGRAM ARGS...: the instructions of an x86-64 run, valgrind; its output in $TMP/x86.txt.
count_x86() {
    local status=0
    valgrind --tool=callgrind --error-exitcode=97 --callgrind-out-file="$TMP/x86.out" "$@" > "$TMP/x86.txt" 2>/dev/null || status=$?
    counted "$status" "$TMP/x86.txt" "x86-64"
    grep -m1 '^summary:' "$TMP/x86.out" | awk '{print $2}'
}
# count_arm PROGRAM ARGS...: the instructions of an AArch64 run, qemu and the plugin; its output
# in $TMP/arm.txt.
count_arm() {
    local status=0
    qemu-aarch64 -plugin "$TMP/count-instructions.so" "$@" > "$TMP/arm.txt" 2> "$TMP/arm.err" || status=$?
    counted "$status" "$TMP/arm.txt" "AArch64"
    awk '/^instructions/ {print $2}' "$TMP/arm.err"
}
# count_qemu_x86 PROGRAM ARGS...: the same plugin on an x86-64 run, to check it against valgrind.
count_qemu_x86() {
    qemu-x86_64 -plugin "$TMP/count-instructions.so" "$@" 2>&1 >/dev/null | awk '/^instructions/ {print $2}'
}
