#!/bin/bash
# Archiver's desktop integration: "Open with" handlers, MIME types, GSettings schema and the right-click
# menus of Nautilus, Dolphin, Thunar, Nemo, Caja and PCManFM.
#
#   desktop-integration.sh install | uninstall | set-default | unset-default
#
# Environment: PREFIX (default $HOME/.local), BINDIR (default $PREFIX/bin, where the executables are),
# DESTDIR (staging root for packagers: no caches are updated), HOME, XDG_DATA_HOME, XDG_CONFIG_HOME,
# EXECUTABLES (default: the Makefile's list), NAUTILUS_PYTHON (the nautilus-python loader whose presence
# picks the extension over the scripts; default: python3-nautilus' own, in any multiarch folder).
#
# Defaults: installing never changes which application opens a file. Our "Open with" handlers claim only
# types of our own (application/x-archiver-archive, application/x-archiver-pdf, image/x-archiver-photo), and
# our MIME package makes every archive type, PDFs and photos subclasses of them. GLib then lists us among a
# type's registered ("related") applications after every application that claims the type itself, and
# takes us as its default only where nothing else opens it; xdg-mime's generic mode reads exact types only.
# Claiming the types themselves would make us the default wherever no mimeapps.list names one: GLib ranks
# ~/.local/share/applications above /usr/share/applications, and within one folder mimeinfo.cache is
# sorted by name ("io.github…" before "org.gnome…"); a mimeapps.list [Added Associations] entry ranks us
# first as well. `set-default` is the one way to make us the default, for archives only.
#
# A PREFIX under $HOME installs for this user into $XDG_DATA_HOME and $XDG_CONFIG_HOME. Any other PREFIX
# installs system-wide into $PREFIX/share; Nautilus scripts and Thunar actions are then left out, because
# both exist only per user (Thunar reads the user's uca.xml instead of the system one, not beside it):
# a user gets them with `PREFIX=$HOME/.local BINDIR=$PREFIX/bin desktop-integration.sh install`.
#
# Every file, directory and cache that install creates is listed in a manifest, and uninstall removes
# exactly those (directories only when empty), so a folder or cache that was there before survives.
#
# Translations: every menu and "Open with" file is written in English from its template, then msgfmt
# --desktop/--xml adds each language in po/LINGUAS from po/LL.po (Name[de]=…, <name xml:lang="de">). The
# catalogs are compiled from po/ too and installed into $PREFIX/share/locale, beside $PREFIX/bin, where the
# executables and the nautilus-python extension look. Nautilus scripts are labelled by their file names
# alone, so those are chosen once, in the language of the installer's own locale (LANGUAGE, LC_ALL,
# LC_MESSAGES, LANG), through gettext(1).
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true  # bash 5.2: "&" in ${s//x/y} must stay literal

