import AmbleLinux
import ArgumentParser

/// `--shared`, for the commands that write files for a person (exports, reports, raw
/// samples, a study's answers). These hold steps, heart rate, raw PPG and answers, so by
/// default they are their owner's alone, as the stores are: files 0600, folders made 0700.
struct SharingOptions: ParsableArguments {
    @Flag(help: "Let the files written (and folders made) follow the umask, commonly readable by every user, instead of being yours alone (files 0600, new folders 0700): they hold health data.")
    var shared = false

    var sharing: FileSharing { shared ? .umask : .ownerOnly }
}
