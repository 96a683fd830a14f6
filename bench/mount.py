#!/usr/bin/python3
"""The measuring half of bench/mount.sh (which builds the corpus, installs the anchors and sets the
environment this reads): every archive mounted by every tool, RUNS times, medians in RESULTS.

For each run, archive and tool (the tools one after the other inside a run, so a drift hits all alike):
  session 1, cold, no index (ours: an empty $XDG_CACHE_HOME; ratarmount: an empty --index-folders):
    G1  exec → first successful listdir of the mount point, the archive dropped from the page cache
    G6  then `find M -printf '%s %T@\\n'` (Z100k, M1)
    G3  then `cat z/last.bin`, then 100 random reads of 4 KiB (or the whole file when smaller) across 100
        members, each open+pread+close timed (p95 reported); the archive dropped before each
    G4  then `cat z/big256`, MB/s, against `tar -xO…f ARCHIVE z/big256` (`unzip -p` for the zip)
    G7  then the daemon's VmHWM (/proc/PID/status), the index on disk, what the tool left in its TMPDIR
  session 2 (ours and ratarmount, which keep an index): G2, exec → listdir with the index kept, cold archive
  sessions 3 and 4 (T1, ZB): G5, 8 members `cat` one after the other (sum), then, on a fresh mount, all 8 at once
Plus, cold, the decoder alone (`gzip -dc` etc.): the reference of G1.
A measurement that passes LIMIT seconds is stopped and reported as "> LIMIT". Every run's figure also goes to
bench/out-mount/values.json.
"""
import hashlib
import json
import math
import os
import random
import shutil
import signal
import stat
import statistics
import subprocess
import sys
import time
import zipfile

RUNS = int(os.environ.get('RUNS', '5'))
LIMIT = float(os.environ.get('LIMIT', '60'))
SCALE = os.environ.get('SCALE', 'full')
WORK = os.environ['WORK']
ARCHIVE_DIR = os.environ['ARCHIVE_DIR']
TREE = os.environ['TREE']
OURS = os.environ['OURS']
RATARMOUNT = os.environ.get('RATARMOUNT', '')
RESULTS = os.environ['RESULTS']
COMMAND_LINE = os.environ.get('COMMAND_LINE', 'bash bench/mount.sh')
STATE = os.path.join(WORK, 'state')
OVER = math.inf  # a measurement stopped at LIMIT; None is a failure


def log(*parts):
    print(time.strftime('[%H:%M:%S]', time.gmtime()), *parts, file=sys.stderr, flush=True)


