import ArchiverCore
import SystemPackage
import Testing

@testable import PhotoEngine

@Suite struct PhotoBudgetTests {
    private func plan(_ names: [String], megabytes: Double) -> PhotoPlan {
        var plan = PhotoPlan()
        plan.jobs = names.map { name in
            PhotoJob(kind: .photo, source: FilePath("/p/\(name)"), folder: FilePath("/p"), name: Array(name.utf8),
                     keptName: nil, bytes: Int64(megabytes * 1_000_000), replacesSource: false)
        }
        return plan
    }

    @Test func phonePhotosMatchTheBenchmark() {
        // bench/RESULTS-photos.md: 20 phone JPEGs (40 MB) in about 1.7 s on 2 workers.
        let phone = plan((1...20).map { "IMG_\($0).jpg" }, megabytes: 2)
        let seconds = PhotoBudget.estimate(phone, format: .jpeg, workers: 2)
        #expect(seconds > 1.2 && seconds < 2.5, "\(seconds)")
        #expect(PhotoBudget.estimate(phone, format: .heic, workers: 2) > 5 * seconds)
        #expect(PhotoBudget.estimate(plan(["a.HEIC"], megabytes: 0.6), format: .jpeg, workers: 2) > 0.6)
    }

    @Test func onlyABatchFarOverItsBudgetIsRefused() {
        let many = plan((1...600).map { "IMG_\($0).jpg" }, megabytes: 2)  // about 56 s as JPEG, 9 min as HEIC
        #expect(PhotoBudget.check(many, format: .jpeg, workers: 2, budget: nil) == nil)
        #expect(PhotoBudget.check(many, format: .jpeg, workers: 2, budget: 30) == nil, "within the margin")
        let refusal = PhotoBudget.check(many, format: .heic, workers: 2, budget: 120)
        #expect(refusal?.code == .budget)
        #expect(refusal?.message.english.hasPrefix("Not started: compressing 600 photos would take about") == true, "\(refusal?.message.english ?? "")")
        #expect(refusal?.hint?.english.contains("--format jpeg") == true, "\(refusal?.hint?.english ?? "")")
        #expect(PhotoBudget.check(many, format: .jpeg, workers: 2, budget: 5)?.hint?.english.contains("--time-budget") == true)
        let few = plan((1...60).map { "IMG_\($0).jpg" }, megabytes: 2)  // about 6 s
        #expect(PhotoBudget.check(few, format: .jpeg, workers: 2, budget: 1) == nil, "a short batch is stopped, not refused")
    }
}