APP=io.github.archiver
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/desktop-files
MIME_PACKAGE=$ROOT/mime/$APP.xml
PO=$ROOT/po
DOMAIN=archiver
PREFIX=${PREFIX:-$HOME/.local}
# The executables: the Makefile's EXECUTABLES, so that a new one is added in one place.
EXECUTABLE_NAMES=${EXECUTABLES:-$(sed -n '/^EXECUTABLES *=/,/[^\\]$/p' "$ROOT/Makefile" | sed 's/^EXECUTABLES *=//; s/\\$//')}
BINDIR=${BINDIR:-$PREFIX/bin}
DESTDIR=${DESTDIR:-}
XDG_DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
XDG_CONFIG_HOME=${XDG_CONFIG_HOME:-$HOME/.config}
case $PREFIX/ in
    "$HOME"/*) PER_USER=1 DATA=$DESTDIR$XDG_DATA_HOME ;;
    *) PER_USER=0 DATA=$DESTDIR$PREFIX/share ;;
esac
CONFIG=$DESTDIR$XDG_CONFIG_HOME
STATE=$DATA/$APP                        # our own folder: the manifest lives here
MANIFEST=$STATE/installed
USER_STATE=$XDG_DATA_HOME/$APP          # set-default is always per user, even after a system-wide install
DEFAULTS_RECORD=$USER_STATE/defaults
HANDLER=$APP.Extract.desktop
LOCALEDIR=$PREFIX/share/locale          # <bindir>/../share/locale: where the executables look

die() { printf 'desktop-integration: %s\n' "$*" >&2; exit 1; }

# Python for the XML merge of Thunar's uca.xml: the system one, not whatever a user's PATH holds first.
python() { if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$@"; else python3 "$@"; fi; }

archive_types() { grep -v '^#' "$SRC/archive-types.list" | grep .; }

# What "Compress PDF" and "Compress Photos" are offered for (photos also for folders, which they walk).
PDF_TYPES='application/pdf;'
PHOTO_TYPES='image/jpeg;image/png;image/heic;image/heif;image/avif;image/webp;image/tiff;'
# The types of our own that the "Open with" handlers claim (see the top): each subclassed by the above.
ARCHIVE_PARENT=application/x-archiver-archive PDF_PARENT=application/x-archiver-pdf PHOTO_PARENT=image/x-archiver-photo

# The executables, each with its placeholder name in templates: x-with-archiver is @X@, archiver-x is
# @X_WINDOW@, archiver is @APP@ (open-with-archiver: @OPEN@; compress-pdf-with-archiver: @COMPRESS_PDF@).
placeholder() {
    local name
    case $1 in
        archiver) name=APP ;;
        *-with-archiver) name=${1%-with-archiver} ;;
        archiver-*) name=${1#archiver-}_WINDOW ;;
        *) name=$1 ;;
    esac
    name=${name//-/_}
    printf '%s' "${name^^}"
}
EXECUTABLES=$(for e in $EXECUTABLE_NAMES; do printf '%s %s\n' "$(placeholder "$e")" "$e"; done)


# --- Quoting, one function per format ------------------------------------------------------------------

# Desktop Entry spec Exec quoting (also valid for sh and g_shell_parse_argv): double quotes, with ", `, $
# and \ escaped by a backslash. A path of plain characters stays unquoted: xdg-open's generic mode
# (xdg-utils 1.1.3, no desktop session) takes the Exec key's first word as it is, quotes included, and fails.
exec_quote() {
    local s=$1
    if [[ $s =~ ^[A-Za-z0-9_./+,:@=-]+$ ]]; then printf '%s' "$s"; return; fi
    s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//\$/\\\$}; s=${s//\`/\\\`}
    printf '"%s"' "$s"
}
# Key files (.desktop, .nemo_action) read values with one more escape level: \\ means \.
keyfile_escape() { local s=$1; printf '%s' "${s//\\/\\\\}"; }
# One item of a key file's list (Nemo's Conditions): also \; for a ; that does not end the item.
keyfile_item_escape() { local s; s=$(keyfile_escape "$1"); printf '%s' "${s//;/\\;}"; }
xml_escape() { local s=$1; s=${s//&/&amp;}; s=${s//</&lt;}; s=${s//>/&gt;}; printf '%s' "$s"; }
python_string() { local s=$1; s=${s//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }

# Exec keys would need %% and every format breaks on a newline; one test covers the rest (space, quotes, $).
check_bindir() {
    case $BINDIR in *%* | *$'\n'*) die "BINDIR must not contain % or a newline: $BINDIR" ;; esac
    case $BINDIR in /*) ;; *) die "BINDIR must be an absolute path: $BINDIR" ;; esac
    printf '%s' "$BINDIR" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 || die "BINDIR must be valid UTF-8"
}

# --- Recording what we create --------------------------------------------------------------------------

RECORD=()  # lines "KIND<TAB>PATH": f file, d directory we created, c cache we generated, u uca.xml base copy

note() { RECORD+=("$1"$'\t'"$2"); }

make_dir() {  # mkdir -p that notes each directory it creates, outermost first
    local dir=$1
    [ -d "$dir" ] && return 0
    make_dir "$(dirname "$dir")"
    mkdir "$dir"
    note d "$dir"
}

# put TEXT DEST [MODE]: writes through a temporary file so a reader never sees half a file.
put() {
    make_dir "$(dirname "$2")"
    printf '%s' "$1" > "$2.tmp-$$"
    chmod "${3:-644}" "$2.tmp-$$"
    mv -f "$2.tmp-$$" "$2"
    note f "$2"
}

# put_file SOURCE DEST: a copy of a file (a compiled catalog), written the same way.
put_file() {
    make_dir "$(dirname "$2")"
    install -m 644 "$1" "$2.tmp-$$"
    mv -f "$2.tmp-$$" "$2"
    note f "$2"
}

# drop_stale FILE: files an earlier install recorded and this one did not write (a Nautilus script named
# in another language) are removed, and leave the record.
drop_stale() {
    [ -e "$1" ] || return 0
    local kind path kept=() written
    written=$(printf '%s\n' "${RECORD[@]}")
    while IFS=$'\t' read -r kind path; do
        if [ "$kind" = f ] && ! grep -qxF "f"$'\t'"$path" <<< "$written"; then
            rm -f "$path"
            rmdir "$(dirname "$path")" 2>/dev/null || true  # the scripts' folder, once the extension took over
            continue
        fi
        kept+=("$kind"$'\t'"$path")
    done < "$1"
    if [ "${#kept[@]}" -gt 0 ]; then printf '%s\n' "${kept[@]}" > "$1"; else : > "$1"; fi
}

# save_record FILE: the old record plus what this run noted, each line once, in first-seen order.
save_record() {
    [ "${#RECORD[@]}" -gt 0 ] || [ -e "$1" ] || return 0
    make_dir "$(dirname "$1")"
    { [ -e "$1" ] && cat "$1"; [ "${#RECORD[@]}" -gt 0 ] && printf '%s\n' "${RECORD[@]}"; } |
        awk '!seen[$0]++' > "$1.tmp-$$"
    mv -f "$1.tmp-$$" "$1"
}

# fill TEXT: the placeholders every template may use, for formats whose Exec is a key-file value.
fill_keyfile() {
    local t=$1 name exe
    while read -r name exe; do
        t=${t//@$name@/$(keyfile_escape "$(exec_quote "$BINDIR/$exe")")}
        t=${t//@${name}_PATH@/$(keyfile_escape "$BINDIR/$exe")}
    done <<< "$EXECUTABLES"
    t=${t//@ARCHIVE_TYPES@/$(archive_types | tr '\n' ';')}
    t=${t//@PDF_TYPES@/$PDF_TYPES}; t=${t//@PHOTO_TYPES@/$PHOTO_TYPES}
    t=${t//@ARCHIVE_PARENT@/$ARCHIVE_PARENT}; t=${t//@PDF_PARENT@/$PDF_PARENT}; t=${t//@PHOTO_PARENT@/$PHOTO_PARENT}
    printf '%s' "$t"
}

# Our MIME package: mime/io.github.archiver.xml with our three parent types, and every archive type, PDFs
# and photos made their subclasses (aliases too: which name is canonical changed in shared-mime-info 2.3).
mime_package() {
    local type parent generated=""
    for parent in "$ARCHIVE_PARENT Archive" "$PDF_PARENT PDF document" "$PHOTO_PARENT Photo"; do
        generated+="  <mime-type type=\"${parent%% *}\">"$'\n'"    <comment>${parent#* } (Archiver)</comment>"$'\n'"  </mime-type>"$'\n'
    done
    while read -r type parent; do
        generated+="  <mime-type type=\"$type\"><sub-class-of type=\"$parent\"/></mime-type>"$'\n'
    done < <(archive_types | sed "s|\$| $ARCHIVE_PARENT|"
             tr ';' '\n' <<< "$PDF_TYPES" | grep . | sed "s|\$| $PDF_PARENT|"
             tr ';' '\n' <<< "$PHOTO_TYPES" | grep . | sed "s|\$| $PHOTO_PARENT|")
    local xml; xml=$(<"$MIME_PACKAGE")
    printf '%s\n' "${xml%</mime-info>*}  <!-- Made by desktop-integration.sh: the types our \"Open with\" handlers claim. -->"$'\n'"$generated</mime-info>"
}

# --- Translations ------------------------------------------------------------------------------

WORK=""
work_dir() {  # a scratch folder for this run: the English files before msgfmt, the compiled catalogs
    if [ -z "$WORK" ]; then WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
}

# Every po/LL.po compiled into $WORK/locale (gettext(1) reads them there before they are installed).
compile_catalogs() {
    command -v msgfmt > /dev/null || die "msgfmt is missing: install gettext (make deps)"
    bash "$ROOT/scripts/po.sh" mo "$WORK/locale"
}

# translated desktop|xml TEXT: TEXT (an English key file or Thunar <actions>) with every language's labels
# added by msgfmt. gettext 0.21 drops its default keys once one is named, so all of them are named.
translated() {
    case $1 in
        desktop)
            printf '%s' "$2" > "$WORK/english.desktop"
            msgfmt --desktop -d "$PO" --template="$WORK/english.desktop" -o "$WORK/translated" \
                --keyword=Name --keyword=GenericName --keyword=Comment --keyword=Keywords \
                --keyword=X-KDE-Submenu --keyword=Tooltip --keyword=X-GNOME-FullName ;;
        metainfo)  # gettext's own metainfo.its (AppStream)
            printf '%s' "$2" > "$WORK/$APP.metainfo.xml"
            msgfmt --xml -d "$PO" --template="$WORK/$APP.metainfo.xml" -o "$WORK/translated" ;;
        xml)  # po/its/thunar-uca.its: <name> and <description> of a file named *uca.xml with root <actions>
            printf '%s' "$2" > "$WORK/uca.xml"
            GETTEXTDATADIRS=$PO msgfmt --xml -d "$PO" --template="$WORK/uca.xml" -o "$WORK/translated" ;;
    esac
    cat "$WORK/translated"
}

# label_here MSGID: MSGID in the language of this process's locale, from the catalogs just compiled.
label_here() {
    if command -v gettext > /dev/null; then TEXTDOMAINDIR=$WORK/locale gettext -d "$DOMAIN" -- "$1"; else printf '%s' "$1"; fi
}

# --- The menu entries: one table (desktop-files/menu-entries.in), each file manager's file made from it -

# Lines "id|name|label|run|for|flat", one per group of the table.
menu_entries() {
    awk '
        function flush() { if (id != "") print id "|" v["Name"] "|" v["Label"] "|" v["Run"] "|" v["For"] "|" v["Flat"]; delete v }
        /^#/ || !/[^ \t]/ { next }
        /^\[/ { flush(); id = substr($0, 2, length($0) - 2); next }
        { v[substr($0, 1, index($0, "=") - 1)] = substr($0, index($0, "=") + 1) }
        END { flush() }' "$SRC/menu-entries.in"
}

# Thunar matches names, not types; its globs know only * and ?.
THUNAR_PATTERNS='*.zip;*.ZIP;*.7z;*.7Z;*.7z.0??;*.zip.0??;*.rar;*.RAR;*.r0?;*.r1?;*.z0?;*.z1?;*.001;*.tar;*.tar.gz;*.tgz;*.gz;*.tar.bz2;*.tbz2;*.tbz;*.tb2;*.bz2;*.bz;*.tar.xz;*.txz;*.xz;*.tar.zst;*.tar.zstd;*.tzst;*.zst;*.tar.lz4;*.lz4;*.tar.lz;*.lz;*.tar.lzma;*.tlz;*.lzma;*.tar.lzo;*.tzo;*.lzo;*.tar.Z;*.taz;*.Z;*.cpio;*.iso;*.deb;*.udeb;*.rpm;*.cab;*.ar;*.lha;*.lzh;*.xar'

install_actions() {
    local id short long run exe options selection flat cmd t nemo_filter types thunar_filter patterns thunar="" name
    while IFS='|' read -r id short long run selection flat; do
        read -r exe options <<< "$run"
        cmd="$(exec_quote "$BINDIR/$exe")${options:+ $options} --"
        case $selection in
            any)
                nemo_filter='Extensions=any;' types='all/all;' patterns='*'
                thunar_filter='<directories/><audio-files/><image-files/><other-files/><text-files/><video-files/>' ;;
            archives)
                nemo_filter="Mimetypes=$(archive_types | tr '\n' ';')" types=$(archive_types | tr '\n' ';')
                patterns=$THUNAR_PATTERNS thunar_filter='<other-files/>' ;;
            pdf)
                nemo_filter="Mimetypes=$PDF_TYPES" types=$PDF_TYPES patterns='*.pdf;*.PDF' thunar_filter='<other-files/>' ;;
            photos)
                nemo_filter="Mimetypes=${PHOTO_TYPES}inode/directory;" types="${PHOTO_TYPES}inode/directory;"
                patterns='*' thunar_filter='<directories/><image-files/>' ;;
        esac
        # Flat=not-archives: not when every selected item is an archive. Nemo asks compress-with-archiver
        # (exit 0: shown); DES-EMA hides the entry when any item has a type written after "!".
        if [ "$flat" = not-archives ]; then
            nemo_filter+=$'\n'"Conditions=exec $(keyfile_item_escape "$(exec_quote "$BINDIR/compress-with-archiver") --menu-condition -- %F");"
            types+=$(archive_types | sed 's/^/!/' | tr '\n' ';')
        fi
        # Nemo and DES-EMA (Caja, PCManFM): one key file per entry, top level, so the long label.
        if [ "$flat" != no ]; then
            t=$(<"$SRC/nemo-action.nemo_action.in")$'\n'
            t=${t//@LABEL@/$long}; t=${t//@NEMO_FILTER@/$nemo_filter}; t=${t//@COMMAND@/$(keyfile_escape "$cmd")}
            put "$(translated desktop "$t")"$'\n' "$DATA/nemo/actions/$APP.$id.nemo_action"
            t=$(<"$SRC/file-manager-action.desktop.in")$'\n'
            t=${t//@LABEL@/$long}; t=${t//@TYPES@/$types}; t=${t//@COMMAND@/$(keyfile_escape "$cmd")}
            put "$(translated desktop "$t")"$'\n' "$DATA/file-manager/actions/$APP.$id.desktop"
        fi
        [ "$PER_USER" = 1 ] || continue
        # Nautilus scripts: the folder name becomes a submenu of "Scripts", the file name is the label.
        if ! nautilus_python; then
            t=$(<"$SRC/nautilus-script.in")$'\n'
            name=$(label_here "$short"); name=${name//\//-}
            put "${t//@COMMAND@/$cmd}" "$DATA/nautilus/scripts/Archiver/$name" 755
        fi
        t=$(<"$SRC/thunar-action.xml.in")$'\n'
        t=${t//@ID@/$id}; t=${t//@SHORT@/$short}; t=${t//@LABEL@/$long}; t=${t//@PATTERNS@/$patterns}
        t=${t//@THUNAR_FILTER@/$thunar_filter}; thunar+=${t//@COMMAND@/$(xml_escape "$cmd")}
    done < <(menu_entries)
    [ "$PER_USER" = 1 ] && merge_thunar "$(translated xml "<actions>"$'\n'"$thunar</actions>"$'\n')"
    return 0
}

# Nautilus gets one "Archiver" menu: the extension where nautilus-python loads it, else the scripts (both
# would show every entry twice). python3-nautilus installed or removed later: install again to switch.
nautilus_python() {
    local loader
    for loader in ${NAUTILUS_PYTHON:-/usr/lib/*/nautilus/extensions-4/libnautilus-python.so /usr/lib/nautilus/extensions-4/libnautilus-python.so}; do
        [ -e "$loader" ] && return 0
    done
    return 1
}
# A system-wide install (the Debian package) holds the extension already: nautilus-python would load both.
system_extension() {
    local dir dirs
    IFS=: read -ra dirs <<< "${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
    for dir in "${dirs[@]}"; do [ -e "$dir/nautilus-python/extensions/io_github_archiver.py" ] && return 0; done
    return 1
}

