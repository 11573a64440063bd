# The wheelhouse installer (core/fastwheel.h): pyrt runs it in the managed
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
import os, sys, re, zipfile, base64, hashlib, sysconfig
UNDECIDED, REFUSED, FAILED = 3, 4, 5
class Undecided(Exception): pass
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
# size (PYRT_EXTRACT_DEFAULT_BYTES, core/extract.h), far above any wheel.
RATIO, FLOOR = 200, 1 << 20
WHEEL_BYTES_MAX = 1 << 30
CHUNK = 1 << 20
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
    def __init__(self, where, meta):
        self.where, self.version = where, meta['Version']
        self.requires = meta.get_all('Requires-Dist')
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
            out[n] = Installed(where, meta)
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
def open_wheel(w):
    z = zipfile.ZipFile(w.path)
    check_sizes(w.path, z)
    tops = {n.split('/', 1)[0] for n in z.namelist()}
    infos = [t for t in tops if t.endswith('.dist-info') and
             canon(t[:-10].rpartition('-')[0]) == w.name]
    if len(infos) != 1:
        raise Undecided('%s: no single .dist-info' % os.path.basename(w.path))
    info = infos[0]
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
    if (whl['Wheel-Version'] or '').split('.')[0].strip() != '1':
        raise Undecided('%s: wheel version %s' % (os.path.basename(w.path), whl['Wheel-Version']))
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
def resolve(reqs, wh, inst):
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
        if name in inst:
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
            w.requested = name in top
            order.append(w)
        for d in deps:
            r = parse_req(d)
            if r is not None:
                queue.append(r + (d,))
    return order, notes
def member_target(w, m, paths, site):
    bad = m.startswith('/') or '\\' in m or '\0' in m
    isdir = m.endswith('/')
    parts = m.rstrip('/').split('/')
    if bad or any(p in ('', '.', '..') for p in parts):
        raise Refused('member %r is not a plain relative path' % m)
    data = w.info[:-10] + '.data'
    if isdir:
        return None, False
    if parts[0] == data:
        if len(parts) < 3:
            raise Refused('member %r is not inside a .data scheme' % m)
        # scripts too: pip writes their #! lines (an exec wrapper where
        # the interpreter's path is long or has a space), not this
        if parts[1] not in ('purelib', 'platlib', 'data'):
            raise Undecided('%s installs %s files' % (w.name, parts[1]))
        base, rest = paths[parts[1]], parts[2:]
    else:
        base, rest = site, parts
    dest = os.path.join(base, *rest)
    real = os.path.realpath(base)
    if not os.path.realpath(dest).startswith(real + os.sep):
        raise Refused('member %r leaves %s' % (m, base))
    return dest
def plan(w, paths):
    site = paths['purelib'] if w.purelib else paths['platlib']
    files, seen = [], set()
    for zi in w.zip.infolist():
        if zi.filename.endswith('/'):
            member_target(w, zi.filename, paths, site)
            continue
        dest = member_target(w, zi.filename, paths, site)
        if dest in seen:
            raise Refused('member %r appears twice' % zi.filename)
        seen.add(dest)
        top = zi.filename.split('/')[0]
        if top == w.info and zi.filename.split('/')[-1] in ('RECORD', 'INSTALLER', 'REQUESTED'):
            continue
        files.append((zi, dest, top == w.info))
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
    w.site, w.files = site, files
def member(w, zi):
    # the member in chunks of CHUNK
    with w.zip.open(zi) as f:
        head = f.read(CHUNK)
        while head:
            yield head
            head = f.read(CHUNK)
def write(dest, data, mode, record, site):
    # data: bytes, or chunks of them (member()), hashed as they are written
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
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
    digest = base64.urlsafe_b64encode(h.digest()).rstrip(b'=').decode()
    record.append((os.path.relpath(dest, site), 'sha256=' + digest, str(size)))
def compile_some(pys):
    import py_compile
    for p in pys:
        try:
            py_compile.compile(p, doraise=True)
        except Exception:
            pass
