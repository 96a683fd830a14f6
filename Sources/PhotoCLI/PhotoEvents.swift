import ArchiverCore
import Dispatch
import Glibc
import JobKit
import JobProtocol
import PhotoEngine
import Synchronization
import SystemPackage

/// `--progress-json` for photos: the batch's progress counted in photos, one `photo` event per finished
/// photo, `paused`/`resumed`, and the estimates of `--estimate` and `--suggest` (README: JSON).
struct PhotoEvents {
    let stream: EventStream

    func progress(_ progress: PhotoProgress) {
        let fraction = progress.photosTotal > 0 ? Double(progress.photosFinished) / Double(progress.photosTotal) : 0
        stream.event(ProgressEvent(
            done: Int64(progress.photosFinished), total: Int64(progress.photosTotal), fraction: fraction,
            remaining: progress.remaining, savedBytes: progress.saved, current: .some(progress.currentPath?.string)))
    }

    /// A finished photo (a Live Photo's video is not one).
    func finished(_ job: PhotoJob, _ outcome: Result<PhotoItem, ArchiverError>) {
        guard job.kind == .photo else { return }
        switch outcome {
        case .success(let item): stream.event(PhotoEvent(Self.copy(item), message: nil))
        case .failure(let error):
            let copy = PhotoCopy(
                source: job.source, path: nil, inputSize: job.bytes, size: nil, outcome: "failed", width: nil, height: nil,
                outWidth: nil, outHeight: nil)
            stream.event(PhotoEvent(copy, message: error.message.localized))
        }
    }

    func estimate(_ estimate: PhotoEstimate) { stream.event(Self.event(estimate)) }

    static func copy(_ item: PhotoItem) -> PhotoCopy {
        PhotoCopy(
            source: item.source, path: item.output, inputSize: item.inputBytes, size: item.outputBytes,
            outcome: item.outcome.rawValue, width: Int64(item.width), height: Int64(item.height), outWidth: Int64(item.outWidth),
            outHeight: Int64(item.outHeight))
    }

    static func event(_ estimate: PhotoEstimate) -> EstimateEvent {
        EstimateEvent(
            source: estimate.source, size: estimate.size, width: Int64(estimate.width), height: Int64(estimate.height),
            estimatedSize: estimate.estimatedSize, status: estimate.status.rawValue, message: estimate.message?.localized,
            facts: estimate.facts)
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
