import ArchiverCore
import SystemPackage
import Testing

/// The XDG base folders: a variable counts only when it is absolute (the spec: relative values are
/// ignored), and each folder falls back below the home folder.
@Suite struct BaseFoldersTests {
    @Test func absoluteVariablesAreUsed() {
        let folders = BaseFolders(environment: [
            "HOME": "/home/ann", "XDG_CONFIG_HOME": "/cfg", "XDG_CACHE_HOME": "/var/cache/ann", "XDG_STATE_HOME": "/st",
        ])
        #expect(folders.home == "/home/ann")
        #expect(folders.config == "/cfg")
        #expect(folders.cache == "/var/cache/ann")
        #expect(folders.state == "/st")
    }

    @Test func missingVariablesFallBackBelowHome() {
        let folders = BaseFolders(environment: ["HOME": "/home/ann"])
        #expect(folders.config == "/home/ann/.config")
        #expect(folders.cache == "/home/ann/.cache")
        #expect(folders.state == "/home/ann/.local/state")
    }

    @Test(arguments: ["", "state", "./state", "~/state"])
    func relativeOrEmptyValuesAreIgnored(value: String) {
        let folders = BaseFolders(environment: [
            "HOME": "/home/ann", "XDG_CONFIG_HOME": value, "XDG_CACHE_HOME": value, "XDG_STATE_HOME": value,
        ])
        #expect(folders == BaseFolders(environment: ["HOME": "/home/ann"]))
    }

    /// Without a usable `HOME`, the account's home folder; without that either, `/`.
    @Test func homeFallsBackToTheAccountsThenRoot() {
        for home in [nil, "", "relative"] as [String?] {
            var environment: [String: String] = [:]
            environment["HOME"] = home
            #expect(BaseFolders(environment: environment) { "/home/acct" }.home == "/home/acct", "\(home ?? "unset")")
            #expect(BaseFolders(environment: environment).state == "/.local/state", "\(home ?? "unset")")
        }
        var asked = false
        _ = BaseFolders(environment: ["HOME": "/home/ann"]) {
            asked = true
            return nil
        }
        #expect(!asked, "the password database is read only when HOME is unusable")
    }

    /// `ExtractDestination` follows the same rule for the cache and configuration folders.
    @Test func extractDestinationAgrees() {
        let environment = ["XDG_CACHE_HOME": "cache", "XDG_CONFIG_HOME": ""]
        let rule = ExtractDestination(home: "/home/ann", environment: environment)
        let folders = BaseFolders(home: "/home/ann", environment: environment)
        #expect(rule.configFolder == folders.config)
        #expect(rule.temporaryFolders.contains(folders.cache))
        #expect(!rule.isTemporary("/cache"))
    }
}

/// The journal's folder and name, which the Compress Photos… window and the tool share.
@Suite struct PhotoJournalPlaceTests {
    @Test func folderFollowsTheDestination() {
        let state = FilePath("/home/u/.local/state")
        #expect(PhotoJournalPlace.folder(firstInput: "/p/Album", destination: .beside, stateHome: state) == "/p")
        #expect(PhotoJournalPlace.folder(firstInput: "/p/x.jpg", destination: .folder("/out"), stateHome: state) == "/out")
        #expect(PhotoJournalPlace.folder(firstInput: "/p/x.jpg", destination: .replace, stateHome: state)
            == "/home/u/.local/state/io.github.archiver")
    }

    @Test func namesAreRecognized() {
        let name = PhotoJournalPlace.fileName(key: "0123456789abcdef")
        #expect(name == ".archiver-photos-0123456789abcdef.journal")
        #expect(PhotoJournalPlace.isJournal(name))
        for other in [".archiver-photos-.journal", "archiver-photos-1.journal", ".archiver-photos-1.journal~", "x.jpg"] {
            #expect(!PhotoJournalPlace.isJournal(other), "\(other)")
        }
    }
}
