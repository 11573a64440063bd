# The plugin requirement checker (core/pkgs/plugins.c, check_argv), run as
#   python3 -I -S -c <this file> REQUIREMENT...
# It runs with -S, and puts the site-packages directories on sys.path
# itself: site's start-up would also run every .pth file an installed
# package left there, as whoever runs pyrt.  It prints one line,
# "PYRT-PLUGINS " (plugins.c's RESULT_TAG) and JSON:
#   {"results": {spec: {name, installed, ok, applies, error[, broken]}},
#    "seen": ...}
#   or {"error": "..."} when it cannot check at all.  broken names an
# installed distribution that cannot be judged, and why.
# Imports stay inside check() so a broken runtime still answers, and pip's
# packaging (the costly import) is loaded only for requirements that are
# more than a bare name; names are normalised as packaging's
# canonicalize_name does (PEP 503).
import sys, re, site
sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)
BARE = re.compile(r'\s*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])\s*$')
def load_packaging():
    try:
        from pip._vendor.packaging.requirements import Requirement
    except ImportError:
        try:
            from packaging.requirements import Requirement
        except ImportError:
            return None
    return Requirement
def intact(dist):
    """Installed means a RECORD whose files are all there (core/runtime/dists.c's
    dist_intact): bytecode caches and absolute paths aside."""
    import os
    if not str(getattr(dist, '_path', '')).endswith('.dist-info'):
        return True  # an egg-info has no RECORD to hold it to
    files = dist.files
    if not files:
        return False
    # the paths its wheel never held, as pyrt found them (dists.h's
    # PYRT_DISTS_WHEEL_FAULTS): as whole as its wheel makes it
    faults = set((dist.read_text('PYRT-WHEEL-FAULTS') or '').split('\n'))
    for f in files:
        p = str(f)
        if p.endswith('.pyc') or p.startswith('/'):
            continue
        if not os.path.lexists(dist.locate_file(f)) and p not in faults:
            return False
    return True
def check(specs):
    from importlib import metadata
    Requirement = None
    out = {}
    for s in specs:
        r = out[s] = {'name': None, 'installed': None, 'ok': False,
                      'applies': True, 'error': None}
        bare = BARE.match(s)
        if bare:
            name, req = bare.group(1), None
        else:
            Requirement = Requirement or load_packaging()
            if Requirement is None:
                return {'error': "neither pip's vendored packaging "
                                 "nor packaging can be imported"}
            try:
                req = Requirement(s)
                name = req.name
                if req.marker is not None:
                    r['applies'] = bool(req.marker.evaluate({'extra': ''}))
            except Exception as e:
                r['error'] = (str(e).splitlines() or [type(e).__name__])[0]
                continue
        r['name'] = re.sub(r'[-_.]+', '-', name).lower()
        try:
            v = metadata.version(name)
            if not intact(metadata.distribution(name)):
                v = None
        except metadata.PackageNotFoundError:
            v = None
        except Exception as e:
            # One installed distribution that cannot be read (METADATA
            # that is not UTF-8, say) is this requirement's answer, not
            # the whole run's: the other requirements still get theirs.
            r['broken'] = 'the installed %s cannot be read (%s): %s' % (
                r['name'], dist_path(metadata, name), first_line(e))
            continue
        r['installed'] = v
        if v is None or req is None:
            r['ok'] = v is not None
            continue
        try:
            r['ok'] = req.specifier.contains(v, prereleases=True)
        except Exception as e:
            # packaging 22 and later raise on a version that is not
            # PEP 440 where 21 said "no": no such version satisfies.
            r['broken'] = ('the installed %s %s (%s) has no PEP 440 '
                           'version, so it cannot satisfy "%s": %s' % (
                               r['name'], v, dist_path(metadata, name),
                               req.specifier, first_line(e)))
    return {'results': out}
def first_line(e):
    return (str(e).splitlines() or [type(e).__name__])[0]
def dist_path(metadata, name):
    """Where the distribution named name lives, for the message."""
    try:
        return str(getattr(metadata.distribution(name), '_path', '?'))
    except Exception:
        return '?'
def fnv1a64(data):
    """core/util/cache_seal.c's checksum, so both sides name bytes alike."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def meta_identity(path, s, now_ns):
    """What an answer about one distribution is computed from: its
    METADATA (PKG-INFO for an egg-info folder; the entry itself when it is
    a file) by inode, size, mtime and ctime.  ctime changes on every write
    and cannot be set back, so a rewrite in place with the old size and
    mtime is seen.  A file changed in the last 2 s may yet change again
    within the same clock tick (git's racily clean rule): its bytes are
    named too, as core/pkgs/plugins_memo.c does."""
    import os
    import stat
    f = path
    if stat.S_ISDIR(s.st_mode):
        f = os.path.join(path, 'PKG-INFO' if path.endswith('.egg-info') else 'METADATA')
        try:
            s = os.stat(f, follow_symlinks=False)
        except OSError:
            return '-'
    meta = '%d %d %d %d' % (s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)
    if s.st_ctime_ns > now_ns - 2 * 10**9:
        try:
            with open(f, 'rb') as h:
                meta += ' B %016x' % fnv1a64(h.read(1 << 20))
        except OSError:
            meta += ' B ?'
    return meta


def seen():
    import os
    import time
    now_ns = time.time_ns()
    out = []
    for p in sys.path:
        if not p.startswith('/'):
            continue
        lines = []
        try:
            if os.path.isdir(p):
                for n in sorted(e.name for e in os.scandir(p)
                                if e.name.endswith(('.dist-info', '.egg-info'))):
                    s = os.stat(os.path.join(p, n), follow_symlinks=False)
                    meta = meta_identity(os.path.join(p, n), s, now_ns)
                    lines.append('E %s %d %d %s' % (n, s.st_ino, s.st_mtime_ns, meta))
            else:
                s = os.stat(p)
                lines.append('F %d %d %d' % (s.st_ino, s.st_size, s.st_mtime_ns))
        except OSError:
            lines = ['M']
        out += ['P ' + p] + lines
    return ''.join(l + '\n' for l in out)
try:
    before = seen()
    res = check(sys.argv[1:])
    if 'results' in res:
        res['seen'] = before
except Exception as e:
    res = {'error': '%s: %s' % (type(e).__name__, e)}
import json
sys.stdout.write('\nPYRT-PLUGINS ' + json.dumps(res) + '\n')
