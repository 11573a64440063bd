# The wheelhouse installer (core/pkgs/fastwheel.h): pyrt runs it in the managed
# interpreter as  python3 -I -S -B -c <this file> WHEELHOUSE -- REQUIREMENT...
# so every string reaches it as data (sys.argv).
#
# It imports the standard library and pip._vendor.packaging's utils, tags,
# specifiers and version only: never pip itself, whose first start compiles
# hundreds of modules.  packaging's requirements and markers are not used
# either: in pip 23 they pull in pyparsing (210 KB to compile at each start
# under -B), so requirements and markers are read by a small parser here,
# and whatever it does not understand goes to pip (exit 3).
#
# -B: nothing of pip or packaging gets a .pyc from this run; the .py files
# the installer writes are compiled explicitly (py_compile), once.
#
# -c runs it as __main__; tests/py imports it (as a module) to test its pure
# parts, after bind_packaging() with a packaging of their choice.
import os, sys, re, zipfile, base64, hashlib, shutil, signal, sysconfig
UNDECIDED, REFUSED, FAILED, CANCELLED = 3, 4, 5, 130
class Undecided(Exception): pass
class Cancelled(Exception): pass
class Refused(Exception):
    def __init__(self, why, wheel=None):
        Exception.__init__(self, why)
        self.wheel = wheel
# A member may unpack to at most RATIO times its compressed size once it is
# over FLOOR: deflate tops out near 1032:1 on runs of one byte, while real
# package files (code, data tables, fonts, test fixtures) stay far below
# 200:1; the floor lets small, very repetitive files (a 100 KB file of
# spaces) through, which cost nothing.  A wheel may unpack to at most
# WHEEL_BYTES_MAX in all: pyrt's cap for a runtime archive without a pinned
# size (PYRT_EXTRACT_DEFAULT_BYTES, core/dist/extract.h), far above any wheel.
RATIO, FLOOR = 200, 1 << 20
WHEEL_BYTES_MAX = 1 << 30
CHUNK = 1 << 20
# Each distribution is written into STAGING/<name-version>/<scheme>/...
# (inside purelib: the same filesystem as every scheme it installs to,
# checked), its RECORD last there; then its files are renamed into place
# and its .dist-info last of all, so it counts as installed only once
# everything is there.  A run that stopped midway leaves a staging folder:
# the next run finishes it when its RECORD is there (nothing was moved
# before), and removes it otherwise (repair()).
STAGING = '.pyrt-fastwheel'
SCHEMES = ('purelib', 'platlib', 'data')
# The crash points of the fault tests (core/util/testhook.h), in a build with
# PYRT_TEST_HOOKS, which alone passes these variables through: each point
# is numbered by how often it was passed ("fw-member-3": the third
# member), and PYRT_TEST_HOOK_TRACE, when set, lists every point passed.
PASSED = {}
def hook(kind):
    env = os.environ
    if not ('PYRT_TEST_HOOK' in env or 'PYRT_TEST_HOOK_TRACE' in env):
        return
    PASSED[kind] = n = PASSED.get(kind, 0) + 1
    point = '%s-%d' % (kind, n)
    if env.get('PYRT_TEST_HOOK_TRACE'):
        with open(env['PYRT_TEST_HOOK_TRACE'], 'a') as f:
            f.write(point + '\n')
    for item in env.get('PYRT_TEST_HOOK', '').split(','):
        name, _, action = item.rpartition(':')
        if name != point:
            continue
        if action == 'kill':
            os.kill(os.getpid(), signal.SIGKILL)
        if action == 'pause' and env.get('PYRT_TEST_HOOK_FILE'):
            import time
            f = env['PYRT_TEST_HOOK_FILE']
            with open(f, 'w') as out:
                out.write('%d %s\n' % (os.getpid(), point))
            for _ in range(3000):  # a minute at most, as testhook.c
                if not os.path.exists(f):
                    break
                time.sleep(0.02)
