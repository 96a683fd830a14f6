import JobKit
import JobProtocol
import ArchiverCore
import ArgumentParser
import Glibc
import PhotoEngine
import SystemPackage

extension PhotoCommand {
    /// `--estimate` and `--suggest`: each photo's copy estimated from its header; nothing is written.
    func survey(_ inputs: [FilePath], options: PhotoOptions) throws {
        let clock = ContinuousClock.now
        let elapsed = { (ContinuousClock.now - clock).inSeconds }
        let stream = events.stream()
        let photoEvents = stream.map(PhotoEvents.init)
        let report = PhotoReport(JobReport(operation: PhotoOutcome.operation, json: job.json, events: stream))
        let folders = suggest && inputs.isEmpty ? [Self.picturesFolder] : inputs
        // `.replace` claims no folder: the plan only walks the inputs.
        let plan: PhotoPlan
        do throws(ArchiverError) {
            plan = try PhotoPlan.make(inputs: folders, destination: .replace, format: options.format)
        } catch {
            report.failed(error, elapsed: elapsed())
            throw ExitCode(error.code.exitStatus)
        }
        let photos = plan.jobs.filter { $0.kind == .photo }
        if photos.isEmpty, let problem = plan.problems.first {
            for other in plan.problems.dropFirst() { printProblem(other) }
            report.failed(problem, elapsed: elapsed())
            throw ExitCode(problem.code.exitStatus)
        }
        for problem in plan.problems { report.warn(JobWarning("input-skipped", problem.message)) }
        var estimates: [PhotoEstimate] = []
        estimates.reserveCapacity(photos.count)
        for (index, photo) in photos.enumerated() {
            let estimate = PhotoEstimator.survey(photo.source, size: photo.bytes, options: options)
            estimates.append(estimate)
            if suggest {
                // A scan of a large Pictures folder takes a while: its progress, at most every 25 photos.
                if index % 25 == 24 || index == photos.count - 1 {
                    stream?.event(ProgressEvent(
                        done: Int64(index + 1), total: Int64(photos.count), fraction: Double(index + 1) / Double(photos.count),
                        remaining: nil, savedBytes: 0, current: .some(photo.source.string)))
                }
            } else {
                photoEvents?.estimate(estimate)
            }
        }
        let listed = suggest ? PhotoEstimator.suggestions(estimates) : estimates
        if suggest { for estimate in listed { photoEvents?.estimate(estimate) } }
        report.surveyed(listed, scanned: photos.count, elapsed: elapsed())
        throw ExitCode(ExitStatus.success)
    }

    /// The Pictures folder of the XDG user dirs, else ~/Pictures.
    static var picturesFolder: FilePath {
        if let pictures = PhotoCodec.picturesFolder { return pictures }
        return BaseFolders.current.home.appending("Pictures")
    }
}

extension PhotoReport {
    /// The estimates (all photos with `--estimate`, the suggested ones with `--suggest`) and their totals.
    func surveyed(_ estimates: [PhotoEstimate], scanned: Int, elapsed: Double) {
        let inputBytes = estimates.reduce(0) { $0 + $1.size }
        let estimatedBytes = estimates.reduce(0) { $0 + $1.estimatedSize }
        if isJSON {
            emit(exitCode: ExitStatus.success, elapsed: elapsed, [
                ("photos", .int(estimates.count)), ("scanned", .int(scanned)),
                ("inputBytes", .int(inputBytes)), ("estimatedBytes", .int(estimatedBytes)),
                ("estimates", .array(estimates.map { .object(PhotoEvents.event($0).fields) })),
            ])
            return
        }
        for estimate in estimates {
            let name = Text.verbatim(estimate.source.string)
            let line: Text =
                switch estimate.status {
                // TRANSLATORS: a photo, its size, and the estimated size of its copy.
                case .ok: tr("%1$@: %2$@ → about %3$@", name, .bytes(estimate.size), .bytes(estimate.estimatedSize))
                // TRANSLATORS: a photo and its size; its copy would be no smaller.
                case .small: tr("%1$@: %2$@, already small", name, .bytes(estimate.size))
                // TRANSLATORS: a photo and its size; it is a copy Archiver made (recognised by its metadata).
                case .ours: tr("%1$@: %2$@, a copy Archiver made", name, .bytes(estimate.size))
                // TRANSLATORS: a photo, then why it cannot be read ("it is damaged or cut short").
                case .unreadable: tr("%1$@: unreadable, %2$@", name, estimate.message ?? tr("unknown error"))
                }
            print(line.localized)
        }
        if estimates.isEmpty {
            print(tr("No photos found that would get much smaller.").localized)
        } else {
            // TRANSLATORS: the total of an estimate: photos, their size → the estimated size of their copies.
            print(ntr("%1$ld photo, %2$@ → about %3$@.", "%1$ld photos, %2$@ → about %3$@.", estimates.count, .bytes(inputBytes),
                      .bytes(estimatedBytes)).localized)
        }
    }
}
