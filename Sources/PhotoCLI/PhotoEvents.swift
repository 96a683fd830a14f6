import ArchiverCLI
import ArchiverCore
import Dispatch
import Glibc
import PhotoEngine
import Synchronization
import SystemPackage

/// `--progress-json` for photos: the batch's progress counted in photos, one `photo` event per finished
/// photo, `paused`/`resumed`, and the estimates of `--estimate` and `--suggest` (README: JSON).
struct PhotoEvents {
    let stream: EventStream

    func progress(_ progress: PhotoProgress) {
        let fraction = progress.photosTotal > 0 ? Double(progress.photosFinished) / Double(progress.photosTotal) : 0
        stream.event("progress", [
            ("done", .int(progress.photosFinished)), ("total", .int(progress.photosTotal)),
            ("fraction", .double((fraction * 10_000).rounded() / 10_000)),
            ("remaining", progress.remaining.map { .double(($0 * 10).rounded() / 10) } ?? .null),
            ("savedBytes", .int(progress.saved)), ("current", progress.currentPath.map { .string($0.string) } ?? .null),
        ])
    }

    /// A finished photo (a Live Photo's video is not one).
    func finished(_ job: PhotoJob, _ outcome: Result<PhotoItem, ArchiverError>) {
        guard job.kind == .photo else { return }
        switch outcome {
        case .success(let item):
            stream.event("photo", [
                ("source", .string(item.source.string)), ("path", .string(item.output.string)),
                ("inputSize", .int(item.inputBytes)), ("size", .int(item.outputBytes)), ("outcome", .string(item.outcome.rawValue)),
                ("width", .int(item.width)), ("height", .int(item.height)),
                ("outWidth", .int(item.outWidth)), ("outHeight", .int(item.outHeight)), ("message", .null),
            ])
        case .failure(let error):
            stream.event("photo", [
                ("source", .string(job.source.string)), ("path", .null), ("inputSize", .int(job.bytes)), ("size", .null),
                ("outcome", .string("failed")), ("width", .null), ("height", .null), ("outWidth", .null), ("outHeight", .null),
                ("message", .string(error.message.localized)),
            ])
        }
    }

    func estimate(_ estimate: PhotoEstimate) {
        stream.event("estimate", Self.fields(estimate))
    }

    static func fields(_ estimate: PhotoEstimate) -> [(String, JSON)] {
        [
            ("source", .string(estimate.source.string)), ("size", .int(estimate.size)),
            ("width", .int(estimate.width)), ("height", .int(estimate.height)),
            ("estimatedSize", .int(estimate.estimatedSize)), ("status", .string(estimate.status.rawValue)),
            ("message", estimate.message.map { .string($0.localized) } ?? .null),
        ]
    }
}

/// SIGUSR1 pauses a batch, SIGUSR2 resumes it (a window runs the executable and sends them).
enum PauseSignals {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let hungUp = Atomic<Bool>(false)

    /// A SIGHUP arrived: the session ended (a logout, a closed terminal). The batch stops as on SIGTERM,
    /// but stays resumable: its journal is kept.
    static var sessionEnded: Bool { hungUp.load(ordering: .relaxed) }

    static func install(_ control: JobControl, resumed: @escaping @Sendable () -> Void) {
        // Beside CommandRunner's own SIGHUP source, which cancels.
        let hangUp = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangUp.setEventHandler { hungUp.store(true, ordering: .relaxed) }
        hangUp.resume()
        sources.append(hangUp)
        for (number, pausing) in [(SIGUSR1, true), (SIGUSR2, false)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if pausing {
                    control.pause()
                } else if control.resume() {
                    resumed()
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