def compile_all(pys):
    # One process: two forked halves were measured no faster on this 2-CPU
    # machine shared with other work (5 runs each: 0.79-0.99 s serial,
    # 1.16-1.43 s forked).  A file that does not compile gets no .pyc, as
    # pip's compileall leaves it.
    compile_some(pys)
def install(w, paths):
    # the package's files; the .dist-info waits for finish()
    print('Installing %s-%s (wheelhouse, pyrt)' % (w.info[:-10].rpartition('-')[0], w.ver))
    record, later, pys = [], [], []
    for zi, dest, info in w.files:
        if info:
            later.append((zi, dest))
            continue
        mode = 0o755 if (zi.external_attr >> 16) & 0o111 else 0o644
        write(dest, member(w, zi), mode, record, w.site)
        if dest.endswith('.py'):
            # by its path from the site folder, as pip compiles it (a .data
            # file's code then names it ".../dist-packages/../../..")
            pys.append(os.path.join(w.site, os.path.relpath(dest, w.site)))
    w.record, w.later, w.pys = record, later, pys
def finish(w):
    # after the compile: the .pyc in RECORD, then the .dist-info, RECORD last
    import csv, io, importlib.util
    record, later = w.record, w.later
    # a .pyc's row has no hash or size, as pip writes it: Python rewrites
    # the cache whenever its source changes (tests/e2e_fastwheel_diff.sh)
    for p in w.pys:
        c = importlib.util.cache_from_source(p)
        if os.path.isfile(c):
            record.append((os.path.relpath(c, w.site), '', ''))
    for zi, dest in later:
        write(dest, member(w, zi), 0o644, record, w.site)
    infodir = os.path.join(w.site, w.info)
    write(os.path.join(infodir, 'INSTALLER'), b'pyrt\n', 0o644, record, w.site)
    if w.requested:
        write(os.path.join(infodir, 'REQUESTED'), b'', 0o644, record, w.site)
    rec = os.path.join(infodir, 'RECORD')
    record.append((os.path.relpath(rec, w.site), '', ''))
    out = io.StringIO()
    csv.writer(out, lineterminator='\n').writerows(record)
    write(rec, out.getvalue().encode(), 0o644, [], w.site)
def bind_packaging(utils, tags, specifiers, version):
    # pip's vendored packaging at run time; the unit tests pass their own
    global parse_wheel_filename, sys_tags, SpecifierSet, Specifier, InvalidSpecifier, Version, InvalidVersion
    parse_wheel_filename = utils.parse_wheel_filename
    sys_tags = tags.sys_tags
    SpecifierSet, Specifier = specifiers.SpecifierSet, specifiers.Specifier
    InvalidSpecifier = specifiers.InvalidSpecifier
    Version, InvalidVersion = version.Version, version.InvalidVersion
def main():
    if len(sys.argv) < 3 or sys.argv[2] != '--':
        print('ERROR: usage: WHEELHOUSE -- REQUIREMENT...')
        return FAILED
    # -S: site's start-up, and the .pth files it would run as whoever runs
    # pyrt, stay out; its folders go on sys.path here, where pip lives
    import site
    sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)
    try:
        from pip._vendor.packaging import utils, tags, specifiers, version
        bind_packaging(utils, tags, specifiers, version)
    except ImportError as e:
        print('pyrt fast path: %s; pip decides' % e)
        return UNDECIDED
    paths = sysconfig.get_paths()
    try:
        inst = installed(list(dict.fromkeys([paths['purelib'], paths['platlib']])))
        order, notes = resolve(sys.argv[3:], wheelhouse(sys.argv[1]), inst)
        for w in order:
            plan(w, paths)
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
    try:
        for w in order:
            install(w, paths)
        compile_all([p for w in order for p in w.pys])
        for w in order:
            finish(w)
    except Exception as e:
        print('ERROR: installing %s failed: %s: %s' % (os.path.basename(w.path), type(e).__name__, e))
        return FAILED
    print('Successfully installed %s' % ' '.join('%s-%s' % (w.meta['Name'], w.ver) for w in order))
    return 0
if __name__ == '__main__':
    sys.exit(main())
