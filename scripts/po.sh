#!/bin/bash
# Archiver's translations: the template from the sources, the catalogs for the build and install.
#
#   po.sh pot            regenerate po/archiver.pot from the files in po/POTFILES
#   po.sh update         pot, then merge it into every po/LL.po (msgmerge)
#   po.sh mo DIR         compile every po/LL.po into DIR/LL/LC_MESSAGES/archiver.mo (msgfmt --check)
#   po.sh check          the CI checks: catalogs valid, template current, German complete, POTFILES whole,
#                        no interpolated literal in a translatable call
#   po.sh pseudo DIR     a pseudo-locale en@pseudo in DIR, every string wrapped in ⟦ … ⟧, for coverage tests
#
# Swift has no xgettext mode; its single-line plain literals parse as Objective-C, which also marks
# %@ strings objc-format so msgfmt --check compares a translation's placeholders with the original.
set -euo pipefail
cd "$(dirname "$0")/.."
DOMAIN=archiver
# shellcheck disable=SC2054  # the commas belong to xgettext's keyword syntax
KEYWORDS=(--keyword=tr --keyword=ntr:1,2 --keyword=ptr:1c,2)
SOURCES=${PO_SOURCES:-Sources}   # where the lint looks (a test plants mistakes in a folder of its own)

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

files_of() { grep -v '^#' po/POTFILES | grep . | grep -E "$1" || true; }

pot() {
    local out=${1:-po/$DOMAIN.pot} tmp
    tmp=$(mktemp -d -p "$SCRATCH")
    local common=(--from-code=UTF-8 --add-comments=TRANSLATORS: --package-name=Archiver --msgid-bugs-address="Archiver issue tracker"
        --sort-by-file --no-wrap)
    # shellcheck disable=SC2046
    xgettext "${common[@]}" -L ObjectiveC -k "${KEYWORDS[@]}" -o "$tmp/swift.pot" $(files_of '\.swift$')
    local parts=("$tmp/swift.pot") n=0 pattern options file files
    local -A kind_of=()
    while IFS= read -r file; do
        kind_of[$file]=$(data_kind "$file") || return 1
    done < <(files_of '.' | grep -v '\.swift$')
    # The data files, one xgettext run per kind (po/data-args); Thunar's ITS rules are in po/its.
    while IFS=$'\t' read -r pattern options; do
        files=()
        for file in "${!kind_of[@]}"; do [ "${kind_of[$file]}" = "$pattern" ] && files+=("$file"); done
        [ "${#files[@]}" -gt 0 ] || continue
        n=$((n + 1))
        # shellcheck disable=SC2086  # options are words
        GETTEXTDATADIRS=$PWD/po xgettext "${common[@]}" $options -o "$tmp/data-$n.pot" "${files[@]}"
        [ -f "$tmp/data-$n.pot" ] && parts+=("$tmp/data-$n.pot")
    done < <(data_kinds)
    msgcat --use-first --no-wrap --sort-by-file -o "$tmp/all.pot" "${parts[@]}"
    # The creation date changes on every run; keep the file stable so "is it current?" is a plain diff.
    sed -e '/^"POT-Creation-Date:/d' "$tmp/all.pot" > "$out"
}

# po/data-args: "PATTERN<TAB>XGETTEXT OPTIONS" per kind of data file; the first pattern a path matches.
data_kinds() {
    if [ -f po/data-args ]; then grep -v '^#' po/data-args | grep . | sed 's/[[:space:]]\{1,\}/\t/'; fi
}
data_kind() {
    local pattern options
    while IFS=$'\t' read -r pattern options; do
        # shellcheck disable=SC2053
        [[ $1 == $pattern ]] && { printf '%s' "$pattern"; return; }
    done < <(data_kinds)
    echo "po.sh: $1 is in po/POTFILES but no pattern in po/data-args matches it" >&2
    return 1
}
# Every data file po/data-args names, for po/POTFILES.
data_files() {
    local pattern options file
    while IFS=$'\t' read -r pattern options; do
        for file in $pattern; do [ -f "$file" ] && printf '%s\n' "$file"; done
    done < <(data_kinds)
}

# The Swift files that call tr(, ntr( or ptr( with a literal, outside comments.
translating_files() {
    grep -rnE '(^|[^A-Za-z0-9_.])(tr|ntr|ptr)\("' "$SOURCES" --include='*.swift' | grep -vE '^[^:]+:[0-9]+:\s*//' \
        | cut -d: -f1 | sort -u
}

languages() { grep -v '^#' po/LINGUAS | grep .; }

mo() {
    local dir=$1 lang
    for lang in $(languages); do
        mkdir -p "$dir/$lang/LC_MESSAGES"
        msgfmt --check -o "$dir/$lang/LC_MESSAGES/$DOMAIN.mo" "po/$lang.po"
    done
}

update() {
    pot
    local lang
    for lang in $(languages); do
        msgmerge --quiet --update --backup=none --no-wrap --previous "po/$lang.po" "po/$DOMAIN.pot"
    done
}

check() {
    local failed=0 lang tmp
    tmp=$(mktemp -d -p "$SCRATCH")
    for lang in $(languages); do
        msgfmt --check --statistics -o /dev/null "po/$lang.po" || failed=1
        # Untranslated and fuzzy entries both fail here.
        msgcmp "po/$lang.po" "po/$DOMAIN.pot" || { echo "po/$lang.po is not complete" >&2; failed=1; }
        if [ -n "$(msgattrib --only-fuzzy --no-obsolete "po/$lang.po")" ]; then
            echo "po/$lang.po has fuzzy entries" >&2; failed=1
        fi
    done
    pot "$tmp/fresh.pot"
    if ! diff -u po/$DOMAIN.pot "$tmp/fresh.pot" >&2; then
        echo "po/$DOMAIN.pot is out of date: run 'make pot'" >&2; failed=1
    fi
    local file
    while IFS= read -r file; do
        if ! grep -qxF "$file" po/POTFILES; then
            echo "$file calls the translation functions but is not in po/POTFILES" >&2; failed=1
        fi
    done < <(translating_files)
    # xgettext reads "\(x)" as "(x)" without a word, and multi-line or raw literals as nothing.
    if grep -rnE '(^|[^A-Za-z0-9_.])(tr|ntr|ptr)\((#|"""|"[^"]*\\\()' "$SOURCES" | grep -vE '^[^:]+:[0-9]+:\s*//' >&2; then
        echo "a translatable call holds an interpolated, raw or multi-line literal" >&2; failed=1
    fi
    return $failed
}

pseudo() {
    local dir=$1
    mkdir -p "$dir/en@pseudo/LC_MESSAGES"
    msginit --no-translator --locale=en_US.UTF-8 -i "po/$DOMAIN.pot" -o - 2>/dev/null \
        | msgen - \
        | msgfilter --keep-header -o "$dir/pseudo.po" sed -e 's/^/⟦/' -e 's/$/⟧/' 2>/dev/null
    msgfmt --check -o "$dir/en@pseudo/LC_MESSAGES/$DOMAIN.mo" "$dir/pseudo.po"
}

case ${1:-} in
    pot) pot ;;
    update) update ;;
    mo) mo "${2:?po.sh mo DIR}" ;;
    check) check ;;
    pseudo) pseudo "${2:?po.sh pseudo DIR}" ;;
    potfiles) translating_files; data_files | awk '!seen[$0]++' ;;
    *) echo "usage: po.sh pot|update|mo DIR|check|pseudo DIR" >&2; exit 2 ;;
esac
