import ArchiverCore
import Testing

private func b(_ s: String) -> [UInt8] { Array(s.utf8) }
private func pattern(_ line: String) -> IgnorePattern? { IgnorePattern(line: b(line)) }

/// A context with these siblings and children, for the built-in rules.
private func context(siblings: [String] = [], children: [String] = [], gitIgnored: Bool = false) -> LeaveOutContext {
    LeaveOutContext(
        hasSibling: { siblings.map(b).contains($0) }, hasChild: { children.map(b).contains($0) }, isGitIgnored: { gitIgnored })
}

@Suite struct LeaveOutRulesTests {
    /// Cases of git's own wildmatch tests (t3070), in `WM_PATHNAME` mode, as `.gitignore` paths use it.
    @Test(arguments: [
        ("foo", "foo", true), ("bar", "foo", false), ("???", "foo", true), ("??", "foo", false),
        ("*", "foo", true), ("f*", "foo", true), ("*f", "foo", false), ("*foo*", "foo", true),
        ("*ob*a*r*", "foobar", true), ("*ab", "aaaaaaabababab", true), ("foo\\*", "foo*", true),
        ("foo\\*bar", "foobar", false), ("f\\\\oo", "f\\oo", true), ("*[al]?", "ball", true), ("[ten]", "ten", false),
        ("**[!te]", "ten", true), ("**[!ten]", "ten", false), ("t[a-g]n", "ten", true), ("t[!a-g]n", "ten", false),
        ("t[!a-g]n", "ton", true), ("t[^a-g]n", "ton", true), ("a[]]b", "a]b", true), ("a[]-]b", "a-b", true),
        ("a[]a-]b", "aab", true), ("]", "]", true), ("foo*bar", "foo/baz/bar", false), ("foo**bar", "foo/baz/bar", false),
        ("foo/**/bar", "foo/baz/bar", true), ("foo/**/bar", "foo/bar", true), ("foo/**/**/bar", "foo/b/a/z/bar", true),
        ("**/foo", "foo", true), ("**/foo", "x/y/foo", true), ("**/foo", "xfoo", false), ("foo/**", "foo/a/b", true),
        ("foo/**", "foo", false), ("*/foo", "bar/foo", true), ("*/foo", "a/b/foo", false), ("foo?bar", "foo/bar", false),
        ("foo[/]bar", "foo/bar", false), ("[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true),
        ("[[:digit:][:upper:][:space:]]", "A", true), ("[[:xdigit:]]", "5", true), ("[[:xdigit:]]", "g", false),
        ("[[:nope:]]", "n", false), ("-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true),
        ("XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true),
        ("**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true),
        ("**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false),
    ])
    func globsMatchAsGitDoes(glob: String, path: String, expected: Bool) {
        let parsed = IgnorePattern(line: b("x/" + glob))
        // Through a pattern with a slash, so that the whole path is matched (git's match_pathname).
        #expect(parsed?.matches(b("x/" + path)[...], isDirectory: false) == expected, "\(glob) ~ \(path)")
    }

    @Test func linesAreReadAsGitReadsThem() throws {
        #expect(pattern("# a comment") == nil)
        #expect(pattern("") == nil && pattern("   ") == nil && pattern("!") == nil && pattern("/") == nil)
        let hash = try #require(pattern("\\#notes"))
        #expect(hash.matches(b("#notes")[...], isDirectory: false) && !hash.negated)
        let bang = try #require(pattern("\\!important"))
        #expect(bang.matches(b("!important")[...], isDirectory: false) && !bang.negated)
        let negated = try #require(pattern("!keep.log"))
        #expect(negated.negated && negated.matches(b("keep.log")[...], isDirectory: false))
        // Trailing spaces go unless escaped.
        #expect(pattern("name   ")?.matches(b("name")[...], isDirectory: false) == true)
        #expect(pattern("name\\ ")?.matches(b("name ")[...], isDirectory: false) == true)
        #expect(pattern("name\\ ")?.matches(b("name")[...], isDirectory: false) == false)
        // A byte-order mark before the first line is not part of it.
        #expect(IgnorePattern.lines(of: [0xEF, 0xBB, 0xBF] + b("a\n\n#c\n!b\n")).count == 2)
    }

    @Test func slashesDecideWhereAPatternApplies() throws {
        let folderOnly = try #require(pattern("build/"))
        #expect(folderOnly.matches(b("x/build")[...], isDirectory: true))
        #expect(!folderOnly.matches(b("x/build")[...], isDirectory: false))
        let anchored = try #require(pattern("/build"))
        #expect(anchored.matches(b("build")[...], isDirectory: true) && !anchored.matches(b("x/build")[...], isDirectory: true))
        let anywhere = try #require(pattern("build"))
        #expect(anywhere.matches(b("x/y/build")[...], isDirectory: false))
        let middle = try #require(pattern("doc/*.txt"))
        #expect(middle.matches(b("doc/a.txt")[...], isDirectory: false))
        #expect(!middle.matches(b("doc/x/a.txt")[...], isDirectory: false) && !middle.matches(b("y/doc/a.txt")[...], isDirectory: false))
        #expect(pattern("**/logs")?.matches(b("a/b/logs")[...], isDirectory: true) == true)
        // A list belongs to its folder: `/x` there is that folder's x.
        let list = IgnoreList(base: b("sub"), patterns: IgnorePattern.lines(of: b("/x\n")))
        #expect(list.lastMatch(b("sub/x"), isDirectory: false) != nil)
        #expect(list.lastMatch(b("x"), isDirectory: false) == nil && list.lastMatch(b("sub/y/x"), isDirectory: false) == nil)
        #expect(list.lastMatch(b("subx/x"), isDirectory: false) == nil)
    }

    @Test func laterLinesAndDeeperFilesWin() {
        let root = IgnoreList(base: [], patterns: IgnorePattern.lines(of: b("*.log\n!important.log\n")))
        let sub = IgnoreList(base: b("sub"), patterns: IgnorePattern.lines(of: b("!keep.log\nimportant.log\n")))
        let user = IgnoreList(base: [], patterns: IgnorePattern.lines(of: b("*.tmp\n")))
        let stack = IgnoreStack([sub, root, user])
        #expect(stack.isIgnored(b("a.log"), isDirectory: false))
        #expect(!stack.isIgnored(b("important.log"), isDirectory: false))
        #expect(!stack.isIgnored(b("sub/keep.log"), isDirectory: false))
        #expect(stack.isIgnored(b("sub/important.log"), isDirectory: false))
        #expect(stack.isIgnored(b("sub/x.tmp"), isDirectory: false))
        #expect(!stack.isIgnored(b("sub/x.txt"), isDirectory: false))
    }

    @Test func builtInRulesLookAtNeighbours() {
        func rule(_ name: String, folder: Bool = true, _ context: LeaveOutContext = context()) -> LeaveOutRule? {
            BuiltInRules.match(b(name), isDirectory: folder, context: context)
        }
        #expect(rule(".git") == .vcs && rule(".git", folder: false) == .vcs && rule(".hg") == .vcs && rule(".svn") == .vcs)
        #expect(rule(".hg", folder: false) == nil)
        #expect(rule("CVS") == nil && rule("CVS", context(children: ["Root"])) == .vcs)
        #expect(rule("node_modules") == .nodeModules && rule("node_modules", folder: false) == nil)
        #expect(rule("__pycache__") == .caches && rule(".pytest_cache") == .caches && rule(".mypy_cache") == .caches)
        #expect(rule(".build") == .caches && rule(".gradle") == .caches && rule(".next") == .caches)
        #expect(rule("target") == nil && rule("target", context(siblings: ["Cargo.toml"])) == .caches)
        #expect(rule("venv") == nil && rule(".venv", context(children: ["pyvenv.cfg"])) == .caches)
        #expect(rule("venv", context(children: ["pyvenv.cfg"])) == .caches)
        #expect(rule("dist") == nil && rule("dist", context(gitIgnored: true)) == .caches)
        #expect(rule("notes.txt~", folder: false) == .editor && rule(".notes.txt.swp", folder: false) == .editor)
        #expect(rule("~", folder: false) == nil && rule("notes.swp", folder: false) == nil)
        #expect(rule(".DS_Store", folder: false) == .junk && rule("Thumbs.db", folder: false) == .junk)
        #expect(rule("desktop.ini", folder: false) == .junk && rule(".Trash-1000") == .junk && rule("__MACOSX") == .junk)
        #expect(rule("._photo.jpg", folder: false) == nil)
        #expect(rule("._photo.jpg", folder: false, context(siblings: ["photo.jpg"])) == .junk)
        #expect(rule("report.pdf", folder: false) == nil && rule("src") == nil)
        // The scan's shortcut passes every name a rule can match.
        for name in [".git", "_darcs", "CVS", "node_modules", "target", "venv", "dist", "Thumbs.db", "desktop.ini", "a~", "__MACOSX"] {
            #expect(BuiltInRules.mayMatch(b(name)), "\(name)")
        }
        #expect(!BuiltInRules.mayMatch(b("report.pdf")) && !BuiltInRules.mayMatch(b("src")))
    }

    @Test func extractAndCompressShareTheMacJunkList() {
        for name in ["__MACOSX", ".DS_Store", "._a"] { #expect(Junk.isMacJunk(b(name)) && EntryPath.isMacJunk([b(name)])) }
        #expect(!Junk.isMacJunk(b("Thumbs.db")) && !EntryPath.isMacJunk([b("Thumbs.db")]))
        #expect(EntryPath.isMacJunk([b("__MACOSX"), b("a.txt")]))
    }

    @Test func flagsTurnSettingsOnAndOffForOneCall() {
        var settings = ArchiverSettings()
        #expect(LeaveOutChoice.make(settings: settings).rules == [.junk, .archiverignore])
        settings.excludeCaches = true
        settings.followGitignore = true
        let choice = LeaveOutChoice.make(settings: settings, vcs: true, junk: false, gitignore: false, patterns: [pattern("*.o")].compactMap { $0 })
        #expect(choice.rules == [.vcs, .caches, .editor, .archiverignore, .pattern])
        #expect(LeaveOutChoice.make(settings: settings, caches: false).rules == [.junk, .gitignore, .archiverignore])
        // node_modules is its own choice (issue 31), apart from the caches.
        #expect(LeaveOutChoice.make(settings: settings, caches: false, nodeModules: true).rules == [.junk, .gitignore, .archiverignore, .nodeModules])
        settings.excludeNodeModules = true
        #expect(LeaveOutChoice.make(settings: settings).rules.isSuperset(of: [.nodeModules, .caches]))
        #expect(!LeaveOutChoice.make(settings: settings, nodeModules: false).rules.contains(.nodeModules))
    }

    @Test func theReportPutsEachItemDownOnce() {
        var report = LeaveOutReport()
        #expect(report.summary == nil)
        report.leftOut[.nodeModules] = LeaveOutFigures(items: 200, bytes: 1_000_000)
        report.leftOut[.vcs] = LeaveOutFigures(items: 12, bytes: 300_000)
        #expect(report.totalLeftOut == LeaveOutFigures(items: 212, bytes: 1_300_000))
        #expect(report.summary?.localized == "Left out 212 items (1.3 MB)")
        #expect(LeaveOutRule.vcs < .nodeModules && LeaveOutRule.gitignore < .pattern)
    }
}

/// The archive's size estimated from a deflated sample (issue 31).
@Suite struct SizeEstimateTests {
    @Test func theSampleRatioScalesTheBytesByFormatAndLevel() {
        let zip = SizeEstimate.archive(bytes: 1_000_000, sampled: 64_000, deflated: 16_000, format: .zip, level: .normal)
        #expect(zip == 250_000)
        let sevenZip = SizeEstimate.archive(bytes: 1_000_000, sampled: 64_000, deflated: 16_000, format: .sevenZip, level: .normal)
        #expect(sevenZip.map { $0 < 250_000 && $0 > 150_000 } == true, "\(String(describing: sevenZip))")
        let fast = SizeEstimate.archive(bytes: 1_000_000, sampled: 64_000, deflated: 16_000, format: .tarGz, level: .fast)
        #expect(fast.map { $0 > 250_000 } == true)
        // No compression: the bytes themselves, sample or not.
        #expect(SizeEstimate.archive(bytes: 1_000_000, sampled: 0, deflated: 0, format: .tar, level: .normal) == 1_000_000)
        #expect(SizeEstimate.archive(bytes: 1_000_000, sampled: 0, deflated: 0, format: .zip, level: .store) == 1_000_000)
        // Never larger than what goes in (incompressible photos), nothing to go on without a sample.
        #expect(SizeEstimate.archive(bytes: 1_000_000, sampled: 64_000, deflated: 64_100, format: .zip, level: .fast) == 1_000_000)
        #expect(SizeEstimate.archive(bytes: 1_000_000, sampled: 0, deflated: 0, format: .zip, level: .normal) == nil)
    }
}