# --- Thunar: our actions merged into the user's one uca.xml ----------------------------------------

THUNAR_PY='
import os, sys
import xml.etree.ElementTree as ET
OURS = "io.github.archiver."
def ours(action):
    return (action.findtext("unique-id") or "").startswith(OURS)
def canon(root):
    return [ET.tostring(a) for a in root if not ours(a)]
def write(tree, path):
    ET.indent(tree, "\t")
    tree.write(path + ".tmp", encoding="UTF-8", xml_declaration=True)
    os.replace(path + ".tmp", path)
mode, path = sys.argv[1], sys.argv[2]
tree = ET.parse(path)
root = tree.getroot()
for action in [a for a in root if ours(a)]:
    root.remove(action)
if mode == "merge":
    root.extend(ET.fromstring(sys.stdin.buffer.read()))
elif len(sys.argv) > 3 and canon(root) == canon(ET.parse(sys.argv[3]).getroot()):
    os.remove(path)  # we created it and the user added nothing: leave no trace
    sys.exit(0)
write(tree, path)
'

merge_thunar() {
    local uca=$CONFIG/Thunar/uca.xml base=$STATE/uca.xml.orig system="" dir dirs
    if [ ! -e "$uca" ]; then
        # Thunar reads only the first uca.xml it finds, so ours must keep the system's actions.
        IFS=: read -ra dirs <<< "${XDG_CONFIG_DIRS:-/etc/xdg}"
        for dir in "${dirs[@]}"; do [ -f "$dir/Thunar/uca.xml" ] && { system=$dir/Thunar/uca.xml; break; }; done
        # The copy is kept (unrecorded) so uninstall can tell whether the user added actions since.
        if [ -n "$system" ]; then cp "$system" "$base"
        else printf '<?xml version="1.0" encoding="UTF-8"?>\n<actions>\n</actions>\n' > "$base"; fi
        make_dir "$(dirname "$uca")"
        cp "$base" "$uca"
        note u "$uca"
    fi
    printf '%s' "$1" | python -c "$THUNAR_PY" merge "$uca"
}

