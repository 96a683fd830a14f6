import ArchiverCore
import JobProtocol
public import CGtk
import Desktop
import Dispatch
import Glibc
import SystemPackage

/// The Compress Photos… window: the photos as a thumbnail grid with their sizes and estimates, the settings
/// for this run, Find Large Photos…, then the batch's progress in the same window (Pause, Resume, Cancel;
/// finished cells get their badge) and the result, with the before/after comparison. The estimate, the
/// suggestions and the batch are `compress-photos-with-archiver` children.
@MainActor
public final class PhotosWindow: AppWindow {
    static let program = "compress-photos-with-archiver"
    /// Longest sides offered; 0 keeps the size.
    static let sizes: [Int] = [0, 1000, 1500, 2000, 2500, 3000, 4000]
    static let qualities: [Int] = [50, 60, 70, 75, 80, 85, 90, 95]
    static let formats: [(PhotoFormat, Text)] = [
        (.jpeg, tr("JPEG — opens everywhere")),
        (.webp, tr("WebP — smaller, for the web")),
        (.avif, tr("AVIF — smallest, newer apps")),
        (.heic, tr("HEIC — small, for Apple devices")),
    ]

    private var inputs: [(path: FilePath, isDirectory: Bool)]
    private var sizeChoices: [Int]
    private var qualityChoices: [Int]
    private let chrome: JobWindow
    private let grid = PhotoGridView()
    private let filterBar = PhotoFilterBar()
    /// "Showing 12 of 48 photos. Only the photos shown are compressed." while a filter hides some.
    private let filterLine: OpaquePointer
    private let compressButton: UnsafeMutablePointer<GtkWidget>
    private let totalsLabel: OpaquePointer
    private let statusLabel: OpaquePointer
    private let spinner: UnsafeMutablePointer<GtkWidget>
    private let sizeRow: UnsafeMutablePointer<AdwComboRow>
    private let qualityRow: UnsafeMutablePointer<AdwComboRow>
    private let formatRow: UnsafeMutablePointer<AdwComboRow>
    private let locationSwitch: UnsafeMutablePointer<GtkWidget>
    private let replaceSwitch: UnsafeMutablePointer<GtkWidget>
    private let settingsPage: UnsafeMutablePointer<GtkWidget>
    private let scanRow: UnsafeMutablePointer<GtkWidget>
    private let findButton: UnsafeMutablePointer<GtkWidget>
    private var scanFolder: FilePath
    // The batch's own bar, under the grid.
    private let progressBox: UnsafeMutablePointer<GtkWidget>
    private let progressBar: OpaquePointer
    private let progressLine: OpaquePointer
    private let pauseButton: UnsafeMutablePointer<GtkWidget>
    private let cancelButton: UnsafeMutablePointer<GtkWidget>

    private let estimator = JobRunner()
    private var estimateGeneration = 0
    private var paused = false
    private var running = false
    private var savedBytes: Int64 = 0
    private var compare: BeforeAfterWindow?

