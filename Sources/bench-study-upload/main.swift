// The study server's client measured against a running amble-server (scripts/bench-study-upload
// starts one on a scratch PostgreSQL): the latency of one session's upload (each PUT on its own
// TLS connection, as `amble` makes them), and the time to catch up a month of one offline
// laptop. A developer's measurement, not a test.
import AmbleCLI
#if canImport(Glibc)
import Glibc
#endif

exit(StudyUploadBench.main(Array(CommandLine.arguments.dropFirst())))