# --- Caches: regenerated where we touched, removed when only we needed them ------------------------

# update_cache NAME DIR SOURCES-GLOB: runs the tool and notes the cache file when it is new.
cache_file() {
    case $1 in
        desktop) printf '%s/mimeinfo.cache' "$2" ;;
        mime) printf '%s/mime.cache' "$2" ;;
        schemas) printf '%s/gschemas.compiled' "$2" ;;
    esac
}
run_cache_tool() {
    case $1 in
        desktop) update-desktop-database -q "$2" ;;
        mime) update-mime-database "$2" ;;
        schemas) glib-compile-schemas "$2" ;;
    esac
}
update_cache() {
    [ -z "$DESTDIR" ] || return 0  # a package's install scripts update caches on the target system
    [ -e "$(cache_file "$1" "$2")" ] || note c "$(cache_file "$1" "$2")"
    run_cache_tool "$1" "$2"
}

# After our files are gone: regenerate, or remove a cache we generated when nothing else needs it.
refresh_cache() {
    local kind=$1 dir=$2 sources=$3 cache
    [ -d "$dir" ] || return 0
    cache=$(cache_file "$kind" "$dir")
    if ! grep -qxF "c"$'\t'"$cache" <<< "$OLD_RECORD"; then
        run_cache_tool "$kind" "$dir"
    elif compgen -G "$sources" > /dev/null; then
        run_cache_tool "$kind" "$dir"
        # Others' .desktop files without MimeType leave a cache of one header line: ours, so it goes.
        if [ "$kind" = desktop ] && ! grep -q = "$cache"; then rm -f "$cache"; fi
    elif [ "$kind" = mime ]; then
        # update-mime-database writes a whole database beside packages/: all of it was ours.
        find "$dir" -mindepth 1 -maxdepth 1 ! -name packages -exec rm -rf {} +
    else
        rm -f "$cache"
    fi
}