def canon(n): return re.sub(r'[-_.]+', '-', n).lower()
NAME = re.compile(r'\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*(.*)$', re.S)
TOK = re.compile(r'\s*(?:(\()|(\))|(===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b)|(and\b|or\b)|(\'[^\']*\'|"[^"]*")|([A-Za-z_][A-Za-z0-9_.]*))')
ENV = None
def environment():
    global ENV
    if ENV is None:
        import platform
        iv = sys.implementation.version
        impl = '%d.%d.%d' % (iv.major, iv.minor, iv.micro)
        if iv.releaselevel != 'final':
            impl += iv.releaselevel[0] + str(iv.serial)
        ENV = {'implementation_name': sys.implementation.name,
               'implementation_version': impl, 'os_name': os.name,
               'platform_machine': platform.machine(),
               'platform_release': platform.release(),
               'platform_system': platform.system(),
               'platform_version': platform.version(),
               'python_full_version': platform.python_version(),
               'platform_python_implementation': platform.python_implementation(),
               'python_version': '.'.join(platform.python_version_tuple()[:2]),
               'sys_platform': sys.platform, 'extra': ''}
    return ENV
def prerelease(v):
    try:
        return Version(v).is_prerelease
    except InvalidVersion:
        return False
def marker_true(text):
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOK.match(text, pos)
        if not m or m.end() == pos:
            raise Undecided('marker %r' % text)
        pos = m.end()
        kinds = ('(', ')', 'op', 'bool', 'str', 'var')
        for k, g in zip(kinds, m.groups()):
            if g is not None:
                toks.append((k, re.sub(r'\s+', ' ', g) if k == 'op' else g))
    toks.append(('end', None))
    i = [0]
    def peek(): return toks[i[0]]
    def take(): t = toks[i[0]]; i[0] += 1; return t
    def value():
        k, v = take()
        if k == 'str':
            return v[1:-1], False
        if k == 'var':
            env = environment()
            if v not in env:
                raise Undecided('marker variable %s' % v)
            return env[v], v == 'extra'
        raise Undecided('marker %r' % text)
    def atom():
        if peek()[0] == '(':
            take(); r = expr()
            if take()[0] != ')':
                raise Undecided('marker %r' % text)
            return r
        (l, le), (k, op), (r, re_) = value(), take(), value()
        if k != 'op':
            raise Undecided('marker %r' % text)
        if le or re_:
            l, r = canon(l), canon(r)
        if op == 'in':
            return l in r
        if op == 'not in':
            return l not in r
        try:
            spec = Specifier(op + r)
        except InvalidSpecifier:
            if op == '==':
                return l == r
            if op == '!=':
                return l != r
            raise Undecided('marker %r' % text)
        # packaging 21.3 (pip 23) tests a pre-release on the left as outside
        # every specifier, packaging 22+ as any version: pip's to decide
        if prerelease(l):
            raise Undecided('marker %r compares a pre-release' % text)
        return spec.contains(l, prereleases=True)
    def conj():
        r = atom()
        while peek() == ('bool', 'and'):
            take(); r = atom() and r
        return r
    def expr():
        r = conj()
        while peek() == ('bool', 'or'):
            take(); r = conj() or r
        return r
    r = expr()
    if peek()[0] != 'end':
        raise Undecided('marker %r' % text)
    return r
def parse_req(s):
    # (canonical name, SpecifierSet), or None when its marker says no
    m = NAME.match(s)
    if not m:
        raise Undecided('requirement %r' % s)
    name, extras, rest = m.groups()
    if extras and extras.strip('[] '):
        raise Undecided('%s asks for extras %s' % (name, extras))
    spec, _, marker = rest.partition(';')
    spec = spec.strip()
    if spec.startswith('@') or '@' in spec:
        raise Undecided('%s is a direct reference' % name)
    if spec.startswith('(') and spec.endswith(')'):
        spec = spec[1:-1].strip()
    try:
        spec = SpecifierSet(spec)
    except InvalidSpecifier:
        raise Undecided('requirement %r' % s)
    if marker.strip() and not marker_true(marker):
        return None
    return canon(name), spec
class Meta:
    # RFC 822 headers up to the first blank line: all this reads of METADATA
    # and WHEEL (the email package would cost more to import than the rest)
    def __init__(self, text):
        self.h, last = {}, None
        for line in text.splitlines():
            if not line.strip():
                break
            if line[0] in ' \t' and last:
                last[-1] += ' ' + line.strip()
                continue
            k, sep, v = line.partition(':')
            if not sep:
                raise Undecided('a header line %r' % line[:60])
            last = self.h.setdefault(k.strip().lower(), [])
            last.append(v.strip())
    def __getitem__(self, k):
        v = self.h.get(k.lower())
        return v[0] if v else None
    def get_all(self, k):
        return self.h.get(k.lower())
