// amble-hil: hardware-in-the-loop checks of the Linux layer. scripts/hil builds this as a
// static executable and runs it inside a VM booted with Debian's kernel, against i2c-stub
// (plus amble-i2c-stub for plain I2C transfers) and gpio-sim. Prints one line per check and
// ends with `HIL: N passed, N failed`; exits 1 when any check failed. See docs/hil.md.
#if canImport(Glibc)
import Glibc
#endif

let run = HILRun()
var environment: HILEnvironment?
run.check("environment: i2c-stub, amble-i2c-stub and the gpio-sim chip are there") {
    environment = try HILEnvironment.discover()
}
if let env = environment {
    run.note("i2c-stub is /dev/i2c-\(env.smbusOnlyBus), amble-i2c-stub /dev/i2c-\(env.i2cBus), gpio-sim \(env.gpioChipName) (\(env.gpioSimDirectory))")
    runI2CChecks(run, env)
    runGPIOOutputChecks(run, env)
    runButtonChecks(run, env)
}
runStreamChecks(run)
run.emit(run.summary)
exit(run.failed == 0 ? 0 : 1)
