import ArchiverCore
import CGtk
import Glibc

/// Figures for `bench/extract-tree.sh` and `bench/photo-grid.sh`, written only by a debug build (the hooks
/// are compiled in with `ARCHIVER_TEST_HOOKS`, see Package.swift) and only when `ARCHIVER_UI_TIMINGS` names a
/// file: one line per event, "NAME VALUE", times as milliseconds since 1970 so that the script can measure
/// from its own exec. Nothing here changes what the window does unless `ARCHIVER_UI_TIMINGS_SCROLL` asks for
/// the scroll run.
@MainActor
enum Timings {
    #if ARCHIVER_TEST_HOOKS
    private static let file: UnsafeMutablePointer<FILE>? = getenv("ARCHIVER_UI_TIMINGS").flatMap { fopen($0, "a") }
    /// `ARCHIVER_UI_TIMINGS_SCROLL`: how many frames the scroll run lasts.
    private static let scrollFrames = getenv("ARCHIVER_UI_TIMINGS_SCROLL").flatMap { Int(String(cString: $0)) }
    /// `ARCHIVER_UI_TIMINGS_EXIT`: the window ends once what the bench measures is drawn (bench/photo-grid.sh:
    /// every thumbnail; bench/leave-out-scan.sh: the leave-out figures).
    static let exitsAfterThumbnails = getenv("ARCHIVER_UI_TIMINGS_EXIT") != nil
    /// `ARCHIVER_UI_TIMINGS_SEARCH`: what the search run types (bench/extract-tree.sh).
    private static let searchQuery = getenv("ARCHIVER_UI_TIMINGS_SEARCH").map { String(cString: $0) }
    /// `ARCHIVER_UI_TIMINGS_FILTER`: the filter run (bench/photo-filter.sh).
    private static let filters = getenv("ARCHIVER_UI_TIMINGS_FILTER") != nil
    #else
    private static let searchQuery: String? = nil
    private static let filters = false
    private static let file: UnsafeMutablePointer<FILE>? = nil
    private static let scrollFrames: Int? = nil
    static let exitsAfterThumbnails = false
    #endif
    static var enabled: Bool { file != nil }
    private static var marked: Set<String> = []

    /// Writes "NAME VALUE" once per name.
    static func record(_ name: String, _ value: String) {
        guard let file, marked.insert(name).inserted else { return }
        fputs("\(name) \(value)\n", file)
        fflush(file)
    }

    static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Records NAME at the end of the next frame `widget` is painted in: when a person can see it.
    /// - Parameter then: runs after the record (bench/photo-grid.sh ends the window there).
    static func afterNextFrame(of widget: UnsafeMutablePointer<GtkWidget>, _ name: String, then: (@MainActor () -> Void)? = nil) {
        guard enabled, !marked.contains(name), let clock = gtk_widget_get_frame_clock(widget) else { return }
        var handler: gulong = 0
        handler = on(clock, "after-paint") {
            record(name, String(nowMilliseconds()))
            g_signal_handler_disconnect(clock.raw, handler)
            then?()
        }
        gtk_widget_queue_draw(widget)
    }

    /// With `ARCHIVER_UI_TIMINGS_SCROLL=N`: scrolls `scrolled` down by a page per frame for N frames, records
    /// each frame's work (update, layout and paint) and the process's peak memory, then calls `done`.
    static func scrollRun(_ scrolled: UnsafeMutablePointer<GtkWidget>, done: @escaping @MainActor () -> Void) {
        guard enabled, let frames = scrollFrames,
            let clock = gtk_widget_get_frame_clock(scrolled)
        else { return }
        let adjustment = gtk_scrolled_window_get_vadjustment(cast(scrolled))!
        var started = 0.0
        var durations: [Double] = []
        let before = on(clock, "before-paint") { started = monotonic() }
        var after: gulong = 0
        after = on(clock, "after-paint") {
            durations.append(monotonic() - started)
            let page = gtk_adjustment_get_page_size(adjustment)
            var value = gtk_adjustment_get_value(adjustment) + page
            if value > gtk_adjustment_get_upper(adjustment) - page { value = 0 }  // round again from the top
            guard durations.count < frames else {
                g_signal_handler_disconnect(clock.raw, before)
                g_signal_handler_disconnect(clock.raw, after)
                finish(durations)
                done()
                return
            }
            gtk_adjustment_set_value(adjustment, value)
        }
        gtk_adjustment_set_value(adjustment, gtk_adjustment_get_page_size(adjustment))
    }

