/// git's `wildmatch` (wildmatch.c), over bytes: the glob matching of `.gitignore` patterns, ported line for
/// line so that every corner (`**`, `[[:alpha:]]`, `\*`, ranges) decides as git does.
enum Wildmatch {
    enum Outcome { case match, noMatch, abortAll, abortToStarStar }

    private static let slash = UInt8(ascii: "/")
    private static let star = UInt8(ascii: "*")
    private static let backslash = UInt8(ascii: "\\")

    /// Whether `text` matches `pattern`.
    /// - Parameter pathname: git's `WM_PATHNAME`: `*` and `?` stop at `/`, and only `**` crosses it.
    static func matches(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>, pathname: Bool) -> Bool {
        // A NUL after each stands for C's terminator; names never hold one.
        let p = Array(pattern) + [0]
        let t = Array(text) + [0]
        return match(p, 0, t, 0, pathname: pathname) == .match
    }

    private static func isGlobSpecial(_ c: UInt8) -> Bool {
        c == star || c == UInt8(ascii: "?") || c == UInt8(ascii: "[") || c == backslash
    }

    private static func match(_ p: [UInt8], _ pStart: Int, _ t: [UInt8], _ tStart: Int, pathname: Bool) -> Outcome {
        var pi = pStart
        var ti = tStart
        while p[pi] != 0 {
            var pc = p[pi]
            var tc = t[ti]
            if tc == 0, pc != star { return .abortAll }
            switch pc {
            case UInt8(ascii: "?"):
                if pathname, tc == slash { return .noMatch }
            case star:
                var matchSlash: Bool
                pi += 1
                if p[pi] == star {
                    let previous = pi - 2
                    while p[pi] == star { pi += 1 }
                    if (previous < 0 || p[previous] == slash)
                        && (p[pi] == 0 || p[pi] == slash || (p[pi] == backslash && p[pi + 1] == slash))
                    {
                        // `/**/` may match no folder at all: try the rest right here first.
                        if p[pi] == slash, match(p, pi + 1, t, ti, pathname: pathname) == .match { return .match }
                        matchSlash = true
                    } else {
                        matchSlash = false
                    }
                } else {
                    matchSlash = !pathname
                }
                if p[pi] == 0 {
                    // A trailing `**` matches everything; a trailing `*` only what has no more slashes.
                    if !matchSlash, t[ti...].contains(slash) { return .noMatch }
                    return .match
                } else if !matchSlash, p[pi] == slash {
                    // One `*` then a slash: the rest of this folder name.
                    guard let next = t[ti...].firstIndex(of: slash) else { return .noMatch }
                    ti = next
                    break
                }
                while true {
                    if tc == 0 { break }
                    if !isGlobSpecial(p[pi]) {
                        // A literal follows: skip ahead to where it occurs.
                        let literal = p[pi]
                        while t[ti] != 0, matchSlash || t[ti] != slash {
                            if t[ti] == literal { break }
                            ti += 1
                        }
                        tc = t[ti]
                        if tc != literal { return .noMatch }
                    }
                    let outcome = match(p, pi, t, ti, pathname: pathname)
                    if outcome != .noMatch {
                        if !matchSlash || outcome != .abortToStarStar { return outcome }
                    } else if !matchSlash, tc == slash {
                        return .abortToStarStar
                    }
                    ti += 1
                    tc = t[ti]
                }
                return .abortAll
            case UInt8(ascii: "["):
                pi += 1
                pc = p[pi]
                if pc == UInt8(ascii: "^") { pc = UInt8(ascii: "!") }
                let negated = pc == UInt8(ascii: "!")
                if negated {
                    pi += 1
                    pc = p[pi]
                }
                var previous: UInt8 = 0
                var matched = false
                repeat {
                    if pc == 0 { return .abortAll }
                    if pc == backslash {
                        pi += 1
                        pc = p[pi]
                        if pc == 0 { return .abortAll }
                        if tc == pc { matched = true }
                    } else if pc == UInt8(ascii: "-"), previous != 0, p[pi + 1] != 0, p[pi + 1] != UInt8(ascii: "]") {
                        pi += 1
                        pc = p[pi]
                        if pc == backslash {
                            pi += 1
                            pc = p[pi]
                            if pc == 0 { return .abortAll }
                        }
                        if tc <= pc, tc >= previous { matched = true }
                        pc = 0
                    } else if pc == UInt8(ascii: "["), p[pi + 1] == UInt8(ascii: ":") {
                        let start = pi + 2
                        pi = start
                        while p[pi] != 0, p[pi] != UInt8(ascii: "]") { pi += 1 }
                        if p[pi] == 0 { return .abortAll }
                        let length = pi - start - 1
                        if length < 0 || p[pi - 1] != UInt8(ascii: ":") {
                            // No `:]`: an ordinary `[` in the set.
                            pi = start - 2
                            pc = UInt8(ascii: "[")
                            if tc == pc { matched = true }
                            previous = pc
                            pi += 1
                            pc = p[pi]
                            continue
                        }
                        guard let test = characterClass(p[start..<start + length]) else { return .abortAll }
                        if test(tc) { matched = true }
                        pc = 0
                    } else if tc == pc {
                        matched = true
                    }
                    previous = pc
                    pi += 1
                    pc = p[pi]
                } while pc != UInt8(ascii: "]")
                if matched == negated || (pathname && tc == slash) { return .noMatch }
            default:
                if pc == backslash {
                    // The next character, literally (a lone trailing backslash matches nothing).
                    pi += 1
                    pc = p[pi]
                }
                if tc != pc { return .noMatch }
            }
            pi += 1
            ti += 1
        }
        return t[ti] == 0 ? .match : .noMatch
    }

    /// `[:name:]`'s test, as the C locale's `ctype` answers it; nil for a name git does not know.
    private static func characterClass(_ name: ArraySlice<UInt8>) -> ((UInt8) -> Bool)? {
        let isUpper = { (c: UInt8) in c >= 65 && c <= 90 }
        let isLower = { (c: UInt8) in c >= 97 && c <= 122 }
        let isDigit = { (c: UInt8) in c >= 48 && c <= 57 }
        let isAlpha = { (c: UInt8) in isUpper(c) || isLower(c) }
        let isPrint = { (c: UInt8) in c >= 32 && c < 127 }
        switch String(decoding: name, as: UTF8.self) {
        case "alnum": return { isAlpha($0) || isDigit($0) }
        case "alpha": return isAlpha
        case "blank": return { $0 == 32 || $0 == 9 }
        case "cntrl": return { $0 < 32 || $0 == 127 }
        case "digit": return isDigit
        case "graph": return { isPrint($0) && $0 != 32 }
        case "lower": return isLower
        case "print": return isPrint
        case "punct": return { isPrint($0) && $0 != 32 && !isAlpha($0) && !isDigit($0) }
        case "space": return { $0 == 32 || ($0 >= 9 && $0 <= 13) }
        case "upper": return isUpper
        case "xdigit": return { isDigit($0) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102) }
        default: return nil
        }
    }
}