# --- Subcommands ---------------------------------------------------------------------------------

do_install() {
    check_bindir
    local name exe t
    while read -r name exe; do
        [ -x "$DESTDIR$BINDIR/$exe" ] || printf 'desktop-integration: warning: %s is not installed yet\n' "$BINDIR/$exe" >&2
    done <<< "$EXECUTABLES"
    make_dir "$STATE"
    work_dir
    compile_catalogs
    for t in "$WORK"/locale/*/LC_MESSAGES/"$DOMAIN".mo; do
        put_file "$t" "$DESTDIR$LOCALEDIR/${t#"$WORK/locale/"}"
    done
    for t in Extract Compress CompressPdf CompressPhotos Open; do
        put "$(translated desktop "$(fill_keyfile "$(<"$SRC/$APP.$t.desktop.in")")")"$'\n' "$DATA/applications/$APP.$t.desktop"
    done
    # The app: visible in the app grid, its icon in hicolor, its AppStream description for software centres.
    put "$(translated desktop "$(fill_keyfile "$(<"$SRC/$APP.desktop.in")")")"$'\n' "$DATA/applications/$APP.desktop"
    put_file "$SRC/icons/$APP.svg" "$DATA/icons/hicolor/scalable/apps/$APP.svg"
    put_file "$SRC/icons/$APP-symbolic.svg" "$DATA/icons/hicolor/symbolic/apps/$APP-symbolic.svg"
    put "$(translated metainfo "$(<"$SRC/$APP.metainfo.xml")")"$'\n' "$DATA/metainfo/$APP.metainfo.xml"
    # Dolphin (KF >= 5.85) ignores service menus outside system folders unless they are executable.
    for t in compress extract compress-pdf compress-photos; do
        put "$(translated desktop "$(fill_keyfile "$(<"$SRC/dolphin/$APP.$t.desktop.in")")")"$'\n' \
            "$DATA/kio/servicemenus/$APP.$t.desktop" "$([ "$PER_USER" = 1 ] && echo 755 || echo 644)"
    done
    # System-wide the extension is always installed: it is inert without python3-nautilus, and no
    # system-wide scripts exist.
    if [ "$PER_USER" = 0 ] || { nautilus_python && ! system_extension; }; then
        t=$(<"$SRC/nautilus-python/io_github_archiver.py.in")$'\n'
        t=${t//@BIN_DIR_PY@/$(python_string "$BINDIR")}; t=${t//@LOCALE_DIR_PY@/$(python_string "$LOCALEDIR")}
        t=${t//@ARCHIVE_TYPES@/$(archive_types | tr '\n' ';')}
        t=${t//@PHOTO_TYPES@/$PHOTO_TYPES}
        put "$t" "$DATA/nautilus-python/extensions/io_github_archiver.py"
    fi
    put "$(mime_package)" "$DATA/mime/packages/$APP.xml"
    put "$(<"$SRC/$APP.gschema.xml")"$'\n' "$DATA/glib-2.0/schemas/$APP.gschema.xml"
    install_actions
    update_cache desktop "$DATA/applications"
    update_cache mime "$DATA/mime"
    update_cache schemas "$DATA/glib-2.0/schemas"
    drop_stale "$MANIFEST"
    save_record "$MANIFEST"
    printf 'Desktop integration installed into %s (manifest: %s)\n' "$DATA" "$MANIFEST"
}

# Directories we created, innermost first, each only if nothing else is in it now.
remove_dirs() {
    local kind path
    while IFS=$'\t' read -r kind path; do
        if [ "$kind" = d ]; then rmdir "$path" 2>/dev/null || true; fi
    done < <(tac <<< "$1")
}

# remove_recorded RECORD-TEXT: files, then the caches' fate, then directories innermost first.
remove_recorded() {
    local kind path
    while IFS=$'\t' read -r kind path; do
        case $kind in
            f) rm -f "$path" ;;
            u) [ -e "$path" ] && python -c "$THUNAR_PY" unmerge "$path" "$STATE/uca.xml.orig" ;;
        esac
    done <<< "$1"
    # A uca.xml we did not create: take our actions out of it all the same.
    if [ "$PER_USER" = 1 ] && [ -e "$CONFIG/Thunar/uca.xml" ] && ! grep -q $'^u\t' <<< "$1"; then
        python -c "$THUNAR_PY" unmerge "$CONFIG/Thunar/uca.xml"
    fi
    rm -f "$STATE/uca.xml.orig"
    if [ -z "$DESTDIR" ]; then
        refresh_cache desktop "$DATA/applications" "$DATA/applications/*.desktop"
        refresh_cache mime "$DATA/mime" "$DATA/mime/packages/*.xml"
        refresh_cache schemas "$DATA/glib-2.0/schemas" "$DATA/glib-2.0/schemas/*.gschema.*"
    fi
    remove_dirs "$1"
}

do_uninstall() {
    [ "$PER_USER" = 0 ] || do_unset_default
    if [ ! -e "$MANIFEST" ]; then
        echo "Desktop integration: nothing installed in $DATA"
        return 0
    fi
    OLD_RECORD=$(<"$MANIFEST")
    rm -f "$MANIFEST"
    remove_recorded "$OLD_RECORD"
    printf 'Desktop integration removed from %s\n' "$DATA"
}

MIMEAPPS=$XDG_CONFIG_HOME/mimeapps.list

do_set_default() {
    [ -z "$DESTDIR" ] || die "set-default changes this user's settings; it takes no DESTDIR"
    local type
    make_dir "$USER_STATE"
    [ -e "$MIMEAPPS" ] || { make_dir "$XDG_CONFIG_HOME"; note c "$MIMEAPPS"; }
    # gio writes $XDG_CONFIG_HOME/mimeapps.list whatever the desktop; xdg-mime is the fallback.
    while read -r type; do
        if command -v gio > /dev/null; then gio mime "$type" "$HANDLER" > /dev/null
        else xdg-mime default "$HANDLER" "$type"; fi
    done < <(archive_types)
    save_record "$DEFAULTS_RECORD"
    echo "Archiver now opens archives by default (undo: make uninstall, or desktop-integration.sh unset-default)"
}

# Takes our handler out of every list in mimeapps.list, leaving the user's own choices as they are.
do_unset_default() {
    local record=""
    [ -e "$DEFAULTS_RECORD" ] && record=$(<"$DEFAULTS_RECORD")
    if [ -e "$MIMEAPPS" ]; then
        awk -v ours="$HANDLER" '
            /^\[/ { group = $0 }
            (group == "[Default Applications]" || group == "[Added Associations]") && /=/ {
                key = substr($0, 1, index($0, "=") - 1); n = split(substr($0, index($0, "=") + 1), apps, ";")
                kept = ""; for (i = 1; i <= n; i++) if (apps[i] != "" && apps[i] != ours) kept = kept apps[i] ";"
                if (kept != "") print key "=" kept
                next
            }
            { print }' "$MIMEAPPS" > "$MIMEAPPS.tmp-$$"
        mv -f "$MIMEAPPS.tmp-$$" "$MIMEAPPS"
        # A file set-default created that now holds no association at all goes too.
        if grep -qxF "c"$'\t'"$MIMEAPPS" <<< "$record" && ! grep -q = "$MIMEAPPS"; then rm -f "$MIMEAPPS"; fi
    fi
    rm -f "$DEFAULTS_RECORD"
    remove_dirs "$record"
    rmdir "$USER_STATE" 2>/dev/null || true
}

case ${1:-} in
    install) do_install ;;
    uninstall) do_uninstall ;;
    set-default) do_set_default ;;
    unset-default) do_unset_default ;;
    *) die "usage: desktop-integration.sh install | uninstall | set-default | unset-default" ;;
esac