def meta_of(text):
    return Meta(text)
class Wheel:
    def __init__(self, path, name, ver, build, rank):
        self.path, self.name, self.ver, self.build, self.rank = path, name, ver, build, rank
def wheelhouse(wh):
    tags = {t: i for i, t in enumerate(sys_tags())}
    found = {}
    for f in sorted(os.listdir(wh)):
        if not f.endswith('.whl'):
            continue
        try:
            name, ver, build, wtags = parse_wheel_filename(f)
        except Exception:
            continue
        ranks = [tags[t] for t in wtags if t in tags]
        if ranks:
            found.setdefault(name, []).append(
                Wheel(os.path.join(wh, f), name, ver, build, -min(ranks)))
    return found
class Installed:
    def __init__(self, where, info, meta):
        self.where, self.info, self.version = where, info, meta['Version']
        self.requires = meta.get_all('Requires-Dist')
    def complete(self):
        # installed means a RECORD listing files that are all there: a
        # .dist-info without one, or with files gone, is installed again
        site = self.where
        try:
            with open(os.path.join(site, self.info, 'RECORD'), encoding='utf-8', newline='') as f:
                import csv
                rows = [r for r in csv.reader(f) if r]
        except (OSError, UnicodeDecodeError, ValueError):
            return False
        try:
            # the paths its wheel never held, as pyrt found them
            # (core/runtime/dists.h PYRT_DISTS_WHEEL_FAULTS)
            with open(os.path.join(site, self.info, 'PYRT-WHEEL-FAULTS'), encoding='utf-8') as f:
                faults = set(f.read().split('\n'))
        except (OSError, UnicodeDecodeError):
            faults = set()
        return bool(rows) and all(os.path.lexists(os.path.join(site, r[0])) or r[0] in faults
                                  for r in rows)
def dist_name(where, e):
    # the name pip would see: METADATA's, else the folder's
    if e.endswith('.egg-info'):
        return canon(e[:-9].split('-')[0])
    try:
        with open(os.path.join(where, e, 'METADATA'), encoding='utf-8') as f:
            n = meta_of(f.read())['Name']
    except (OSError, UnicodeDecodeError, Undecided):
        n = None
    return canon(n or e[:-10].rpartition('-')[0])
def pth_dirs(sitedirs):
    # the folders the .pth files of the site folders add (what site adds;
    # their "import" lines are code, not read here)
    out = []
    for sd in sitedirs:
        try:
            names = sorted(n for n in os.listdir(sd) if n.endswith('.pth'))
        except OSError:
            continue
        for n in names:
            try:
                with open(os.path.join(sd, n), encoding='utf-8') as f:
                    lines = f.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                line = line.rstrip()
                if not line or line.startswith('#') or line.startswith(('import ', 'import\t')):
                    continue
                out.append(os.path.join(sd, line))
    return out
def elsewhere(targets, sitedirs):
    # {name: folder} of every distribution in a folder on sys.path (the one
    # pip sees under -I, .pth folders included) other than the targets
    real = {os.path.realpath(t) for t in targets}
    out = {}
    for where in list(sys.path) + pth_dirs(sitedirs):
        if not where or os.path.realpath(where) in real or not os.path.isdir(where):
            continue
        real.add(os.path.realpath(where))
        for e in os.listdir(where):
            if e.endswith(('.dist-info', '.egg-info')):
                out.setdefault(dist_name(where, e), where)
    return out
def installed(dirs):
    out = {}
    for where in dirs:
        try:
            names = os.listdir(where)
        except FileNotFoundError:
            continue
        for e in names:
            if e.endswith('.egg-info'):
                raise Undecided('%s is an egg-info installation' % e)
            if not e.endswith('.dist-info'):
                continue
            try:
                with open(os.path.join(where, e, 'METADATA'), encoding='utf-8') as f:
                    meta = meta_of(f.read())
            except OSError:
                raise Undecided('%s has no readable METADATA' % e)
            n = meta['Name']
            if not n or not meta['Version']:
                raise Undecided('%s names no distribution' % e)
            n = canon(n)
            if n in out:
                raise Undecided('%s is installed twice' % n)
            out[n] = Installed(where, e, meta)
    return out