    /// With `ARCHIVER_UI_TIMINGS_SEARCH=QUERY`: types QUERY into the search a character at a time, then
    /// clears it, each step as a keystroke does it (`filter`), and records each one's work up to the end of
    /// the frame that shows its result (the slowest and the median), then calls `done`.
    static func searchRun(_ widget: UnsafeMutablePointer<GtkWidget>, filter: @escaping @MainActor (String) -> Void,
                          done: @escaping @MainActor () -> Void) {
        guard enabled, let query = searchQuery, !query.isEmpty else { return }
        let characters = Array(query)
        let steps = (1...characters.count).map { String(characters[..<$0]) } + [""]
        stepRun(widget, "search", count: "search-keys", steps: steps.map { step -> @MainActor () -> Void in { filter(step) } }, done: done)
    }

    /// With `ARCHIVER_UI_TIMINGS_FILTER`: applies the Compress Photos… filters one after another as the filter
    /// bar does (`apply`): the latest year, with a location, the first place, a name, over 5 MB, the last
    /// 30 days, none; records each one's work up to the end of the frame that shows its result
    /// ("filter-p50-us", "filter-max-us"), then calls `done`.
    static func filterRun(_ widget: UnsafeMutablePointer<GtkWidget>, photos: [PhotoSelection.Photo],
                          apply: @escaping @MainActor (PhotoFilter) -> Void, done: @escaping @MainActor () -> Void) {
        guard enabled, filters else { return }
        let filters = [
            PhotoFilter(taken: PhotoFilter.years(photos).first.map { .year($0) } ?? .any), PhotoFilter(location: .with),
            PhotoFilter(place: PhotoFilter.places(photos).first), PhotoFilter(name: "IMG_1"),
            PhotoFilter(size: PhotoFilter.sizeRanges.last!), PhotoFilter(taken: .lastDays(30)), PhotoFilter(),
        ]
        stepRun(widget, "filter", count: "filters", steps: filters.map { filter -> @MainActor () -> Void in { apply(filter) } }, done: done)
    }

    /// Runs each step, then lets a frame show its result, and records each step's time up to the end of that
    /// frame as "NAME-p50-us", "NAME-max-us" and "NAME-each-us", and how many as `count`.
    private static func stepRun(_ widget: UnsafeMutablePointer<GtkWidget>, _ name: String, count: String,
                                steps: [@MainActor () -> Void], done: @escaping @MainActor () -> Void) {
        guard let clock = gtk_widget_get_frame_clock(widget), !steps.isEmpty else { return }
        var steps = steps
        var started = monotonic()
        var durations: [Double] = []
        steps.removeFirst()()
        gtk_widget_queue_draw(widget)
        var handler: gulong = 0
        handler = on(clock, "after-paint") {
            durations.append(monotonic() - started)
            guard !steps.isEmpty else {
                g_signal_handler_disconnect(clock.raw, handler)
                let sorted = durations.sorted()
                record(count, String(sorted.count))
                record("\(name)-p50-us", String(Int(sorted[sorted.count / 2] * 1e6)))
                record("\(name)-max-us", String(Int(sorted[sorted.count - 1] * 1e6)))
                record("\(name)-each-us", durations.map { String(Int($0 * 1e6)) }.joined(separator: ","))
                done()
                return
            }
            started = monotonic()
            steps.removeFirst()()
            gtk_widget_queue_draw(widget)
        }
    }

    private static func finish(_ durations: [Double]) {
        let sorted = durations.dropFirst().sorted()  // the first frame includes the switch to scrolling
        func percentile(_ p: Double) -> String {
            guard !sorted.isEmpty else { return "0" }
            return String(Int(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1e6))
        }
        record("scroll-frames", String(sorted.count))
        record("scroll-p50-us", percentile(0.5))
        record("scroll-p95-us", percentile(0.95))
        record("scroll-max-us", percentile(1))
        record("peak-rss-kib", peakResidentKiB())
    }

    private static func monotonic() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The CPU time the process used so far, every thread (user + system), in ms: a figure the machine's
    /// load does not change much, unlike the wall-clock marks.
    static func recordCPU(_ name: String) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let ms = (Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1000 + (Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)) / 1000
        record(name, String(ms))
    }

    /// VmHWM from /proc/self/status.
    private static func peakResidentKiB() -> String {
        guard let status = fopen("/proc/self/status", "r") else { return "0" }
        defer { fclose(status) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), status) != nil {
            let text = String(cString: line)
            if text.hasPrefix("VmHWM:") { return text.split(separator: " ").dropFirst().first.map(String.init) ?? "0" }
        }
        return "0"
    }
}
