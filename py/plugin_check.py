# The plugin requirement checker (core/plugins.c, check_argv), run as
#   python3 -I -S -c <this file> REQUIREMENT...
# It runs with -S, and puts the site-packages directories on sys.path
# itself: site's start-up would also run every .pth file an installed
# package left there, as whoever runs pyrt.  It prints one line,
# "PYRT-PLUGINS " (plugins.c's RESULT_TAG) and JSON:
#   {"results": {spec: {name, installed, ok, applies, error}}, "seen": ...}
#   or {"error": "..."} when it cannot check at all.
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
        except metadata.PackageNotFoundError:
            v = None
        r['installed'] = v
        r['ok'] = v is not None and (req is None or
                   req.specifier.contains(v, prereleases=True))
    return {'results': out}
def seen():
    import os
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
                    lines.append('E %s %d %d' % (n, s.st_ino, s.st_mtime_ns))
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