def check_sizes(path, z):
    # from the central directory, before any member is read
    total = 0
    for zi in z.infolist():
        total += zi.file_size
        if zi.file_size > FLOOR and zi.file_size > RATIO * zi.compress_size:
            raise Refused('member %r unpacks to %d bytes from %d, more than '
                          '%d times its compressed size (a decompression '
                          'bomb); remove the wheel from the wheelhouse'
                          % (zi.filename, zi.file_size, zi.compress_size, RATIO),
                          path)
    if total > WHEEL_BYTES_MAX:
        raise Refused('it unpacks to %d bytes, more than the %d-byte cap; '
                      'remove the wheel from the wheelhouse'
                      % (total, WHEEL_BYTES_MAX), path)
def info_dir(w, names):
    # The plain case alone: one .dist-info, at the top, named for the
    # wheel's distribution and version, and no other .dist-info or
    # .egg-info anywhere (under .data/ too).  pip refuses some of the rest
    # ("multiple .dist-info directories"): it says so, not this.
    base = os.path.basename(w.path)
    tops = {n.split('/', 1)[0] for n in names}
    infos = [t for t in tops if t.endswith('.dist-info')]
    if len(infos) != 1:
        raise Undecided('%s: %d .dist-info directories' % (base, len(infos)))
    info = infos[0]
    n, _, v = info[:-10].rpartition('-')
    try:
        same = canon(n) == w.name and Version(v) == w.ver
    except InvalidVersion:
        same = False
    if not same:
        raise Undecided('%s: its .dist-info %s is not named for %s %s' % (base, info, w.name, w.ver))
    for m in names:
        parts = m.rstrip('/').split('/')
        if parts[0] == info:
            parts = parts[1:]
        if any(p.endswith(('.dist-info', '.egg-info')) for p in parts):
            raise Undecided('%s: it carries %s' % (base, m))
    return info
# pip 23's wheel.VERSION_COMPATIBLE: 1.x is installed, a newer 1.x with a
# warning, anything else is refused (by pip, which says why)
WHEEL_VERSION = (1, 0)
def wheel_version(w, whl):
    base = os.path.basename(w.path)
    text = (whl['Wheel-Version'] or '').strip()
    try:
        v = tuple(map(int, text.split('.')))
    except ValueError:
        raise Undecided('%s: Wheel-Version %r' % (base, text))
    if v[0] != WHEEL_VERSION[0]:
        raise Undecided('%s: Wheel-Version %s' % (base, text))
    if v > WHEEL_VERSION:
        w.warnings.append('WARNING: Installing from a newer Wheel-Version (%s)'
                          % '.'.join(map(str, v)))
def open_wheel(w):
    z = zipfile.ZipFile(w.path)
    check_sizes(w.path, z)
    info = info_dir(w, z.namelist())
    if info + '/RECORD' not in z.namelist():
        # pip refuses it after writing part of it: pip's to do
        raise Undecided('%s: no RECORD' % os.path.basename(w.path))
    try:
        meta = meta_of(z.read(info + '/METADATA').decode('utf-8'))
        whl = meta_of(z.read(info + '/WHEEL').decode('utf-8'))
    except Exception:
        raise Undecided('%s: unreadable METADATA or WHEEL' % os.path.basename(w.path))
    if canon(meta['Name'] or '') != w.name or Version(meta['Version'] or 'x') != w.ver:
        raise Undecided('%s: METADATA names another distribution' % os.path.basename(w.path))
    w.warnings = []
    wheel_version(w, whl)
    rp = meta['Requires-Python']
    if rp and not SpecifierSet(rp).contains(environment()['python_full_version'], prereleases=True):
        raise Undecided('%s requires Python %s' % (w.name, rp))
    w.zip, w.info, w.meta = z, info, meta
    w.purelib = (whl['Root-Is-Purelib'] or '').strip().lower() == 'true'
    return meta.get_all('Requires-Dist') or []
def preference(w):
    # pip 23's order (CandidateEvaluator._sort_key): version, then the tag
    # sys_tags() ranks first, then the build tag
    return (w.ver, w.rank, w.build)