def drop(path):
    """Drops a file from the page cache, as a user can (posix_fadvise DONTNEED; no privilege needed)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def disk_usage(path):
    """Bytes allocated under path (du)."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:
                pass
    return total


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def vm_hwm_kib(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def finish(procs, deadline):
    """Waits for procs until deadline; returns False (after killing them) if one is still running then."""
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            for other in procs:
                if other.poll() is None:
                    other.kill()
            # A reader killed while its request is in the daemon waits for the answer (FUSE), so give it time.
            for other in procs:
                try:
                    other.wait(timeout=max(60.0, LIMIT))
                except subprocess.TimeoutExpired:
                    pass
            return False
    return True


def timed(command, limit=None):
    """Seconds `command` takes (stdout to /dev/null), OVER past limit, None if it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if not finish([proc], start + (limit or LIMIT)):
        return OVER
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        log('failed (%d): %s: %s' % (proc.returncode, ' '.join(command), proc.stderr.read().decode(errors='replace')[-300:]))
        return None
    return elapsed


READER = r'''
import hashlib, json, os, sys, time
times, wrong = [], []
for path, offset, length, digest in json.load(sys.stdin):
    start = time.perf_counter()
    fd = os.open(path, os.O_RDONLY)
    data = os.pread(fd, length, offset)
    os.close(fd)
    times.append(time.perf_counter() - start)
    if hashlib.sha1(data).hexdigest() != digest:
        wrong.append(path)
print(json.dumps({"times": times, "wrong": wrong}))
'''


def random_reads(plan, mount):
    """The 100 reads in a child (so LIMIT can stop them); returns (p95 seconds or OVER/None, wrong paths)."""
    start = time.perf_counter()
    proc = subprocess.Popen(['/usr/bin/python3', '-c', READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    job = [(os.path.join(mount, p), o, n, d) for p, o, n, d in plan]
    proc.stdin.write(json.dumps(job).encode())
    proc.stdin.close()
    if not finish([proc], start + LIMIT):
        return OVER, []
    if proc.returncode != 0:
        log('random reads failed: %s' % proc.stderr.read().decode(errors='replace')[-300:])
        return None, []
    answer = json.loads(proc.stdout.read())
    times = sorted(answer['times'])
    return times[math.ceil(0.95 * len(times)) - 1], answer['wrong']


# --- Archives ------------------------------------------------------------------------------------------

class Archive:
    def __init__(self, key, file, kind, decoder=None, big_reference=None, tree=True, find=False, reads=True):
        self.key, self.kind, self.tree, self.find, self.reads = key, kind, tree, find, reads
        self.path = os.path.join(ARCHIVE_DIR, file)
        self.size = os.path.getsize(self.path)
        self.decoder = decoder and decoder + [self.path]
        self.big_reference = big_reference and [w if w != '@' else self.path for w in big_reference]


ARCHIVES = [
    Archive('T1', 'T1.tar.gz', 'tar.gz', ['gzip', '-dc'], ['tar', '-xOzf', '@', 'z/big256']),
    Archive('T1x', 'T1.tar.xz', 'tar.xz', ['xz', '-dc'], ['tar', '-xOJf', '@', 'z/big256']),
    Archive('T1z', 'T1.tar.zst', 'tar.zst', ['zstd', '-dc'], ['tar', '--zstd', '-xOf', '@', 'z/big256']),
    Archive('ZB', 'ZB.zip', 'zip', None, ['unzip', '-p', '@', 'z/big256']),
    Archive('Z100k', 'Z100k.zip', 'zip', tree=False, find=True),
    Archive('M1', 'M1.tar', 'tar', tree=False, find=True, reads=False),
]
if os.environ.get('ARCHIVES'):
    wanted = os.environ['ARCHIVES'].split()
    ARCHIVES = [a for a in ARCHIVES if a.key in wanted]


def tree_files():
    """(path, size) of T1's regular files outside z/, in the archive's (sorted) order."""
    found = []
    for folder, dirs, files in os.walk(TREE):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(folder, name)
            st = os.lstat(full)
            relative = os.path.relpath(full, TREE)
            if stat.S_ISREG(st.st_mode) and not relative.startswith('z/') and relative != '.complete':
                found.append((relative, st.st_size))
    return found


def read_plan(archive):
    """100 (member, offset, length, sha1) across 100 members, the same for every tool and run."""
    rng = random.Random(4096)
    if archive.tree:
        candidates = [(p, s) for p, s in TREE_FILES if s > 0]
        chosen = rng.sample(candidates, 100)

        def content(path, offset, length):
            with open(os.path.join(TREE, path), 'rb') as f:
                f.seek(offset)
                return f.read(length)
    else:
        zip_file = zipfile.ZipFile(archive.path)
        chosen = rng.sample([(i.filename, i.file_size) for i in zip_file.infolist() if not i.is_dir()], 100)

        def content(path, offset, length):
            return zip_file.read(path)[offset:offset + length]
    plan = []
    for path, size in chosen:
        length = min(4096, size)
        offset = rng.randint(0, size - length)
        plan.append((path, offset, length, hashlib.sha1(content(path, offset, length)).hexdigest()))
    return plan


def parallel_members():
    """8 members of 1–16 MiB spread across the archive (G5)."""
    candidates = [p for p, s in TREE_FILES if (1 << 20) <= s <= (16 << 20)]
    return [candidates[int((i + 0.5) * len(candidates) / 8)] for i in range(8)]


# --- Tools ---------------------------------------------------------------------------------------------

class Tool:
    key = label = ''
    kinds = {'tar.gz', 'tar.xz', 'tar.zst', 'zip', 'tar'}
    keeps_index = False
    starter_exits = False  # ours: the --mount process exits once the folder is ready

    def __init__(self):
        self.index_dir = os.path.join(STATE, self.key + '-index')
        self.tmp_dir = os.path.join(STATE, self.key + '-tmp')
        self.missing = self.check()

    def check(self):
        """Why the tool cannot run, or None."""
        return None

    def env(self):
        return dict(os.environ, TMPDIR=self.tmp_dir)

    def command(self, archive, mount):
        raise NotImplementedError

    def start(self, archive, mount):
        os.makedirs(self.tmp_dir, exist_ok=True)
        os.makedirs(self.index_dir, exist_ok=True)
        with open(os.path.join(STATE, self.key + '.log'), 'ab') as err:
            return subprocess.Popen(self.command(archive, mount), env=self.env(), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err)

    def daemon(self, proc, mount):
        return proc.pid

    def index_bytes(self, archive):
        return disk_usage(self.index_dir)

    def version(self):
        return ''


class Ours(Tool):
    key, label = 'ours', 'ours'
    keeps_index = True
    starter_exits = True

    def check(self):
        return None if os.access(OURS, os.X_OK) else 'no %s' % OURS

    def env(self):
        return dict(os.environ, TMPDIR=self.tmp_dir, XDG_CACHE_HOME=self.index_dir,
                    XDG_RUNTIME_DIR=fresh_once(os.path.join(STATE, 'run')))

    def command(self, archive, mount):
        return [OURS, '--mount', '--idle-timeout', '0', archive.path, mount]

    def daemon(self, proc, mount):
        """The --serve process that holds this mount (the starter has left by now)."""
        wanted = [b'--serve', os.fsencode(mount)]
        for entry in os.listdir('/proc'):
            if entry.isdigit():
                try:
                    with open('/proc/%s/cmdline' % entry, 'rb') as f:
                        args = f.read().split(b'\0')
                except OSError:
                    continue
                if all(w in args for w in wanted) and alive(int(entry)):
                    return int(entry)
        return None

    def indexes(self):
        folder = os.path.join(self.index_dir, 'io.github.archiver', 'indexes')
        try:
            return [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith('.index')]
        except OSError:
            return []

    def index_bytes(self, archive):
        """The kept index (written in the background once the folder is served): waits for it."""
        deadline = time.perf_counter() + min(LIMIT, 60)
        while not self.indexes() and time.perf_counter() < deadline:
            time.sleep(0.05)
        return sum(os.path.getsize(p) for p in self.indexes()) if self.indexes() else None

    def version(self):
        return run_text([OURS, '--version'])


class ArchiveMount(Tool):
    key, label = 'archivemount', 'archivemount'

    def check(self):
        return None if shutil.which('archivemount') else 'not installed'

    def command(self, archive, mount):
        return ['archivemount', '-f', '-o', 'readonly', archive.path, mount]

    def index_bytes(self, archive):
        return 0

    def version(self):
        return run_text(['archivemount', '--version'], 'archivemount')


class FuseZip(Tool):
    key, label = 'fuse-zip', 'fuse-zip'
    kinds = {'zip'}

    def check(self):
        return None if shutil.which('fuse-zip') else 'not installed'

    def command(self, archive, mount):
        return ['fuse-zip', '-f', '-r', archive.path, mount]

    def index_bytes(self, archive):
        return 0

    def version(self):
        return run_text(['fuse-zip', '-V'], 'fuse-zip')


class RatarMount(Tool):
    key, label = 'ratarmount', 'ratarmount -P 2'
    keeps_index = True

    def check(self):
        if not RATARMOUNT or not os.access(RATARMOUNT, os.X_OK):
            return 'not installed (the venv or pip install ratarmount==1.3.0 failed, or INSTALL=0)'
        return None

    def command(self, archive, mount):
        return [RATARMOUNT, '-f', '-P', '2', '--index-folders', self.index_dir, archive.path, mount]

    def version(self):
        return run_text([RATARMOUNT, '--version'])


_fresh_done = set()


def fresh_once(path):
    if path not in _fresh_done:
        fresh(path)
        _fresh_done.add(path)
    return path


def run_text(command, word=None):
    """The first line of the command's output (stdout, then stderr) that holds word."""
    try:
        out = subprocess.run(command, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ''
    text = (out.stdout + b'\n' + out.stderr).decode(errors='replace').splitlines()
    return next((line.strip() for line in text if line.strip() and (word is None or word in line)), '')


TOOLS = [Ours(), ArchiveMount(), RatarMount(), FuseZip()]
if os.environ.get('TOOLS'):
    TOOLS = [t for t in TOOLS if t.key in os.environ['TOOLS'].split()]


# --- Mounting ------------------------------------------------------------------------------------------

class Session:
    """One mount by one tool: start it, time it to the first listing, stop it."""

    def __init__(self, tool, archive):
        self.tool, self.archive = tool, archive
        self.mount = os.path.join(STATE, 'mnt', tool.key)
        self.proc = None
        self.pid = None

    def open(self):
        """Seconds from exec to the first successful listdir (OVER, or None on failure)."""
        os.makedirs(self.mount, exist_ok=True)
        if os.path.ismount(self.mount):
            unmount(self.mount)
        start = time.perf_counter()
        self.proc = self.tool.start(self.archive, self.mount)
        LIVE.add(self)
        deadline = start + LIMIT
        while True:
            if os.path.ismount(self.mount):
                try:
                    if os.listdir(self.mount):
                        elapsed = time.perf_counter() - start
                        break
                except OSError:
                    pass
            code = self.proc.poll()
            if code is not None and (code != 0 or not self.tool.starter_exits):
                log('%s on %s exited with %d before the folder listed (see %s.log)'
                    % (self.tool.key, self.archive.key, code, os.path.join(STATE, self.tool.key)))
                self.close()
                return None
            if time.perf_counter() > deadline:
                self.close()
                return OVER
            time.sleep(0.005)
        if self.tool.starter_exits:
            finish([self.proc], time.perf_counter() + 30)
        self.pid = self.tool.daemon(self.proc, self.mount)
        return elapsed

    def close(self):
        pid = self.pid
        if pid is None and self.proc:
            pid = self.tool.daemon(self.proc, self.mount) if self.tool.starter_exits else self.proc.pid
        if os.path.ismount(self.mount):
            if not unmount(self.mount) and pid:
                log('%s: the unmount failed; its daemon killed' % self.tool.key)
                os.kill(pid, 9)
                subprocess.run(['umount', '-l', self.mount], stderr=subprocess.DEVNULL)
        elif pid and alive(pid):
            os.kill(pid, 9)  # never mounted (stopped at LIMIT) or half gone
        deadline = time.perf_counter() + 30
        while pid and alive(pid) and time.perf_counter() < deadline:
            time.sleep(0.02)
        if pid and alive(pid):
            log('%s did not exit after its unmount; killed' % self.tool.key)
            os.kill(pid, 9)
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait()
        os.makedirs(self.mount, exist_ok=True)
        LIVE.discard(self)


LIVE = set()  # sessions not closed yet: closed on the way out, whatever stops the script


def unmount(mount):
    for command in (['fusermount3', '-u', mount], ['fusermount', '-u', mount], ['umount', mount]):
        if shutil.which(command[0]) and subprocess.run(command, stderr=subprocess.DEVNULL).returncode == 0:
            return True
    return False


# --- The runs ------------------------------------------------------------------------------------------

values = {}      # (metric, archive key, tool key) → [value per run]
checks = []      # correctness findings (wrong bytes), with the run


def note(metric, archive, tool, value):
    values.setdefault((metric, archive.key, tool), []).append(value)


def show(value):
    if isinstance(value, str):  # 'none': not measured (yet)
        return '—'
    if value is None:
        return 'failed'
    if value == OVER:
        return '> %g s' % LIMIT
    return '%.3f' % value if value < 1 else '%.2f' % value


def measure_session(tool, archive, run):
    fresh(tool.index_dir)
    fresh(tool.tmp_dir)
    drop(archive.path)
    session = Session(tool, archive)
    ready = session.open()
    note('G1', archive, tool.key, ready)
    log('run %d %s %s: ready %s' % (run, archive.key, tool.key, show(ready)))
    if ready is None or ready == OVER:
        return
    mount = session.mount
    if archive.find:
        took = timed(['find', mount, '-printf', '%s %T@\n'])
        note('G6', archive, tool.key, took)
        log('  find %s' % show(took))
    if archive.tree:
        drop(archive.path)
        took = timed(['cat', os.path.join(mount, 'z/last.bin')])
        note('G3a', archive, tool.key, took)
        log('  cat z/last.bin %s' % show(took))
    if archive.reads:
        drop(archive.path)
        p95, wrong = random_reads(PLANS[archive.key], mount)
        note('G3b', archive, tool.key, p95)
        if wrong:
            checks.append('%s, %s, run %d: %d of the 100 random reads gave other bytes than the file (%s, …)'
                          % (archive.key, tool.key, run, len(wrong), os.path.relpath(wrong[0], mount)))
        log('  random reads p95 %s%s' % (show(p95), ', %d wrong' % len(wrong) if wrong else ''))
    if archive.tree:
        drop(archive.path)
        took = timed(['cat', os.path.join(mount, 'z/big256')])
        note('G4', archive, tool.key, took)
        log('  cat z/big256 %s' % show(took))
        if run == 1 and tool.key == 'ours':
            for name in ('z/last.bin', 'z/big256'):
                if subprocess.run(['cmp', '-s', os.path.join(mount, name), os.path.join(TREE, name)]).returncode:
                    checks.append('%s, ours, run 1: %s differs from the file packed' % (archive.key, name))
    note('index', archive, tool.key, tool.index_bytes(archive))
    hwm = vm_hwm_kib(session.pid) if session.pid else None
    note('G7', archive, tool.key, hwm)
    note('tmp', archive, tool.key, disk_usage(tool.tmp_dir))
    log('  VmHWM %s KiB (pid %s)' % (hwm, session.pid))
    session.close()
    if tool.keeps_index:
        drop(archive.path)
        session = Session(tool, archive)
        again = session.open()
        note('G2', archive, tool.key, again)
        log('  second mount, index kept: %s' % show(again))
        session.close()
    if archive.key in ('T1', 'ZB'):
        members = PARALLEL
        session = Session(tool, archive)
        if session.open() in (None, OVER):
            return
        singles = []
        for member in members:  # the 8 together within LIMIT, as the 8 at once
            left = LIMIT - sum(singles)
            if None in singles or left <= 0:
                break
            drop(archive.path)
            singles.append(timed(['cat', os.path.join(session.mount, member)], left))
        session.close()
        single_sum = None if None in singles else OVER if len(singles) < 8 or OVER in singles else sum(singles)
        session = Session(tool, archive)
        if session.open() in (None, OVER):
            return
        drop(archive.path)
        start = time.perf_counter()
        procs = [subprocess.Popen(['cat', os.path.join(session.mount, m)], stdout=subprocess.DEVNULL)
                 for m in members]
        done = finish(procs, start + LIMIT)
        wall = time.perf_counter() - start if done else OVER
        if done and any(p.returncode for p in procs):
            wall = None
        session.close()
        note('G5sum', archive, tool.key, single_sum)
        note('G5wall', archive, tool.key, wall)
        # Not to be had when either side passed LIMIT (OVER, shown as —) or failed (None).
        ratio = None if single_sum is None or wall is None else OVER if OVER in (single_sum, wall) else wall / single_sum
        note('G5', archive, tool.key, ratio)
        log('  8 readers: one by one %s, together %s' % (show(single_sum), show(wall)))


def measure_references(archive):
    if archive.decoder:
        drop(archive.path)
        note('ref', archive, 'decoder', timed(archive.decoder))
    if archive.big_reference:
        drop(archive.path)
        note('ref', archive, 'big', timed(archive.big_reference))


# --- Report --------------------------------------------------------------------------------------------

def median(metric, archive, tool):
    runs = values.get((metric, archive.key, tool))
    if not runs:
        return 'none'
    kept = [v for v in runs if v is not None]
    if not kept:
        return None
    return statistics.median(kept)


def cell(metric, archive, tool, form=show):
    if tool.missing:
        return 'missing'
    if archive.kind not in tool.kinds:
        return '—'
    value = median(metric, archive, tool.key)
    if value == 'none':
        return '—'
    runs = values.get((metric, archive.key, tool.key), [])
    failed = sum(v is None for v in runs)
    text = form(value) if value is not None else 'failed'
    return text + (' (%d of %d failed)' % (failed, len(runs)) if failed and value is not None else '')


def number(value):
    return isinstance(value, (int, float)) and value is not None and not isinstance(value, bool)


def anchors_best(metric, archive):
    found = [median(metric, archive, t.key) for t in TOOLS
             if t.key != 'ours' and not t.missing and archive.kind in t.kinds]
    found = [v for v in found if number(v)]
    return min(found) if found else None


def verdict(ok):
    return 'yes' if ok else '**no**'


def table(title, header, rows, lines):
    if not rows:
        return
    lines += ['', '### ' + title, '', '| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(r) + ' |' for r in rows]


def mib(kib):
    return '%.1f MiB' % (kib / 1024) if number(kib) else 'failed'


def size_text(n):
    if not number(n):
        return 'not kept' if n is None else str(n)
    return '%.1f MB' % (n / 1e6) if n >= 1e5 else '%.0f kB' % (n / 1e3)


def report(elapsed, versions):
    tool_heads = [t.label for t in TOOLS]
    lines = ['# Open as Folder: ours against the archive mounters (issue 18, item 5)', '',
             'Made by `%s` on %s (%s UTC), %d run%s each, median reported; LIMIT %g s. Scale: **%s**%s.'
             % (COMMAND_LINE, time.strftime('%Y-%m-%d'), time.strftime('%H:%M', time.gmtime()), RUNS,
                '' if RUNS == 1 else 's', LIMIT, SCALE,
                ' (not the protocol\'s corpus: figures indicative only)' if SCALE != 'full' else ''),
             '%d cores, %s; the whole run took %s.' % (os.cpu_count(), cpu_model(), duration(elapsed)), '',
             'Tools: ' + '; '.join('%s: %s' % (t.label, t.missing and 'MISSING (%s)' % t.missing or versions[t.key])
                                   for t in TOOLS) + '.', '',
             'Corpus (../shared/bench/make-corpus.sh, ../shared/notes/browse-as-folder.md §6): ' + '; '.join(
                 '%s `%s` %s' % (a.key, os.path.basename(a.path), size_text(a.size)) for a in ARCHIVES) + '.',
             'T1: `mixed` ×%d under %s, `z/big256` (%d MiB of big.bin), `z/last.bin` (8 MiB, last); T1x/T1z: '
             'the same tar in one xz block / one zstd frame; ZB: its zip (bsdtar); Z100k: %d files of 1–4 KiB; '
             'M1: a tar of %d empty files.' % (COPIES, ' '.join(c + '/' for c in 'abcd'[:COPIES]), BIG_MIB,
                                               Z100K, M1_FILES), '',
             '"Cold": the archive dropped from the page cache (posix_fadvise DONTNEED) before each timing; '
             'a first mount starts with no index (ours: an empty `$XDG_CACHE_HOME`; ratarmount: an empty '
             '`--index-folders`). Every daemon runs in the foreground as a child of the script, ours through '
             '`open-with-archiver --mount --idle-timeout 0` (its `--serve` daemon found in /proc). '
             '"missing": the anchor could not be installed; "—": not applicable; "failed": the tool gave an '
             'error (see bench/out-mount/state/TOOL.log).']
    # G1
    rows = []
    for a in ARCHIVES:
        ours, best = median('G1', a, 'ours'), anchors_best('G1', a)
        ref = median('ref', a, 'decoder')
        target, ok = [], True
        if not number(ours):
            ok = False
        if a.key in ('ZB', 'Z100k'):
            target.append('≤ 0.5 s')
            ok = ok and ours <= 0.5
        if a.key == 'T1':
            target.append('≤ 1.2 × gzip -dc')
            ok = ok and number(ref) and ours <= 1.2 * ref
        if a.key in ('T1', 'ZB', 'Z100k', 'M1'):
            target.append('< every anchor')
            ok = ok and (best is None or ours < best)
        if a.key in ('T1x', 'T1z'):
            target.append('≤ 1.05 × best anchor')
            ok = ok and (best is None or ours <= 1.05 * best)
        rows.append([a.key, size_text(a.size)] + [cell('G1', a, t) for t in TOOLS]
                    + [(' '.join(a.decoder[:2]) + ': ' + show(ref)) if a.decoder else '—',
                       ', '.join(target), verdict(ok)])
    table('G1: time to the first listing, cold, no index (s)', ['archive', 'size'] + tool_heads
          + ['decoder alone, cold', 'target (ours)', 'met'], rows, lines)
    # G2
    rows = []
    for a in ARCHIVES:
        ours = median('G2', a, 'ours')
        limit = 0.5 if a.key == 'M1' else 0.15
        rows.append([a.key] + [cell('G2', a, t) if t.keeps_index or t.missing else '— (no index)' for t in TOOLS]
                    + ['≤ %g s' % limit, verdict(number(ours) and ours <= limit)])
    table('G2: a second mount with the index kept, cold archive (s)', ['archive'] + tool_heads + ['target', 'met'],
          rows, lines)
    # G3
    rows = []
    for a in [a for a in ARCHIVES if a.tree]:
        ours = median('G3a', a, 'ours')
        rows.append([a.key] + [cell('G3a', a, t) for t in TOOLS]
                    + (['≤ 0.3 s', verdict(number(ours) and ours <= 0.3)] if a.key == 'T1' else ['—', '—']))
    table('G3: `cat z/last.bin` (8 MiB, stored last) right after the first listing (s)',
          ['archive'] + tool_heads + ['target', 'met'], rows, lines)
    rows = []
    for a in [a for a in ARCHIVES if a.reads]:
        ours = median('G3b', a, 'ours')
        ms = lambda v: show(v) if v in (None, OVER) else '%.1f' % (v * 1000)
        rows.append([a.key] + [cell('G3b', a, t, ms) for t in TOOLS]
                    + (['≤ 50 ms', verdict(number(ours) and ours <= 0.05)] if a.key == 'T1' else ['—', '—']))
    table('G3: 100 random reads of 4 KiB across 100 members, p95 (ms; each open + pread + close)',
          ['archive'] + tool_heads + ['target', 'met'], rows, lines)
    # G4
    rows = []
    big = BIG_MIB * (1 << 20) / 1e6
    speed = lambda v: 'failed' if v is None else '< %.1f (> %g s)' % (big / LIMIT, LIMIT) if v == OVER else \
        '%.0f' % (big / v)
    for a in [a for a in ARCHIVES if a.tree]:
        ours, ref = median('G4', a, 'ours'), median('ref', a, 'big')
        ratio = ref / ours if number(ours) and number(ref) else None
        rows.append([a.key] + [cell('G4', a, t, speed) for t in TOOLS]
                    + ['`%s`: %s' % (' '.join(a.big_reference[:2]), speed(ref) if ref != 'none' else '—'),
                       '%.2f×' % ratio if ratio else '—']
                    + (['≥ 0.9×', verdict(ratio is not None and ratio >= 0.9)] if a.key == 'T1' else ['—', '—']))
    table('G4: `cat z/big256` (%d MiB), sequential, MB/s' % BIG_MIB,
          ['archive'] + tool_heads + ['reference, cold', 'ours ÷ reference', 'target', 'met'], rows, lines)
    if rows:
        lines += ['', 'The reference is the issue\'s: `tar -xO…f ARCHIVE z/big256` decodes all that is stored before '
                  'the member (and tar reads on to the end), so its MB/s is the member\'s size over that whole time.']
    # G5
    rows = []
    for a in [a for a in ARCHIVES if a.key in ('T1', 'ZB')]:
        ours = median('G5', a, 'ours')

        def both(tool, a=a):
            if tool.missing or a.kind not in tool.kinds:
                return cell('G5', a, tool)
            return '%s / %s = %s' % (show(median('G5wall', a, tool.key)), show(median('G5sum', a, tool.key)),
                                     cell('G5', a, tool, lambda v: '—' if v in (None, OVER) else '%.2f' % v))
        rows.append([a.key] + [both(t) for t in TOOLS] + ['≤ 0.65', verdict(number(ours) and ours <= 0.65)])
    if rows:
        table('G5: 8 readers of different members at once: wall ÷ the sum of their single times (s / s = ratio)',
              ['archive'] + tool_heads + ['target', 'met'], rows, lines)
        lines += ['', 'Members: ' + ', '.join('`%s`' % m for m in PARALLEL) + '. Singles on one mount, the 8 '
                  'together on a fresh one (index kept), the archive cold before each.']
    # G6
    rows = []
    for a in [a for a in ARCHIVES if a.find]:
        ours, best = median('G6', a, 'ours'), anchors_best('G6', a)
        if a.key == 'Z100k':
            target, ok = '≤ 1.0 s and ≤ every anchor', number(ours) and ours <= 1.0 and (best is None or ours <= best)
            rows.append([a.key] + [cell('G6', a, t) for t in TOOLS] + [target, verdict(ok)])
        else:
            rows.append([a.key] + [cell('G6', a, t) for t in TOOLS] + ['—', '—'])
    table("G6: `find M -printf '%s %T@\\n'` right after the first listing (s)",
          ['archive'] + tool_heads + ['target', 'met'], rows, lines)
    # G7
    rows = []
    for a in ARCHIVES:
        ours = median('G7', a, 'ours')
        limit = 128 if a.key == 'M1' else 48
        has_target = a.key in ('T1', 'ZB', 'Z100k', 'M1')
        rows.append([a.key] + [cell('G7', a, t, mib) for t in TOOLS]
                    + (['≤ %d MiB' % limit, verdict(number(ours) and ours <= limit * 1024)] if has_target else ['—', '—']))
    table('G7: the daemon\'s peak memory (VmHWM, after G3–G4)', ['archive'] + tool_heads + ['target', 'met'],
          rows, lines)
    lines += ['', 'ratarmount: its main process (`-P 2` decodes gzip with threads in that process).']
    rows = []
    for a in ARCHIVES:
        ours = median('index', a, 'ours')
        limit = 64 << 20 if a.key == 'M1' else 0.02 * a.size
        rows.append([a.key, size_text(a.size)] + [cell('index', a, t, size_text) for t in TOOLS]
                    + [cell('tmp', a, TOOLS[0], size_text) if TOOLS[0].key == 'ours' else '—',
                       '≤ 64 MiB' if a.key == 'M1' else '≤ 2 %% (%s)' % size_text(limit),
                       verdict(number(ours) and ours <= limit)])
    table('G7: the index on disk (ours: the kept index; ratarmount: its --index-folders; the others keep none)',
          ['archive', 'archive size'] + tool_heads + ['ours\' TMPDIR after', 'target (ours)', 'met'], rows, lines)
    lines += ['', '## Checks', '']
    lines += ['- ' + c for c in checks] or ['- every random read (all tools) gave the packed bytes; ours\' '
                                            '`z/last.bin` and `z/big256` equal the files packed (cmp, run 1).']
    text = '\n'.join(lines) + '\n'
    # Every run's figure, for a closer look than the medians (seconds; VmHWM in KiB; sizes in bytes).
    with open(os.path.join(WORK, 'values.json'), 'w') as f:
        json.dump([{'metric': m, 'archive': a, 'tool': t, 'runs': [None if v is None else 'over' if v == OVER else v
                                                                  for v in runs]}
                   for (m, a, t), runs in sorted(values.items())] + [{'checks': checks}], f, indent=1)
    if os.path.exists(RESULTS):
        old = open(RESULTS).read()
        if '\n## Notes' in old:
            text += '\n' + old[old.index('\n## Notes') + 1:]
    with open(RESULTS, 'w') as f:
        f.write(text)


def duration(seconds):
    return '%.0f s' % seconds if seconds < 120 else '%.0f min' % (seconds / 60) if seconds < 7200 else \
        '%.1f h' % (seconds / 3600)


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown CPU'


COPIES = 1 if SCALE == 'small' else 4
BIG_MIB = 32 if SCALE == 'small' else 256
Z100K = 10000 if SCALE == 'small' else 100000
M1_FILES = 100000 if SCALE == 'small' else 1000000


def main():
    global TREE_FILES, PLANS, PARALLEL
    started = time.perf_counter()
    fresh(STATE)
    for tool in TOOLS:
        if tool.missing:
            log('%s: missing (%s)' % (tool.key, tool.missing))
    versions = {t.key: t.version() for t in TOOLS if not t.missing}
    TREE_FILES = tree_files()
    PLANS = {a.key: read_plan(a) for a in ARCHIVES if a.reads}
    PARALLEL = parallel_members()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for archive in ARCHIVES:
            for run in range(1, RUNS + 1):
                measure_references(archive)
                for tool in TOOLS:
                    if not tool.missing and archive.kind in tool.kinds:
                        measure_session(tool, archive, run)
            report(time.perf_counter() - started, versions)  # after each archive: a stopped run leaves figures
    finally:
        for session in list(LIVE):
            session.close()
    log('wrote %s' % RESULTS)


if __name__ == '__main__':
    main()
