# The wheel lock's closure (core/pkgs/wheellock.c, closure_run), run in the
# managed interpreter as
#   python3 -I -S -B -c <this file> WHEELDIR -- NAME==VERSION... -- REQUIREMENT...
# WHEELDIR is the private copy of the locked wheels ("" when pip reads an
# index and no wheel is at hand); the NAME==VERSION arguments are the lock
# of this platform; every string reaches it as data (sys.argv).
#
# It answers whether the lock can satisfy the requirements as they are
# written (each version specifier and extra by the locked version), and
# which locked projects they need: the requested ones and, read from the
# Requires-Dist of the locked wheels' METADATA, their dependencies, with
# markers evaluated for this interpreter by pip's own packaging (what pip
# would decide).  It prints one line, "PYRT-LOCK " and JSON:
#   {"install": [[name, [extra, ...]], ...], "closed": true|false,
#    "warnings": [...]}
#   {"refuse": {"req", "name", "locked", "why", "detail"}}
#   {"error": "..."}   (it cannot decide at all)
# "closed" is false without WHEELDIR: no METADATA to close the set with;
# unless WHEELDIR is instead a JSON object {name: [Requires-Dist, ...]} of
# every locked project, what `pyrt lock` recorded from the wheels (pip
# then reads an index): the set is closed over those.
# An extra the locked wheel does not provide is a warning, as pip and uv
# make it.  why: "version" (the locked version is outside the specifier),
# "missing" (a dependency the
# lock lacks), "marker" (a marker that cannot be evaluated), "nowheel" (no
# locked wheel of the project fits this interpreter), "metadata" (a locked
# wheel whose METADATA cannot be read).
import json, os, re, sys, site, zipfile
TAG = 'PYRT-LOCK '
def canon(n): return re.sub(r'[-_.]+', '-', n).lower()
def out(obj):
    print(TAG + json.dumps(obj, sort_keys=True))
    return 0
def first_line(e):
    return (str(e).splitlines() or [type(e).__name__])[0][:200]
class Refuse(Exception):
    def __init__(self, req, name, locked, why, detail=''):
        Exception.__init__(self, why)
        self.obj = {'req': req, 'name': name, 'locked': locked, 'why': why,
                    'detail': detail}
def metadata(wheels, name, req):
    # the Requires-Dist and Provides-Extra of the locked wheel of name pip
    # would pick here (the tag sys_tags ranks first)
    from pip._vendor.packaging.tags import sys_tags
    from pip._vendor.packaging.utils import parse_wheel_filename
    ranks = {t: i for i, t in enumerate(sys_tags())}
    best = None
    for path in wheels.get(name, []):
        _, _, _, tags = parse_wheel_filename(os.path.basename(path))
        r = min((ranks[t] for t in tags if t in ranks), default=None)
        if r is not None and (best is None or r < best[0]):
            best = (r, path)
    if best is None:
        raise Refuse(req, name, None, 'nowheel')
    path = best[1]
    try:
        with zipfile.ZipFile(path) as z:
            infos = [n for n in z.namelist()
                     if n.count('/') == 1 and n.endswith('.dist-info/METADATA')]
            if len(infos) != 1:
                raise ValueError('%d .dist-info/METADATA members' % len(infos))
            text = z.read(infos[0]).decode('utf-8')
        from email.parser import HeaderParser
        m = HeaderParser().parsestr(text)
    except Exception as e:
        raise Refuse(req, name, None, 'metadata',
                     '%s: %s' % (os.path.basename(path), first_line(e)))
    return (m.get_all('Requires-Dist') or [],
            {canon(x) for x in (m.get_all('Provides-Extra') or [])})
def applies(req, origin, extras):
    # a marker, for this interpreter, with extra as pip sets it: no extra,
    # or each extra asked of the project that declares the dependency
    if req.marker is None:
        return True
    try:
        return any(req.marker.evaluate({'extra': e})
                   for e in [''] + sorted(extras))
    except Exception as e:
        raise Refuse(origin, canon(req.name), None, 'marker',
                     '%s: %s' % (req.marker, first_line(e)))
def closure(wheels, locked, reqs, recorded=None):
    from pip._vendor.packaging.requirements import Requirement
    chosen = {}    # name: set of extras asked
    order, warnings = [], []
    queue = []
    for s in reqs:
        try:
            r = Requirement(s)
        except Exception as e:
            return {'error': '%s: %s' % (s, first_line(e))}
        if applies(r, s, ()):
            queue.append((r, s, None))
    while queue:
        r, origin, parent = queue.pop(0)
        name = canon(r.name)
        if name not in locked:
            raise Refuse(origin, name, None, 'missing', parent or '')
        ver = locked[name]
        if not r.specifier.contains(ver, prereleases=True):
            raise Refuse(origin, name, ver, 'version', parent or '')
        asked = {canon(e) for e in r.extras}
        seen = chosen.get(name)
        if seen is not None and asked <= seen:
            continue
        new = asked - (seen or set())
        if seen is None:
            order.append(name)
        chosen[name] = now = (seen or set()) | asked
        if recorded is not None:
            # the Requires-Dist pyrt lock recorded from the locked wheel
            deps, provides = recorded.get(name, []), None
        elif not wheels:
            continue
        else:
            deps, provides = metadata(wheels, name, origin)
        for e in sorted(new):
            if provides is not None and e not in provides:
                # pip (and uv) install the project without it, with a
                # warning: so does a locked install, saying so
                warnings.append('%s %s does not provide the extra %r (asked '
                                'by %s)' % (name, ver, e, origin))
        # the first visit reads the plain dependencies; a later one only
        # what its new extras add
        for d in deps:
            try:
                dr = Requirement(d)
            except Exception as e:
                # most often a marker pip's packaging cannot read
                raise Refuse(d, name, ver, 'marker' if ';' in d else 'metadata',
                             'Requires-Dist of %s %s: %s' % (name, ver, first_line(e)))
            was = seen is not None and applies(dr, d, seen)
            if not was and applies(dr, d, now):
                queue.append((dr, d, '%s %s' % (name, ver)))
    return {'install': [[n, sorted(chosen[n])] for n in order],
            'closed': bool(wheels) or recorded is not None,
            'warnings': warnings}
def main():
    a = sys.argv[1:]
    if len(a) < 2 or a[1] != '--' or '--' not in a[2:]:
        return out({'error': 'usage: WHEELDIR -- NAME==VERSION... -- REQUIREMENT...'})
    sep = a.index('--', 2)
    wheeldir, pairs, reqs = a[0], a[2:sep], a[sep + 1:]
    recorded = None
    if wheeldir.startswith('{'):
        try:
            recorded = {canon(k): [str(r) for r in v]
                        for k, v in json.loads(wheeldir).items()}
        except Exception as e:
            return out({'error': 'the recorded Requires-Dist cannot be '
                                 'read (%s)' % first_line(e)})
        wheeldir = ''
    sys.path.extend(p for p in site.getsitepackages() if p not in sys.path)
    locked = {}
    for p in pairs:
        n, _, v = p.partition('==')
        locked[canon(n)] = v
    wheels = {}
    if wheeldir:
        for f in sorted(os.listdir(wheeldir)):
            if f.endswith('.whl'):
                wheels.setdefault(canon(f.split('-', 1)[0]), []).append(
                    os.path.join(wheeldir, f))
    try:
        return out(closure(wheels, locked, reqs, recorded))
    except Refuse as e:
        return out({'refuse': e.obj})
    except ImportError as e:
        return out({'error': "pip's vendored packaging cannot be imported "
                             "(%s)" % first_line(e)})
if __name__ == '__main__':
    sys.exit(main())