def resolve(reqs, wh, inst, other=None):
    # inst: the target folders' distributions; other: {name: folder} of
    # those in every other folder on sys.path, which are pip's to weigh
    other = other or {}
    specs, chosen, order, queue = {}, {}, [], []
    notes = []
    for s in reqs:
        r = parse_req(s)
        if r is None:
            notes.append('Ignoring %s: markers do not match this environment' % s)
            continue
        queue.append(r + (s,))
    top = {q[0] for q in queue}
    while queue:
        name, spec, origin = queue.pop(0)
        specs[name] = specs.get(name, SpecifierSet()) & spec
        if name in chosen:
            if not specs[name].contains(chosen[name], prereleases=True):
                raise Undecided('%s %s was chosen before %r' % (name, chosen[name], origin))
            continue
        if name in other:
            raise Undecided('%s is installed in %s' % (name, other[name]))
        broken = name in inst and not inst[name].complete()
        if name in inst and not broken:
            v = inst[name].version
            if not specs[name].contains(v, prereleases=True):
                raise Undecided('installed %s %s does not satisfy %r' % (name, v, origin))
            chosen[name] = v
            notes.append('Requirement already satisfied: %s in %s (%s)' % (origin, inst[name].where, v))
            deps = inst[name].requires or []
        else:
            cands = [w for w in wh.get(name, []) if specs[name].contains(w.ver)]
            if not cands:
                raise Undecided('no wheel for %r' % origin)
            w = max(cands, key=preference)
            notes.append('Processing %s' % w.path)
            chosen[name] = w.ver
            deps = open_wheel(w)
            notes.extend(w.warnings)
            if broken:
                # installed again, over its own .dist-info alone
                if inst[name].info != w.info:
                    raise Undecided('%s %s is installed without a complete RECORD'
                                    % (name, inst[name].version))
                notes.append('%s %s has no complete RECORD: installing it again'
                             % (name, inst[name].version))
            w.requested = name in top
            order.append(w)
        for d in deps:
            r = parse_req(d)
            if r is not None:
                queue.append(r + (d,))
    return order, notes
def member_target(w, m, paths, sitekey):
    # (scheme, path parts inside it, destination) of member m
    bad = m.startswith('/') or '\\' in m or '\0' in m
    isdir = m.endswith('/')
    parts = m.rstrip('/').split('/')
    if bad or any(p in ('', '.', '..') for p in parts):
        raise Refused('member %r is not a plain relative path' % m)
    if isdir:
        return None
    # pip takes every top-level folder whose name ends in .data as the
    # data schemes, however it is spelled against the .dist-info
    if parts[0].endswith('.data'):
        if len(parts) < 3:
            raise Refused('member %r is not inside a .data scheme' % m)
        # scripts too: pip writes their #! lines (an exec wrapper where
        # the interpreter's path is long or has a space), not this
        if parts[1] not in SCHEMES:
            raise Undecided('%s installs %s files' % (w.name, parts[1]))
        key, rest = parts[1], parts[2:]
    else:
        key, rest = sitekey, parts
    dest = inside(paths[key], rest)
    if dest is None:
        raise Refused('member %r leaves %s' % (m, paths[key]))
    return key, rest, dest
REAL = {}
def real_dir(d):
    # realpath of a folder, once per folder until forget_dirs(): resolving
    # every member's whole path again was a third of the installer's time
    r = REAL.get(d)
    if r is None:
        r = REAL[d] = os.path.realpath(d)
    return r
def forget_dirs():
    REAL.clear()
def inside(base, rest):
    # base/rest when it stays under base once resolved, else None; the
    # last component itself may be a planted link: resolved on its own
    dest = os.path.join(base, *rest)
    full = os.path.join(real_dir(os.path.dirname(dest)), os.path.basename(dest))
    if os.path.islink(full):
        full = os.path.realpath(full)
    if not full.startswith(real_dir(base) + os.sep):
        return None
    return dest