    /// Builds the window for `paths` (photos and folders); none: Find Large Photos… in the Pictures folder.
    public init(app: UnsafeMutablePointer<GtkApplication>, paths: [FilePath]) {
        inputs = WindowApp.inputs(paths)
        scanFolder = FilePath(Self.picturesFolder())

        // Settings for this run, from the photo-* settings.
        let settings = SettingsStore.shared
        let maxSize = Int(settings.value(.photoMaxSize))
        let quality = Int(settings.value(.photoQuality))
        sizeChoices = Self.sizes.contains(maxSize) ? Self.sizes : (Self.sizes + [maxSize]).sorted()
        qualityChoices = Self.qualities.contains(quality) ? Self.qualities : (Self.qualities + [quality]).sorted()
        let sizeNames = sizeChoices.map { $0 == 0 ? tr("Keep the size").localized : tr("%ld px", $0).localized }
        sizeRow = Widgets.comboRow(title: tr("_Longest side").localized, items: sizeNames)
        qualityRow = Widgets.comboRow(title: tr("_Quality").localized, items: qualityChoices.map(Self.qualityName))
        formatRow = Widgets.comboRow(title: tr("_Format").localized, items: Self.formats.map(\.1.localized))
        let location = Widgets.switchRow(title: tr("Remove _location").localized, on: settings.value(.photoStripLocation))
        locationSwitch = location.toggle
        adw_action_row_set_subtitle(cast(location.row), tr("For sharing: only the GPS position goes").localized)
        let replace = Widgets.switchRow(title: tr("_Replace originals").localized, on: false)
        replaceSwitch = replace.toggle
        adw_action_row_set_subtitle(cast(replace.row), tr("The originals go to the trash").localized)
        let group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), tr("Settings for this run").localized)
        for row in [widget(sizeRow), widget(qualityRow), widget(formatRow), location.row, replace.row] {
            adw_preferences_group_add(cast(group), row)
        }
        let suggestGroup = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(suggestGroup), tr("Find large photos").localized)
        adw_preferences_group_set_description(
            cast(suggestGroup), tr("The photos in a folder that would save the most, largest saving first.").localized)
        let change: UnsafeMutablePointer<GtkWidget>
        (scanRow, change) = Widgets.folderRow(title: tr("Folder").localized)
        adw_preferences_group_add(cast(suggestGroup), scanRow)
        findButton = Names.button(tr("Find Large _Photos…").localized)
        gtk_widget_set_margin_top(findButton, 12)
        adw_preferences_group_add(cast(suggestGroup), findButton)
        let page = adw_preferences_page_new()!
        adw_preferences_page_add(cast(page), cast(group))
        adw_preferences_page_add(cast(page), cast(suggestGroup))
        settingsPage = page
        gtk_widget_set_size_request(page, 340, -1)

        // The grid with its totals and the batch's progress.
        let right = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8)!
        Widgets.margins(right, 12)
        let top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        totalsLabel = OpaquePointer(gtk_label_new(""))
        gtk_label_set_xalign(totalsLabel, 0)
        gtk_widget_add_css_class(cast(totalsLabel), "heading")
        gtk_widget_set_hexpand(cast(totalsLabel), 1)
        spinner = gtk_spinner_new()
        statusLabel = OpaquePointer(gtk_label_new(""))
        gtk_widget_add_css_class(cast(statusLabel), "dim-label")
        let all = Names.button(tr("Select _All").localized)
        let none = Names.button(tr("Select _None").localized)
        for button in [all, none] { gtk_widget_add_css_class(button, "flat") }
        for child in [cast(totalsLabel), spinner, cast(statusLabel), all, none] as [UnsafeMutablePointer<GtkWidget>] {
            gtk_box_append(cast(top), child)
        }
        gtk_box_append(cast(right), top)
        gtk_box_append(cast(right), filterBar.root)
        filterLine = OpaquePointer(gtk_label_new(""))
        gtk_label_set_xalign(filterLine, 0)
        gtk_label_set_wrap(filterLine, 1)
        gtk_label_set_wrap_mode(filterLine, PANGO_WRAP_WORD_CHAR)
        gtk_widget_add_css_class(cast(filterLine), "accent")
        gtk_widget_set_visible(cast(filterLine), 0)
        gtk_box_append(cast(right), cast(filterLine))
        gtk_widget_add_css_class(grid.root, "card")
        gtk_box_append(cast(right), grid.root)

        progressBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        progressLine = OpaquePointer(gtk_label_new(""))
        gtk_label_set_xalign(progressLine, 0)
        gtk_label_set_ellipsize(progressLine, PANGO_ELLIPSIZE_MIDDLE)
        gtk_widget_add_css_class(cast(progressLine), "numeric")
        progressBar = OpaquePointer(gtk_progress_bar_new())
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_END)
        pauseButton = Names.button(tr("_Pause").localized)
        cancelButton = Names.button(tr("_Cancel").localized)
        gtk_box_append(cast(buttons), pauseButton)
        gtk_box_append(cast(buttons), cancelButton)
        for child in [cast(progressLine), cast(progressBar), buttons] as [UnsafeMutablePointer<GtkWidget>] {
            gtk_box_append(cast(progressBox), child)
        }
        gtk_widget_set_visible(progressBox, 0)
        gtk_box_append(cast(right), progressBox)

        let form = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        gtk_box_append(cast(form), page)
        gtk_box_append(cast(form), gtk_separator_new(GTK_ORIENTATION_VERTICAL))
        gtk_box_append(cast(form), right)

        // TRANSLATORS: the Compress Photos… window's title.
        chrome = JobWindow(app: app, title: tr("Compress Photos").localized, width: 1100, height: 720, action: tr("C_ompress").localized, form: form)
        compressButton = chrome.actionButton

        // Starting values.
        adw_combo_row_set_selected(sizeRow, guint(sizeChoices.firstIndex(of: maxSize) ?? 2))
        adw_combo_row_set_selected(qualityRow, guint(qualityChoices.firstIndex(of: quality) ?? 3))
        let format = settings.value(.photoFormat)
        adw_combo_row_set_selected(formatRow, guint(Self.formats.firstIndex { $0.0 == format } ?? 0))
        adw_action_row_set_subtitle(cast(scanRow), markupEscaped(scanFolder.string))

        // Behaviour.
        for row in [sizeRow, qualityRow, formatRow] { onNotify(row, "selected") { [unowned self] in settingsChanged() } }
        onNotify(locationSwitch, "active") { [unowned self] in settingsChanged() }
        onNotify(replaceSwitch, "active") { [unowned self] in offerResume() }
        grid.onChange = { [unowned self] in refresh() }
        filterBar.photos = { [unowned self] in grid.selection.photos }
        filterBar.onChange = { [unowned self] filter in
            grid.apply(filter)
            refresh()
        }
        grid.onActivate = { [unowned self] position in openCompare(at: position) }
        on(all, "clicked") { [unowned self] in grid.update { $0.selectAll(true) }; refresh() }
        on(none, "clicked") { [unowned self] in grid.update { $0.selectAll(false) }; refresh() }
        on(compressButton, "clicked") { [unowned self] in start() }
        on(pauseButton, "clicked") { [unowned self] in pauseOrResume() }
        on(cancelButton, "clicked") { [unowned self] in
            gtk_widget_set_sensitive(cancelButton, 0)
            gtk_widget_set_sensitive(pauseButton, 0)
            gtk_label_set_text(progressLine, tr("Cancelling…").localized)
            chrome.runner.cancel()
        }
        on(findButton, "clicked") { [unowned self] in suggest() }
        on(change, "clicked") { [unowned self] in
            FolderPicker.pick(title: tr("Where to look for large photos").localized, parent: chrome.window, startingAt: scanFolder) {
                [unowned self] chosen in
                scanFolder = chosen
                adw_action_row_set_subtitle(cast(scanRow), markupEscaped(chosen.string))
            }
        }
        onBool(chrome.window, "close-request") { [unowned self] in
            estimator.cancel()
            return false
        }

        if inputs.isEmpty {
            refresh()
            suggest()
        } else {
            grid.add(Self.walk(inputs.map(\.path)))
            refresh()
            grid.afterFirstFrame { [unowned self] in estimate() }
        }
    }

    public func present() {
        gtk_window_present(chrome.window)
        // bench/photo-grid.sh: the first frame shows a cell (a placeholder until its thumbnail) per photo on screen.
        if !grid.selection.photos.isEmpty { Timings.afterNextFrame(of: grid.view, "placeholders") }
    }

    // MARK: - Settings

    private static func qualityName(_ quality: Int) -> String {
        switch quality {
        case ..<60: tr("%ld — smallest files", quality).localized
        case 75: tr("%ld — balanced", quality).localized
        case 90...: tr("%ld — best look", quality).localized
        default: String(quality)
        }
    }

    private var maxSize: Int { sizeChoices[Int(adw_combo_row_get_selected(sizeRow))] }
    private var quality: Int { qualityChoices[Int(adw_combo_row_get_selected(qualityRow))] }
    private var format: String { Self.formats[Int(adw_combo_row_get_selected(formatRow))].0.rawValue }
    private var stripLocation: Bool { gtk_switch_get_active(cast(locationSwitch)) != 0 }
    private var replacing: Bool { gtk_switch_get_active(cast(replaceSwitch)) != 0 }

    /// The settings as `compress-photos-with-archiver` flags (the estimate, the suggestions and the batch alike).
    private var settingFlags: [String] {
        (maxSize == 0 ? ["--keep-size"] : ["--max-size", String(maxSize)])
            + ["--quality", String(quality), "--format", format, stripLocation ? "--strip-location" : "--no-strip-location"]
    }

    /// `words`, then `--` and the paths as bytes.
    private func flags(_ words: [String], _ paths: [FilePath]) -> Arguments {
        var arguments = Arguments(words)
        arguments.operands(paths)
        return arguments
    }

    /// A new estimate, a moment after the last change (a person clicking through the qualities starts one run).
    private func settingsChanged() {
        estimateGeneration += 1
        let generation = estimateGeneration
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) { [weak self] in
            MainActor.assumeIsolated {
                guard let self, generation == self.estimateGeneration, !self.running else { return }
                self.estimate()
            }
        }
    }

    // MARK: - Photos, estimate, suggestions

    /// The photos named and those in the folders named (recursively, by their names: the engine looks inside),
    /// with their sizes; hidden files skipped.
    static func walk(_ paths: [FilePath]) -> [(path: FilePath, size: Int64)] {
        var found: [(FilePath, Int64)] = []
        func visit(_ path: FilePath, named: Bool) {
            var info = stat()
            guard path.withPlatformString({ stat($0, &info) }) == 0 else { return }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                guard let dir = path.withPlatformString(opendir) else { return }
                // Names as bytes: a Latin-1 name is found, estimated and compressed as it is on disk.
                var names: [[UInt8]] = []
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { CString.bytes($0.bindMemory(to: CChar.self).baseAddress!) }
                    if name.first != UInt8(ascii: ".") { names.append(name) }
                }
                closedir(dir)
                for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                    visit(FilePath(bytes: path.bytes + [UInt8(ascii: "/")] + name), named: false)
                }
            } else if named || PhotoSelection.isPhotoName(path.lastComponent?.string ?? "") {
                found.append((path, Int64(info.st_size)))
            }
        }
        for path in paths { visit(path, named: true) }
        return found
    }

    /// Runs `--estimate` on the window's inputs with the settings shown; the cells and the totals follow.
    private func estimate() {
        guard !inputs.isEmpty else { return }
        estimator.cancel()
        grid.update { $0.clearEstimates() }
        busy(tr("Estimating…").localized)
        refresh()
        let generation = estimateGeneration
        let started = estimator.start(
            program: JobRunner.sibling(Self.program),
            arguments: flags(["--estimate", "--progress-json"] + settingFlags, inputs.map(\.path)),
            onEvent: { [unowned self] event in
                guard generation == estimateGeneration, case .other(let event) = event, let value = event.as(EstimateEvent.self) else {
                    return
                }
                estimated(value)
            },
            onEnd: { [unowned self] _ in
                guard generation == estimateGeneration else { return }
                busy(nil)
                filterBar.refreshChoices()
                refresh()
                // bench/photo-filter.sh: the filters applied one by one, once every photo's metadata is here.
                Timings.filterRun(grid.view, photos: grid.selection.photos) { [unowned self] filter in
                    grid.apply(filter)
                    refresh()
                } done: { [unowned self] in
                    gtk_window_destroy(chrome.window)
                }
            })
        if !started { busy(nil) }
    }

    private func estimated(_ value: EstimateEvent) {
        let source = value.source
        let status = PhotoSelection.Status(rawValue: value.status) ?? .ok
        let known = grid.selection.position(of: source) != nil
        if !known { grid.add([(source, value.size)]) }
        grid.updatePhoto {
            $0.estimate(
                path: source, size: value.size, status: status, estimatedSize: value.estimatedSize, width: Int(value.width),
                height: Int(value.height), facts: value.facts)
        }
        refresh()
    }

    /// Find Large Photos…: `--suggest` on the folder chosen; the photos it lists replace the grid's, largest
    /// saving first, ready to compress.
    private func suggest() {
        estimator.cancel()
        estimateGeneration += 1
        let generation = estimateGeneration
        busy(tr("Looking for large photos in “%@”…", scanFolder.lastComponent?.string ?? scanFolder.string).localized)
        gtk_widget_set_sensitive(findButton, 0)
        var order: [FilePath] = []
        let started = estimator.start(
            program: JobRunner.sibling(Self.program),
            arguments: flags(["--suggest", "--progress-json"] + settingFlags, [scanFolder]),
            onEvent: { [unowned self] event in
                guard generation == estimateGeneration, case .other(let event) = event, let value = event.as(EstimateEvent.self) else {
                    return
                }
                let source = value.source
                if order.isEmpty { resetGrid() }
                order.append(source)
                estimated(value)
            },
            onEnd: { [unowned self] outcome in
                gtk_widget_set_sensitive(findButton, 1)
                guard generation == estimateGeneration else { return }
                if !order.isEmpty {
                    // The suggestions are the run's inputs: each photo by itself.
                    inputs = order.map { ($0, false) }
                    grid.reorder(order)
                }
                busy(nil)
                filterBar.refreshChoices()
                if order.isEmpty {
                    gtk_label_set_text(
                        statusLabel,
                        outcome.succeeded ? tr("No large photos found.").localized : outcome.stderr.trimmingSpaces)
                }
                refresh()
            })
        if !started {
            busy(nil)
            gtk_widget_set_sensitive(findButton, 1)
        }
    }

    /// The suggestions replace what the grid showed.
    private func resetGrid() {
        guard grid.selection.photos.isEmpty == false else { return }
        grid.clear()
    }

    private func busy(_ text: String?) {
        gtk_label_set_text(statusLabel, text ?? "")
        gtk_widget_set_visible(spinner, text == nil ? 0 : 1)
        if text == nil { gtk_spinner_stop(cast(spinner)) } else { gtk_spinner_start(cast(spinner)) }
        if text == nil, !running { offerResume() }
    }

    /// The totals line and whether Compress can go.
    private func refresh() {
        let totals = grid.selection.totals
        var line = PhotoSelection.totalsLine(totals).localized
        if totals.unreadable > 0 {
            // TRANSLATORS: after the totals line: photos that are damaged and will be skipped.
            line += " · " + ntr("%ld unreadable, skipped", "%ld unreadable, skipped", totals.unreadable).localized
        }
        gtk_label_set_text(totalsLabel, line)
        let filtered = PhotoSelection.filterLine(totals)
        gtk_label_set_text(filterLine, filtered?.localized ?? "")
        gtk_widget_set_visible(cast(filterLine), filtered == nil ? 0 : 1)
        gtk_widget_set_sensitive(compressButton, totals.count > 0 && !running ? 1 : 0)
    }

    // MARK: - The batch

    private func start() {
        let runInputs = grid.selection.runInputs(inputs)
        guard gtk_widget_get_sensitive(compressButton) != 0, !runInputs.isEmpty else { return }
        estimator.cancel()
        estimateGeneration += 1
        busy(nil)
        running = true
        paused = false
        savedBytes = 0
        // --resume always: a batch of these photos and settings interrupted before (a crash, a logout, a
        // full disk) is finished, nothing done twice; without its journal the run starts afresh.
        var arguments = settingFlags + ["--no-notify", "--progress-json", "--resume"]
        if replacing { arguments.append("--replace") }
        gtk_widget_set_sensitive(settingsPage, 0)
        gtk_widget_set_sensitive(filterBar.root, 0)
        gtk_widget_set_visible(progressBox, 1)
        gtk_widget_set_sensitive(pauseButton, 1)
        gtk_widget_set_sensitive(cancelButton, 1)
        relabel(pauseButton, tr("_Pause"))
        gtk_progress_bar_set_fraction(progressBar, 0)
        gtk_label_set_text(progressLine, tr("Starting…").localized)
        let count = grid.selection.totals.count
        chrome.startJob(
            title: ntr("Compressing %ld photo", "Compressing %ld photos", count).localized, program: Self.program,
            arguments: flags(arguments, runInputs), password: nil, notStarted: tr("compress-photos-with-archiver could not be started.").localized,
            inPlace: true, lowPriority: true, onEvent: { [unowned self] event in jobEvent(event) }
        ) { [unowned self] outcome in finished(outcome) }
        refresh()
    }

    private func jobEvent(_ event: JobRunner.Event) {
        switch event {
        case .progress(let progress):
            if let fraction = progress.fraction { gtk_progress_bar_set_fraction(progressBar, fraction) }
            if let saved = progress.savedBytes { savedBytes = saved }
            showProgress(done: progress.done, total: progress.total, remaining: progress.remaining, current: progress.current ?? nil)
        case .other(let event) where event.as(PhotoEvent.self) != nil:
            guard let photo = event.as(PhotoEvent.self)?.copy else { return }
            grid.updatePhoto {
                guard
                    let at = $0.finished(
                        source: photo.source, output: photo.path, size: photo.size, outWidth: photo.outWidth.map(Int.init),
                        outHeight: photo.outHeight.map(Int.init), failed: photo.outcome == "failed")
                else { return nil }
                if $0[at].width == nil { $0[at].width = photo.width.map(Int.init) }
                if $0[at].height == nil { $0[at].height = photo.height.map(Int.init) }
                return at
            }
        case .other(let event) where event.name == PausedEvent.name:
            paused = true
            gtk_widget_set_sensitive(pauseButton, 1)
            relabel(pauseButton, tr("_Resume"))
            gtk_label_set_text(progressLine, tr("Paused").localized)
        case .other(let event) where event.name == ResumedEvent.name:
            paused = false
            gtk_widget_set_sensitive(pauseButton, 1)
            relabel(pauseButton, tr("_Pause"))
            gtk_label_set_text(progressLine, tr("Resumed").localized)
        default: break
        }
    }

    /// "IMG_3.jpg · 3 of 60 · 8 MB saved · 12 s left".
    private func showProgress(done: Int64, total: Int64?, remaining: Double?, current: String?) {
        guard !paused, gtk_widget_get_sensitive(cancelButton) != 0 else { return }
        var parts: [Text] = []
        if let current { parts.append(.verbatim(EntryTreeView.shown(String(current.split(separator: "/").last ?? "")))) }
        // TRANSLATORS: photos done of the batch's photos.
        if let total { parts.append(tr("%1$ld of %2$ld", Int(done), Int(total))) }
        // TRANSLATORS: how much smaller the copies made so far are than their originals.
        parts.append(tr("%@ saved", .bytes(savedBytes)))
        if let remaining { parts.append(tr("%@ left", TextValue.clock(remaining))) }
        gtk_label_set_text(progressLine, Text.sentences(parts, separator: " · ").localized)
    }

    /// GTK 4.8 keeps a relabelled button's old accessible name: the new one is set with the label.
    private func relabel(_ button: UnsafeMutablePointer<GtkWidget>, _ label: Text) {
        gtk_button_set_label(cast(button), label.localized)
        accessibleLabel(button, label.localized.withoutMnemonic)
    }

    /// Pause: the workers finish the photo in hand, then wait (the child says `paused`); Resume goes on.
    private func pauseOrResume() {
        gtk_widget_set_sensitive(pauseButton, 0)
        if paused {
            chrome.runner.signal(SIGUSR2)
            gtk_label_set_text(progressLine, tr("Resuming…").localized)
        } else {
            chrome.runner.signal(SIGUSR1)
            gtk_label_set_text(progressLine, tr("Pausing after the photos in hand…").localized)
        }
    }

    private func finished(_ outcome: JobRunner.Outcome) {
        running = false
        gtk_widget_set_visible(progressBox, 0)
        gtk_widget_set_sensitive(settingsPage, 1)
        gtk_widget_set_sensitive(filterBar.root, 1)
        // The result's outputs, for an engine that did not stream `photo` events.
        for output in outcome.outcome(PhotoOutcome.self)?.outputs ?? [] {
            guard grid.selection.position(of: output.source).map({ grid.selection[$0].output == nil }) == true else { continue }
            grid.updatePhoto {
                $0.finished(source: output.source, output: output.path, size: output.size, outWidth: nil, outHeight: nil, failed: false)
            }
        }
        let done = grid.selection.finishedPositions
        chrome.finish(outcome, failed: tr("Could not compress the photos").localized) {
            let before = done.reduce(Int64(0)) { $0 + grid.selection[$1].size }
            let after = done.reduce(Int64(0)) { $0 + (grid.selection[$1].outputSize ?? 0) }
            guard let first = done.first, let output = grid.selection[first].output else { return nil }
            var lines: [Text] = [tr("%1$@ → %2$@", .bytes(before), .bytes(after))]
            // The saving in the words of Compress PDF… and the Recent rows; none when the copies are not smaller.
            if after < before { lines.append(PDFNaming.saving(before: before, after: after)) }
            lines.append(tr("in %@", output.removingLastComponent()))
            // TRANSLATORS: the Compress Photos… window's result.
            return JobWindow.Made(
                heading: ntr("Compressed %ld photo", "Compressed %ld photos", done.count).localized,
                body: Text.sentences(lines, separator: "\n").localized, item: output, shareable: done.count == 1 ? output : nil)
        }
        // Closed while the batch ran: the result was a notification and the window is gone.
        if chrome.hiddenDuringJob { return }
        if !done.isEmpty {
            chrome.panel.addResultButton(tr("Co_mpare").localized) { [unowned self] in openCompare(at: done[0]) }
        }
        refresh()
    }

    // MARK: - Before/after

    private func openCompare(at position: Int) {
        guard position < grid.selection.photos.count else { return }
        let photo = grid.selection[position]
        guard let output = photo.output, !photo.failed else { return }
        compare?.close()
        let finished = grid.selection.finishedPositions
        compare = BeforeAfterWindow(
            parent: chrome.window, photos: finished.map { grid.selection[$0] }, showing: finished.firstIndex(of: position) ?? 0)
        _ = output
        compare?.present()
    }

    // MARK: - Resume

    /// Whether the folder where this batch's journal would be holds one (`.archiver-photos-KEY.journal`,
    /// beside the first input, or in the state folder for Replace): then Compress is offered as Resume (the
    /// batch always runs with --resume, and the engine keys the journal by photos and settings).
    private func offerResume() {
        guard let first = inputs.first else { return }
        let folder = PhotoJournalPlace.folder(
            firstInput: first.path, destination: replacing ? .replace : .beside, stateHome: BaseFolders.current.state)
        var found = false
        if let dir = folder.withPlatformString(opendir) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if PhotoJournalPlace.isJournal(name) { found = true }
            }
            closedir(dir)
        }
        // TRANSLATORS: the Compress Photos… window's main button when an interrupted batch can be finished.
        relabel(compressButton, found ? tr("_Resume") : tr("C_ompress"))
        if found { gtk_label_set_text(statusLabel, tr("An interrupted batch was found: Resume finishes it.").localized) }
    }

    // MARK: - Pictures

    static func picturesFolder() -> String {
        if let special = g_get_user_special_dir(G_USER_DIRECTORY_PICTURES) { return String(cString: special) }
        return String(cString: g_get_home_dir()) + "/Pictures"
    }
}

/// `archiver-compress-photos [PHOTO|FOLDER]…`.
public enum CompressPhotosApp {
    @MainActor
    public static func main() -> Int32 {
        WindowApp.main(id: "io.github.archiver.CompressPhotos") { app, paths in PhotosWindow(app: app, paths: paths) }
    }
}