def plan(w, paths):
    sitekey = 'purelib' if w.purelib else 'platlib'
    files, seen = [], set()
    for zi in w.zip.infolist():
        if zi.filename.endswith('/'):
            member_target(w, zi.filename, paths, sitekey)
            continue
        key, rest, dest = member_target(w, zi.filename, paths, sitekey)
        if dest in seen:
            raise Refused('member %r appears twice' % zi.filename)
        seen.add(dest)
        if key == sitekey and rest == [w.info, 'RECORD']:
            continue
        if key == sitekey and rest in ([w.info, 'INSTALLER'], [w.info, 'REQUESTED']):
            # pip installs the wheel's own, then writes its: two rows
            raise Undecided('%s carries %s' % (w.name, zi.filename))
        files.append((zi, key, rest, dest))
    w.old_record = old_record(w, {zi.filename for zi in w.zip.infolist()})
    eps = w.info + '/entry_points.txt'
    if eps in w.zip.namelist():
        import configparser
        cp = configparser.ConfigParser(delimiters=('=',), interpolation=None)
        cp.optionxform = str
        try:
            cp.read_string(w.zip.read(eps).decode('utf-8'))
        except Exception:
            raise Undecided('%s: unreadable entry_points.txt' % w.name)
        # launchers are pip's to write: byte for byte its own, with the
        # exec wrapper a long or spaced interpreter path needs
        if any(cp.has_section(sec) and cp.items(sec)
               for sec in ('console_scripts', 'gui_scripts')):
            raise Undecided('%s has entry points' % w.name)
    # staged files are renamed into place: one filesystem
    stage_dev = os.stat(existing(staging_root(paths))).st_dev
    for key in {f[1] for f in files}:
        if os.stat(existing(paths[key])).st_dev != stage_dev:
            raise Undecided('%s is on another filesystem than %s' % (paths[key], paths['purelib']))
    w.sitekey, w.site, w.files = sitekey, paths[sitekey], files
def old_record(w, members):
    # the wheel's RECORD rows, which pip keeps as they are (sha384, sha512
    # or a size it does not check); a row pip would warn about or fail on,
    # or one naming a file the wheel does not contain, is pip's to install
    import csv
    try:
        text = w.zip.read(w.info + '/RECORD').decode('utf-8')
        rows = list(csv.reader(text.splitlines()))
    except Exception:
        raise Undecided('%s: unreadable RECORD' % w.name)
    for r in rows:
        if len(r) != 3:
            raise Undecided('%s: a RECORD row of %d fields' % (w.name, len(r)))
        if r[0] not in members:
            raise Undecided('%s: its RECORD lists %s, which the wheel does not contain'
                            % (w.name, r[0]))
    return rows
def existing(d):
    # d, or its nearest parent that exists
    while not os.path.exists(d) and os.path.dirname(d) != d:
        d = os.path.dirname(d)
    return d
def staging_root(paths):
    return os.path.join(paths['purelib'], STAGING)
def member(w, zi):
    # the member in chunks of CHUNK
    with w.zip.open(zi) as f:
        head = f.read(CHUNK)
        while head:
            yield head
            head = f.read(CHUNK)
def write(path, data, mode, record=None, name=None):
    # data: bytes, or chunks of them (member()), hashed as they are
    # written; the RECORD row, under name, goes into record
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    h, size = hashlib.sha256(), 0
    try:
        os.fchmod(fd, mode)
        for chunk in ([data] if isinstance(data, bytes) else data):
            h.update(chunk)
            size += len(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    if record is not None:
        digest = base64.urlsafe_b64encode(h.digest()).rstrip(b'=').decode()
        record.append((name, 'sha256=' + digest, str(size)))
def compile_some(pys):
    import py_compile
    for src, dest in pys:
        try:
            py_compile.compile(src, dfile=dest, doraise=True)
        except Exception:
            pass
def compile_all(pys):
    # One process: two forked halves were measured no faster on this 2-CPU
    # machine shared with other work (5 runs each: 0.79-0.99 s serial,
    # 1.16-1.43 s forked).  A file that does not compile gets no .pyc, as
    # pip's compileall leaves it.  Each .pyc names the file's final path.
    hook('fw-compile')
    compile_some(pys)
def executable(zi):
    # pip's zip_item_is_executable: an executable bit counts only on a
    # member whose mode says it is a regular file
    import stat
    mode = zi.external_attr >> 16
    return bool(mode and stat.S_ISREG(mode) and mode & 0o111)
def stage_dir(w, paths):
    return os.path.join(staging_root(paths), w.info[:-10])
def install(w, paths):
    # every member into the staging folder; RECORD rows by final path
    print('Installing %s-%s (wheelhouse, pyrt)' % (w.info[:-10].rpartition('-')[0], w.ver))
    root = staging_root(paths)
    os.makedirs(root, mode=0o700, exist_ok=True)
    w.stage = stage_dir(w, paths)
    shutil.rmtree(w.stage, ignore_errors=True)
    os.mkdir(w.stage, 0o700)
    # member: its path from the site folder, as pip maps RECORD rows (the
    # wheel's RECORD is a member pip installs, then rewrites)
    installed, pys = {w.info + '/RECORD': w.info + '/RECORD'}, []
    for zi, key, rest, dest in w.files:
        hook('fw-member')
        staged = os.path.join(w.stage, key, *rest)
        mode = 0o755 if executable(zi) else 0o644
        write(staged, member(w, zi), mode)
        installed[zi.filename] = os.path.relpath(dest, w.site)
        if dest.endswith('.py'):
            # the code names it by its path from the site folder, as pip
            # compiles it (a .data file's: ".../dist-packages/../../..")
            pys.append((staged, os.path.join(w.site, os.path.relpath(dest, w.site))))
    w.installed, w.pys = installed, pys
def finish(w):
    # in staging, after the compile: RECORD as pip 23 writes it
    # (get_csv_rows_for_installed): the wheel's rows as they are, each
    # under its installed path; INSTALLER and REQUESTED hashed; every
    # installed file the wheel's RECORD omits, .pyc included, with no hash
    # or size; sorted, CRLF.  Then the rename: the staging folder is
    # complete once RECORD is there.
    import csv, io, importlib.util
    installed = dict(w.installed)
    for staged, dest in w.pys:
        if os.path.isfile(importlib.util.cache_from_source(staged)):
            pyc = importlib.util.cache_from_source(dest)
            installed[pyc] = os.path.relpath(pyc, w.site)
    record = []
    for path, digest, size in w.old_record:
        record.append((installed.pop(path, path), digest, size))
    infodir = os.path.join(w.stage, w.sitekey, w.info)
    hook('fw-installer')
    write(os.path.join(infodir, 'INSTALLER'), b'pyrt\n', 0o644, record, w.info + '/INSTALLER')
    if w.requested:
        write(os.path.join(infodir, 'REQUESTED'), b'', 0o644, record, w.info + '/REQUESTED')
    record.extend((p, '', '') for p in installed.values())
    out = io.StringIO()
    csv.writer(out).writerows(sorted(record))
    hook('fw-record')
    tmp = os.path.join(infodir, 'RECORD.tmp')
    write(tmp, out.getvalue().encode(), 0o644)
    os.rename(tmp, os.path.join(infodir, 'RECORD'))
def staged_info(stage):
    # (scheme, name) of the staged .dist-info, or None
    for key in ('purelib', 'platlib'):
        try:
            names = os.listdir(os.path.join(stage, key))
        except OSError:
            continue
        for n in names:
            if n.endswith('.dist-info'):
                return key, n
    return None
def commit(stage, paths):
    # a complete staging folder into place: the files, then the .dist-info
    # (over one of that name: a .dist-info without a complete RECORD, see
    # resolve()), then one fsync of the folder that holds it; the staging
    # folder goes last
    key, info = staged_info(stage)
    # checked again against the folders as they are now, not as planned
    forget_dirs()
    for scheme in SCHEMES:
        top = os.path.join(stage, scheme)
        for d, dirs, names in os.walk(top):
            rel = os.path.relpath(d, top).split(os.sep)
            rel = [] if rel == ['.'] else rel
            if scheme == key and rel[:1] == [info]:
                continue
            for n in names:
                dest = inside(paths[scheme], rel + [n])
                if dest is None:
                    raise OSError('staged %s leaves %s' % (os.path.join(d, n), paths[scheme]))
                hook('fw-move')
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                os.rename(os.path.join(d, n), dest)
    site = paths[key]
    target = os.path.join(site, info)
    hook('fw-dist-info')
    if os.path.lexists(target):
        # the old one out of the way, into staging (removed with it)
        old = os.path.join(stage, 'replaced')
        shutil.rmtree(old, ignore_errors=True)
        os.rename(target, old)
    os.rename(os.path.join(stage, key, info), target)
    fd = os.open(site, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    shutil.rmtree(stage)
def repair(paths):
    # what an earlier run left in staging: finished when its RECORD is
    # there (it may have moved files already), removed when it is not
    # (nothing of it was moved); lines saying which
    root = staging_root(paths)
    try:
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return []
    said = []
    for n in names:
        stage = os.path.join(root, n)
        if os.path.islink(stage) or not os.path.isdir(stage):
            os.unlink(stage)
            continue
        si = staged_info(stage)
        if si and os.path.exists(os.path.join(stage, si[0], si[1], 'RECORD')):
            commit(stage, paths)
            said.append('pyrt fast path: finished the interrupted install of %s' % n)
        else:
            shutil.rmtree(stage)
            # nothing of it was moved in, or all of it was
            said.append('pyrt fast path: removed the staging folder of %s, left by a '
                        'run that stopped' % n)
    try:
        os.rmdir(root)
    except OSError:
        pass
    return said
def bind_packaging(utils, tags, specifiers, version):
    # pip's vendored packaging at run time; the unit tests pass their own
    global parse_wheel_filename, sys_tags, SpecifierSet, Specifier, InvalidSpecifier, Version, InvalidVersion
    parse_wheel_filename = utils.parse_wheel_filename
    sys_tags = tags.sys_tags
    SpecifierSet, Specifier = specifiers.SpecifierSet, specifiers.Specifier
    InvalidSpecifier = specifiers.InvalidSpecifier
    Version, InvalidVersion = version.Version, version.InvalidVersion
def on_signal(signum, frame):
    raise Cancelled(signal.Signals(signum).name)
def run(order, paths, at):
    # every distribution staged, one compile, then each complete one moved
    # in, dependencies first; at[0]: the wheel at hand
    for w in order:
        at[0] = w
        install(w, paths)
    compile_all([p for w in order for p in w.pys])
    for w in order:
        at[0] = w
        finish(w)
    for w in reversed(order):
        at[0] = w
        commit(w.stage, paths)
    try:
        os.rmdir(staging_root(paths))
    except OSError:
        pass
def settle(paths):
    # after a failure or a signal: what is complete in staging goes in,
    # the rest goes (each distribution whole, or not at all)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        for line in repair(paths):
            print(line)
    except Exception as e:
        print('ERROR: the staging folder %s is left for the next run: %s: %s'
              % (staging_root(paths), type(e).__name__, e))
def main():
    if len(sys.argv) < 3 or sys.argv[2] != '--':
        print('ERROR: usage: WHEELHOUSE -- REQUIREMENT...')
        return FAILED
    # -S: site's start-up, and the .pth files it would run as whoever runs
    # pyrt, stay out; its folders go on sys.path here, where pip lives
    import site
    sitedirs = site.getsitepackages()
    sys.path.extend(p for p in sitedirs if p not in sys.path)
    try:
        from pip._vendor.packaging import utils, tags, specifiers, version
        bind_packaging(utils, tags, specifiers, version)
    except ImportError as e:
        print('pyrt fast path: %s; pip decides' % e)
        return UNDECIDED
    paths = sysconfig.get_paths()
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        # an interrupted run first: pip, too, then sees it whole or not at all
        for line in repair(paths):
            print(line)
    except Cancelled as e:
        settle(paths)
        print('ERROR: cancelled (%s) while finishing an interrupted install' % e)
        return CANCELLED
    except Exception as e:
        print('ERROR: an interrupted install in %s could not be finished: %s: %s'
              % (staging_root(paths), type(e).__name__, e))
        return FAILED
    w = None
    try:
        targets = list(dict.fromkeys([paths['purelib'], paths['platlib']]))
        inst = installed(targets)
        other = elsewhere(targets, sitedirs)
        order, notes = resolve(sys.argv[3:], wheelhouse(sys.argv[1]), inst, other)
        for w in order:
            plan(w, paths)
    except Cancelled as e:
        print('ERROR: cancelled (%s) before anything was installed' % e)
        return CANCELLED
    except Undecided as e:
        print('pyrt fast path: not decided (%s); pip decides' % e)
        return UNDECIDED
    except Refused as e:
        print('ERROR: wheel %s refused: %s' % (os.path.basename(e.wheel or w.path), e))
        return REFUSED
    except Exception as e:
        print('pyrt fast path: not decided (%s: %s); pip decides' % (type(e).__name__, e))
        return UNDECIDED
    for n in notes:
        print(n)
    if not order:
        return 0
    print('Installing collected packages: %s' % ', '.join(w.meta['Name'] for w in order))
    at = [order[0]]
    try:
        run(order, paths, at)
    except Cancelled as e:
        settle(paths)
        print('ERROR: cancelled (%s); each distribution is installed whole or not at all' % e)
        return CANCELLED
    except Exception as e:
        settle(paths)
        print('ERROR: installing %s failed: %s: %s' % (os.path.basename(at[0].path), type(e).__name__, e))
        return FAILED
    print('Successfully installed %s' % ' '.join('%s-%s' % (w.meta['Name'], w.ver) for w in order))
    return 0
if __name__ == '__main__':
    sys.exit(main())
